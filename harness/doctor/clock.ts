/**
 * The target's webhook clock, measured before any check relies on it. Every webhook check scales the document's
 * figures (a first retry "about 15 seconds" after a refused attempt, a 5 s acknowledgement limit) by
 * webhooks.timeScale: a profile copied from an example (0.005) judging a sandbox that runs in real time failed a
 * correct target's retry checks by the dozen. The receiver refuses one delivery (webhooks.ts); the wait before its
 * retry gives the ratio. Waited for at most the first retry's upper bound on the slower of the declared clock and real
 * time (15 s × that scale, plus the profile's tolerance and one acknowledgement limit), so a profile that says
 * "fast" against a real-time target is told within about 20 s.
 *
 * The retry isolates a clock faster than the declared one up to the document's "about": a correct target's first wait
 * is about 15 s on its own clock, which the kit reads as within ABOUT either way, the same for every target (a
 * profile's webhooks.tolerance widens the retry checks, never what the doctor calls a wrong clock). A wait measured
 * too short is never our machine's doing but for a stall of ours that delayed the stamp of the first arrival (counted
 * from STAMP_STALL_MS before it, harness/check/lag.ts) and the noise of the path between the target and us (the
 * median of the doctor's own round trips, never less than NOISE_FLOOR_MS). When the wait with both margins is still
 * shorter than any reading of "about 15 s" on the declared clock, the declared time scale is WRONG: a vendor's clock
 * declared 0.01 and measured 0.0045 was "verified" before, the declared bounds (the profile's tolerance, jitter and a
 * whole acknowledgement limit) being wide enough to take it. That is judged before the bounds.
 *
 * A wait too long is what a loaded machine makes (our lost time, our own handling of each delivery, much of which no
 * stall shows): only a clock slower than CLOCK_OFF (ten) times the declared one, counting only what our machine did
 * not lose, is WRONG; within the bounds it is verified; between, a warning (the retry checks judge the first wait) or,
 * when our machine lost time within it, not verifiable. A loaded machine never makes a WRONG. With no retry at all
 * within the wait, only the same ten times is WRONG: a target that does not retry is a retry check's failure to judge.
 */
import { LAG_SIGNIFICANT_MS, measuresTheTarget, processLag } from '../check/lag.js';
import { TIMING_CODES } from '../check/run.js';
import { gapBounds, INTERFACE_WEBHOOK_FIGURES, webhookTiming, within } from '../webhooks/schedule.js';
import type { Delivery, Receiver } from '../webhooks/types.js';
import { add, type DoctorContext } from './context.js';

/** How far off a clock that sent no retry at all must be, as a factor, before the profile's time scale is called wrong. */
export const CLOCK_OFF = 10;

/** The kit's reading of "about 15 seconds" for the first retry's wait: a quarter either way, for every target. */
export const ABOUT = 0.25;

const FIRST_WAIT_MS = INTERFACE_WEBHOOK_FIGURES.firstWaitMs;

/** Two significant digits: a measured ratio carries network jitter. */
function twoDigits(x: number): number {
  return Number(x.toPrecision(2));
}

/** How far before the first arrival a stall of ours may have begun and still delayed its stamp (shortening the wait). */
const STAMP_STALL_MS = 1000;

/** The least noise a measured wait carries: a target's timers and our receiver's stamps. */
export const NOISE_FLOOR_MS = 20;

/**
 * The noise of the path between the target and us, from the doctor's own exchanges so far: a delivery's one-way delay
 * varies by no more than a typical round trip of the path (their median) without the doctor's own requests showing it,
 * never less than NOISE_FLOOR_MS; the kit's default jitter allowance (250 ms) when too few were answered to tell. Our
 * own stalls are not noise of the path: the lag meter counts them apart.
 */
export function pathNoiseMs(exchanges: readonly { response?: unknown; timings: { totalMs: number } }[]): number {
  const trips = exchanges
    .filter((e) => e.response !== undefined)
    .map((e) => e.timings.totalMs)
    .sort((a, b) => a - b);
  if (trips.length < 5) return 250;
  return NOISE_FLOOR_MS + trips[Math.floor(trips.length / 2)]!;
}

/**
 * Whether a measured first wait `gapMs`, known to be no shorter than it was by more than `marginMs`, is shorter than
 * any reading of "about 15 s" on a clock of `scale`: the measurement isolates a clock faster than the declared one.
 */
export function fasterThanDeclared(gapMs: number, marginMs: number, scale: number): boolean {
  return gapMs + marginMs < FIRST_WAIT_MS * (1 - ABOUT) * scale;
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
  // Too fast: isolated when no reading of "about 15 s" on the declared clock is as short, even with a stall of ours
  // that delayed the first arrival's stamp and the path's noise. Too slow: only past ten times, our lost time not counted.
  const before = Math.round(lag.lostDuring(ds[0]!.receivedAt - STAMP_STALL_MS, ds[0]!.receivedAt));
  const noise = Math.round(pathNoiseMs(ctx.exchanges));
  const fast = fasterThanDeclared(gap, before + noise, declared);
  // Ten times too fast stays WRONG whatever the noise is thought to be, as before; ten times too slow only past the
  // declared bounds (they add a whole acknowledgement limit, which a loaded machine's wait may use).
  const tenFold = gap / FIRST_WAIT_MS < declared / CLOCK_OFF || (gap > expected.max && (gap - lost) / FIRST_WAIT_MS > CLOCK_OFF * declared);
  if (fast || tenFold) {
    add(ctx, 'wrong', PATH, claim, {
      expected: fast
        ? `a retry at least ${Math.round(FIRST_WAIT_MS * (1 - ABOUT) * declared)} ms after the refused delivery (about 15 s, ` +
          `within ${ABOUT * 100} %, on the declared clock)`
        : `a retry ${Math.round(expected.min)}–${Math.round(expected.max)} ms after the refused delivery`,
      answered: fast
        ? `${seen}; even ${before + noise} ms longer (${before} ms this machine lost before the first arrival, ${noise} ms ` +
          "of the path's noise) it is shorter than about 15 s on the declared clock"
        : seen,
      fix: fixFor(ratio),
    });
    return;
  }
  if (within(gap, expected)) {
    add(ctx, 'verified', PATH, claim, { answered: seen });
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
      `${seen}, outside ${Math.round(expected.min)}–${Math.round(expected.max)} ms but ` +
      (gap < expected.min
        ? "within what the path's noise and a stall of ours at the first arrival may take from a wait"
        : `within ${CLOCK_OFF} times the declared clock (this machine's own handling of a delivery lengthens a wait)`),
    fix: `the retry checks judge the first wait; if the vendor's clock is not ${declared}, ${fixFor(ratio)}`,
  });
}
