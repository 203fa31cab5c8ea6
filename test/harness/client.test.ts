import { createServer as createHttpServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createServer as createNetServer, type Server as NetServer, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { type Client, createClient, type RawRequest } from '../../harness/http/client.js';
import { socketError } from '../../harness/http/client-raw.js';
import type { Exchange } from '../../harness/http/exchange.js';
import { sign } from '../../harness/http/signing.js';

const SECRET = 'sk_test_Zq9-very-secret-value-4242';
const creds = { merchantId: 'M100001', secret: SECRET };

// ---------------------------------------------------------------------------------------------
// Test servers: all on 127.0.0.1, port 0, torn down after each test (sockets destroyed first).

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  while (cleanups.length > 0) await cleanups.pop()!();
});

function listen(server: Server | NetServer): Promise<number> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve((server.address() as AddressInfo).port));
  });
}

function trackSockets(server: Server | NetServer): { sockets: Set<Socket>; connections: () => number } {
  const sockets = new Set<Socket>();
  let count = 0;
  server.on('connection', (s: Socket) => {
    count += 1;
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  return { sockets, connections: () => count };
}

interface Seen {
  method: string;
  url: string;
  rawHeaders: string[];
  body: Buffer;
}

type Handler = (req: IncomingMessage, res: ServerResponse, body: Buffer) => void;

/** node:http server recording each request's raw header list and raw body bytes. */
async function httpServer(handler: Handler) {
  const seen: Seen[] = [];
  const server = createHttpServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      seen.push({ method: req.method ?? '', url: req.url ?? '', rawHeaders: req.rawHeaders, body });
      handler(req, res, body);
    });
  });
  const { sockets, connections } = trackSockets(server);
  const port = await listen(server);
  cleanups.push(
    () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  );
  return { base: `http://127.0.0.1:${port}`, seen, connections };
}

/** node:net server for answers node:http cannot give (raw framing, garbage, half-close handling). */
async function netServer(onConnection: (socket: Socket) => void) {
  const server = createNetServer({ allowHalfOpen: true }, onConnection);
  const { sockets, connections } = trackSockets(server);
  const port = await listen(server);
  cleanups.push(
    () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  );
  return { base: `http://127.0.0.1:${port}`, port, connections };
}

function newClient(deadlineMs = 2_000, maxResponseBytes = 1_000_000): Client {
  const client = createClient({ deadlineMs, maxResponseBytes });
  cleanups.push(() => client.close());
  return client;
}

function pairs(rawHeaders: string[]): [string, string][] {
  const out: [string, string][] = [];
  for (let i = 0; i < rawHeaders.length; i += 2) out.push([rawHeaders[i]!, rawHeaders[i + 1]!]);
  return out;
}

function signedRequest(url: string, body: Buffer, extra: Record<string, string> = {}): RawRequest {
  return {
    label: 'test request',
    url,
    headers: { 'Content-Type': 'application/json', ...sign(creds, body), ...extra },
    body,
  };
}

function okJson(res: ServerResponse, payload: unknown, headers: Record<string, string> = {}): void {
  const body = Buffer.from(JSON.stringify(payload), 'utf8');
  res.writeHead(200, { 'Content-Type': 'application/json', 'Content-Length': String(body.length), ...headers });
  res.end(body);
}

/** JSON.stringify with Buffers rendered as their UTF-8 text, so a secret hidden in bytes would show. */
function serialiseWithText(ex: Exchange): string {
  return JSON.stringify(ex, (_k, v: unknown) => {
    if (v && typeof v === 'object' && (v as { type?: unknown }).type === 'Buffer' && Array.isArray((v as { data?: unknown }).data)) {
      return Buffer.from((v as { data: number[] }).data).toString('utf8');
    }
    return v;
  });
}

/** Reads one request head on a raw socket and the body bytes that follow it. */
function rawRequestReader(socket: Socket, onHead: (head: string) => void, onBody: (received: Buffer) => void): void {
  let buf = Buffer.alloc(0);
  let headDone = false;
  socket.on('data', (d: Buffer) => {
    buf = Buffer.concat([buf, d]);
    if (!headDone) {
      const end = buf.indexOf('\r\n\r\n');
      if (end < 0) return;
      headDone = true;
      onHead(buf.subarray(0, end).toString('latin1'));
      buf = buf.subarray(end + 4);
    }
    onBody(buf);
  });
}

// ---------------------------------------------------------------------------------------------

describe('client: exact bytes on the wire', () => {
  it('sends the body bytes exactly: non-ASCII UTF-8, CR LF inside a JSON string, odd whitespace', async () => {
    const srv = await httpServer((_req, res) => okJson(res, { code: 0, msg: 'success', data: {} }));
    const client = newClient();
    const bodies = [
      Buffer.from('{"goods_name":"Café ☕ 東京"}', 'utf8'),
      Buffer.from('{"d":"a\r\nb","e":"x\\r\\ny"}', 'utf8'), // real CR LF bytes and the JSON escape
      Buffer.from('{ "a" :  1 ,\n\t"b":[ ] }\r\n', 'utf8'),
      Buffer.from([0x7b, 0x7d, 0xff, 0x00, 0xfe]), // not even UTF-8: still sent as is
    ];
    for (const body of bodies) {
      const ex = await client.send(signedRequest(`${srv.base}/api/v1/payments/query`, body));
      expect(ex.error).toBeUndefined();
      expect(ex.request.body.equals(body)).toBe(true);
    }
    expect(srv.seen.map((s) => s.body.toString('hex'))).toEqual(bodies.map((b) => b.toString('hex')));
  });

  it('records exactly the header lines the server received, in order, with names as given', async () => {
    const srv = await httpServer((_req, res) => okJson(res, { code: 0 }));
    const client = newClient();
    const body = Buffer.from('{"merchant_order_no":"A1"}');
    const req = signedRequest(`${srv.base}/api/v1/payments/query?x=1`, body, { 'Accept-Language': 'en', 'x-lower': 'v' });
    const ex = await client.send(req);
    const seen = srv.seen[0]!;
    expect(seen.method).toBe('POST');
    expect(seen.url).toBe('/api/v1/payments/query?x=1');
    expect(pairs(seen.rawHeaders)).toEqual(Object.entries(ex.request.headers));
    // Only host, connection (undici) and content-length are added around the caller's headers.
    expect(Object.entries(ex.request.headers)).toEqual([
      ['host', `127.0.0.1:${new URL(srv.base).port}`],
      ['connection', 'keep-alive'],
      ...Object.entries(req.headers),
      ['content-length', String(body.length)],
    ]);
    expect(ex.request.method).toBe('POST');
    expect(ex.request.url).toBe(req.url);
  });

  it('sends a removed header as absent and an emptied header as empty', async () => {
    const srv = await httpServer((_req, res) => okJson(res, { code: 401 }));
    const client = newClient();
    const body = Buffer.from('{}');
    const { 'X-Sign': _dropped, ...rest } = sign(creds, body);
    await client.send({ label: 'no X-Sign, empty X-Nonce', url: srv.base, headers: { ...rest, 'X-Nonce': '' }, body });
    const got = pairs(srv.seen[0]!.rawHeaders);
    expect(got).toContainEqual(['X-Nonce', '']);
    expect(got.some(([k]) => k.toLowerCase() === 'x-sign')).toBe(false);
    expect(got).toContainEqual(['X-MerchantID', 'M100001']);
  });

  it('sends a wrong Content-Type as given, and none when none is given', async () => {
    const srv = await httpServer((_req, res) => okJson(res, { code: 0 }));
    const client = newClient();
    const body = Buffer.from('{"a":1}');
    await client.send({ label: 'text/plain', url: srv.base, headers: { 'Content-Type': 'text/plain; charset=iso-8859-1' }, body });
    await client.send({ label: 'no content type', url: srv.base, headers: {}, body });
    expect(pairs(srv.seen[0]!.rawHeaders)).toContainEqual(['Content-Type', 'text/plain; charset=iso-8859-1']);
    expect(pairs(srv.seen[1]!.rawHeaders).map(([k]) => k.toLowerCase())).toEqual(['host', 'connection', 'content-length']);
  });

  it('sends a GET without a body with no content-length, and reuses the keep-alive connections', async () => {
    const srv = await httpServer((_req, res) => okJson(res, { code: 0 }));
    const client = newClient();
    const a = await client.send({ label: 'get', url: `${srv.base}/x`, method: 'GET', headers: {}, body: Buffer.alloc(0) });
    const b = await client.send({ label: 'post', url: `${srv.base}/y`, headers: {}, body: Buffer.alloc(0) });
    expect(pairs(srv.seen[0]!.rawHeaders)).toEqual(Object.entries(a.request.headers));
    expect(Object.keys(a.request.headers)).toEqual(['host', 'connection']);
    expect(b.request.headers['content-length']).toBe('0');
    expect(srv.seen.map((s) => s.method)).toEqual(['GET', 'POST']);
    // Back-to-back sends may find the first connection not yet handed back and take a second one;
    // twenty of them still share those two (keep-alive), never one connection per exchange.
    for (let i = 0; i < 18; i++) await client.send({ label: `post ${i}`, url: `${srv.base}/z`, headers: {}, body: Buffer.alloc(0) });
    expect(srv.seen).toHaveLength(20);
    expect(srv.connections()).toBeLessThanOrEqual(2);
  });

  it('goes over a raw socket when the caller sets Host or Connection, and sends them exactly', async () => {
    let head = '';
    const srv = await netServer((socket) => {
      rawRequestReader(
        socket,
        (h) => {
          head = h;
        },
        (received) => {
          if (received.length >= 2) socket.end('HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\n{}');
        },
      );
    });
    const client = newClient();
    const ex = await client.send({
      label: 'host override',
      url: `${srv.base}/p`,
      headers: { Host: 'merchant.example', Connection: 'close', 'X-Nonce': 'n' },
      body: Buffer.from('{}'),
    });
    expect(ex.error).toBeUndefined();
    expect(head).toBe('POST /p HTTP/1.1\r\nHost: merchant.example\r\nConnection: close\r\nX-Nonce: n\r\ncontent-length: 2');
    expect(ex.request.headers).toEqual({ Host: 'merchant.example', Connection: 'close', 'X-Nonce': 'n', 'content-length': '2' });
    expect(ex.response?.json).toEqual({});
  });

  it('sends a CONNECT over the raw socket (undici would open a tunnel) and returns the answer', async () => {
    let head = '';
    const srv = await netServer((socket) => {
      rawRequestReader(
        socket,
        (h) => {
          head = h;
          socket.end('HTTP/1.1 405 Method Not Allowed\r\nContent-Length: 0\r\n\r\n');
        },
        () => {},
      );
    });
    const ex = await newClient(1_000).send({
      label: 'connect',
      url: `${srv.base}/p`,
      method: 'CONNECT',
      headers: {},
      body: Buffer.alloc(0),
    });
    expect(ex.error).toBeUndefined();
    expect(ex.response?.status).toBe(405);
    expect(head.startsWith('CONNECT /p HTTP/1.1\r\n')).toBe(true);
  });
});

describe('client: declared Content-Length larger than the body (unreadable body)', () => {
  const short = Buffer.from('{"merchant_order_no":"A1"}');
  const errBody = '{"code":500,"msg":"Internal server error|internalServerError"}';

  async function shortBodyServer(reactToEnd: boolean) {
    const record = { head: '', received: Buffer.alloc(0), sawEnd: false };
    const srv = await netServer((socket) => {
      let answered = false;
      let timer: NodeJS.Timeout | undefined;
      const answer = (): void => {
        if (answered || socket.destroyed) return;
        answered = true;
        socket.end(
          `HTTP/1.1 500 Internal Server Error\r\nContent-Type: application/json\r\nContent-Length: ` +
            `${errBody.length}\r\nConnection: close\r\n\r\n${errBody}`,
        );
      };
      const readTimeout = (): void => {
        clearTimeout(timer);
        timer = setTimeout(answer, 150); // the server's read timeout: fewer bytes than declared arrived
      };
      socket.on('close', () => clearTimeout(timer));
      rawRequestReader(
        socket,
        (h) => {
          record.head = h;
          readTimeout();
        },
        (received) => {
          record.received = Buffer.from(received);
          readTimeout();
        },
      );
      socket.on('end', () => {
        record.sawEnd = true;
        if (reactToEnd) answer();
      });
    });
    return { srv, record };
  }

  it('sends the short body, half-closes, and returns the 500 the server sent on EOF', async () => {
    const { srv, record } = await shortBodyServer(true);
    const client = newClient();
    const ex = await client.send({
      label: 'unreadable body',
      url: `${srv.base}/api/v1/payments/checkout`,
      headers: { 'Content-Type': 'application/json', ...sign(creds, short) },
      body: short,
      declaredContentLength: short.length + 100,
    });
    expect(ex.error).toBeUndefined();
    expect(ex.response?.status).toBe(500);
    expect(ex.response?.json).toEqual({ code: 500, msg: 'Internal server error|internalServerError' });
    expect(record.sawEnd).toBe(true);
    expect(record.received.equals(short)).toBe(true);
    expect(record.head).toContain(`\r\ncontent-length: ${short.length + 100}`);
    expect(ex.request.headers['content-length']).toBe(String(short.length + 100));
    expect(ex.request.body.equals(short)).toBe(true);
  });

  it('waits for an answer that comes only after the server read timeout', async () => {
    const { srv, record } = await shortBodyServer(false);
    const client = newClient();
    const t0 = Date.now();
    const ex = await client.send({ label: 'unreadable body', url: srv.base, headers: {}, body: short, declaredContentLength: 1000 });
    expect(Date.now() - t0).toBeGreaterThanOrEqual(100);
    expect(ex.error).toBeUndefined();
    expect(ex.response?.status).toBe(500);
    expect(record.received.length).toBe(short.length);
  });

  it('reports connection when the server closes without answering', async () => {
    const srv = await netServer((socket) => {
      socket.on('data', () => {});
      socket.on('end', () => socket.end());
    });
    const client = newClient();
    const ex = await client.send({ label: 'unreadable body', url: srv.base, headers: {}, body: short, declaredContentLength: 1000 });
    expect(ex.response).toBeUndefined();
    expect(ex.error?.kind).toBe('connection');
    expect(ex.error?.message).toMatch(/closed/);
  });
});

describe('client: deadlines', () => {
  it('returns deadline when the server never answers', async () => {
    const srv = await httpServer(() => {});
    const client = newClient(250);
    const t0 = Date.now();
    const ex = await client.send(signedRequest(srv.base, Buffer.from('{}')));
    const elapsed = Date.now() - t0;
    expect(ex.error?.kind).toBe('deadline');
    expect(ex.response).toBeUndefined();
    expect(elapsed).toBeGreaterThanOrEqual(200);
    expect(elapsed).toBeLessThan(750);
    expect(ex.timings.totalMs).toBeGreaterThanOrEqual(200);
  });

  it('returns deadline for a body sent byte by byte past the deadline (whole exchange bounded)', async () => {
    const srv = await httpServer((_req, res) => {
      res.writeHead(200, { 'Content-Type': 'application/json', 'Content-Length': '1000' });
      res.flushHeaders();
      const iv = setInterval(() => res.write('a'), 20);
      res.on('close', () => clearInterval(iv));
    });
    const client = newClient(2_000);
    const t0 = Date.now();
    const ex = await client.send(signedRequest(srv.base, Buffer.from('{}')), { deadlineMs: 300 });
    const elapsed = Date.now() - t0;
    expect(ex.error?.kind).toBe('deadline');
    expect(elapsed).toBeLessThan(900);
    expect(ex.response?.status).toBe(200);
    expect(ex.response?.body.length).toBeGreaterThan(0);
    expect(ex.response?.body.length).toBeLessThan(1000);
    expect(ex.response?.truncated).toBe(false);
    expect(ex.response?.jsonError).toMatch(/incomplete/);
    expect(ex.timings.headersMs).toBeLessThanOrEqual(ex.timings.totalMs);
  });

  it('returns deadline on the raw-socket path too', async () => {
    const srv = await netServer((socket) => socket.on('data', () => {}));
    const client = newClient(250);
    const t0 = Date.now();
    const ex = await client.send({ label: 'raw', url: srv.base, headers: {}, body: Buffer.from('{}'), declaredContentLength: 50 });
    expect(ex.error?.kind).toBe('deadline');
    expect(Date.now() - t0).toBeLessThan(750);
  });

  it('leaves no timer behind once send has resolved', async () => {
    const srv = await netServer((socket) => socket.on('data', () => {}));
    const client = newClient(100);
    const timers = (): number => process.getActiveResourcesInfo().filter((r) => r === 'Timeout').length;
    const before = timers();
    await client.send({ label: 'hang', url: srv.base, headers: {}, body: Buffer.from('{}') });
    await client.send({ label: 'hang raw', url: srv.base, headers: { Connection: 'close' }, body: Buffer.from('{}') });
    expect(timers()).toBeLessThanOrEqual(before);
  });
});

describe('client: size cap', () => {
  it('stops at the cap on a server streaming without end: too-large, truncated, exactly cap bytes', async () => {
    let serverSawClose = false;
    let written = 0;
    const srv = await httpServer((_req, res) => {
      const chunk = Buffer.alloc(64 * 1024, 0x61);
      let stopped = false;
      res.on('close', () => {
        stopped = true;
        serverSawClose = true;
      });
      res.writeHead(200, { 'Content-Type': 'application/octet-stream' });
      const pump = (): void => {
        while (!stopped) {
          written += chunk.length;
          if (!res.write(chunk)) {
            res.once('drain', pump);
            return;
          }
        }
      };
      pump();
    });
    const cap = 300_000;
    const client = newClient(5_000, cap);
    const ex = await client.send(signedRequest(srv.base, Buffer.from('{}')), { verifyWith: creds });
    expect(ex.error?.kind).toBe('too-large');
    expect(ex.response?.truncated).toBe(true);
    expect(ex.response?.body.length).toBe(cap);
    expect(ex.signature).toBeUndefined();
    await expect.poll(() => serverSawClose, { timeout: 2_000 }).toBe(true);
    expect(written).toBeLessThan(50 * 1024 * 1024);
  });

  it('keeps a response exactly at the cap whole', async () => {
    const srv = await httpServer((_req, res) => {
      res.writeHead(200, { 'Content-Length': '1000' });
      res.end(Buffer.alloc(1000, 0x62));
    });
    const ex = await newClient(2_000, 1000).send(signedRequest(srv.base, Buffer.from('{}')));
    expect(ex.error).toBeUndefined();
    expect(ex.response?.truncated).toBe(false);
    expect(ex.response?.body.length).toBe(1000);
  });

  it('stops at the cap on the raw-socket path (chunked, endless)', async () => {
    const srv = await netServer((socket) => {
      let started = false;
      socket.on('error', () => {});
      socket.on('data', () => {
        if (started) return;
        started = true;
        socket.write('HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n');
        const chunk = `10000\r\n${'c'.repeat(0x10000)}\r\n`;
        const pump = (): void => {
          while (!socket.destroyed) if (!socket.write(chunk)) return void socket.once('drain', pump);
        };
        pump();
      });
    });
    const ex = await newClient(5_000, 200_000).send({
      label: 'raw',
      url: srv.base,
      headers: { Connection: 'close' },
      body: Buffer.from('{}'),
    });
    expect(ex.error?.kind).toBe('too-large');
    expect(ex.response?.truncated).toBe(true);
    expect(ex.response?.body.length).toBe(200_000);
    expect(ex.response?.body.every((b) => b === 0x63)).toBe(true);
  });
});

describe('client: connection and protocol failures', () => {
  it('reports connection (reset) when the server resets mid-response', async () => {
    const srv = await httpServer((_req, res) => {
      res.writeHead(200, { 'Content-Type': 'application/json', 'Content-Length': '1000' });
      res.write('{"code":0,');
      setTimeout(() => res.socket?.resetAndDestroy(), 30);
    });
    const ex = await newClient().send(signedRequest(srv.base, Buffer.from('{}')));
    expect(ex.error?.kind).toBe('connection');
    expect(ex.error?.message).toMatch(/reset|closed/i);
    expect(ex.error?.message).toMatch(/mid-response/);
    expect(ex.response?.status).toBe(200);
  });

  it('reports connection (closed) when the server closes mid-response', async () => {
    const srv = await netServer((socket) => {
      socket.once('data', () => socket.end('HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\n{"partial":'));
    });
    const ex = await newClient().send(signedRequest(srv.base, Buffer.from('{}')));
    expect(ex.error?.kind).toBe('connection');
    expect(ex.error?.message).toMatch(/mid-response|closed|length/i);
  });

  it('reports unreachable (refused) when nothing listens, on both paths: no connection, so no verdict on the target', async () => {
    const probe = createNetServer();
    const port = await listen(probe);
    await new Promise<void>((r) => probe.close(() => r()));
    const ex = await newClient().send(signedRequest(`http://127.0.0.1:${port}/`, Buffer.from('{}')));
    expect(ex.error).toEqual({ kind: 'unreachable', message: expect.stringMatching(/refused/) });
    expect(ex.response).toBeUndefined();
    const raw = await newClient().send({
      label: 'raw',
      url: `http://127.0.0.1:${port}/`,
      headers: {},
      body: Buffer.from('{}'),
      declaredContentLength: 9,
    });
    expect(raw.error?.kind).toBe('unreachable');
    expect(raw.error?.message).toMatch(/refused/);
  });

  it('reports protocol for a response that is not HTTP, on both paths', async () => {
    const srv = await netServer((socket) => {
      socket.on('error', () => {});
      socket.once('data', () => socket.end('HELLO THERE\r\n\r\n'));
    });
    const client = newClient();
    const a = await client.send(signedRequest(srv.base, Buffer.from('{}')));
    expect(a.error?.kind).toBe('protocol');
    const b = await client.send({ label: 'raw', url: srv.base, headers: { Connection: 'close' }, body: Buffer.from('{}') });
    expect(b.error?.kind).toBe('protocol');
  });

  it('reports protocol for conflicting Content-Length headers, on both paths', async () => {
    const srv = await netServer((socket) => {
      socket.on('error', () => {});
      socket.once('data', () => socket.end('HTTP/1.1 200 OK\r\nContent-Length: 5\r\nContent-Length: 6\r\n\r\nhello!'));
    });
    const client = newClient();
    const a = await client.send(signedRequest(srv.base, Buffer.from('{}')));
    expect(a.error?.kind).toBe('protocol');
    const b = await client.send({ label: 'raw', url: srv.base, headers: { Connection: 'close' }, body: Buffer.from('{}') });
    expect(b.error?.kind).toBe('protocol');
    expect(b.error?.message).toMatch(/Content-Length/);
  });
});

describe('client: responses', () => {
  it('records a non-JSON 200 with jsonError and no error', async () => {
    const srv = await httpServer((_req, res) => {
      res.writeHead(200, { 'Content-Type': 'text/html' });
      res.end('<html>ok</html>');
    });
    const ex = await newClient().send(signedRequest(srv.base, Buffer.from('{}')));
    expect(ex.error).toBeUndefined();
    expect(ex.response?.status).toBe(200);
    expect(ex.response?.json).toBeUndefined();
    expect(ex.response?.jsonError).toMatch(/invalid JSON/);
    expect(ex.response?.headers['content-type']).toBe('text/html');
  });

  it('records invalid UTF-8 and an empty body as jsonError', async () => {
    let n = 0;
    const srv = await httpServer((_req, res) => {
      res.writeHead(200);
      res.end(n++ === 0 ? Buffer.from([0x7b, 0x22, 0xff, 0x22, 0x7d]) : undefined);
    });
    const client = newClient();
    const a = await client.send(signedRequest(srv.base, Buffer.from('{}')));
    const b = await client.send(signedRequest(srv.base, Buffer.from('{}')));
    expect(a.response?.jsonError).toMatch(/UTF-8/);
    expect(b.response?.jsonError).toMatch(/empty/);
    expect(a.error).toBeUndefined();
  });

  it('records a 302 and does not follow it', async () => {
    const srv = await httpServer((_req, res) => {
      res.writeHead(302, { Location: '/elsewhere', 'Content-Length': '0' });
      res.end();
    });
    const ex = await newClient().send(signedRequest(`${srv.base}/api/v1/payments/query`, Buffer.from('{}')));
    expect(ex.error).toBeUndefined();
    expect(ex.response?.status).toBe(302);
    expect(ex.response?.headers['location']).toBe('/elsewhere');
    await new Promise((r) => setTimeout(r, 50));
    expect(srv.seen.map((s) => s.url)).toEqual(['/api/v1/payments/query']);
  });

  it('decodes a chunked answer after a 100 Continue on the raw-socket path', async () => {
    const srv = await netServer((socket) => {
      socket.once('data', () =>
        socket.end(
          'HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\nSet-Cookie: a=1\r\nSet-Cookie: b=2\r\n\r\n' +
            '5\r\n{"a":\r\n3;ext=1\r\n"b"\r\n1\r\n}\r\n0\r\nX-Trailer: t\r\n\r\n',
        ),
      );
    });
    const ex = await newClient().send({ label: 'raw', url: srv.base, headers: { Connection: 'close' }, body: Buffer.from('{}') });
    expect(ex.error).toBeUndefined();
    expect(ex.response?.status).toBe(200);
    expect(ex.response?.body.toString()).toBe('{"a":"b"}');
    expect(ex.response?.json).toEqual({ a: 'b' });
    expect(ex.response?.headers['set-cookie']).toEqual(['a=1', 'b=2']);
  });

  it('numbers exchanges sequentially and fills timings', async () => {
    const srv = await httpServer((_req, res) => okJson(res, { code: 0 }));
    const client = newClient();
    const a = await client.send(signedRequest(srv.base, Buffer.from('{}')));
    const b = await client.send({ ...signedRequest(srv.base, Buffer.from('{}')), label: 'second' });
    expect(a.id).toMatch(/^x-\d{6}$/);
    expect(Number(b.id.slice(2))).toBe(Number(a.id.slice(2)) + 1);
    expect(a.label).toBe('test request');
    expect(b.label).toBe('second');
    expect(new Date(a.timings.startedAt).toISOString()).toBe(a.timings.startedAt);
    expect(a.timings.headersMs).toBeGreaterThanOrEqual(0);
    expect(a.timings.headersMs).toBeLessThanOrEqual(a.timings.totalMs);
  });

  it('ends in-flight sends on close() with a connection error, on both paths', async () => {
    const srv = await netServer((socket) => socket.on('data', () => {}));
    const client = createClient({ deadlineMs: 5_000, maxResponseBytes: 1000 });
    const a = client.send({ label: 'undici', url: srv.base, headers: {}, body: Buffer.from('{}') });
    const b = client.send({ label: 'raw', url: srv.base, headers: { Connection: 'close' }, body: Buffer.from('{}') });
    await new Promise((r) => setTimeout(r, 50));
    const t0 = Date.now();
    await client.close();
    const [ea, eb] = await Promise.all([a, b]);
    expect(Date.now() - t0).toBeLessThan(1_000);
    expect(ea.error?.kind).toBe('connection');
    expect(eb.error?.kind).toBe('connection');
    expect(eb.error?.message).toMatch(/client was closed/);
  });

  it('refuses to send after close()', async () => {
    const client = createClient({ deadlineMs: 1000, maxResponseBytes: 1000 });
    await client.close();
    await expect(client.send({ label: 'x', url: 'http://127.0.0.1:9/', headers: {}, body: Buffer.alloc(0) })).rejects.toThrow(/closed/);
  });
});

describe('client: response signatures', () => {
  it('gives ok for a correctly signed response', async () => {
    const srv = await httpServer((_req, res) => {
      const body = Buffer.from('{"code":0,"msg":"success","data":{"goods_name":"Café ☕ 東京"}}', 'utf8');
      res.writeHead(200, { 'Content-Type': 'application/json', ...sign(creds, body) });
      res.end(body);
    });
    const ex = await newClient().send(signedRequest(srv.base, Buffer.from('{}')), { verifyWith: creds });
    expect(ex.signature).toEqual({ ok: true });
  });

  it('gives mismatch for a response signed over other bytes', async () => {
    const srv = await httpServer((_req, res) => {
      const signed = Buffer.from('{"code":0,"msg":"success"}');
      const sent = Buffer.from('{"code": 0, "msg": "success"}');
      res.writeHead(200, { 'Content-Type': 'application/json', ...sign(creds, signed) });
      res.end(sent);
    });
    const ex = await newClient().send(signedRequest(srv.base, Buffer.from('{}')), { verifyWith: creds });
    expect(ex.signature).toEqual({ ok: false, reason: 'mismatch' });
    expect(ex.error).toBeUndefined();
  });

  it('gives missing-header for an unsigned 401, and no verdict without verifyWith', async () => {
    const srv = await httpServer((_req, res) => {
      res.writeHead(401, { 'Content-Type': 'application/json' });
      res.end('{"code":401,"msg":"Missing authentication headers|unauthorized"}');
    });
    const client = newClient();
    const a = await client.send(signedRequest(srv.base, Buffer.from('{}')), { verifyWith: creds });
    expect(a.signature).toEqual({ ok: false, reason: 'missing-header', header: 'X-MerchantID' });
    const b = await client.send(signedRequest(srv.base, Buffer.from('{}')));
    expect(b.signature).toBeUndefined();
  });

  it('never copies the secret into an exchange, whatever the outcome', async () => {
    const srv = await httpServer((req, res) => {
      if (req.url === '/hang') return;
      const body = Buffer.from('{"code":0,"msg":"success"}');
      res.writeHead(200, { 'Content-Type': 'application/json', ...sign({ merchantId: 'M100001', secret: 'other' }, body) });
      res.end(body);
    });
    const client = newClient(200);
    const outcomes = [
      await client.send(signedRequest(srv.base, Buffer.from('{"a":1}')), { verifyWith: creds }),
      await client.send(signedRequest(`${srv.base}/hang`, Buffer.from('{"a":1}')), { verifyWith: creds }),
      await client.send({ ...signedRequest(srv.base, Buffer.from('{"a":1}')), declaredContentLength: 99 }, { verifyWith: creds }),
    ];
    expect(outcomes[0]!.signature).toEqual({ ok: false, reason: 'mismatch' });
    expect(outcomes[1]!.error?.kind).toBe('deadline');
    for (const ex of outcomes) {
      expect(JSON.stringify(ex)).not.toContain(SECRET);
      expect(serialiseWithText(ex)).not.toContain(SECRET);
      expect(serialiseWithText(ex)).not.toContain('very-secret');
    }
  });
});

describe('socketError', () => {
  const err = (code: string) => Object.assign(new Error(`${code} somewhere`), { code }) as NodeJS.ErrnoException;
  it('is unreachable when no connection to the target could be made, and says which way', () => {
    for (const [code, text] of [
      ['ECONNREFUSED', /refused/],
      ['ENOTFOUND', /lookup failed/],
      ['EAI_AGAIN', /lookup failed/],
      ['EHOSTUNREACH', /unreachable/],
      ['ENETUNREACH', /unreachable/],
      ['ETIMEDOUT', /connect timed out/],
    ] as const)
      expect(socketError(err(code), false, 'before any byte'), code).toEqual({ kind: 'unreachable', message: expect.stringMatching(text) });
  });

  it('is connection when a connection was made and lost: the doing of the target, not a reason for no verdict', () => {
    for (const code of ['ECONNRESET', 'EPIPE', 'EPROTO']) expect(socketError(err(code), true, 'mid-body').kind, code).toBe('connection');
    expect(socketError(err('ECONNRESET'), false, 'while connecting').kind).toBe('connection');
  });
});
