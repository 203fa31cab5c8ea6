import { readFileSync, writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { stringify } from 'yaml';
import { describeOpenApi } from '../openapi/write.js';
import { loadProfile, ProfileError } from '../profile/load.js';
import { flagsHelp, parseFlags, UsageError, type FlagTable } from './args.js';

export const DESCRIBE_FLAGS = {
  profile: { kind: 'value', arg: 'FILE', help: 'the target profile to describe' },
  openapi: {
    kind: 'value',
    arg: 'FILE',
    help: 'write the OpenAPI 3.1 description there: YAML for .yaml/.yml, JSON for .json, - for YAML on stdout',
  },
  server: { kind: 'value', arg: 'URL', help: 'the server URL to write (default: the profile\'s baseUrl; needed for baseUrl "embedded")' },
} as const satisfies FlagTable;

export const DESCRIBE_HELP = `mpsi-conformance describe --profile FILE --openapi OUT [options]

Writes the target's interface as its profile describes it, as an OpenAPI 3.1 document: every operation the
profile has a path for (templated paths with their path parameters), the request and record schemas from its
templates and data paths, the four signing headers, the envelope, the error catalogue (codes and keys, per
operation: x-mpsi-errors), and the webhook events (webhooks). Channel limits and price points are written in
the operations' descriptions and in x-mpsi-limits / x-mpsi-price-points. No secret is read or written.
A vendor publishes it; merchants generate clients or mocks from it; init --openapi reads it back.

${flagsHelp(DESCRIBE_FLAGS)}
Exit codes: 0 written, 2 bad flags or a profile that does not load.
`;

/** Every secretEnv of the profile the environment lacks, set to a stand-in: describe reads no secret. */
function standInSecrets(file: string): NodeJS.ProcessEnv {
  const env = { ...process.env };
  let text = '';
  try {
    text = readFileSync(file, 'utf8');
  } catch {
    return env;
  }
  for (const m of text.matchAll(/"(?:secretEnv|productionSecretEnv)"\s*:\s*"([A-Za-z_][A-Za-z0-9_]*)"/g))
    if (!env[m[1]!]) env[m[1]!] = 'describe-reads-no-secret';
  return env;
}

export async function describeMain(argv: string[]): Promise<number> {
  const { flags, rest } = parseFlags(argv, DESCRIBE_FLAGS);
  if (flags.help) {
    process.stdout.write(DESCRIBE_HELP);
    return 0;
  }
  if (rest.length > 0) throw new UsageError(`unexpected argument ${JSON.stringify(rest[0])}`);
  if (!flags.profile || !flags.openapi) throw new UsageError('describe needs --profile FILE and --openapi OUT');
  const file = resolve(flags.profile);
  let loaded: ReturnType<typeof loadProfile>;
  try {
    loaded = loadProfile(file, standInSecrets(file));
  } catch (err) {
    if (err instanceof ProfileError) throw new UsageError(`the profile does not load:\n  ${err.problems.join('\n  ')}`);
    throw err;
  }
  if (loaded.profile.baseUrl === 'embedded' && !flags.server)
    process.stderr.write('describe: the profile\'s baseUrl is "embedded"; the server is written as http://127.0.0.1 (give --server URL)\n');
  const doc = describeOpenApi(loaded.profile, flags.server);
  const out = flags.openapi;
  const text = /\.json$/i.test(out) ? `${JSON.stringify(doc, null, 2)}\n` : stringify(doc, { aliasDuplicateObjects: false, lineWidth: 0 });
  if (out === '-') process.stdout.write(text);
  else {
    writeFileSync(resolve(out), text);
    process.stdout.write(`wrote ${resolve(out)} (OpenAPI 3.1, ${Object.keys(doc['paths'] as object).length} operations)\n`);
  }
  return 0;
}
