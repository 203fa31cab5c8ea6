/** A target that is not the service, or does not answer: a clear error within the deadline, no hang. */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { runInit } from '../../harness/init/run.js';

let server: Server | undefined;
afterEach(async () => {
  server?.closeAllConnections();
  await new Promise<void>((r) => (server ? server.close(() => r()) : r()));
  server = undefined;
});

async function serve(handler: Parameters<typeof createServer>[1]): Promise<string> {
  server = createServer(handler);
  await new Promise<void>((r) => server!.listen(0, '127.0.0.1', () => r()));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

const opts = (baseUrl: string) => ({
  baseUrl,
  merchantId: 'M1',
  secret: 'sk_test_x_0123456789',
  secretEnv: 'X',
  budget: 200,
  timeLimitMs: 20_000,
  deadlineMs: 500,
  progress: () => {},
});

describe('init against a misbehaving target', () => {
  it('a server answering HTML 404 everywhere: says the checkout path did not answer', async () => {
    const url = await serve((_req, res) => {
      res.writeHead(404, { 'content-type': 'text/html' }).end('<h1>Not Found</h1>');
    });
    await expect(runInit(opts(url))).rejects.toThrow(
      /checkout path .* did not answer: is http:\/\/127\.0\.0\.1:\d+ the service's base URL/,
    );
  });

  it('a server that never answers: says so after one deadline', async () => {
    const url = await serve(() => {});
    const started = Date.now();
    await expect(runInit(opts(url))).rejects.toThrow(/the target did not answer/);
    expect(Date.now() - started).toBeLessThan(5000);
  });

  it('a refused signature: names the flags to check', async () => {
    const url = await serve((_req, res) => {
      res.writeHead(403, { 'content-type': 'application/json' }).end('{"code":403,"msg":"Invalid signature|forbidden"}');
    });
    await expect(runInit(opts(url))).rejects.toThrow(/refused the credentials .*check --merchant and the secret in --secret-env/);
  });
});
