import type { StoredResult } from '../run/results.js';

/**
 * The run's traffic figures, one object in run.json and certificate.json (issues 23 and 27). This module fills the
 * throttling figures, from the exchanges the checks recorded; the other figures come from the run's own counters.
 */
export interface Traffic {
  requests?: number;
  webhooksReceived?: number;
  bytesSent?: number;
  bytesReceived?: number;
  /** Answers a gateway gave instead of the service (HTTP 429, or 503 with Retry-After): waited out and resent, never judged. */
  throttledAnswers: number;
  /** Time the checks' requests waited after throttled answers, summed over requests (ms). */
  throttleWaitMs: number;
}

export function throttleTraffic(results: readonly StoredResult[]): Pick<Traffic, 'throttledAnswers' | 'throttleWaitMs'> {
  let throttledAnswers = 0;
  let throttleWaitMs = 0;
  for (const r of results) {
    for (const ex of r.exchanges) {
      throttledAnswers += ex.throttled?.answers ?? 0;
      throttleWaitMs += ex.throttled?.waitMs ?? 0;
    }
  }
  return { throttledAnswers, throttleWaitMs: Math.round(throttleWaitMs) };
}
