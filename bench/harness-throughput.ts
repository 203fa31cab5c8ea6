/**
 * Exchanges per second through the harness (target.post: sign, send, verify the response
 * signature, run the response invariants, record the exchange) against plain undici requests
 * (signed with a bare HMAC, body read, nothing checked) to the same reference endpoint, in one
 * run, at concurrency 1 and 8. The reference runs in a child process.
 *
 *   npx tsx bench/harness-throughput.ts [exchangesPerRound=4000] [rounds=5]
 */
import { createHmac, randomBytes } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { Agent, request } from 'undici';
import { newRecorder, withRecorder } from '../harness/check/context.js';
import { loadProfile } from '../harness/profile/load.js';
import { openSession } from '../harness/run/session.js';
import { startChildReference } from './support/child-reference.js';
import { log, pool, round, writeReport } from './support/report.js';

const N = Number(process.argv[2] ?? 4000);
const ROUNDS = Number(process.argv[3] ?? 5);
const PROFILE = fileURLToPath(new URL('../fixtures/profiles/reference.json', import.meta.url));
const PATH = '/api/v1/payments/query';

const loaded = loadProfile(PROFILE);
const { id, secret } = loaded.merchants.primary;

function signed(raw: Buffer): Record<string, string> {
  const ts = String(Math.floor(Date.now() / 1000));
  const nonce = randomBytes(12).toString('hex');
  const sign = createHmac('sha256', secret).update(`${id}\n${ts}\n${nonce}\n`).update(raw).digest('hex');
  return { 'Content-Type': 'application/json', 'X-MerchantID': id, 'X-Timestamp': ts, 'X-Nonce': nonce, 'X-Sign': sign };
}

const ref = await startChildReference();
try {
  // One order to look up, so every query is a signed success with a payment record in data.
  const setup = new Agent();
  const merchantOrderNo = `BENCH${Date.now().toString(36).toUpperCase()}`;
  const create = Buffer.from(
    JSON.stringify({
      payment_method: 'PAYPAL',
      merchant_order_no: merchantOrderNo,
      trans_amount: { currency: 'USD', value: '25.00' },
      trade_info: { goods_name: 'Bench' },
      notify_url: 'https://merchant.invalid/notify',
      return_url: 'https://merchant.invalid/return',
    }),
  );
  const created = await request(`${ref.url}/api/v1/payments/checkout`, { method: 'POST', headers: signed(create), body: create, dispatcher: setup });
  const createdBody = await created.body.text();
  if (!createdBody.includes('"code":0')) throw new Error(`setup checkout failed: ${createdBody}`);
  await setup.close();
  const query = Buffer.from(JSON.stringify({ merchant_order_no: merchantOrderNo }));

  /** Client-side CPU time per exchange, µs (user + system of this process). */
  const cpuPer = (start: NodeJS.CpuUsage): number => {
    const d = process.cpuUsage(start);
    return (d.user + d.system) / N;
  };

  async function plain(concurrency: number): Promise<{ rps: number; cpuUs: number }> {
    const agent = new Agent({ connections: concurrency });
    const cpu0 = process.cpuUsage();
    const t0 = performance.now();
    await pool(N, concurrency, async () => {
      const res = await request(ref.url + PATH, { method: 'POST', headers: signed(query), body: query, dispatcher: agent });
      await res.body.arrayBuffer();
      if (res.statusCode !== 200) throw new Error(`plain: HTTP ${res.statusCode}`);
    });
    const s = (performance.now() - t0) / 1000;
    const cpuUs = cpuPer(cpu0);
    await agent.close();
    return { rps: N / s, cpuUs };
  }

  async function harness(concurrency: number): Promise<{ rps: number; cpuUs: number; findings: number }> {
    const session = openSession({ loaded, baseUrl: ref.url });
    const rec = newRecorder();
    let findings = 0;
    const cpu0 = process.cpuUsage();
    const t0 = performance.now();
    await withRecorder(rec, () =>
      pool(N, concurrency, async () => {
        const ex = await session.target.post(PATH, { merchant_order_no: merchantOrderNo }, { label: 'bench query' });
        if (ex.error || ex.response?.status !== 200 || ex.signature?.ok !== true) throw new Error(`harness: ${ex.error?.message ?? ex.response?.status}`);
      }),
    );
    const s = (performance.now() - t0) / 1000;
    const cpuUs = cpuPer(cpu0);
    findings = rec.invariantFindings.length;
    await session.close();
    return { rps: N / s, cpuUs, findings };
  }

  // Warm both paths (JIT, connections) before measuring.
  await plain(8);
  await harness(8);

  type Series = { plainRps: number[]; harnessRps: number[]; plainCpuUs: number[]; harnessCpuUs: number[] };
  const results: Record<string, Series> = {};
  for (const c of [1, 8]) {
    const series: Series = { plainRps: [], harnessRps: [], plainCpuUs: [], harnessCpuUs: [] };
    results[`c${c}`] = series;
    for (let r = 0; r < ROUNDS; r++) {
      const p = await plain(c);
      const h = await harness(c);
      if (h.findings > 0) throw new Error('the reference answers produced invariant findings: the bench would measure failure paths');
      series.plainRps.push(p.rps);
      series.harnessRps.push(h.rps);
      series.plainCpuUs.push(p.cpuUs);
      series.harnessCpuUs.push(h.cpuUs);
    }
  }
  const figures: Record<string, unknown> = { exchangesPerRound: N, rounds: ROUNDS, endpoint: PATH };
  for (const [k, v] of Object.entries(results)) {
    const best = (xs: number[]): number => Math.max(...xs);
    const plainRps = best(v.plainRps);
    const harnessRps = best(v.harnessRps);
    const plainCpu = Math.min(...v.plainCpuUs);
    const harnessCpu = Math.min(...v.harnessCpuUs);
    figures[k] = {
      plainRps: round(plainRps),
      harnessRps: round(harnessRps),
      ratio: round(harnessRps / plainRps, 2),
      clientCpuUsPerRequestPlain: round(plainCpu, 0),
      clientCpuUsPerExchangeHarness: round(harnessCpu, 0),
      clientCpuRatio: round(harnessCpu / plainCpu, 2),
      allRoundsPlainRps: v.plainRps.map((x) => round(x)),
      allRoundsHarnessRps: v.harnessRps.map((x) => round(x)),
    };
    log(
      `concurrency ${k.slice(1)}: plain undici ${round(plainRps)} req/s, harness ${round(harnessRps)} exchanges/s, ratio ${round(harnessRps / plainRps, 2)}; ` +
        `client CPU per request ${round(plainCpu, 0)} µs plain vs ${round(harnessCpu, 0)} µs harness (×${round(harnessCpu / plainCpu, 2)})`,
    );
  }
  log(`→ ${writeReport('harness-throughput', figures)}`);
} finally {
  await ref.close();
}
