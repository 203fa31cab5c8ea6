/**
 * The webhook receiver's checks, by clause: the kit plays the service and posts webhooks to the
 * merchant's endpoint. Acknowledgement is judged on the reply body alone (HTTP status does not
 * count); a refusal that does not come is charged to the 5-second rule (a refusal is a reply too);
 * each refusal check first sends the correctly signed twin, so it cannot pass on a receiver that
 * refuses everything, and each acknowledgement check of one aspect (offsets, layouts, duplicates,
 * order) first needs a plain control acknowledged, so a failure is charged to its own clause.
 */
import fc from 'fast-check';
import { PreconditionSkip } from '../../check/failure.js';
import { hmacHex } from '../../signing.js';
import { type MerchantCheck, defineMerchantChecks, fail } from '../check.js';
import { type Reply, deliver, describeReply, isSuccess } from './deliver.js';
import { type Body, type Headers, type Identity, type Kind, STATUSES, bodyArb, bytesOf, crlfSigned, otherKey, otherMerchant, sampleBody, signed } from './webhooks.js';

export interface ReceiverContext {
  url: string;
  id: Identity;
  /** The document's acknowledgement time (5000 ms); tests scale it down. */
  ackLimitMs: number;
  /** Longest wait for any reply (the acknowledgement time and a second more). */
  deadlineMs: number;
  numRuns: number;
  /** Optional: GET answers a JSON array of {event, order_no, status} the receiver acted on. */
  inspectUrl?: string;
  /** Evidence lines of the running check. */
  log: string[];
}

async function post(ctx: ReceiverContext, label: string, raw: Buffer, headers: Headers): Promise<Reply> {
  const r = await deliver(ctx.url, raw, headers, ctx.deadlineMs);
  const b = JSON.parse(raw.toString()) as Body;
  ctx.log.push(`${label}: ${b['event']} ${b['order_no']} ${b['status']} (${raw.length} bytes) -> ${describeReply(r)}`);
  return r;
}

function expectAck(r: Reply, clause: string, what: string): void {
  if (r.error) fail(clause, 'NO_REPLY', `${what}: no reply (${r.error})`, { expected: 'a reply with body success' });
  if (!isSuccess(r)) fail(clause, 'NOT_ACKNOWLEDGED', `${what} was not acknowledged: ${describeReply(r)}`, { expected: 'body exactly "success" (7 bytes)', seen: JSON.stringify(r.body!.subarray(0, 60).toString('latin1')) });
}

function expectRefused(r: Reply, clause: string, what: string): void {
  if (r.error) fail('merchant.ack.within-5s', 'NO_REPLY', `${what}: no reply (${r.error}); a refusal is a reply too`);
  if (isSuccess(r)) fail(clause, 'ACKNOWLEDGED_BAD_WEBHOOK', `${what} was acknowledged with "success"; it must get a non-success reply`, { expected: 'any body but "success"', seen: '"success"' });
}

/** The correctly signed twin first: whether it was acknowledged decides what a refusal proves. */
async function control(ctx: ReceiverContext, body: Body): Promise<{ raw: Buffer; twin: Reply }> {
  const raw = bytesOf(body);
  return { raw, twin: await post(ctx, 'control (correctly signed)', raw, signed(ctx.id, raw)) };
}

/**
 * Every status of the kind, each with its own share of the runs so none is left to chance, after
 * the shapes the document allows, each sent at least once: metadata empty and not; for payments
 * requested_amount absent and present.
 */
function ackProperty(kind: Kind) {
  return async (ctx: ReceiverContext, seed: number) => {
    const clause = 'merchant.ack.success-body';
    const base = sampleBody(kind, seed, STATUSES[kind][0]);
    const edges: Body[] = [{ ...base, metadata: '' }, { ...sampleBody(kind, seed + 1, STATUSES[kind][0]), metadata: 'order=42;note=gift' }];
    if (kind === 'payment') {
      const { requested_amount: _r, ...without } = base;
      edges.push(without, { ...sampleBody(kind, seed + 2, STATUSES[kind][0]), requested_amount: { currency: 'USD', value: '9.99' } });
    }
    for (const body of edges) {
      const raw = bytesOf(body);
      expectAck(await post(ctx, 'valid', raw, signed(ctx.id, raw)), clause, `a valid ${body['event']} ${body['status']} webhook (metadata ${body['metadata'] === '' ? 'empty' : 'set'}${kind === 'payment' ? `, requested_amount ${'requested_amount' in body ? 'present' : 'absent'}` : ''})`);
    }
    for (const status of STATUSES[kind]) {
      await fc.assert(
        // Compact bytes: other layouts are the raw-body check's, so each failure is charged to its own clause.
        fc.asyncProperty(bodyArb(kind, 'utc', status), async (body) => {
          const raw = bytesOf(body);
          expectAck(await post(ctx, 'valid', raw, signed(ctx.id, raw)), clause, `a valid ${body['event']} ${body['status']} webhook`);
        }),
        { seed, numRuns: Math.max(1, Math.ceil(ctx.numRuns / STATUSES[kind].length)), endOnFailure: true },
      );
    }
  };
}

const utc = (t: unknown) => (typeof t === 'string' ? new Date(t).toISOString().replace(/\.\d{3}Z$/, 'Z') : t);

/** Times with offsets other than UTC, each after its twin with the same instants in UTC (another order): only the offset differs. */
function offsetProperty(kind: Kind) {
  return async (ctx: ReceiverContext, seed: number) => {
    await fc.assert(
      fc.asyncProperty(bodyArb(kind, 'non-utc'), async (body) => {
        const twin = { ...body, order_no: `${body['order_no']}U`, merchant_order_no: `${body['merchant_order_no']}U`, created_at: utc(body['created_at']), ...(body['finished_at'] ? { finished_at: utc(body['finished_at']) } : {}) };
        await delivered(ctx, 'control (same instants in UTC)', bytesOf(twin));
        const raw = bytesOf(body);
        expectAck(await post(ctx, 'offset', raw, signed(ctx.id, raw)), 'conv.time.read-offset', `a valid ${body['event']} ${body['status']} webhook with times ${String(body['created_at'])}`);
      }),
      { seed, numRuns: Math.max(1, Math.ceil(ctx.numRuns / 3)), endOnFailure: true },
    );
  };
}

function flipDigit(raw: Buffer): Buffer {
  const s = raw.toString();
  const i = s.indexOf('"value":"') + 9;
  const d = Number(s[i]);
  return Buffer.from(`${s.slice(0, i)}${(d + 1) % 10}${s.slice(i + 1)}`);
}

/**
 * A forged webhook acknowledged is a finding against the rule it breaks. Where the correctly
 * signed twin was refused too, only a forgery the receiver took tells something (it verifies the
 * wrong way); a receiver that refuses both is judged by the acknowledgement checks, not here.
 */
function refusal(title: string, clause: string, forge: (ctx: ReceiverContext, raw: Buffer) => { raw: Buffer; headers: Headers }[], level?: 'should') {
  return {
    title,
    clause,
    level,
    async run(ctx: ReceiverContext, seed: number) {
      const { raw, twin } = await control(ctx, sampleBody('payment', seed, 'SUCCESS'));
      if (twin.error) throw new PreconditionSkip(`the correctly signed twin got no reply (${twin.error}): refusal not judged`);
      const what = `a webhook ${title.replace(/^refuses /, '')}`;
      for (const [i, f] of forge(ctx, raw).entries()) {
        const r = await post(ctx, `forged #${i + 1}`, f.raw, f.headers);
        if (isSuccess(r) && !isSuccess(twin)) fail(clause, 'ACKNOWLEDGED_FORGERY_ONLY', `${what} was acknowledged while the correctly signed twin was not (${describeReply(twin)}): the receiver verifies the wrong way`);
        if (isSuccess(twin)) expectRefused(r, clause, what);
      }
      if (!isSuccess(twin)) throw new PreconditionSkip(`the correctly signed twin was not acknowledged (${describeReply(twin)}) and no forgery was: refusal not judged`);
    },
  };
}

/** A delivery a check needs acknowledged before it can judge its own clause (whether it is, is judged elsewhere). */
async function delivered(ctx: ReceiverContext, label: string, raw: Buffer): Promise<void> {
  const r = await post(ctx, label, raw, signed(ctx.id, raw));
  if (!isSuccess(r)) throw new PreconditionSkip(`${label} was not acknowledged (${describeReply(r)}): not judged here`);
}

interface ActedOn {
  event: string;
  order_no: string;
  status: string;
}

async function actedOn(ctx: ReceiverContext, orderNo: string): Promise<ActedOn[]> {
  if (!ctx.inspectUrl) throw new PreconditionSkip('whether a webhook was processed once cannot be seen from outside; declare an inspection hook (--inspect-url) to check it');
  const ac = new AbortController();
  const t = setTimeout(() => ac.abort(), ctx.deadlineMs);
  try {
    const res = await fetch(ctx.inspectUrl, { signal: ac.signal });
    const list = (await res.json()) as unknown;
    if (!Array.isArray(list)) throw new Error('the inspection hook did not answer a JSON array');
    const mine = list.filter((x): x is ActedOn => !!x && typeof x === 'object' && (x as ActedOn).order_no === orderNo);
    ctx.log.push(`inspection hook: ${JSON.stringify(mine)}`);
    return mine;
  } catch (e) {
    throw new Error(`the inspection hook ${ctx.inspectUrl} could not be read: ${(e as Error).message}`);
  } finally {
    clearTimeout(t);
  }
}

export const receiverChecks: MerchantCheck<ReceiverContext>[] = defineMerchantChecks<ReceiverContext>('receiver', [
  // (a) every event kind and status, bodies as the Events section describes them.
  { title: 'acknowledges every valid payment.updated webhook with exactly success', clause: 'merchant.ack.success-body', run: ackProperty('payment') },
  { title: 'acknowledges every valid refund.updated webhook with exactly success', clause: 'merchant.ack.success-body', run: ackProperty('refund') },
  { title: 'acknowledges every valid payout.updated webhook with exactly success', clause: 'merchant.ack.success-body', run: ackProperty('payout') },
  {
    title: 'acknowledges webhooks whose times carry offsets other than UTC',
    clause: 'conv.time.read-offset',
    async run(ctx, seed) {
      for (const kind of ['payment', 'refund', 'payout'] as const) await offsetProperty(kind)(ctx, seed);
    },
  },
  {
    title: 'acknowledges the same webhook in other whitespace and key order, each signed over its own bytes',
    clause: 'merchant.verify.raw-body',
    async run(ctx, seed) {
      await delivered(ctx, 'control (compact)', bytesOf(sampleBody('refund', seed, 'SUCCESS')));
      for (const layout of ['pretty', 'spaced', 'reordered'] as const) {
        const raw = bytesOf(sampleBody('refund', seed + layout.length, 'SUCCESS'), layout);
        expectAck(await post(ctx, layout, raw, signed(ctx.id, raw)), 'merchant.verify.raw-body', `a valid webhook laid out ${layout}`);
      }
    },
  },
  {
    title: 'replies within 5 seconds',
    clause: 'merchant.ack.within-5s',
    async run(ctx, seed) {
      for (const kind of ['payment', 'refund', 'payout'] as const) {
        const raw = bytesOf(sampleBody(kind, seed));
        const r = await post(ctx, kind, raw, signed(ctx.id, raw));
        if (r.error) fail('merchant.ack.within-5s', 'NO_REPLY', `no reply to a valid ${kind} webhook (${r.error})`, { expected: `a reply within ${ctx.ackLimitMs} ms` });
        if (r.ms > ctx.ackLimitMs) fail('merchant.ack.within-5s', 'SLOW_REPLY', `the reply to a valid ${kind} webhook took ${Math.round(r.ms)} ms`, { expected: `at most ${ctx.ackLimitMs} ms`, seen: `${Math.round(r.ms)} ms` });
      }
    },
  },

  // (b) webhooks that must be refused.
  refusal('refuses a signature made with another key', 'webhook.receiver-verifies', (ctx, raw) => [{ raw, headers: signed({ ...ctx.id, secret: otherKey(ctx.id.secret) }, raw) }]),
  refusal('refuses a body with one byte altered after signing', 'webhook.receiver-verifies', (ctx, raw) => [{ raw: flipDigit(raw), headers: signed(ctx.id, raw) }]),
  refusal('refuses a body re-laid with whitespace after signing', 'merchant.verify.raw-body', (ctx, raw) => [{ raw: bytesOf(JSON.parse(raw.toString()), 'pretty'), headers: signed(ctx.id, raw) }]),
  refusal('refuses a body with keys reordered after signing', 'merchant.verify.raw-body', (ctx, raw) => [{ raw: bytesOf(JSON.parse(raw.toString()), 'reordered'), headers: signed(ctx.id, raw) }]),
  refusal('refuses a signature over a CR LF string to sign', 'merchant.verify.string-to-sign', (ctx, raw) => [{ raw, headers: crlfSigned(ctx.id, raw) }]),
  refusal('refuses a signature made for another X-MerchantID', 'merchant.verify.string-to-sign', (ctx, raw) => {
    const forOther = signed({ ...ctx.id, merchantId: otherMerchant(ctx.id.merchantId) }, raw);
    return [{ raw, headers: { ...forOther, 'X-MerchantID': ctx.id.merchantId } }];
  }),
  refusal('refuses a signature over a string to sign without the merchant id', 'merchant.verify.string-to-sign', (ctx, raw) => {
    const h = signed(ctx.id, raw);
    return [{ raw, headers: { ...h, 'X-Sign': hmacHex(ctx.id.secret, Buffer.concat([Buffer.from(`${h['X-Timestamp']}\n${h['X-Nonce']}\n`), raw])) } }];
  }),
  refusal('refuses a webhook addressed to an X-MerchantID that is not its own', 'merchant.verify.merchant-id', (ctx, raw) => [{ raw, headers: signed({ ...ctx.id, merchantId: otherMerchant(ctx.id.merchantId) }, raw) }]),
  refusal('refuses a webhook missing a signing header', 'merchant.verify.headers-required', (ctx, raw) =>
    (['X-MerchantID', 'X-Timestamp', 'X-Nonce', 'X-Sign'] as const).map((h) => {
      const { [h]: _gone, ...rest } = signed(ctx.id, raw);
      return { raw, headers: rest };
    }),
  ),
  refusal('refuses a webhook with an empty signing header', 'merchant.verify.headers-required', (ctx, raw) =>
    (['X-MerchantID', 'X-Timestamp', 'X-Nonce', 'X-Sign'] as const).map((h) => ({ raw, headers: { ...signed(ctx.id, raw), [h]: '' } })),
  ),
  refusal('refuses an upper-case hex copy of a valid signature', 'merchant.verify.lower-hex', (ctx, raw) => {
    const h = signed(ctx.id, raw);
    return [{ raw, headers: { ...h, 'X-Sign': h['X-Sign']!.toUpperCase() } }];
  }, 'should'),

  {
    title: 'does not act on a webhook it refuses',
    clause: 'webhook.receiver-verifies',
    async run(ctx, seed) {
      await actedOn(ctx, '');
      const body = sampleBody('payout', seed, 'SUCCESS');
      const raw = bytesOf(body);
      const r = await post(ctx, 'signed with another key', raw, signed({ ...ctx.id, secret: otherKey(ctx.id.secret) }, raw));
      if (isSuccess(r)) throw new PreconditionSkip('the forged webhook was acknowledged (judged by the refusal checks)');
      const acted = await actedOn(ctx, String(body['order_no']));
      if (acted.length) fail('webhook.receiver-verifies', 'ACTED_BEFORE_VERIFYING', `the receiver refused a webhook signed with another key but acted on it: ${JSON.stringify(acted)}`, { expected: 'verify before acting: nothing recorded', seen: JSON.stringify(acted) });
    },
  },

  // (c) duplicates and order.
  {
    title: 'acknowledges a duplicate of a webhook, signed again with a fresh timestamp and nonce',
    clause: 'webhook.dup.may-repeat',
    async run(ctx, seed) {
      const raw = bytesOf(sampleBody('payment', seed, 'SUCCESS'));
      await delivered(ctx, 'delivery 1', raw);
      for (const n of [2, 3]) expectAck(await post(ctx, `delivery ${n}`, raw, signed(ctx.id, raw)), 'webhook.dup.may-repeat', `delivery ${n} of the same webhook`);
    },
  },
  {
    title: 'acknowledges webhooks that arrive out of order',
    clause: 'webhook.dup.out-of-order',
    async run(ctx, seed) {
      for (const [kind, later, earlier] of [['refund', 'SUCCESS', 'PENDING'], ['payment', 'REFUNDED', 'SUCCESS']] as const) {
        const first = sampleBody(kind, seed, later);
        await delivered(ctx, later, bytesOf(first));
        const raw = bytesOf({ ...first, status: earlier });
        expectAck(await post(ctx, earlier, raw, signed(ctx.id, raw)), 'webhook.dup.out-of-order', `${kind} ${earlier} arriving after ${later}`);
      }
    },
  },
  {
    title: 'acts once on a webhook delivered three times',
    clause: 'webhook.dup.key',
    async run(ctx, seed) {
      await actedOn(ctx, '');
      const body = sampleBody('payment', seed, 'SUCCESS');
      const raw = bytesOf(body);
      for (const n of [1, 2, 3]) await delivered(ctx, `delivery ${n}`, raw);
      const acted = (await actedOn(ctx, String(body['order_no']))).filter((x) => x.status === 'SUCCESS' && x.event === body['event']);
      if (acted.length !== 1) fail('webhook.dup.key', 'NOT_DEDUPLICATED', `the receiver acted ${acted.length} times on one webhook delivered three times`, { expected: 'once', seen: String(acted.length) });
    },
  },
  {
    title: 'acts on each status of one order, deduplicating on event, order_no and status together',
    clause: 'webhook.dup.key',
    async run(ctx, seed) {
      await actedOn(ctx, '');
      const body = sampleBody('refund', seed, 'PENDING');
      for (const status of STATUSES.refund.slice(0, 2)) {
        await delivered(ctx, status, bytesOf({ ...body, status }));
      }
      const seen = (await actedOn(ctx, String(body['order_no']))).map((x) => x.status);
      for (const status of STATUSES.refund.slice(0, 2)) {
        if (seen.filter((s) => s === status).length !== 1) fail('webhook.dup.key', 'WRONG_DEDUP_KEY', `refund ${status} of one order was acted on ${seen.filter((s) => s === status).length} times`, { expected: 'PENDING once and SUCCESS once', seen: JSON.stringify(seen) });
      }
    },
  },
]);
