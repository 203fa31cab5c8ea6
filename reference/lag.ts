/**
 * The sandbox's own scheduling lag: a timer drift sampler (node built-ins only, as all of reference/).
 * On a busy machine the sandbox's timers fire late and a receiver's reply waits unread behind them;
 * the outbox gives a receiver back the time the sandbox itself lost (webhooks/post.ts), so the
 * reference never charges a receiver with its own machine's delays.
 */
const INTERVAL_MS = 10;
/** Lateness below this is timer granularity. */
const NOISE_MS = 2;
const KEEP_MS = 10 * 60_000;

const stalls: { at: number; lateMs: number }[] = [];
let timer: NodeJS.Timeout | undefined;
let expectedAt = 0;

function tick(): void {
  const at = Date.now();
  const late = at - expectedAt;
  if (late >= NOISE_MS) stalls.push({ at, lateMs: late });
  expectedAt = at + INTERVAL_MS;
  let drop = 0;
  while (drop < stalls.length && stalls[drop]!.at < at - KEEP_MS) drop += 1;
  if (drop > 0) stalls.splice(0, drop);
}

/** Starts the sampler (once per process); it never keeps the process alive. */
export function startLagSampler(): void {
  if (timer) return;
  expectedAt = Date.now() + INTERVAL_MS;
  timer = setInterval(tick, INTERVAL_MS);
  timer.unref();
}

/** Time the sandbox's process lost within [from, to], ms, counting a stall still under way. */
export function lostDuring(from: number, to: number): number {
  const all = [...stalls];
  const now = Date.now();
  if (timer && now - expectedAt >= NOISE_MS) all.push({ at: now, lateMs: now - expectedAt });
  let lost = 0;
  for (const s of all) {
    const start = Math.max(from, s.at - s.lateMs);
    const end = Math.min(to, s.at);
    if (end > start) lost += end - start;
  }
  return lost;
}
