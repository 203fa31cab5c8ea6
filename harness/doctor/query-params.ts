/**
 * The parameters each query needs beside its lookup number (queryParams, version 5): "Only `merchant_order_no`/`order_no`
 * lookup inputs are shown, other query parameters: not shown."
 *
 * What each answer proves. A query for a number nobody used, carrying the profile's parameters, answered as the
 * document answers a lookup (not found) shows the parameters are accepted: verified. The same query without them shows
 * whether the target needs them: refused as a request error, it does; answered alike, it may ignore them, which the
 * document allows (no clause speaks of other parameters), so that is said and never a finding. A query refused as a
 * request error (invalidRequest, validationFailed) while the profile says no parameter, or with the parameters it says,
 * is explained by a legal profile with other parameters: WRONG on queryParams.<kind>, which stops the run before any
 * check could blame the target's clauses for answers to queries the target cannot read.
 */
import type { Exchange } from '../http/exchange.js';
import type { QueryKind } from '../profile/query-params.js';
import { add, type DoctorContext } from './context.js';
import { answerOf, describeAnswer, type Answer } from './model.js';

/** A refusal of the request's fields (the document's answers to a field missing or invalid). */
function fieldRefusal(a: Answer): boolean {
  return a.envelope && (a.key === 'invalidRequest' || a.key === 'validationFailed');
}

/**
 * The basics' queries for numbers nobody used (`seen`, by kind: each carried the profile's parameters), judged; where the
 * profile says parameters, each sent once more without them.
 */
export async function checkQueryParams(ctx: DoctorContext, seen: Partial<Record<QueryKind, Exchange>>): Promise<void> {
  await Promise.all(Object.entries(seen).map(([kind, ex]) => checkOne(ctx, kind as QueryKind, ex)));
}

async function checkOne(ctx: DoctorContext, kind: QueryKind, withEx: Exchange): Promise<void> {
  const q = { kind };
  const said = ctx.loaded.profile.queryParams?.[q.kind];
  const field = `queryParams.${q.kind}`;
  const a = answerOf(withEx);
  if (a.error || !a.envelope || a.likeUnknownPath) return;
  if (fieldRefusal(a)) {
    add(ctx, 'wrong', field, `a ${q.kind} query carrying ${said ? `the parameters of ${field}` : 'only its lookup number'} is read`, {
      expected: 'the answer to a lookup of a number nobody used (not found)',
      answered: `${describeAnswer(a)}: the target refuses the query's fields`,
      fix: said
        ? `give in ${field} the parameters and values the vendor documents for this query`
        : `say the other parameters the vendor's ${q.kind} query needs (a store id, a date range) in ${field}`,
      ex: [withEx],
    });
    return;
  }
  if (!said) return;
  // Without them: the same request's body less the parameters, signed as sent (the lookup numbers as they were).
  const body = JSON.parse(withEx.request.body.toString('utf8')) as Record<string, unknown>;
  for (const k of Object.keys(said)) delete body[k];
  const path = new URL(withEx.request.url).pathname.slice(new URL(ctx.t.baseUrl).pathname.replace(/\/$/, '').length);
  const withoutEx = await ctx.t.post(path, body, { label: `doctor: a ${q.kind} query without ${field}` });
  const b = answerOf(withoutEx);
  const needed = fieldRefusal(b)
    ? `; without them it is refused (${describeAnswer(b)}): the target needs them`
    : `; without them it is answered alike (${describeAnswer(b)}): the target may ignore them, which the document allows`;
  add(ctx, 'verified', field, `a ${q.kind} query carrying ${field} is read`, {
    answered: `${describeAnswer(a)}${needed}`,
    ex: [withEx, withoutEx],
  });
}
