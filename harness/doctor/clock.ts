/**
 * The target's webhook clock, measured before any check relies on it. Every webhook check scales the document's
 * figures (a first retry "about 15 seconds" after a refused attempt, a 5 s acknowledgement limit) by
 * webhooks.timeScale: a profile copied from an example (0.005) judging a sandbox that runs in real time failed a
 * correct target's retry checks by the dozen. The receiver refuses one delivery (webhooks.ts); the wait before its
 * retry gives the ratio. Waited for at most the first retry's upper bound on the slower of the declared clock and real
 * time (15 s × that scale, plus the profile's tolerance and one acknowledgement limit), so a profile that says
 * "fast" against a real-time target is told within about 20 s.
 *
 * Only a clock off by more than CLOCK_OFF (ten times either way) is called WRONG: a target whose first retry is
 * merely late or early (a retry check's failure to judge, e.g. a first wait of 60 s instead of 15) is a warning here and
 * judged by the checks. Our own lost time only lengthens a wait (harness/check/lag.ts): a wait it may have stretched is
 * never evidence of a slow clock, and then the ratio is not verifiable.
 */
import { LAG_SIGNIFICANT_MS, measuresTheTarget, processLag } from '../check/lag.js';
import { TIMING_CODES } from '../check/run.js';
import { gapBounds, INTERFACE_WEBHOOK_FIGURES, webhookTiming, within } from '../webhooks/schedule.js';
import type { Delivery, Receiver } from '../webhooks/types.js';
import { add, type DoctorContext } from './context.js';

/** How far off a measured clock must be, as a factor either way, before the profile's time scale is called wrong. */
export const CLOCK_OFF = 10;

const FIRST_WAIT_MS = INTERFACE_WEBHOOK_FIGURES.firstWaitMs;

/** Two significant digits: a measured ratio carries network jitter. */
function twoDigits(x: number): number {
  return Number(x.toPrecision(2));
}

/** The longest the doctor waits for the retry, after the refused first delivery: see the module comment. */
export function clockWaitMs(ctx: DoctorContext): number {
  const t = webhookTiming(ctx.loaded.profile);
  return gapBounds({ ...t, timeScale: Math.max(t.timeScale, 1) }, FIRST_WAIT_MS, t.ackTimeoutMs).max;
}

const PATH = 'webhooks.timeScale';

/** A clock the doctor could not measure: every timing finding of a webhook check may be the profile's (a wrong scale). */
export const CLOCK_DECIDES: readonly string[] = [...TIMING_CODES];

/** What the fix says: the scale measured and the figures that follow from it. */
function fixFor(ratio: number): string {
  return (
    `set webhooks.timeScale to about ${ratio} (1 is real time), webhooks.ackTimeoutMs to about ` +
    `${Math.round(5000 * ratio)} and webhooks.deliveryWaitMs to cover a delivery on that clock (\`mpsi-conformance init\` measures them)`
  );
}

/** Judges the clock from the refused first delivery `first` of the order `merchantOrderNo` and its retry. */
export async function judgeClock(ctx: DoctorContext, receiver: Receiver, merchantOrderNo: string, first: Delivery): Promise<void> {
  const t = webhookTiming(ctx.loaded.profile);
  const declared = t.timeScale;
  const claim = `the target's webhook clock runs at ${declared} of real time (a refused webhook is retried after about 15 s × ${declared})`;
  const expected = gapBounds(t, FIRST_WAIT_MS, t.ackTimeoutMs);
  const waitMs = clockWaitMs(ctx);
  ctx.progress(`webhooks: the target's clock (a refused webhook's retry, waiting up to ${Math.round(waitMs / 100) / 10} s)`);
  const ds = await receiver.waitFor(
    { merchantNo: merchantOrderNo },
    (x) => x.length >= 2,
    first.receivedAt + waitMs - Date.now(),
    'the first retry',
  );
  const lag = processLag();
  if (ds.length < 2) {
    const until = Date.now();
    const lost = Math.round(lag.lostDuring(first.receivedAt, until));
    const waited = until - first.receivedAt;
    // No retry in `waited`: the clock is at least this slow, counting only what our machine did not lose.
    const atLeast = twoDigits((waited - lost) / FIRST_WAIT_MS);
    if (atLeast > CLOCK_OFF * declared)
      add(ctx, 'wrong', PATH, claim, {
        expected: `a retry ${Math.round(expected.min)}–${Math.round(expected.max)} ms after the refused delivery`,
        answered:
          `no retry within ${waited} ms of the refused delivery` +
          `${lost > 0 ? ` (${lost} ms of it ours)` : ''}: the ratio is at least ${atLeast}`,
        fix: fixFor(atLeast),
      });
    else
      add(ctx, 'not-verifiable', PATH, claim, {
        answered: `no retry within ${waited} ms of the refused delivery (the retry checks judge a webhook that is not retried)`,
        decides: [...CLOCK_DECIDES],
      });
    return;
  }
  const gap = ds[1]!.receivedAt - ds[0]!.receivedAt;
  const lost = Math.round(lag.lostDuring(ds[0]!.receivedAt, ds[1]!.receivedAt));
  const ratio = twoDigits(gap / FIRST_WAIT_MS);
  const seen = `the refused delivery was retried ${gap} ms later${lost > 0 ? ` (${lost} ms of it ours)` : ''}: a ratio of about ${ratio}`;
  if (within(gap, expected)) {
    add(ctx, 'verified', PATH, claim, { answered: seen });
    return;
  }
  // Too fast is never our doing (lost time only lengthens a wait); too slow counts only what our machine did not lose.
  const targetMs = gap - (gap > expected.max ? lost : 0);
  if (targetMs / FIRST_WAIT_MS > CLOCK_OFF * declared || gap / FIRST_WAIT_MS < declared / CLOCK_OFF) {
    add(ctx, 'wrong', PATH, claim, {
      expected: `a retry ${Math.round(expected.min)}–${Math.round(expected.max)} ms after the refused delivery`,
      answered: seen,
      fix: fixFor(ratio),
    });
    return;
  }
  if (gap > expected.max && (!measuresTheTarget(gap, lost) || lost >= LAG_SIGNIFICANT_MS)) {
    add(ctx, 'not-verifiable', PATH, claim, {
      answered: `${seen}; this machine lost time within that wait, so it measures the machine as much as the target`,
      decides: [...CLOCK_DECIDES],
    });
    return;
  }
  add(ctx, 'warning', PATH, claim, {
    answered:
      `${seen}, outside ${Math.round(expected.min)}–${Math.round(expected.max)}` + ` ms but within ${CLOCK_OFF} times the declared clock`,
    fix: `the retry checks judge the first wait; if the vendor's clock is not ${declared}, ${fixFor(ratio)}`,
  });
}
