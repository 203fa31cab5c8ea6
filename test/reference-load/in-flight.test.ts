/**
 * The reference profile's in-flight budget (`http.concurrency` of fixtures/profiles/reference.json, and of every
 * profile derived from it) says what the reference admits: the run-wide pool (harness/run/pool.ts) holds a
 * conformance run to it, so a budget the reference could not take would make our own traffic a cause of its answers.
 * The reference has no admission limit of its own (node:http with no maxConnections, one in-memory service, no
 * overload answer): driven at exactly the declared budget, behind the 100 ms round trip of `serve --latency 50` so
 * that the requests really overlap, every request is answered by the service, signed, with code 0 — none refused,
 * throttled or answered busy.
 */
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startReference, type RunningReference } from '../../reference/index.js';
import { call, checkoutBody, codeOf, keyOf, makeAgent, PRIMARY, responseVerifies, uniq, type Reply } from './support.js';

const budgetOf = (name: string): number | undefined =>
  (JSON.parse(readFileSync(new URL(`../../fixtures/profiles/${name}`, import.meta.url), 'utf8')) as { http?: { concurrency?: number } })
    .http?.concurrency;
const BUDGET = budgetOf('reference.json') ?? 8;
const ROUNDS = 4;

let ref: RunningReference;
// One socket per request in flight, as the kit's client opens them (undici, no per-origin cap).
const agent = makeAgent(BUDGET);

beforeAll(async () => {
  ref = await startReference({ port: 0, timeScale: 0.002, latencyMs: 50 });
});
afterAll(async () => {
  agent.destroy();
  await ref.close();
});

describe('the reference at the in-flight budget its profile declares', () => {
  it(`answers ${BUDGET} requests at once, ${ROUNDS} rounds of creates and queries, each as the service`, async () => {
    // The same server under its other readings: the same budget. Wider than the default width of 8 that the budget
    // was before anyone asked what the reference takes.
    expect(budgetOf('reference-alt.json')).toBe(BUDGET);
    expect(BUDGET).toBeGreaterThan(8);
    let inFlight = 0;
    let most = 0;
    const replies: Reply[] = [];
    const timed = async (f: () => Promise<Reply>): Promise<void> => {
      inFlight += 1;
      most = Math.max(most, inFlight);
      try {
        replies.push(await f());
      } finally {
        inFlight -= 1;
      }
    };
    const prefix = uniq('BUDGET');
    for (let round = 0; round < ROUNDS; round++) {
      const numbers = Array.from({ length: BUDGET }, (_, i) => `${prefix}-${round}-${i}`);
      // A round of creates, then a round of queries of what was created: both kinds of request at the full width.
      await Promise.all(numbers.map((no) => timed(() => call(agent, ref.url, '/api/v1/payments/checkout', checkoutBody(no)))));
      await Promise.all(numbers.map((no) => timed(() => call(agent, ref.url, '/api/v1/payments/query', { merchant_order_no: no }))));
    }
    // Driven at the budget, not below it.
    expect(most).toBe(BUDGET);
    expect(replies).toHaveLength(2 * ROUNDS * BUDGET);
    const refused = replies.filter((r) => r.status !== 200 || codeOf(r.json) !== 0);
    expect(
      refused.map((r) => `HTTP ${r.status} ${String(codeOf(r.json))} ${keyOf(r.json) ?? ''}`),
      'no request refused, throttled or answered busy',
    ).toEqual([]);
    for (const r of replies) expect(responseVerifies(r.headers, r.raw, PRIMARY)).toBe(true);
  }, 60_000);
});
