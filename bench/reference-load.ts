/**
 * Reference throughput and latency on signed requests under concurrent load, and its memory after
 * 100,000 requests. The reference runs in a child process (started with --expose-gc); the load
 * generator signs with a bare HMAC and keeps `concurrency` requests in flight over keep-alive.
 *
 *   phase 1: 20,000 checkouts (creates, unique numbers) at concurrency 32
 *   phase 2: 20,000 payment queries at concurrency 32
 *   phase 3: 60,000 more, one create to two queries, to reach 100,000; then RSS and heap after GC
 *
 *   npx tsx bench/reference-load.ts [total=100000] [concurrency=32]
 */
import { createHmac, randomBytes } from 'node:crypto';
import { Agent, request } from 'undici';
import { startChildReference } from './support/child-reference.js';
import { log, mb, percentile, pool, round, writeReport } from './support/report.js';

const TOTAL = Number(process.argv[2] ?? 100_000);
const CONCURRENCY = Number(process.argv[3] ?? 32);
const PHASE = Math.min(20_000, Math.floor(TOTAL / 5));
const ID = 'M100001';
const SECRET = 'sk_test_primary_5f2c9a7e41d84b06';

function signed(raw: Buffer): Record<string, string> {
  const ts = String(Math.floor(Date.now() / 1000));
  const nonce = randomBytes(12).toString('hex');
  const sign = createHmac('sha256', SECRET).update(`${ID}\n${ts}\n${nonce}\n`).update(raw).digest('hex');
  return { 'Content-Type': 'application/json', 'X-MerchantID': ID, 'X-Timestamp': ts, 'X-Nonce': nonce, 'X-Sign': sign };
}

const ref = await startChildReference();
const agent = new Agent({ connections: CONCURRENCY, keepAliveTimeout: 10_000 });
const run = Date.now().toString(36).toUpperCase();
const created: string[] = [];
let failures = 0;

function checkoutBody(no: string): Buffer {
  return Buffer.from(
    JSON.stringify({
      payment_method: 'PAYPAL',
      merchant_order_no: no,
      trans_amount: { currency: 'USD', value: '25.00' },
      trade_info: { goods_name: 'Bench item', description: 'load' },
      notify_url: 'https://merchant.invalid/notify',
      return_url: 'https://merchant.invalid/return',
    }),
  );
}

async function one(path: string, raw: Buffer, latencies: number[]): Promise<string> {
  const t0 = performance.now();
  const res = await request(ref.url + path, { method: 'POST', headers: signed(raw), body: raw, dispatcher: agent });
  const text = await res.body.text();
  latencies.push(performance.now() - t0);
  if (res.statusCode !== 200 || !text.startsWith('{"code":0')) failures += 1;
  return text;
}

interface PhaseFigures {
  requests: number;
  seconds: number;
  rps: number;
  p50Ms: number;
  p99Ms: number;
  maxMs: number;
}

async function phase(name: string, count: number, make: (i: number) => { path: string; raw: Buffer; no?: string }): Promise<PhaseFigures> {
  const latencies: number[] = [];
  const t0 = performance.now();
  await pool(count, CONCURRENCY, async (i) => {
    const { path, raw, no } = make(i);
    await one(path, raw, latencies);
    if (no) created.push(no);
  });
  const seconds = (performance.now() - t0) / 1000;
  latencies.sort((a, b) => a - b);
  const f = {
    requests: count,
    seconds: round(seconds, 2),
    rps: round(count / seconds),
    p50Ms: round(percentile(latencies, 50), 2),
    p99Ms: round(percentile(latencies, 99), 2),
    maxMs: round(latencies.at(-1) ?? 0, 1),
  };
  log(`${name}: ${count} requests in ${f.seconds} s = ${f.rps} req/s, p50 ${f.p50Ms} ms, p99 ${f.p99Ms} ms, max ${f.maxMs} ms`);
  return f;
}

try {
  // Warm-up (JIT, connections), not counted.
  await phase('warm-up', 2000, (i) => ({
    path: '/api/v1/payments/query',
    raw: Buffer.from(JSON.stringify({ merchant_order_no: `W${i}` })),
  }));
  const before = await ref.memory();
  log(`reference memory before: RSS ${mb(before.rss)} MB, heap used ${mb(before.heapUsed)} MB`);
  // The warm-up queried numbers that do not exist (orderNotFound): not failures of the load.
  failures = 0;

  const creates = await phase(`phase 1 (checkout, c=${CONCURRENCY})`, PHASE, (i) => {
    const no = `LD${run}C${i}`;
    return { path: '/api/v1/payments/checkout', raw: checkoutBody(no), no };
  });
  const queries = await phase(`phase 2 (payment query, c=${CONCURRENCY})`, PHASE, (i) => ({
    path: '/api/v1/payments/query',
    raw: Buffer.from(JSON.stringify({ merchant_order_no: created[(i * 7919) % created.length] })),
  }));
  const rest = TOTAL - 2 * PHASE;
  const mixed = await phase(`phase 3 (1 create : 2 queries, c=${CONCURRENCY})`, rest, (i) => {
    if (i % 3 === 0) {
      const no = `LD${run}M${i}`;
      return { path: '/api/v1/payments/checkout', raw: checkoutBody(no), no };
    }
    return {
      path: '/api/v1/payments/query',
      raw: Buffer.from(JSON.stringify({ merchant_order_no: created[(i * 104729) % created.length] })),
    };
  });
  const after = await ref.memory();
  const stats = await ref.stats();
  log(
    `reference memory after ${TOTAL} requests (${created.length} orders stored): RSS ${mb(after.rss)}` +
      ` MB, heap used ${mb(after.heapUsed)} MB (GC ${after.gcRan ? 'forced' : 'not available'})`,
  );
  log(`requests not answered with a signed success: ${failures}, internal failures logged: ${stats.internalFailures}`);
  const file = writeReport('reference-load', {
    concurrency: CONCURRENCY,
    totalRequests: TOTAL,
    ordersStored: created.length,
    phases: { checkout: creates, query: queries, mixed },
    memory: {
      before: { rssMb: mb(before.rss), heapUsedMb: mb(before.heapUsed) },
      after: { rssMb: mb(after.rss), heapUsedMb: mb(after.heapUsed), heapTotalMb: mb(after.heapTotal), externalMb: mb(after.external) },
      heapGrowthPerOrderBytes: round((after.heapUsed - before.heapUsed) / created.length, 0),
      gcForced: after.gcRan,
    },
    failedRequests: failures,
    internalFailures: stats.internalFailures,
  });
  log(`→ ${file}`);
} finally {
  await agent.close();
  await ref.close();
}
