/**
 * A reading topic keeps the last reading written, so a topic written from code that runs side by side reads whatever
 * finished, or was sent, last: our scheduling, not the target, and two runs of one target (a parity run's two sides)
 * differ (audit). The lanes of the stateful checks and the examples of an independent property record into
 * recorders of their own, joined in a fixed order (test/stateful/model.test.ts, test/harness/property.test.ts); what is
 * left are the parallel creates of the idempotency suite, where which request won the race decides which answers lost.
 */
import { describe, expect, it } from 'vitest';
import { newRecorder, withRecorder } from '../../harness/check/context.js';
import type { Exchange } from '../../harness/http/exchange.js';
import { judgeRaceLosers } from '../../suites/idempotency.js';

function answer(n: number, json: Record<string, unknown>): Exchange {
  const body = Buffer.from(JSON.stringify(json));
  return {
    id: `x-${n}`,
    label: 'parallel payout with one number',
    request: { method: 'POST', url: 'http://127.0.0.1:1/api/v1/payouts/create', headers: {}, body: Buffer.from('{}') },
    response: { status: 200, headers: {}, body, json, truncated: false },
    timings: { startedAt: '', totalMs: 1 },
  } as Exchange;
}

const won = (n: number) => answer(n, { code: 0, msg: 'success', data: {} });
const lost = (n: number, key: string) => answer(n, { code: 422, msg: `Refused|${key}` });

async function reading(answers: Exchange[]): Promise<string | undefined> {
  const rec = newRecorder(['idem.payout.refused'], 0, 'idempotency/x');
  await withRecorder(rec, async () => judgeRaceLosers(answers, 'payout', 'idem.payout.refused'));
  return rec.readings['idem.payout.repeat-key'];
}

describe('a reading written from parallel requests does not depend on which of them won', () => {
  it("reads the losers' keys of a payout race alike wherever the winner stood in the send order", async () => {
    // A target that answers a request arriving while the winner is still being written otherwise than a later one.
    const first = [won(0), lost(1, 'duplicatePayoutOrder'), lost(2, 'payoutInProgress')];
    const last = [lost(0, 'payoutInProgress'), lost(1, 'duplicatePayoutOrder'), won(2)];
    expect(await reading(last)).toBe(await reading(first));
    expect(await reading(first)).toBe('422 duplicatePayoutOrder or 422 payoutInProgress');
  });

  it('reads one key as the single answer it is', async () => {
    expect(await reading([lost(0, 'duplicatePayoutOrder'), won(1), lost(2, 'duplicatePayoutOrder')])).toBe('422 duplicatePayoutOrder');
    expect(await reading([won(0)])).toBeUndefined();
  });
});
