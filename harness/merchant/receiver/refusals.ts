/**
 * (b) Webhooks that must be refused: a forgery acknowledged is a finding against the rule it
 * breaks; each is judged against its correctly signed twin.
 */
import { PreconditionSkip } from '../../check/failure.js';
import { hmacHex } from '../../http/signing.js';
import { type MerchantCheckSpec, fail } from '../check.js';
import { describeReply, isSuccess, oversized } from './deliver.js';
import { type ReceiverContext, actedOn, control, delivered, expectRefused, post, ruleText } from './context.js';
import { type Headers, bytesOf, crlfSigned, otherKey, otherMerchant, sampleBody, signed } from './webhooks.js';

function flipDigit(raw: Buffer): Buffer {
  const s = raw.toString();
  const i = s.indexOf('"value":"') + 9;
  const d = Number(s[i]);
  return Buffer.from(`${s.slice(0, i)}${(d + 1) % 10}${s.slice(i + 1)}`);
}

/**
 * A forged webhook acknowledged is a finding against the rule it breaks. The correctly signed
 * twin goes first: when it gets no reply, or a late one, nothing is sent after it (the
 * acknowledgement checks judge that); when it is refused, one forgery still goes, since a receiver
 * that takes only the forgery verifies the wrong way, and the check stops there.
 */
function refusal(
  title: string,
  clause: string,
  forge: (ctx: ReceiverContext, raw: Buffer) => { raw: Buffer; headers: Headers }[],
  level?: 'should',
) {
  return {
    title,
    clause,
    level,
    async run(ctx: ReceiverContext, seed: number) {
      const { raw, twin } = await control(ctx, sampleBody('payment', seed, 'SUCCESS'));
      // A reply of megabytes is neither an acknowledgement nor a refusal: like no reply, it ends the check (each check about one delivery
      // long).
      if (twin.error || twin.ms > ctx.ackLimitMs || oversized(twin))
        throw new PreconditionSkip(
          `the correctly signed twin got ${twin.error ? 'no complete reply' : oversized(twin) ? 'an oversized reply' : 'a late reply'}` +
            ` (${describeReply(twin)}): no forgery sent, refusal not judged`,
        );
      const rest = title.replace(/^refuses /, '');
      const what = rest.startsWith('a webhook') ? rest : `a webhook with ${rest}`;
      const forged = forge(ctx, raw);
      for (const [i, f] of (isSuccess(twin) ? forged : forged.slice(0, 1)).entries()) {
        const r = await post(ctx, `forged #${i + 1}`, f.raw, f.headers);
        if (isSuccess(r) && !isSuccess(twin))
          fail(
            clause,
            'ACKNOWLEDGED_FORGERY_ONLY',
            `${what} was acknowledged while the correctly signed twin was ` +
              `not (${describeReply(twin)}): the receiver verifies the wrong way`,
          );
        if (isSuccess(twin)) expectRefused(r, clause, what, ctx);
      }
      if (!isSuccess(twin))
        throw new PreconditionSkip(
          `the correctly signed twin was not acknowledged (${describeReply(twin)}` +
            `) and the first forgery was not either: refusal not judged`,
        );
    },
  };
}

/** Bytes that are not JSON at all: a receiver that parses before verifying meets them unguarded. */
const NOT_JSON = Buffer.from('<?xml version="1.0"?><notification event="payment.updated"><status>SUCCESS</status>');
/** Larger than any webhook; not JSON either, and not signed with the receiver's key. */
const OVERSIZED = 1024 * 1024;

/**
 * Input that must be refused before it is parsed or acted on, each followed by a genuine webhook
 * that must still be acknowledged: a receiver that parses first and dies, or stops working, fails.
 */
function verifiesFirst(
  title: string,
  make: (ctx: ReceiverContext) => { raw: Buffer; headers: Headers; what: string; resetIsRefusal?: boolean },
) {
  return {
    title,
    clause: 'webhook.receiver-verifies',
    async run(ctx: ReceiverContext, seed: number) {
      await delivered(ctx, 'control (correctly signed)', bytesOf(sampleBody('payment', seed, 'SUCCESS')));
      const bad = make(ctx);
      const r = await post(ctx, bad.what, bad.raw, bad.headers);
      if (isSuccess(r))
        fail(
          'webhook.receiver-verifies',
          'ACKNOWLEDGED_BAD_WEBHOOK',
          `${bad.what} was acknowledged with "success"; it must get a non-success reply`,
          { expected: 'any body but "success"', seen: '"success"' },
        );
      // Still sending at the deadline: the check ends here, as every check does on such a reply.
      if (r.failure?.kind === 'deadline')
        fail('merchant.ack.within-5s', 'NO_REPLY', `${bad.what} got no complete reply (${describeReply(r)}); a refusal is a reply too`, {
          expected: `a non-success reply within ${ruleText(ctx)}`,
          seen: describeReply(r),
        });
      const cutOff = r.failure?.kind === 'reset' || r.failure?.kind === 'closed';
      const silent = r.error && !(bad.resetIsRefusal && cutOff);
      // The oversized body's own upload counts in its time: only the others are timed.
      if (!silent && !bad.resetIsRefusal && r.ms > ctx.ackLimitMs)
        fail('merchant.ack.within-5s', 'SLOW_REPLY', `the refusal of ${bad.what} took ${Math.round(r.ms)} ms; a refusal is a reply too`, {
          expected: `at most ${ruleText(ctx)}`,
          seen: `${Math.round(r.ms)} ms`,
        });
      const after = bytesOf(sampleBody('refund', seed + 1, 'SUCCESS'));
      const next = await post(ctx, 'genuine webhook after it', after, signed(ctx.id, after));
      if (!isSuccess(next)) {
        const first = silent ? `${bad.what} got no complete reply (${r.error}), and after it` : `after ${bad.what}`;
        fail(
          'webhook.receiver-verifies',
          'BROKEN_BY_UNVERIFIED_INPUT',
          `${first} a genuine webhook was not acknowledged: ${describeReply(next)}; input ` +
            `that does not verify must be refused before it is read as JSON, and change nothing`,
          { expected: 'body exactly "success"', seen: describeReply(next) },
        );
      }
      if (silent)
        fail('merchant.ack.within-5s', 'NO_REPLY', `${bad.what} got no complete reply (${r.error}); a refusal is a reply too`, {
          expected: 'a non-success reply',
          seen: describeReply(r),
        });
    },
  };
}

export const refusalSpecs: MerchantCheckSpec<ReceiverContext>[] = [
  refusal('refuses a signature made with another key', 'webhook.receiver-verifies', (ctx, raw) => [
    { raw, headers: signed({ ...ctx.id, secret: otherKey(ctx.id.secret) }, raw) },
  ]),
  refusal('refuses a body with one byte altered after signing', 'webhook.receiver-verifies', (ctx, raw) => [
    { raw: flipDigit(raw), headers: signed(ctx.id, raw) },
  ]),
  refusal('refuses a body re-laid with whitespace after signing', 'merchant.verify.raw-body', (ctx, raw) => [
    { raw: bytesOf(JSON.parse(raw.toString()), 'pretty'), headers: signed(ctx.id, raw) },
  ]),
  refusal('refuses a body with keys reordered after signing', 'merchant.verify.raw-body', (ctx, raw) => [
    { raw: bytesOf(JSON.parse(raw.toString()), 'reordered'), headers: signed(ctx.id, raw) },
  ]),
  refusal('refuses a signature over a CR LF string to sign', 'merchant.verify.string-to-sign', (ctx, raw) => [
    { raw, headers: crlfSigned(ctx.id, raw) },
  ]),
  refusal('refuses a signature made for another X-MerchantID', 'merchant.verify.string-to-sign', (ctx, raw) => {
    const forOther = signed({ ...ctx.id, merchantId: otherMerchant(ctx.id.merchantId) }, raw);
    return [{ raw, headers: { ...forOther, 'X-MerchantID': ctx.id.merchantId } }];
  }),
  refusal('refuses a signature over a string to sign without the merchant id', 'merchant.verify.string-to-sign', (ctx, raw) => {
    const h = signed(ctx.id, raw);
    return [
      {
        raw,
        headers: { ...h, 'X-Sign': hmacHex(ctx.id.secret, Buffer.concat([Buffer.from(`${h['X-Timestamp']}\n${h['X-Nonce']}\n`), raw])) },
      },
    ];
  }),
  // Both signed with the receiver's own key: one over the foreign id in the header (a receiver that
  // verifies over the header's id and never compares takes it), one over its own id (a receiver that
  // verifies over its configured id and never compares takes that one). Only the comparison refuses both.
  refusal('refuses a webhook addressed to an X-MerchantID that is not its own', 'merchant.verify.merchant-id', (ctx, raw) => {
    const other = otherMerchant(ctx.id.merchantId);
    return [
      { raw, headers: signed({ ...ctx.id, merchantId: other }, raw) },
      { raw, headers: { ...signed(ctx.id, raw), 'X-MerchantID': other } },
    ];
  }),
  refusal('refuses a webhook missing a signing header', 'merchant.verify.headers-required', (ctx, raw) =>
    (['X-MerchantID', 'X-Timestamp', 'X-Nonce', 'X-Sign'] as const).map((h) => {
      const { [h]: _gone, ...rest } = signed(ctx.id, raw);
      return { raw, headers: rest };
    }),
  ),
  refusal('refuses a webhook with an empty signing header', 'merchant.verify.headers-required', (ctx, raw) =>
    (['X-MerchantID', 'X-Timestamp', 'X-Nonce', 'X-Sign'] as const).map((h) => ({ raw, headers: { ...signed(ctx.id, raw), [h]: '' } })),
  ),
  refusal(
    'refuses an upper-case hex copy of a valid signature',
    'merchant.verify.lower-hex',
    (ctx, raw) => {
      const h = signed(ctx.id, raw);
      return [{ raw, headers: { ...h, 'X-Sign': h['X-Sign']!.toUpperCase() } }];
    },
    'should',
  ),

  verifiesFirst('refuses an unsigned body that is not JSON, and still acknowledges the next genuine webhook', (ctx) => {
    const { 'X-Sign': _s, 'X-Nonce': _n, 'X-Timestamp': _t, ...rest } = signed(ctx.id, NOT_JSON);
    return { raw: NOT_JSON, headers: rest, what: 'an unsigned body that is not JSON' };
  }),
  verifiesFirst('refuses a wrongly signed body that is not JSON, and still acknowledges the next genuine webhook', (ctx) => ({
    raw: NOT_JSON,
    headers: signed({ ...ctx.id, secret: otherKey(ctx.id.secret) }, NOT_JSON),
    what: 'a body that is not JSON, signed with another key',
  })),
  verifiesFirst('refuses an oversized wrongly signed body, and still acknowledges the next genuine webhook', (ctx) => {
    const raw = Buffer.alloc(OVERSIZED, 'x');
    // A receiver may stop reading a body this large and close: that is a refusal too.
    return {
      raw,
      headers: signed({ ...ctx.id, secret: otherKey(ctx.id.secret) }, raw),
      what: `a ${OVERSIZED / 1024 / 1024} MiB body that is not JSON, signed with another key`,
      resetIsRefusal: true,
    };
  }),
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
      if (acted.length)
        fail(
          'webhook.receiver-verifies',
          'ACTED_BEFORE_VERIFYING',
          `the receiver refused a webhook signed with another key but acted on it: ${JSON.stringify(acted)}`,
          { expected: 'verify before acting: nothing recorded', seen: JSON.stringify(acted) },
        );
    },
  },
];
