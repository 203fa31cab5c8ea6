/**
 * What a run cost the target: requests, webhooks received and bytes each way, so a vendor
 * can budget a run against a sandbox's limits. Checks run in vitest's worker processes, so no one
 * process sees the whole run: each check stores its own figures (StoredResult.traffic), each suite's
 * webhook receiver leaves its count in <reports>/traffic/, and the run's totals are their sums.
 */
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * run.json's and certificate.json's `traffic`: the checks' and receivers' sums (`runTraffic`) with the throttling figures
 * (`throttleTraffic`).
 */
export interface Traffic {
  /** Requests the checks sent (doctor requests are counted in `doctor.requests`). */
  requests: number;
  /** Webhook deliveries that reached the run's receivers. */
  webhooksReceived: number;
  /** HTTP/1.1 bytes of the requests: request line, headers, body. */
  bytesSent: number;
  /** HTTP/1.1 bytes of the responses as read: status line, headers, body (up to the kit's size cap). */
  bytesReceived: number;
  throttledAnswers: number;
  throttleWaitMs: number;
}

/** One check's share. */
export interface CheckTraffic {
  requests: number;
  bytesSent: number;
  bytesReceived: number;
  /** Σ round trips and Σ waits for a slot or rate token of those requests, ms (the run's floor); absent in older run.json files. */
  roundTripMs?: number;
  queuedMs?: number;
}

/** A check's stored share from its recorder's tally (every request, not only the exchanges kept). */
export function checkTraffic(t: {
  requests: number;
  bytesSent: number;
  bytesReceived: number;
  roundTripMs: number;
  queuedMs: number;
}): CheckTraffic {
  return {
    requests: t.requests,
    bytesSent: t.bytesSent,
    bytesReceived: t.bytesReceived,
    roundTripMs: Math.round(t.roundTripMs),
    queuedMs: Math.round(t.queuedMs),
  };
}

/** Written by each suite file's receiver when it closes. */
export function writeSuiteWebhooks(dir: string, suite: string, webhooksReceived: number): void {
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, `${suite.replace(/[^A-Za-z0-9_.-]+/g, '__')}.json`), `${JSON.stringify({ suite, webhooksReceived })}\n`);
}

/** The run's totals: the checks' figures and the receivers' counts, summed. */
export function runTraffic(results: readonly { traffic?: CheckTraffic }[], dir: string): Traffic {
  const t: Traffic = { requests: 0, webhooksReceived: 0, bytesSent: 0, bytesReceived: 0, throttledAnswers: 0, throttleWaitMs: 0 };
  for (const r of results) {
    t.requests += r.traffic?.requests ?? 0;
    t.bytesSent += r.traffic?.bytesSent ?? 0;
    t.bytesReceived += r.traffic?.bytesReceived ?? 0;
  }
  if (existsSync(dir)) {
    for (const f of readdirSync(dir)) {
      if (!f.endsWith('.json')) continue;
      const v = JSON.parse(readFileSync(join(dir, f), 'utf8')) as { webhooksReceived?: unknown };
      if (typeof v.webhooksReceived !== 'number') throw new Error(`${join(dir, f)} is not a receiver's count`);
      t.webhooksReceived += v.webhooksReceived;
    }
  }
  return t;
}

export function formatBytes(n: number): string {
  return n < 1024 ? `${n} B` : n < 1024 * 1024 ? `${(n / 1024).toFixed(1)} KiB` : `${(n / 1024 / 1024).toFixed(1)} MiB`;
}

/**
 * The throttling figures, from the exchanges the checks recorded: answers a gateway gave instead of the
 * service (HTTP 429, or 503 with Retry-After), waited out and resent, never judged; and the time waited after them,
 * summed over requests (ms).
 */
export function throttleTraffic(
  results: readonly { exchanges: readonly { throttled?: { answers: number; waitMs: number } }[] }[],
): Pick<Traffic, 'throttledAnswers' | 'throttleWaitMs'> {
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
