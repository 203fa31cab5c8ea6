/**
 * The receiver certification against hostile merchant endpoints: a reply that goes on after
 * `success`, a 1 GiB reply, a TLS server behind an http:// URL. Each is a clear failing check, in
 * bounded time and memory, with the true reply length in the evidence; never an acknowledgement.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { createServer, type Server, type ServerResponse } from 'node:http';
import { createServer as createTlsServer, type Server as TlsServer } from 'node:tls';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { deliver, describeReply, isSuccess } from '../../harness/merchant/receiver/deliver.js';
import { runReceiver } from '../../harness/merchant/receiver/run.js';
import { bytesOf, sampleBody, signed } from '../../harness/merchant/receiver/webhooks.js';
import { sampleRss } from './support.js';

const ID = { merchantId: 'M100001', secret: 'sk_test_hostile_receiver_3e9a1c7d' };
const servers: (Server | TlsServer)[] = [];
afterEach(async () => {
  for (const s of servers.splice(0)) {
    if ('closeAllConnections' in s) s.closeAllConnections();
    await new Promise<void>((r) => s.close(() => r()));
  }
});

async function listen<S extends Server | TlsServer>(s: S): Promise<string> {
  servers.push(s);
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
  return `http://127.0.0.1:${(s.address() as AddressInfo).port}/webhooks`;
}

/** `success`, then `total - 7` more bytes, written as fast as the reader takes them. */
function streaming(total: number, res: ServerResponse): void {
  res.writeHead(200, { 'Content-Type': 'text/plain', 'Content-Length': String(total) });
  res.write('success');
  const chunk = Buffer.alloc(256 * 1024, ' ');
  let left = total - 7;
  let closed = false;
  res.on('close', () => {
    closed = true;
  });
  const pump = (): void => {
    while (!closed && left > 0) {
      const c = left >= chunk.length ? chunk : chunk.subarray(0, left);
      left -= c.length;
      if (left === 0) return void res.end(c);
      if (!res.write(c)) return void res.once('drain', pump);
    }
  };
  pump();
}

const webhook = () => {
  const raw = bytesOf(sampleBody('payment', 3, 'SUCCESS'));
  return { raw, headers: signed(ID, raw) };
};

describe('replies that are more than success', () => {
  it(`success followed by 64 KiB is no acknowledgement: the \
certification fails merchant.ack.success-body with the true length`, async () => {
    const url = await listen(createServer((req, res) => req.resume().on('end', () => streaming(7 + 64 * 1024, res))));
    const results = await runReceiver({ url, ...ID, seed: 1, ackLimitMs: 1000, numRuns: 1, only: ['acknowledges-every-valid-payment'] });
    expect(results).toHaveLength(1);
    const [f] = results[0]!.findings;
    expect(f?.clause).toBe('merchant.ack.success-body');
    expect(`${f?.message} ${f?.seen}`).toContain('65543 bytes');
  });

  it('a 1 GiB reply starting success is no acknowledgement; its length is counted, not stored (bounded RSS)', async () => {
    const url = await listen(createServer((req, res) => req.resume().on('end', () => streaming(1024 ** 3, res))));
    const { raw, headers } = webhook();
    const rss = sampleRss(20);
    const r = await deliver(url, raw, headers, 6000);
    const mem = rss.stop();
    console.info(
      `1 GiB reply: ${describeReply(r)}; peak RSS ${(mem.peak / 1024 / 1024).toFixed(0)} MB (growth ${mem.growthMb.toFixed(1)} MB)`,
    );
    expect(isSuccess(r)).toBe(false);
    expect(r.size!).toBeGreaterThan(64 * 1024);
    expect(describeReply(r)).toMatch(r.error ? /still sending after \d+ bytes at the deadline/ : /\(1073741824 bytes\)/);
    // The deadline holds even while the stream keeps the event loop busy.
    expect(r.ms).toBeLessThan(6000 + 2000);
    expect(r.body!.length).toBeLessThanOrEqual(64 * 1024);
    expect(mem.growthMb, 'bytes past the cap are counted, not kept').toBeLessThan(100);
  }, 20_000);

  it('a reply still streaming at the deadline is no acknowledgement, with the length seen', async () => {
    const url = await listen(
      createServer((req, res) =>
        req.resume().on('end', () => {
          res.writeHead(200, { 'Content-Type': 'text/plain' });
          res.write('success');
          const t = setInterval(() => res.write(' '), 50);
          res.on('close', () => clearInterval(t));
        }),
      ),
    );
    const { raw, headers } = webhook();
    const r = await deliver(url, raw, headers, 600);
    expect(isSuccess(r)).toBe(false);
    expect(describeReply(r)).toMatch(/still sending after \d+ bytes at the deadline/);
    expect(describeReply(r)).toMatch(/body starting "success/);
  });
});

describe('a TLS server behind an http:// URL', () => {
  it('is reported as looking like HTTPS, not only as a reset', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'tls-receiver-'));
    execFileSync(
      'openssl',
      [
        'req',
        '-x509',
        '-newkey',
        'rsa:2048',
        '-nodes',
        '-subj',
        '/CN=127.0.0.1',
        '-days',
        '1',
        '-keyout',
        join(dir, 'k.pem'),
        '-out',
        join(dir, 'c.pem'),
      ],
      { stdio: 'ignore' },
    );
    const tls = createTlsServer({ key: readFileSync(join(dir, 'k.pem')), cert: readFileSync(join(dir, 'c.pem')) }, (s) => s.end('success'));
    tls.on('tlsClientError', () => {});
    const url = await listen(tls);
    const { raw, headers } = webhook();
    const r = await deliver(url, raw, headers, 3000);
    expect(isSuccess(r)).toBe(false);
    expect(r.error).toMatch(/looks like an HTTPS server: use an https:\/\/ URL/);
  });
});
