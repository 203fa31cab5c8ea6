/**
 * A 403 to a correctly built request reads as a wrong key, unless the target verifies the signature over its own
 * re-serialisation of the body (Python's json.dumps(json.loads(raw)), with ", " and ": "): such a target refuses every
 * request signed over the bytes sent, and the doctor told the vendor of all four merchants "the key is not this
 * merchant's key". Before it says so, the doctor sends the refused request again with its body already written as
 * common serialisers write it (harness/merchant/audit/families.ts: layout, escaping, key order, number forms), each
 * signed over its own bytes: a request the document lets through like any other (auth.sign.whitespace-variants). One
 * accepted shows the key right and the target wrong: it does not verify over the raw bytes (auth.sign.raw-body), which
 * no profile explains; none accepted leaves the key as the one explanation.
 */
import type { Exchange } from '../http/exchange.js';
import { type Reserialisation, reserialisationText, type SearchExtent, signedCandidates } from '../merchant/audit/families.js';
import { requestPathOf } from '../ops.js';
import type { MerchantRole } from '../target.js';
import { add, unexplained, type DoctorContext } from './context.js';
import { answerOf, describeAnswer } from './model.js';

/** Re-written bodies tried for one refused request: the serialisers' layouts (Python's first) and a trailing newline. */
export const MAX_REWRITES = 6;

/** A re-written body the target accepted, and how it differs from the bytes first sent. */
export interface Rewritten {
  ex: Exchange;
  differs: Reserialisation;
}

/** The candidates in the order tried: the one that worked for another merchant first, then Python's, then the rest. */
function candidates(raw: Buffer, first: Reserialisation | undefined): { bytes: Buffer; differs: Reserialisation }[] {
  const extent: SearchExtent = { tried: 0, of: 0, cut: false };
  const all = [...signedCandidates(raw, extent)].slice(0, 4 * MAX_REWRITES);
  const same = (d: Reserialisation) => first !== undefined && JSON.stringify(d) === JSON.stringify(first);
  const rank = (d: Reserialisation) => (same(d) ? 0 : d.layout === 'python' ? 1 : 2);
  return all
    .map((c, i) => ({ c, i }))
    .sort((a, b) => rank(a.c.differs) - rank(b.c.differs) || a.i - b.i)
    .slice(0, MAX_REWRITES)
    .map((x) => x.c);
}

/**
 * The refused request sent again as `role` with its body re-written, each signed over its own bytes, until one is
 * authenticated (an envelope that is not 401 or 403: the signature verified); undefined when none is.
 */
export async function acceptedRewritten(
  ctx: DoctorContext,
  role: MerchantRole,
  refused: Exchange,
  first?: Reserialisation,
): Promise<Rewritten | undefined> {
  const path = requestPathOf(ctx.t, refused.request.url);
  for (const c of candidates(refused.request.body, first)) {
    const ex = await ctx.t.post(path, c.bytes, {
      as: role,
      label: `doctor: the same request written with ${reserialisationText(c.differs)}, signed over those bytes`,
    });
    const a = answerOf(ex);
    if (a.envelope && a.http !== 401 && a.http !== 403) return { ex, differs: c.differs };
  }
  return undefined;
}

/**
 * The merchant's key shown right by a re-written body; the first time, the finding against the target that it does not
 * verify over the bytes sent (auth.sign.raw-body), on `baseUrl`: the target at that address, not any profile fact.
 */
export function keyRightTargetWrong(ctx: DoctorContext, role: MerchantRole, refused: Exchange, w: Rewritten): void {
  const how = reserialisationText(w.differs);
  const m = ctx.loaded.merchants[role]!;
  add(ctx, 'verified', `merchants.${role}`, `merchants.${role}: id ${m.id} and its key sign requests the target accepts`, {
    answered:
      `${describeAnswer(answerOf(refused))} to the bytes as sent, but ${describeAnswer(answerOf(w.ex))} to the same request ` +
      `written with ${how}, signed over those bytes: the key is right`,
    ex: [refused, w.ex],
  });
  if (ctx.items.some((i) => i.path === 'baseUrl' && i.clauses?.includes('auth.sign.raw-body'))) return;
  unexplained(ctx, 'baseUrl', "the target verifies a request's signature over the bytes sent", ['auth.sign.raw-body'], {
    expected: 'a request signed over the bytes sent accepted',
    answered:
      `${describeAnswer(answerOf(refused))} to a request signed over its bytes; the same request written with ${how} ` +
      `and signed over those bytes: ${describeAnswer(answerOf(w.ex))}: the target verifies over its own re-serialisation`,
    why: 'a key that signs the re-written body is the key, and the document signs the raw bytes whatever their layout',
    ex: [refused, w.ex],
    authAnswered: true,
  });
}
