/**
 * Reads a vendor's API description for `init --openapi`: a file or an http(s) URL, OpenAPI 3.0 or 3.1, JSON or YAML,
 * parsed, validated and dereferenced by @readme/openapi-parser (a $ref is followed, so each operation's schemas are
 * plain objects here). Swagger 2.0 and anything else is refused with the reason.
 */
import { dereference, validate } from '@readme/openapi-parser';
import { UsageError } from '../cli/args.js';

export type Doc = Record<string, unknown>;

/** The description, dereferenced; `source` names it in every evidence line (file path or URL). */
export async function readOpenApi(source: string): Promise<{ doc: Doc; source: string; warnings: string[] }> {
  const options = { resolve: { http: { timeout: 20_000 } }, timeoutMs: 30_000 };
  let checked: Awaited<ReturnType<typeof validate>>;
  try {
    checked = await validate(source, options);
  } catch (err) {
    throw new UsageError(`--openapi ${source}: cannot be read (${(err as Error).message.split('\n')[0]})`);
  }
  if (checked.specification !== 'OpenAPI')
    throw new UsageError(`--openapi ${source}: not an OpenAPI 3.0 or 3.1 document (Swagger 2.0 is not read)`);
  // An invalid description is still read where it can be: what it says is checked by probes, and its problems are shown.
  const warnings = [
    ...(checked.valid ? [] : checked.errors.map((e) => `invalid: ${e.message.split('\n')[0]}`)),
    ...checked.warnings.map((w) => w.message.split('\n')[0]!),
  ];
  let doc: Doc;
  try {
    doc = (await dereference(source, { ...options, dereference: { circular: 'ignore' } })) as unknown as Doc;
  } catch (err) {
    throw new UsageError(`--openapi ${source}: its references cannot be resolved (${(err as Error).message.split('\n')[0]})`);
  }
  const version = String(doc['openapi'] ?? '');
  if (!/^3\.[01]\./.test(version))
    throw new UsageError(`--openapi ${source}: OpenAPI ${version || '(no version)'} is not read (3.0 and 3.1 are)`);
  return { doc, source, warnings };
}

/** RFC 6901: a JSON pointer's segment. */
export function seg(s: string): string {
  return s.replace(/~/g, '~0').replace(/\//g, '~1');
}
