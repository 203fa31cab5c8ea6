/**
 * Field conditions on demand (issue 23): a gateway in front of the reference, as a vendor's sandbox sits behind one.
 * Beyond `rateLimit` requests per second it answers HTTP 429 with an HTML body and `Retry-After`, unsigned — the
 * request never reaches the service. `latencyMs` delays each way of every exchange (one-way delay). Node built-ins
 * only: the reference never imports the harness.
 */
import { createServer, request as httpRequest, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';

export interface GatewayOptions {
  /** Where the service listens (http://host:port). */
  upstream: string;
  /** Requests per second let through; beyond, HTTP 429. Absent: no limit. */
  rateLimit?: number;
  /** One-way delay, ms, on the way in and on the way out of every exchange. */
  latencyMs?: number;
  port?: number;
  host?: string;
}

export interface RunningGateway {
  url: string;
  /** Requests answered 429 so far. */
  throttled(): number;
  close(): Promise<void>;
}

const THROTTLED_PAGE = '<!DOCTYPE html>\n<html><head><title>429 Too Many Requests</title></head><body><h1>429 Too Many Requests</h1><p>Rate limit exceeded. Try again later.</p></body></html>\n';

function sleep(ms: number): Promise<void> {
  return ms > 0 ? new Promise((resolve) => setTimeout(resolve, ms)) : Promise.resolve();
}

export async function startGateway(opts: GatewayOptions): Promise<RunningGateway> {
  const upstream = new URL(opts.upstream);
  const latency = Math.max(0, opts.latencyMs ?? 0);
  const rate = opts.rateLimit;
  if (rate !== undefined && (!Number.isFinite(rate) || rate <= 0)) throw new Error(`rateLimit must be a positive number, got ${String(rate)}`);
  // The window a gateway counts in: the requests let through in the last second.
  const admitted: number[] = [];
  let throttled = 0;
  const admit = (): boolean => {
    if (rate === undefined) return true;
    const now = Date.now();
    while (admitted.length > 0 && admitted[0]! <= now - 1000) admitted.shift();
    if (admitted.length >= rate) return false;
    admitted.push(now);
    return true;
  };

  const forward = async (req: IncomingMessage, res: ServerResponse, body: Buffer): Promise<void> => {
    await sleep(latency);
    if (!admit()) {
      throttled += 1;
      await sleep(latency);
      res.writeHead(429, { 'Content-Type': 'text/html; charset=utf-8', 'Retry-After': '1', 'Content-Length': Buffer.byteLength(THROTTLED_PAGE) });
      res.end(THROTTLED_PAGE);
      return;
    }
    const headers = { ...req.headers, host: upstream.host };
    const up = httpRequest({ host: upstream.hostname, port: upstream.port, method: req.method, path: req.url, headers }, (answer) => {
      const chunks: Buffer[] = [];
      answer.on('data', (c: Buffer) => chunks.push(c));
      answer.on('end', () => {
        void sleep(latency).then(() => {
          const out = Buffer.concat(chunks);
          const h = { ...answer.headers };
          delete h['transfer-encoding'];
          h['content-length'] = String(out.length);
          res.writeHead(answer.statusCode ?? 502, h);
          res.end(out);
        });
      });
      answer.on('error', () => res.destroy());
    });
    up.on('error', () => {
      if (!res.headersSent) res.writeHead(502, { 'Content-Type': 'text/plain' });
      res.end('bad gateway\n');
    });
    up.end(body);
  };

  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => void forward(req, res, Buffer.concat(chunks)));
    req.on('error', () => res.destroy());
  });
  const sockets = new Set<Socket>();
  server.on('connection', (s: Socket) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  const host = opts.host ?? '127.0.0.1';
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port ?? 0, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://${host.includes(':') ? `[${host}]` : host}:${port}`,
    throttled: () => throttled,
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}
