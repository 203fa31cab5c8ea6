/**
 * Which of a description's operations is which of the interface's: by path (the document's two), operationId, summary
 * and the request's fields (a merchant refund number makes a refund, a card object a card payment). Each operation is
 * given at most one interface operation, each interface operation the best-scored one; a tie is left unmatched and said.
 */
import { OPERATIONS, type Operation } from './errors.js';
import type { Doc } from './read.js';
import { effectivePath, flat } from './shapes.js';

export interface DocOperation {
  /** The path as a profile writes it: the server's path prefix before it, its parameters named as the interface's numbers. */
  path: string;
  /** The path as the description writes it, under its server. */
  rawPath: string;
  /** Path parameters neither name nor description places: the path is not told. */
  unknownParams: string[];
  method: string;
  /** JSON pointer of the operation object. */
  pointer: string;
  op: Record<string, unknown>;
}

const DOCUMENT_PATHS: Partial<Record<Operation, string>> = {
  checkout: '/api/v1/payments/checkout',
  paymentQuery: '/api/v1/payments/query',
};

/** The description's operations, each path as a profile writes it relative to a base URL ending with `base`. */
export function operationsOf(doc: Doc, base = ''): DocOperation[] {
  const out: DocOperation[] = [];
  for (const [path, item] of Object.entries((doc['paths'] ?? {}) as Record<string, Record<string, unknown>>))
    for (const method of ['post', 'get', 'put', 'patch', 'delete']) {
      const op = item?.[method];
      if (op && typeof op === 'object') {
        const effective = effectivePath(doc, path, item, op as Record<string, unknown>, base);
        out.push({
          path: effective.path,
          rawPath: path,
          unknownParams: effective.unknown,
          method,
          pointer: `/paths/${path.replace(/~/g, '~0').replace(/\//g, '~1')}/${method}`,
          op: op as Record<string, unknown>,
        });
      }
    }
  return out;
}

/** The request body's top-level property names (the JSON media type's schema, dereferenced). */
export function requestFields(o: DocOperation): string[] {
  const schema = requestSchemaOf(o);
  return Object.keys((schema?.['properties'] as Record<string, unknown> | undefined) ?? {});
}

export function requestSchemaOf(o: DocOperation): Record<string, unknown> | undefined {
  const content = ((o.op['requestBody'] as Record<string, unknown> | undefined)?.['content'] ?? {}) as Record<
    string,
    Record<string, unknown>
  >;
  const media = content['application/json'] ?? Object.values(content)[0];
  const schema = media?.['schema'] as Record<string, unknown> | undefined;
  return schema ? flat(schema) : undefined;
}

const words = (s: string) =>
  s
    .replace(/([a-z])([A-Z])/g, '$1 $2')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, ' ');

/** A sandbox's own operation (tagged so, or carrying the controls `describe` writes): never one of the interface's. */
export function isSandboxOperation(op: Record<string, unknown>): boolean {
  return (
    !!op['x-mpsi-sandbox-controls'] ||
    ((op['tags'] as unknown[] | undefined) ?? []).some((t) => /^(sandbox|test(ing)?|simulat)/i.test(String(t)))
  );
}

/** How well a description's operation fits one of the interface's; 0 when it cannot be it. */
export function score(o: DocOperation, target: Operation): number {
  if (isSandboxOperation(o.op)) return 0;
  const id = String(o.op['operationId'] ?? '');
  if (id && words(id).replace(/ /g, '') === target.toLowerCase()) return 100;
  if (DOCUMENT_PATHS[target] === o.path) return 90;
  // The path's words without its parameters: `{merchant_refund_no}` says what the path carries, not what it is.
  const text = words(`${o.rawPath.replace(/\{[^{}]*\}/g, ' ')} ${id} ${String(o.op['summary'] ?? '')}`);
  // A balance, an account or a statement is none of the interface's resources, whatever resource its words name
  // (a payout balance query is not the payout query).
  if (/\b(balances?|accounts?|statements?|settlements?|reports?|webhooks?|notifications?)\b/.test(text)) return 0;
  const fields = requestFields(o).join(' ');
  const refund = /refund/.test(text) || /merchant_refund_no|refund_no/.test(fields);
  const payout = /payout|disburse|transfer|withdraw/.test(text) || /merchant_payout_no|payout_no/.test(fields);
  const card = /\bcards?\b/.test(text) || /\bcard\b/.test(fields);
  const cancel = /cancel|void|revoke/.test(text);
  const query = /query|look up|lookup|\bget\b|retrieve|status|detail|find/.test(text) || o.method === 'get';
  const checkout = /checkout/.test(text);
  const kind = refund ? 'refund' : payout ? 'payout' : 'payment';
  const action = cancel ? 'cancel' : query ? 'query' : 'create';
  const want: Record<Operation, boolean> = {
    checkout: kind === 'payment' && action === 'create' && checkout && !card,
    cardPayment: kind === 'payment' && action === 'create' && card,
    paymentQuery: kind === 'payment' && action === 'query',
    refundCreate: kind === 'refund' && action === 'create',
    refundQuery: kind === 'refund' && action === 'query',
    payoutCreate: kind === 'payout' && action === 'create',
    payoutQuery: kind === 'payout' && action === 'query',
    payoutCancel: kind === 'payout' && action === 'cancel',
  };
  return want[target] ? 50 : 0;
}

export interface Matched {
  /** The interface's operation → the description's. */
  matched: Partial<Record<Operation, DocOperation>>;
  /** What could not be decided, in words. */
  doubts: string[];
}

export function matchOperations(doc: Doc, base = ''): Matched {
  const ops = operationsOf(doc, base);
  const matched: Partial<Record<Operation, DocOperation>> = {};
  const doubts: string[] = [];
  const used = new Set<DocOperation>();
  for (const target of OPERATIONS) {
    const scored = ops
      .filter((o) => !used.has(o))
      .map((o) => [o, score(o, target)] as const)
      .filter(([, s]) => s > 0)
      .sort((a, b) => b[1] - a[1]);
    if (scored.length === 0) continue;
    if (scored.length > 1 && scored[0]![1] === scored[1]![1]) {
      doubts.push(`${target}: ${scored.map(([o]) => `${o.method.toUpperCase()} ${o.path}`).join(', ')} fit it alike; none was taken`);
      continue;
    }
    matched[target] = scored[0]![0];
    used.add(scored[0]![0]);
  }
  return { matched, doubts };
}
