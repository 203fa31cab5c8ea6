/**
 * What only the sequence of a client's requests shows (Errors › Idempotency): creates sent in
 * parallel with one number, a create repeated with the same number (after a timeout the merchant
 * queries by its own number before trying a new one), one number used for a payment and a refund.
 * Only requests that passed authentication count: a refused signature reached no order.
 */
import { header } from './signature.js';
import { parsedBody } from './body.js';
import type { Diagnosis, SeenRequest } from './types.js';

export type Operation = 'payment-create' | 'refund-create' | 'payout-create' | 'payment-query' | 'refund-query' | 'payout-query';

/** The merchant number field of each operation. */
const NUMBER_FIELD: Record<Operation, string> = {
  'payment-create': 'merchant_order_no',
  'refund-create': 'merchant_refund_no',
  'payout-create': 'merchant_payout_no',
  'payment-query': 'merchant_order_no',
  'refund-query': 'merchant_refund_no',
  'payout-query': 'merchant_payout_no',
};
const QUERY_OF: Record<string, Operation> = {
  'payment-create': 'payment-query',
  'refund-create': 'refund-query',
  'payout-create': 'payout-query',
};

export interface Classified {
  n: number;
  r: SeenRequest;
  op: Operation;
  merchant: string;
  number: string;
}

export function classify(list: readonly SeenRequest[], ops: ReadonlyMap<string, Operation>): Classified[] {
  const out: Classified[] = [];
  list.forEach((r, i) => {
    const op = ops.get(r.path);
    if (!op || r.http !== 200) return;
    const body = parsedBody(r) as Record<string, unknown> | undefined;
    const number = body?.[NUMBER_FIELD[op]];
    if (typeof number === 'string' && number !== '') out.push({ n: i + 1, r, op, merchant: header(r, 'X-MerchantID') ?? '', number });
  });
  return out;
}

/**
 * Answers after which the number is taken: created, refused after recording (a declined payment, a
 * failed refund), already taken, or an unknown outcome ("use a new order number if the first
 * request may have created an order").
 */
const CONSUMING = new Set(['paymentFailed', 'refundFailed', 'systemBusy', 'duplicateMerchantOrder', 'duplicateRefundOrder']);
function consumed(x: Classified): boolean {
  return x.r.code === 0 || CONSUMING.has(x.r.key ?? '');
}

export function sequenceMistakes(c: readonly Classified[]): Diagnosis[] {
  const out: Diagnosis[] = [];
  const creates = c.filter((x) => x.op.endsWith('-create'));
  for (const [i, later] of creates.entries()) {
    const earlier = creates.slice(0, i).filter((x) => x.op === later.op && x.merchant === later.merchant && x.number === later.number);
    const field = NUMBER_FIELD[later.op];
    // In flight together: it arrived before the other was answered, or came as the first request on
    // another connection opened before then (a client waiting for an answer cannot have opened it).
    const c2 = later.r.connection;
    const together = earlier.find(
      (e) => later.r.receivedAt < e.r.answeredAt || (c2.index === 0 && c2.id !== e.r.connection.id && c2.openedAt < e.r.answeredAt),
    );
    if (together) {
      out.push({
        name: 'parallel-creates',
        clause: 'idem.create-once',
        detail:
          `two ${later.op}s with the same ${field} ${later.number} were in flight at the same time ` +
          `(parallel creates with one number); create requests are sent once and not in parallel`,
        requests: [together.n, later.n],
      });
      continue;
    }
    // A number refused before anything was recorded (a missing field, three decimals) is still free.
    const first = earlier.filter(consumed).at(-1);
    if (!first) continue;
    const queried = c.some(
      (q) => q.op === QUERY_OF[later.op] && q.merchant === later.merchant && q.number === later.number && q.n > first.n && q.n < later.n,
    );
    out.push(
      queried
        ? {
            name: 'create-repeated',
            clause: 'idem.create-once',
            detail:
              `${later.op} with ${field} ${later.number} was sent again ` + `after a query; a repeated number is refused, use a new number`,
            requests: [first.n, later.n],
          }
        : {
            name: 'retry-without-query',
            clause: 'idem.create-once',
            detail:
              `${later.op} with ${field} ${later.number} was sent again without a query by that ` +
              `number in between; after a timeout, query by your own number before trying a new number`,
            requests: [first.n, later.n],
          },
    );
  }
  const payments = creates.filter((x) => x.op === 'payment-create');
  for (const refund of creates.filter((x) => x.op === 'refund-create')) {
    const same = payments.find((p) => p.merchant === refund.merchant && p.number === refund.number);
    if (same)
      out.push({
        name: 'number-shared-by-payment-and-refund',
        clause: 'client.numbers.distinct',
        detail: `merchant_refund_no ${refund.number} is also a merchant_order_no of a payment; payments and refunds need different numbers`,
        requests: [same.n, refund.n].sort((a, b) => a - b),
      });
  }
  return out;
}

/**
 * What a client does after the transient answers the document allows (`serve --audit --rough` provokes
 * them): after a `systemBusy` create, a query by the merchant's own number before a create with a new
 * one ("use a new order number if the first request may have created an order"; "after a timeout, the
 * merchant queries by its own number before trying a new number"); after a `queryFailed`, the query again.
 */
export function transientMistakes(
  list: readonly SeenRequest[],
  c: readonly Classified[],
  ops: ReadonlyMap<string, Operation>,
): Diagnosis[] {
  const out: Diagnosis[] = [];
  const creates = c.filter((x) => x.op.endsWith('-create'));
  for (const busy of creates.filter((x) => x.r.key === 'systemBusy')) {
    const next = creates.find((x) => x.n > busy.n && x.op === busy.op && x.merchant === busy.merchant && x.number !== busy.number);
    if (!next) continue;
    const answered = c.some(
      (q) =>
        q.op === QUERY_OF[busy.op] &&
        q.merchant === busy.merchant &&
        q.number === busy.number &&
        q.n > busy.n &&
        q.n < next.n &&
        q.r.key !== 'queryFailed',
    );
    const field = NUMBER_FIELD[busy.op];
    if (!answered)
      out.push({
        name: 'new-number-without-query',
        clause: 'idem.create-once',
        detail:
          `after ${busy.op} with ${field} ${busy.number} was answered systemBusy, a new ` +
          `${field} ${next.number} was tried without a query by ${busy.number} answered in ` +
          `between; the first request may have created an order: query by your own number first`,
        requests: [busy.n, next.n],
      });
  }
  const lookup = (r: SeenRequest): string | undefined => {
    const b = parsedBody(r) as Record<string, unknown> | undefined;
    if (!b) return undefined;
    const fields = Object.keys(b).filter((k) => /(^|_)(order|refund|payout)_no$/.test(k) && typeof b[k] === 'string');
    return fields.length
      ? fields
          .sort()
          .map((k) => `${k}=${String(b[k])}`)
          .join('&')
      : undefined;
  };
  list.forEach((r, i) => {
    if (r.key !== 'queryFailed' || !ops.get(r.path)?.endsWith('-query')) return;
    const merchant = header(r, 'X-MerchantID');
    const what = lookup(r);
    const again = list.slice(i + 1).some((x) => x.path === r.path && header(x, 'X-MerchantID') === merchant && lookup(x) === what);
    if (!again)
      out.push({
        name: 'query-not-retried',
        clause: 'client.query.retry',
        detail: `the query by ${what ?? 'its number'} was answered 500 queryFailed (a transient failure: try again) and was not sent again`,
        requests: [i + 1],
      });
  });
  return out;
}
