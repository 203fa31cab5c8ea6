/**
 * Compares a target's answer with a prediction, through the harness's named checks, so every
 * disagreement is a CheckFailure naming the clause of the rule the comparison enforces.
 */
import { recordReading } from '../../../harness/check/context.js';
import { expectOneOf, expectRefused, expectSuccess, failCheck, type Outcome } from '../../../harness/check/expect.js';
import { shortJson } from '../../../harness/http/exchange-text.js';
import type { Exchange } from '../../../harness/http/exchange.js';
import type { ReadingTopic } from '../../../harness/clauses/topics.js';
import type { Prediction } from './predict.js';

export type Verdict = { accepted: true; data: Record<string, unknown> } | { accepted: false; outcome: Outcome };

function codeOf(ex: Exchange): unknown {
  const body = ex.response?.json;
  return body !== null && typeof body === 'object' ? (body as { code?: unknown }).code : undefined;
}

/**
 * The prediction's topic where the document leaves the answer open (success or a refusal, which of several refusals,
 * which key), else none. A forced refusal (a repeat, a decline) recorded under it made the topic read whatever refusal
 * of the sequences came last, not the open question it names (audit of last-wins topics).
 */
function openTopic(pred: Prediction): { topic?: ReadingTopic } {
  const answers = new Set(pred.refusals.map((r) => `${r.code} ${r.key}`));
  return pred.success === 'may' || pred.anyRefusal !== undefined || answers.size > 1 ? { topic: pred.topic } : {};
}

/**
 * `replayed(data)` says whether a success shows the record that already holds the number: a
 * repeat answered that way was replayed, not refused.
 */
export function judge(
  ex: Exchange,
  pred: Prediction,
  what: string,
  replayed?: (data: Record<string, unknown>) => string | undefined,
): Verdict {
  const whys = [...pred.refusals.map((r) => r.why), ...(pred.anyRefusal ? [pred.anyRefusal.why] : [])];
  const because = whys.length > 0 ? ` (${[...new Set(whys)].join('; ')})` : '';
  const mainClause = pred.anyRefusal?.clause ?? pred.refusals[0]?.clause ?? pred.successClause;
  if (codeOf(ex) === 0) {
    if (pred.success === 'never') {
      const data = expectSuccess(ex, mainClause, { what });
      const original = replayed?.(data);
      if (original !== undefined) {
        failCheck('idem.no-replay', {
          code: 'REPLAYED',
          title:
            `${what} was answered with the record that already holds the ` +
            `number: a repeated request is refused, not replayed${because}`,
          expected: pred.anyRefusal ? 'a refusal' : pred.refusals.map((r) => `${r.code} ${r.key}`).join(' or '),
          seen: `code 0 with the original ${original}: ${shortJson(data)}`,
          exchange: ex,
        });
      }
      if (pred.anyRefusal) expectRefused(ex, pred.anyRefusal.clause, { what: `${what}${because}` });
      expectOneOf(ex, pred.refusals, mainClause, { ...openTopic(pred), what: `${what}${because}` });
    }
    const data = expectSuccess(ex, pred.successClause, { what });
    if (pred.success === 'may') recordReading(pred.topic, 'accepted');
    return { accepted: true, data };
  }
  if (pred.success === 'must') expectSuccess(ex, pred.successClause, { what });
  if (pred.anyRefusal)
    return { accepted: false, outcome: expectRefused(ex, pred.anyRefusal.clause, { what: `${what}${because}`, topic: pred.topic }) };
  return { accepted: false, outcome: expectOneOf(ex, pred.refusals, mainClause, { ...openTopic(pred), what: `${what}${because}` }) };
}
