import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { MERCHANTS } from '../../reference/fixtures.js';
import { parseServeArgs, type ServeIO, serveMain } from '../../reference/serve.js';
import { checkoutBody } from './helpers/builders.js';
import { call } from './helpers/client.js';

function captureIO(): ServeIO & { lines: string[]; errors: string[]; stop: () => void; started: Promise<string> } {
  const lines: string[] = [];
  const errors: string[] = [];
  let stop = (): void => {};
  let announce = (_url: string): void => {};
  const started = new Promise<string>((resolve) => {
    announce = resolve;
  });
  return {
    lines,
    errors,
    started,
    stop: () => stop(),
    out: (l) => {
      lines.push(l);
      const m = /listening on (\S+)/.exec(l);
      if (m?.[1]) announce(m[1]);
    },
    err: (l) => errors.push(l),
    untilStopped: () =>
      new Promise<void>((resolve) => {
        stop = resolve;
      }),
  };
}

describe('serve', () => {
  for (const argv of [
    ['--port'],
    ['--port', 'abc'],
    ['--port', '70000'],
    ['--time-scale', '0'],
    ['--time-scale', 'x'],
    ['--fault', 'nope'],
    ['--readings', 'nope'],
    ['--readings'],
    ['--bogus'],
    ['extra'],
  ]) {
    it(`refuses ${JSON.stringify(argv)} with one line and exit code 2`, async () => {
      const io = captureIO();
      expect(await serveMain(argv, io)).toBe(2);
      expect(io.errors).toHaveLength(1);
      expect(io.errors[0]).not.toContain('\n');
    });
  }

  it('lists the faults and exits 0', async () => {
    const io = captureIO();
    expect(await serveMain(['serve', '--list-faults'], io)).toBe(0);
    expect(io.lines.some((l) => l.startsWith('resp-uppercase-hex\tauth.response.signed\t'))).toBe(true);
  });

  it('lists the readings with the sentences that allow them and exits 0', async () => {
    const io = captureIO();
    expect(await serveMain(['serve', '--list-readings'], io)).toBe(0);
    expect(io.lines.some((l) => l.startsWith('other-endpoint-paths\t') && l.includes('the path is not shown'))).toBe(true);
  });

  it('serves the alt readings with --readings alt', async () => {
    const io = captureIO();
    const done = serveMain(['serve', '--port', '0', '--readings=alt'], io);
    const url = await io.started;
    const r = await call(url, '/api/v1/payments/checkout', checkoutBody());
    expect((r.json.data as Record<string, unknown>)['state']).toBe('WAITING_PAYMENT');
    io.stop();
    expect(await done).toBe(0);
    expect(io.lines).toContain('readings: alt');
  });

  it('takes reading names separated by commas (a generated target), and refuses an unknown one', async () => {
    expect(parseServeArgs(['--readings', 'extra-money-fields,other-record-field-names']).opts.readings).toEqual([
      'extra-money-fields',
      'other-record-field-names',
    ]);
    expect(() => parseServeArgs(['--readings', 'no-such-reading'])).toThrow(/Unknown reading "no-such-reading"/);
    const io = captureIO();
    const done = serveMain(['serve', '--port', '0', '--readings', 'extra-money-fields,other-record-field-names'], io);
    const url = await io.started;
    const r = await call(url, '/api/v1/payments/checkout', checkoutBody());
    const tradeNo = (r.json.data as Record<string, unknown>)['trade_no'];
    const q = await call(url, '/api/v1/payments/query', { order_no: tradeNo });
    expect((q.json.data as Record<string, unknown>)['refunded_amount']).toEqual({ currency: 'USD', value: '0.00' });
    io.stop();
    expect(await done).toBe(0);
    expect(io.lines).toContain('readings: extra-money-fields,other-record-field-names');
  });

  it('parses every option, in both --flag value and --flag=value forms', () => {
    const a = parseServeArgs([
      '--port',
      '8080',
      '--host=0.0.0.0',
      '--time-scale',
      '0.5',
      '--fault',
      'idem-replay',
      '--fault=webhook-on-expiry',
    ]);
    expect(a.opts).toEqual({ port: 8080, host: '0.0.0.0', timeScale: 0.5, faults: ['idem-replay', 'webhook-on-expiry'] });
  });

  it('serves until stopped, prints the url and merchant ids but no secrets, then exits 0', async () => {
    const io = captureIO();
    const done = serveMain(['serve', '--port', '0', '--time-scale', '0.01'], io);
    const url = await io.started;
    expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    const r = await call(url, '/api/v1/payments/checkout', checkoutBody());
    expect(r.json.code).toBe(0);
    io.stop();
    expect(await done).toBe(0);
    const printed = io.lines.join('\n');
    expect(printed).toContain('M100001');
    for (const m of MERCHANTS) expect(printed).not.toContain(m.secret);
    expect(io.lines[0]).toBe(`MPSI reference sandbox listening on ${url}`);
  });

  it('stops cleanly on SIGTERM when run as a program', async () => {
    const script = fileURLToPath(new URL('../../reference/serve.ts', import.meta.url));
    const tsx = fileURLToPath(new URL('../../node_modules/tsx/dist/cli.mjs', import.meta.url));
    const child = spawn(process.execPath, [tsx, script, '--port', '0'], { stdio: ['ignore', 'pipe', 'pipe'] });
    const url = await new Promise<string>((resolve, reject) => {
      let seen = '';
      child.stdout.on('data', (c: Buffer) => {
        seen += c.toString();
        const m = /listening on (\S+)/.exec(seen);
        if (m?.[1]) resolve(m[1]);
      });
      child.on('exit', (code) => reject(new Error(`exited early with ${code}`)));
    });
    expect((await call(url, '/api/v1/payments/query', { order_no: 'P0' })).json.code).toBe(2002);
    const exit = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
    child.kill('SIGTERM');
    expect(await exit).toBe(0);
  }, 30_000);
});

describe('serve: field conditions', () => {
  it('--rate-limit N: beyond N requests a second, HTTP 429 with an HTML body, Retry-After and no signature', async () => {
    const io = captureIO();
    const done = serveMain(['serve', '--port', '0', '--rate-limit', '3'], io);
    const url = await io.started;
    const replies = await Promise.all(Array.from({ length: 6 }, () => call(url, '/api/v1/payments/checkout', checkoutBody())));
    const throttled = replies.filter((r) => r.status === 429);
    expect(replies.filter((r) => r.status === 200)).toHaveLength(3);
    expect(throttled).toHaveLength(3);
    for (const r of throttled) {
      expect(r.headers['retry-after']).toBe('1');
      expect(String(r.headers['content-type'])).toMatch(/^text\/html/);
      expect(r.raw.toString()).toContain('429 Too Many Requests');
      expect(r.headers['x-sign']).toBeUndefined();
    }
    // The next second lets requests through again.
    await new Promise((r) => setTimeout(r, 1_100));
    expect((await call(url, '/api/v1/payments/checkout', checkoutBody())).status).toBe(200);
    io.stop();
    expect(await done).toBe(0);
    expect(io.lines.some((l) => l.startsWith('gateway: HTTP 429'))).toBe(true);
  });

  it('--latency MS: every exchange takes at least two one-way delays', async () => {
    const io = captureIO();
    const done = serveMain(['serve', '--port', '0', '--latency', '150'], io);
    const url = await io.started;
    const t0 = performance.now();
    const r = await call(url, '/api/v1/payments/checkout', checkoutBody());
    expect(performance.now() - t0).toBeGreaterThanOrEqual(290);
    expect(r.status).toBe(200);
    expect(r.json.code).toBe(0);
    io.stop();
    expect(await done).toBe(0);
  });

  it('parses --rate-limit and --latency, and refuses bad values', async () => {
    expect(parseServeArgs(['--rate-limit', '50', '--latency=40'])).toMatchObject({ rateLimit: 50, latencyMs: 40 });
    for (const argv of [
      ['--rate-limit', '0'],
      ['--rate-limit', 'x'],
      ['--latency', '-1'],
      ['--latency', '1.5'],
    ]) {
      const io = captureIO();
      expect(await serveMain(argv, io)).toBe(2);
    }
  });
});
