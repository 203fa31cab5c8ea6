/**
 * Exchanges per second through the harness (target.post: sign, send, verify the response
 * signature, run the response invariants, record the exchange) against plain undici requests
 * (signed with a bare HMAC, body read, nothing checked) to the same reference endpoint, in one
 * run, at concurrency 1 and 8. The reference runs in a child process.
 *
 * Plain undici's rate swings by a third between rounds a minute apart on a shared machine, so a
 * best-of-rounds ratio compares figures taken under different loads. Rounds are short and paired
 * (plain then harness, harness then plain, alternating), and the figure is the median of the
 * per-pair ratios; the best of the rounds is reported beside it, with the 1-minute load average.
 *
 *   flock /tmp/bench.lock npx tsx bench/harness-throughput.ts [exchangesPerRoundAtC1=1000] [pairs=21]
 *
 * (8× as many exchanges per round at concurrency 8.)
 */
import { createHmac, randomBytes } from 'node:crypto';
import { loadavg } from 'node:os';
import { fileURLToPath } from 'node:url';
import { Agent, request } from 'undici';
import { newRecorder, withRecorder } from '../harness/check/context.js';
import { loadProfile } from '../harness/profile/load.js';
import { openSession } from '../harness/run/session.js';
import { startChildReference } from './support/child-reference.js';
import { log, pool, round, writeReport } from './support/report.js';

const N = Number(process.argv[2] ?? 1000);
/** Exchanges per round at a concurrency: eight times as many at 8 (a round lasts 0.2–0.5 s at both). */
const perRound = (concurrency: number): number => (concurrency === 1 ? N : 8 * N);
const PAIRS = Number(process.argv[3] ?? 21);
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
  const created = await request(`${ref.url}/api/v1/payments/checkout`, {
    method: 'POST',
    headers: signed(create),
    body: create,
    dispatcher: setup,
  });
  const createdBody = await created.body.text();
  if (!createdBody.includes('"code":0')) throw new Error(`setup checkout failed: ${createdBody}`);
  await setup.close();
  const query = Buffer.from(JSON.stringify({ merchant_order_no: merchantOrderNo }));

  /** Client-side CPU time per exchange, µs (user + system of this process). */
  const cpuPer = (start: NodeJS.CpuUsage, n: number): number => {
    const d = process.cpuUsage(start);
    return (d.user + d.system) / n;
  };

  async function plain(concurrency: number): Promise<{ rps: number; cpuUs: number }> {
    const agent = new Agent({ connections: concurrency });
    const n = perRound(concurrency);
    const cpu0 = process.cpuUsage();
    const t0 = performance.now();
    await pool(n, concurrency, async () => {
      const res = await request(ref.url + PATH, { method: 'POST', headers: signed(query), body: query, dispatcher: agent });
      await res.body.arrayBuffer();
      if (res.statusCode !== 200) throw new Error(`plain: HTTP ${res.statusCode}`);
    });
    const s = (performance.now() - t0) / 1000;
    const cpuUs = cpuPer(cpu0, n);
    await agent.close();
    return { rps: n / s, cpuUs };
  }

  async function harness(concurrency: number): Promise<{ rps: number; cpuUs: number; findings: number }> {
    const session = openSession({ loaded, baseUrl: ref.url });
    const n = perRound(concurrency);
    const rec = newRecorder();
    let findings = 0;
    const cpu0 = process.cpuUsage();
    const t0 = performance.now();
    await withRecorder(rec, () =>
      pool(n, concurrency, async () => {
        const ex = await session.target.post(PATH, { merchant_order_no: merchantOrderNo }, { label: 'bench query' });
        if (ex.error || ex.response?.status !== 200 || ex.signature?.ok !== true)
          throw new Error(`harness: ${ex.error?.message ?? ex.response?.status}`);
      }),
    );
    const s = (performance.now() - t0) / 1000;
    const cpuUs = cpuPer(cpu0, n);
    findings = rec.invariantFindings.length;
    await session.close();
    return { rps: n / s, cpuUs, findings };
  }

  type Round = { rps: number; cpuUs: number };
  type Pair = { plain: Round; harness: Round; harnessFirst: boolean; ratio: number };
  const median = (xs: number[]): number => {
    const s = [...xs].sort((a, b) => a - b);
    const m = s.length >> 1;
    return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
  };
  const load1 = (): number => round(loadavg()[0]!, 2);

  // Warm both paths (JIT, connections) before measuring.
  await plain(8);
  await harness(8);

  const figures: Record<string, unknown> = { exchangesPerRound: { c1: perRound(1), c8: perRound(8) }, pairs: PAIRS, endpoint: PATH };
  for (const c of [1, 8]) {
    await plain(c);
    await harness(c);
    const loadStart = load1();
    const pairs: Pair[] = [];
    for (let i = 0; i < PAIRS; i++) {
      // Alternate which side goes first, so a drift in the machine's load charges both sides alike.
      const harnessFirst = i % 2 === 1;
      let p: Round;
      let h: Round & { findings: number };
      if (harnessFirst) {
        h = await harness(c);
        p = await plain(c);
      } else {
        p = await plain(c);
        h = await harness(c);
      }
      if (h.findings > 0) throw new Error('the reference answers produced invariant findings: the bench would measure failure paths');
      pairs.push({ plain: p, harness: h, harnessFirst, ratio: h.rps / p.rps });
    }
    const loadEnd = load1();
    const plainRps = pairs.map((x) => x.plain.rps);
    const harnessRps = pairs.map((x) => x.harness.rps);
    const plainCpu = median(pairs.map((x) => x.plain.cpuUs));
    const harnessCpu = median(pairs.map((x) => x.harness.cpuUs));
    const medianRatio = median(pairs.map((x) => x.ratio));
    const bestPlain = Math.max(...plainRps);
    const bestHarness = Math.max(...harnessRps);
    figures[`c${c}`] = {
      medianPairRatio: round(medianRatio, 3),
      pairRatios: pairs.map((x) => round(x.ratio, 3)),
      bestPlainRps: round(bestPlain),
      bestHarnessRps: round(bestHarness),
      bestOfRatio: round(bestHarness / bestPlain, 3),
      medianPlainRps: round(median(plainRps)),
      medianHarnessRps: round(median(harnessRps)),
      clientCpuUsPerRequestPlain: round(plainCpu, 0),
      clientCpuUsPerExchangeHarness: round(harnessCpu, 0),
      clientCpuRatio: round(harnessCpu / plainCpu, 2),
      loadAverage1m: { start: loadStart, end: loadEnd },
      rounds: pairs.map((x) => ({ plainRps: round(x.plain.rps), harnessRps: round(x.harness.rps), harnessFirst: x.harnessFirst })),
    };
    log(
      `concurrency ${c} (load ${loadStart} → ${loadEnd}): median of ${PAIRS} paired ratios ${round(medianRatio, 3)} ` +
        `[${pairs.map((x) => round(x.ratio, 2)).join(', ')}]; best of rounds: plain ${round(bestPlain)}` +
        ` req/s, harness ${round(bestHarness)} exchanges/s (${round(bestHarness / bestPlain, 2)}); ` +
        `client CPU per exchange (median) ${round(plainCpu, 0)} µs plain vs ` +
        `${round(harnessCpu, 0)} µs harness (×${round(harnessCpu / plainCpu, 2)})`,
    );
  }
  log(`→ ${writeReport('harness-throughput', figures)}`);
} finally {
  await ref.close();
}
