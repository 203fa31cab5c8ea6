/**
 * (b) Webhooks that must be refused: a forgery acknowledged is a finding against the rule it
 * breaks; each is judged against its correctly signed twin.
 */
import { PreconditionSkip } from '../../check/failure.js';
import { hmacHex } from '../../signing.js';
import { type MerchantCheckSpec, fail } from '../check.js';
import { describeReply, isSuccess } from './deliver.js';
import { type ReceiverContext, actedOn, control, expectRefused, post } from './context.js';
import { type Headers, bytesOf, crlfSigned, otherKey, otherMerchant, sampleBody, signed } from './webhooks.js';

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


export const refusalSpecs: MerchantCheckSpec<ReceiverContext>[] = [
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
];
