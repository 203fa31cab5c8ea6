/**
 * The harness against targets that misbehave at the HTTP level. For each hostile server, real
 * checks (the mutual-exclusion suite, through runInProcess, undici path) and one check over the
 * client's raw-socket path run with a 1500 ms deadline. Whatever the target does, the run must
 * end within its deadline bound, every check must fail with a finding that names the problem,
 * nothing may crash or reject unhandled, and no connection may stay open after the session.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { runCheck, type CheckResult } from '../../harness/check/run.js';
import { runInProcess } from '../../harness/run/inprocess.js';
import { openSession } from '../../harness/run/session.js';
import { startReference, type RunningReference } from '../../reference/index.js';
import mutualExclusion from '../../suites/mutual-exclusion.js';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createClient } from '../../harness/http/client.js';
import {
  closeAtOnce,
  contentLengthTooLarge,
  contentLengthTooSmall,
  ENVELOPE,
  endlessInterim,
  GIGABYTE,
  garbage,
  gigabyte,
  hangForever,
  hugeHead,
  notJson,
  redirectLoop,
  resetMidResponse,
  slowBody,
  slowBytes,
  smuggledResponse,
  startHostile,
  unsignedProxy,
  type Behaviour,
  type HostileServer,
} from './servers.js';
import { findingText, profileWithDeadline, rawPathQuery, sampleRss, watchProcessErrors } from './support.js';

const DEADLINE_MS = 1500;
/** Every check fails on its first exchange and all run at once: one deadline, plus setup and teardown. */
const WALL_BOUND_MS = DEADLINE_MS + 1500;
const SETTINGS = { seed: 424242, numRuns: 3, webhooks: 'off' as const };

const loaded = profileWithDeadline(DEADLINE_MS);
let watch: ReturnType<typeof watchProcessErrors>;
let reference: RunningReference;
const servers: HostileServer[] = [];

beforeAll(async () => {
  watch = watchProcessErrors();
  reference = await startReference({ port: 0, timeScale: 0.002 });
});
afterEach(() => {
  expect(watch.errors, 'no unhandled rejection or uncaught exception').toEqual([]);
});
afterAll(async () => {
  for (const s of servers) await s.close();
  await reference.close();
  watch.uninstall();
});

interface Outcome {
  results: CheckResult[];
  raw: CheckResult;
  wallMs: number;
  server: HostileServer;
}

async function runAgainst(behaviour: Behaviour): Promise<Outcome> {
  const server = await startHostile(behaviour);
  servers.push(server);
  return runAgainstUrl(server.url, server);
}

async function runAgainstUrl(url: string, server: HostileServer): Promise<Outcome> {
  const t0 = performance.now();
  const rawPath = async (): Promise<CheckResult> => {
    const session = openSession({ loaded, baseUrl: url });
    try {
      return await runCheck(rawPathQuery, session.target, SETTINGS);
    } finally {
      await session.close();
    }
  };
  const [suiteResults, raw] = await Promise.all([
    runInProcess({ loaded, baseUrl: url, suites: [mutualExclusion], settings: SETTINGS, concurrency: 8 }),
    rawPath(),
  ]);
  const wallMs = performance.now() - t0;
  if (process.env['HOSTILE_DEBUG']) {
    for (const r of [...suiteResults.map((x) => x.result), raw]) {
      console.log(
        `${r.checkId} ${r.status} ${Math.round(r.durationMs)}ms :: ` +
          `${r.findings.map((f) => `${f.code} [${f.clause}] ${f.seen ?? ''}`).join(' | ')}`,
      );
    }
  }
  return { results: suiteResults.map((r) => r.result), raw, wallMs, server };
}

/** Every check failed (never passed, never broken) and its first finding says what went wrong. */
function expectClearFailures(o: Outcome, code: string | RegExp, text: RegExp): void {
  const all = [...o.results, o.raw];
  expect(all.length).toBe(mutualExclusion.checks.length + 1);
  for (const r of all) {
    const summary = `${r.checkId}: ${r.status} ${r.reason ?? ''} ${r.findings.map(findingText).join(' / ')}`;
    expect(r.status, summary).toBe('failed');
    const first = r.findings[0];
    expect(first, summary).toBeDefined();
    if (typeof code === 'string') expect(first!.code, summary).toBe(code);
    else expect(first!.code, summary).toMatch(code);
    expect(findingText(first!), summary).toMatch(text);
    expect(r.durationMs, summary).toBeLessThan(WALL_BOUND_MS);
  }
}

async function expectBoundedAndClosed(o: Outcome): Promise<void> {
  expect(o.wallMs, 'the run ends within its deadline bound').toBeLessThan(WALL_BOUND_MS);
  // The session is closed: the hostile server must see every connection go.
  expect(await o.server.waitIdle(2000), `connections left open: ${o.server.openSockets()}`).toBe(true);
}

describe('a target that never answers', () => {
  it('fails each check with NO_RESPONSE naming the deadline, within the deadline', async () => {
    const o = await runAgainst(hangForever);
    expectClearFailures(
      o,
      'NO_RESPONSE',
      new RegExp(
        'deadline: no complete response within 1500 ms; stopped before any response byte|' +
          'deadline: no complete response within 1500 ms; stopped before the response head',
      ),
    );
    await expectBoundedAndClosed(o);
  });
});

describe('a target that answers slowly, byte by byte', () => {
  it('stops at the deadline while the head is still arriving', async () => {
    const o = await runAgainst(slowBytes(100));
    expectClearFailures(o, 'NO_RESPONSE', /deadline: no complete response within 1500 ms/);
    await expectBoundedAndClosed(o);
  });

  it('stops at the deadline while the body is still arriving, and says the body is incomplete', async () => {
    const o = await runAgainst(slowBody(200));
    expectClearFailures(o, /^(NO_RESPONSE|BODY_NOT_JSON_OBJECT)$/, /deadline/);
    await expectBoundedAndClosed(o);
  });
});

describe('a target that sends garbage bytes instead of HTTP', () => {
  it('fails each check with NO_RESPONSE naming a malformed HTTP response', async () => {
    const o = await runAgainst(garbage());
    expectClearFailures(o, 'NO_RESPONSE', /protocol: malformed HTTP response/);
    await expectBoundedAndClosed(o);
  });

  it('fails each check when the response head never ends (1 MB of headers)', async () => {
    const o = await runAgainst(hugeHead(1024 * 1024));
    expectClearFailures(
      o,
      'NO_RESPONSE',
      /protocol: (response head larger than the client accepts|malformed HTTP response: response head exceeds)/,
    );
    await expectBoundedAndClosed(o);
  });
});

describe('a target that sends a 1 GB body', () => {
  for (const framing of ['length', 'chunked'] as const) {
    it(`stops reading at the response cap (${framing === 'length' ? 'Content-Length' : 'chunked'}), memory bounded`, async () => {
      global.gc?.();
      const rss = sampleRss();
      const o = await runAgainst(gigabyte(framing));
      const mem = rss.stop();
      expectClearFailures(o, 'BODY_NOT_JSON_OBJECT', /too-large/);
      for (const r of [...o.results, o.raw]) {
        for (const ex of r.exchanges) {
          expect(ex.error?.kind).toBe('too-large');
          expect(ex.response?.truncated).toBe(true);
          expect(ex.response?.body.length).toBeLessThanOrEqual(1_048_576);
        }
      }
      expect(mem.growthMb, `RSS grew by ${mem.growthMb.toFixed(1)} MB`).toBeLessThan(200);
      expect(o.server.bytesWritten, 'the client stopped reading long before 1 GB').toBeLessThan(GIGABYTE / 8);
      await expectBoundedAndClosed(o);
    });
  }
});

describe('a target that resets the connection mid-response', () => {
  it('fails each check naming the reset', async () => {
    const o = await runAgainst(resetMidResponse);
    expectClearFailures(o, /^(NO_RESPONSE|BODY_NOT_JSON_OBJECT)$/, /connection|reset/);
    await expectBoundedAndClosed(o);
  });
});

describe('a target that answers HTTP 200 with something other than JSON', () => {
  it('fails each check with BODY_NOT_JSON_OBJECT naming invalid JSON', async () => {
    const o = await runAgainst(notJson);
    expectClearFailures(o, 'BODY_NOT_JSON_OBJECT', /invalid JSON/);
    await expectBoundedAndClosed(o);
  });
});

describe('a target whose Content-Length lies', () => {
  it('declares more than it sends and holds the connection: stops at the deadline', async () => {
    const o = await runAgainst(contentLengthTooLarge('hold'));
    expectClearFailures(o, /^(NO_RESPONSE|BODY_NOT_JSON_OBJECT)$/, /deadline/);
    await expectBoundedAndClosed(o);
  });

  it('declares more than it sends and closes: names the short body', async () => {
    const o = await runAgainst(contentLengthTooLarge('close'));
    expectClearFailures(o, /^(NO_RESPONSE|BODY_NOT_JSON_OBJECT)$/, /connection closed|framing|Content-Length/);
    await expectBoundedAndClosed(o);
  });

  it('declares less than it sends: the body is cut where it said, and the leftovers do not poison later exchanges unnoticed', async () => {
    const o = await runAgainst(contentLengthTooSmall);
    expectClearFailures(o, /^(NO_RESPONSE|BODY_NOT_JSON_OBJECT)$/, /invalid JSON|malformed HTTP response/);
    await expectBoundedAndClosed(o);
  });
});

describe('a target that redirects in a loop', () => {
  it('does not follow: one request per exchange, and the 302 is reported as a status the interface does not allow', async () => {
    const o = await runAgainst(redirectLoop);
    const exchanges = [...o.results, o.raw].reduce((n, r) => n + r.exchanges.length, 0);
    expect(o.server.requests.length, 'requests the target saw = exchanges the harness recorded').toBe(exchanges);
    for (const r of [...o.results, o.raw]) {
      expect(r.status).toBe('failed');
      const statusFinding = r.findings.find((f) => f.code === 'HTTP_STATUS_NOT_ALLOWED');
      expect(statusFinding, r.findings.map(findingText).join(' / ')).toBeDefined();
      expect(statusFinding?.seen).toBe('302');
    }
    await expectBoundedAndClosed(o);
  });
});

describe('a target that answers a valid envelope without a signature', () => {
  it('fails every check with RESPONSE_SIGNATURE_INVALID though the envelopes are right', async () => {
    const o = await runAgainst(unsignedProxy(reference.url));
    for (const r of [...o.results, o.raw]) {
      const summary = `${r.checkId}: ${r.status} ${r.reason ?? ''} ${r.findings.map(findingText).join(' / ')}`;
      expect(r.status, summary).toBe('failed');
      expect(
        r.findings.map((f) => f.code),
        summary,
      ).toContain('RESPONSE_SIGNATURE_INVALID');
      const f = r.findings.find((x) => x.code === 'RESPONSE_SIGNATURE_INVALID')!;
      expect(f.clause).toBe('auth.response.signed');
      expect(f.message).toMatch(/X-MerchantID|X-Sign|missing/i);
    }
    await expectBoundedAndClosed(o);
  });
});

describe('a target that closes the connection without answering', () => {
  it('fails each check with NO_RESPONSE naming the closed connection, at once', async () => {
    const o = await runAgainst(closeAtOnce);
    expectClearFailures(o, 'NO_RESPONSE', /connection: connection closed by the server/);
    for (const r of [...o.results, o.raw]) expect(r.durationMs).toBeLessThan(DEADLINE_MS);
    await expectBoundedAndClosed(o);
  });
});

describe('a target that is not listening', () => {
  it('fails each check with NO_RESPONSE naming the refused connection, at once', async () => {
    const probe = createServer();
    await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
    const { port } = probe.address() as AddressInfo;
    await new Promise((resolve) => probe.close(resolve));
    const idle = await startHostile(hangForever);
    servers.push(idle);
    const o = await runAgainstUrl(`http://127.0.0.1:${port}`, idle);
    expectClearFailures(o, 'NO_RESPONSE', /connection refused \(ECONNREFUSED\)/);
    for (const r of [...o.results, o.raw]) expect(r.durationMs).toBeLessThan(DEADLINE_MS);
  });
});

describe('a target that sends interim 1xx responses forever', () => {
  it('stops at the deadline', async () => {
    const o = await runAgainst(endlessInterim(50));
    expectClearFailures(o, 'NO_RESPONSE', /deadline: no complete response within 1500 ms/);
    await expectBoundedAndClosed(o);
  });
});

describe('a target that sends an answer nobody asked for on a kept-alive connection', () => {
  it('does not take bytes that arrived before a request was sent as the answer to it', async () => {
    const server = await startHostile(smuggledResponse);
    servers.push(server);
    const client = createClient({ deadlineMs: DEADLINE_MS, maxResponseBytes: 1_048_576 });
    try {
      const send = (label: string) =>
        client.send({
          label,
          url: `${server.url}/api/v1/payments/query`,
          headers: { 'Content-Type': 'application/json' },
          body: Buffer.from('{}'),
        });
      const first = await send('first');
      expect(first.response?.body.toString()).toBe(ENVELOPE.toString());
      const second = await send('second');
      const text = second.response?.body.toString() ?? `(${second.error?.kind}: ${second.error?.message})`;
      expect(text, 'the second exchange got the unsolicited response queued before it was sent').not.toContain('smuggled');
    } finally {
      await client.close();
    }
  });
});

/*
 * A response head whose body is cut by the deadline or the connection leaves the exchange with both
 * `response` and `error`: that is no complete response (NO_RESPONSE), never a malformed envelope,
 * so a merely slow target is not charged with env.body.object and the kill matrix credits nothing.
 */
describe('an incomplete response', () => {
  it('reports a body cut by the deadline as no complete response, not as a non-JSON body', async () => {
    const o = await runAgainst(slowBody(200));
    for (const r of [...o.results, o.raw]) {
      expect(r.findings[0]?.code).toBe('NO_RESPONSE');
      expect(r.findings.filter((f) => f.clause === 'env.body.object')).toEqual([]);
    }
  });
});
