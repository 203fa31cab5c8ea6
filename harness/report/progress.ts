/**
 * Progress events from the vitest workers to the progress reporter (main process). They travel as
 * console lines with a marker: vitest forwards every worker's console output to the reporters as it
 * happens, and the progress reporter takes these lines instead of printing them.
 */
import type { Receiver } from '../webhooks/types.js';

export const PROGRESS_MARKER = '[mpsi-progress] ';

export type ProgressEvent =
  /** `until`: when the wait ends at the latest (ms since the epoch), for the progress line's ETA. */
  | { kind: 'wait'; id: string; check: string; what: string; timeoutMs: number; until?: number }
  | { kind: 'wait-end'; id: string; check: string; got: number; ms: number }
  /** A check's requests met throttled answers (waited out and resent): for the progress line's count. */
  | { kind: 'throttled'; check: string; answers: number; waitMs: number };

export function emitProgress(e: ProgressEvent): void {
  console.log(PROGRESS_MARKER + JSON.stringify(e));
}

/** A clock time for a progress line: 14:03:27 UTC. */
export function clockTime(ms: number): string {
  return `${new Date(ms).toISOString().slice(11, 19)} UTC`;
}

export function parseProgress(line: string): ProgressEvent | undefined {
  const at = line.indexOf(PROGRESS_MARKER);
  if (at < 0) return undefined;
  try {
    return JSON.parse(line.slice(at + PROGRESS_MARKER.length).trim()) as ProgressEvent;
  } catch {
    return undefined;
  }
}

let waitSeq = 0;

/**
 * How long a wait goes unnarrated: most waits end within a few ms (the webhook is already there), and each
 * narrated wait costs two console lines through vitest's console capture in the worker and the main process.
 * A wait shorter than this is no silence a reader needs explained.
 */
export const NARRATE_AFTER_MS = 250;

/** Says, for each wait on the receiver that lasts `graceMs` or more, what is awaited and for how long — and when it ended. */
export function narrateReceiver(receiver: Receiver, currentCheck: () => string, graceMs = NARRATE_AFTER_MS): Receiver {
  return new Proxy(receiver, {
    get(target, prop, _recv) {
      if (prop === 'waitFor') {
        const waitFor: Receiver['waitFor'] = async (filter, pred, timeoutMs, purpose) => {
          const id = `${process.pid}-${++waitSeq}`;
          // Taken now: the timer's callback runs outside the waiting check's context.
          const check = currentCheck();
          const started = Date.now();
          let narrated = false;
          const narrate = () => {
            narrated = true;
            const about = `${filter.event ?? 'any webhook'}${filter.merchantNo ? ` for ${filter.merchantNo}` : ''}`;
            const what = purpose ? `${purpose} (${about})` : about;
            emitProgress({ kind: 'wait', id, check, what, timeoutMs, until: started + Math.max(0, timeoutMs) });
          };
          const timer = graceMs > 0 ? setTimeout(narrate, graceMs) : undefined;
          if (!timer) narrate();
          try {
            return await target.waitFor(filter, pred, timeoutMs, purpose);
          } finally {
            clearTimeout(timer);
            if (narrated) emitProgress({ kind: 'wait-end', id, check, got: target.deliveries(filter).length, ms: Date.now() - started });
          }
        };
        return waitFor;
      }
      const v = Reflect.get(target, prop, target);
      return typeof v === 'function' ? v.bind(target) : v;
    },
  });
}
