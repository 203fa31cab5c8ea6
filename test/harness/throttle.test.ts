/**
 * Throttling is never a verdict: a gateway's 429 (or 503 with Retry-After) is waited out and the same body
 * resent, newly signed; the exchange recorded is the service's answer; a request still throttled at its deadline
 * ends the check without a verdict, never failed.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { runCheck } from '../../harness/check/run.js';
import { createClient } from '../../harness/http/client.js';
import { loadProfile } from '../../harness/profile/load.js';
import { openSession } from '../../harness/run/session.js';
import { sign } from '../../harness/http/signing.js';
import { isThrottledAnswer, Pacer, throttleWaitMs } from '../../harness/http/throttle.js';

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  while (cleanups.length > 0) await cleanups.pop()!();
});

interface Seen {
  headers: Record<string, string | string[] | undefined>;
  body: Buffer;
}

async function server(answer: (n: number, req: IncomingMessage, res: ServerResponse, body: Buffer) => void) {
  const seen: Seen[] = [];
  const sockets = new Set<Socket>();
  const srv = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      seen.push({ headers: req.headers, body });
      answer(seen.length, req, res, body);
    });
  });
  srv.on('connection', (s: Socket) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise<void>((resolve) => srv.listen(0, '127.0.0.1', resolve));
  cleanups.push(
    () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        srv.close(() => resolve());
      }),
  );
  return { url: `http://127.0.0.1:${(srv.address() as AddressInfo).port}`, seen };
}

const loaded = loadProfile('fixtures/profiles/reference.json');
const primary = loaded.merchants.primary;
const creds = { merchantId: primary.id, secret: primary.secret };

function html429(res: ServerResponse, retryAfter = '1'): void {
  res.writeHead(429, { 'Content-Type': 'text/html', 'Retry-After': retryAfter });
  res.end('<html><body><h1>429 Too Many Requests</h1></body></html>');
}

function signedEnvelope(res: ServerResponse, env: unknown, status = 200): void {
  const body = Buffer.from(JSON.stringify(env));
  res.writeHead(status, { 'Content-Type': 'application/json', ...sign(creds, body) });
  res.end(body);
}

const SUCCESS = { code: 0, msg: 'success', data: { merchant_order_no: 'X1', status: 'pending' } };

function session(url: string, deadlineMs = 10_000) {
  const profile = { ...loaded.profile, http: { ...loaded.profile.http, deadlineMs } };
  const s = openSession({ loaded: { ...loaded, profile }, baseUrl: url });
  cleanups.push(() => s.close());
  return s.target;
}

describe('throttled answers', () => {
  it('recognises 429 and 503 with Retry-After, not 503 without it', () => {
    expect(isThrottledAnswer(429, {})).toBe(true);
    expect(isThrottledAnswer(503, { 'retry-after': '2' })).toBe(true);
    expect(isThrottledAnswer(503, {})).toBe(false);
    expect(isThrottledAnswer(200, { 'retry-after': '2' })).toBe(false);
  });

  it('waits Retry-After seconds or until its HTTP-date, else backs off with jitter, bounded', () => {
    expect(throttleWaitMs({ 'retry-after': '2' }, 1)).toBe(2_000);
    const now = Date.parse('2026-01-01T00:00:00Z');
    expect(throttleWaitMs({ 'Retry-After': 'Thu, 01 Jan 2026 00:00:03 GMT' }, 1, now)).toBe(3_000);
    expect(throttleWaitMs({ 'retry-after': 'Wed, 31 Dec 2025 23:59:00 GMT' }, 1, now)).toBe(0);
    expect(throttleWaitMs({ 'retry-after': '100000' }, 1)).toBe(60_000);
    const first = throttleWaitMs({}, 1, now, () => 0.5);
    const fifth = throttleWaitMs({}, 5, now, () => 0.5);
    expect(fifth).toBeGreaterThan(first);
    expect(throttleWaitMs({}, 50, now, () => 1)).toBeLessThanOrEqual(5_000);
    expect(throttleWaitMs({}, 3, now, () => 0)).not.toBe(throttleWaitMs({}, 3, now, () => 1));
  });

  it('resends the same body bytes with a new nonce after a 429, and records one exchange: the service answer', async () => {
    const srv = await server((n, _req, res) => (n === 1 ? html429(res, '1') : signedEnvelope(res, SUCCESS)));
    const t = session(srv.url);
    const body = '{"merchant_order_no":"X1",  "extra":"bytes kept as given"}';
    const ex = await t.post('/api/v1/payments/query', body);
    expect(srv.seen).toHaveLength(2);
    expect(srv.seen[1]!.body.equals(srv.seen[0]!.body)).toBe(true);
    expect(srv.seen[1]!.body.toString()).toBe(body);
    expect(srv.seen[1]!.headers['x-nonce']).not.toBe(srv.seen[0]!.headers['x-nonce']);
    // The resend is signed anew over the same bytes, with its own nonce and timestamp.
    const h = srv.seen[1]!.headers as Record<string, string>;
    const resigned = sign(creds, srv.seen[1]!.body, { timestamp: h['x-timestamp'], nonce: h['x-nonce'] });
    expect(h['x-sign']).toBe(resigned['X-Sign']);
    expect(ex.response?.status).toBe(200);
    expect(ex.error).toBeUndefined();
    expect(ex.signature?.ok).toBe(true);
    expect(ex.throttled?.answers).toBe(1);
    expect(ex.throttled?.waitMs).toBeGreaterThanOrEqual(1_000);
    expect(ex.request.headers['X-Nonce']).toBe(h['x-nonce']);
  });

  it('waits until a Retry-After HTTP-date before resending', async () => {
    let firstAt = 0;
    const srv = await server((n, _req, res) => {
      if (n === 1) {
        firstAt = Date.now();
        // HTTP-dates have whole seconds: two seconds ahead is at least one second of wait.
        return html429(res, new Date(Date.now() + 2_000).toUTCString());
      }
      signedEnvelope(res, SUCCESS);
    });
    const ex = await session(srv.url).post('/api/v1/payments/query', { merchant_order_no: 'X1' });
    expect(srv.seen).toHaveLength(2);
    expect(ex.throttled?.answers).toBe(1);
    expect(ex.throttled!.waitMs).toBeGreaterThanOrEqual(900);
    expect(Date.now() - firstAt).toBeGreaterThanOrEqual(900);
  });

  it('treats a 503 without Retry-After as the target answer (judged, not resent)', async () => {
    const srv = await server((_n, _req, res) => {
      res.writeHead(503, { 'Content-Type': 'text/html' });
      res.end('<html>down</html>');
    });
    const client = createClient({ deadlineMs: 2_000, maxResponseBytes: 10_000 });
    cleanups.push(() => client.close());
    const ex = await client.send({ label: 'x', url: srv.url, headers: {}, body: Buffer.from('{}') });
    expect(srv.seen).toHaveLength(1);
    expect(ex.response?.status).toBe(503);
    expect(ex.error).toBeUndefined();
    expect(ex.throttled).toBeUndefined();
  });

  it('leaves a signed systemBusy answer (HTTP 200) to the checks: it is the service speaking', async () => {
    const busy = { code: 9001, msg: 'systemBusy' };
    const srv = await server((_n, _req, res) => signedEnvelope(res, busy));
    const ex = await session(srv.url).post('/api/v1/payments/query', { merchant_order_no: 'X1' });
    expect(srv.seen).toHaveLength(1);
    expect(ex.response?.json).toEqual(busy);
    expect(ex.throttled).toBeUndefined();
    expect(ex.error).toBeUndefined();
  });

  it('treats a 429 carrying a signed envelope as throttling too: the status, not the body, says who answered', async () => {
    const srv = await server((n, _req, res) =>
      n === 1 ? signedEnvelope(res, { code: 9001, msg: 'systemBusy' }, 429) : signedEnvelope(res, SUCCESS),
    );
    const ex = await session(srv.url).post('/api/v1/payments/query', { merchant_order_no: 'X1' });
    expect(srv.seen).toHaveLength(2);
    expect(ex.response?.status).toBe(200);
    expect(ex.throttled?.answers).toBe(1);
  });

  it('ends a check still throttled at its deadline inconclusive (no verdict: throttled), with no finding', async () => {
    const srv = await server((_n, _req, res) => html429(res, '1'));
    const t = session(srv.url, 2_500);
    const result = await runCheck(
      {
        id: 'throttle/probe',
        title: 'queries an order',
        clauses: ['env.body.object'],
        level: 'must',
        async run(ctx) {
          await ctx.target.post('/api/v1/payments/query', { merchant_order_no: 'X1' });
          throw new Error('not reached: the request never got an answer of the service');
        },
      },
      t,
      { seed: 1, numRuns: 1, webhooks: 'off' },
    );
    expect(result.status).toBe('inconclusive');
    expect(result.inconclusive).toEqual({ cause: 'throttled' });
    expect(result.findings).toEqual([]);
    expect(result.exercised).toEqual([]);
    expect(result.exchanges).toHaveLength(1);
    expect(result.exchanges[0]!.error?.kind).toBe('throttled');
    expect(result.exchanges[0]!.throttled!.answers).toBeGreaterThanOrEqual(2);
    expect(srv.seen.length).toBeGreaterThanOrEqual(2);
  });
});

describe('pacing', () => {
  it('paces requests under the rate from the first one', async () => {
    const pacer = new Pacer({ ratePerSecond: 20 });
    const t0 = performance.now();
    for (let i = 0; i < 11; i++) {
      await pacer.acquire();
      pacer.release(false);
    }
    // 1 at once, then 10 more at 20/s: at least ~500 ms.
    expect(performance.now() - t0).toBeGreaterThanOrEqual(450);
  });

  it('sends no burst after an idle time: a gateway counting any one second would see it on top of the rate', async () => {
    const pacer = new Pacer({ ratePerSecond: 10 });
    await pacer.acquire();
    pacer.release(false);
    await new Promise((r) => setTimeout(r, 600));
    const t0 = performance.now();
    for (let i = 0; i < 4; i++) {
      await pacer.acquire();
      pacer.release(false);
    }
    // One at once (its turn came while idle), then three at under 10/s: at least 300 ms, whatever the idle time saved.
    expect(performance.now() - t0).toBeGreaterThanOrEqual(290);
  });

  it('narrows the in-flight window on throttling and lifts it once answers come back (AIMD)', async () => {
    const pacer = new Pacer({ concurrency: 8 });
    expect(pacer.currentWindow).toBeUndefined();
    for (let i = 0; i < 8; i++) await pacer.acquire();
    pacer.release(true);
    expect(pacer.currentWindow).toBe(4);
    let ninth = false;
    void pacer.acquire().then(() => {
      ninth = true;
    });
    await new Promise((r) => setTimeout(r, 20));
    expect(ninth).toBe(false); // 7 in flight, window 4
    for (let i = 0; i < 4; i++) pacer.release(false);
    await new Promise((r) => setTimeout(r, 20));
    expect(ninth).toBe(true);
    for (let i = 0; i < 4; i++) pacer.release(false); // the three still held and the ninth
    for (let i = 0; i < 40; i++) {
      await pacer.acquire();
      pacer.release(false);
    }
    expect(pacer.currentWindow).toBeUndefined();
  });
});
