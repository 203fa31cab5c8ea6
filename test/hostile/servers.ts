/**
 * Hostile targets: local TCP servers on port 0 that misbehave in one precise way each. They speak
 * raw bytes (node:net), so every lie — a wrong Content-Length, garbage instead of a status line,
 * a reset in the middle of a body — goes on the wire exactly as written. Each server counts the
 * requests it read, the bytes it wrote and the sockets still open, and close() destroys them all.
 */
import { createServer, type Server, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';
import { request as undiciRequest } from 'undici';

export interface SeenRequest {
  method: string;
  path: string;
  headers: Record<string, string>;
  body: Buffer;
}

/** What a hostile server does with one complete request. It owns the socket from then on. */
export type Behaviour = (socket: Socket, req: SeenRequest, server: HostileServer) => void;

export interface HostileServer {
  readonly url: string;
  /** Complete requests read (head and declared body). */
  readonly requests: SeenRequest[];
  /** Bytes written to clients, all sockets together. */
  bytesWritten: number;
  /** Sockets accepted and not yet closed. */
  openSockets(): number;
  /** Resolves when no socket is open any more, or with false after timeoutMs. */
  waitIdle(timeoutMs: number): Promise<boolean>;
  close(): Promise<void>;
}

const HEAD_END = Buffer.from('\r\n\r\n');
const MAX_REQUEST_HEAD = 64 * 1024;

/** Starts a raw server that reads HTTP/1.1 requests (Content-Length framing) and hands each to `behaviour`. */
export async function startHostile(behaviour: Behaviour): Promise<HostileServer> {
  const sockets = new Set<Socket>();
  const idleWaiters = new Set<() => void>();
  const server: Server = createServer((socket) => {
    sockets.add(socket);
    socket.on('error', () => {});
    socket.once('close', () => {
      sockets.delete(socket);
      if (sockets.size === 0) for (const w of [...idleWaiters]) w();
    });
    let pending = Buffer.alloc(0);
    let handedOver = false;
    const onData = (chunk: Buffer): void => {
      if (handedOver) return;
      pending = Buffer.concat([pending, chunk]);
      for (;;) {
        const end = pending.indexOf(HEAD_END);
        if (end < 0) {
          if (pending.length > MAX_REQUEST_HEAD) socket.destroy();
          return;
        }
        const lines = pending.subarray(0, end).toString('latin1').split('\r\n');
        const [method = '', path = ''] = (lines[0] ?? '').split(' ');
        const headers: Record<string, string> = {};
        for (const line of lines.slice(1)) {
          const i = line.indexOf(':');
          if (i > 0) headers[line.slice(0, i).trim().toLowerCase()] = line.slice(i + 1).trim();
        }
        const length = Number(headers['content-length'] ?? '0') || 0;
        if (pending.length < end + 4 + length) return;
        const body = Buffer.from(pending.subarray(end + 4, end + 4 + length));
        pending = pending.subarray(end + 4 + length);
        const req: SeenRequest = { method, path, headers, body };
        hostile.requests.push(req);
        // One request per socket is handed over; a behaviour that answers properly may ask for more.
        handedOver = true;
        behaviour(socket, req, hostile);
        return;
      }
    };
    socket.on('data', onData);
    (socket as Socket & { readNext?: () => void }).readNext = () => {
      handedOver = false;
      if (pending.length > 0) onData(Buffer.alloc(0));
    };
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;

  const hostile: HostileServer = {
    url: `http://127.0.0.1:${port}`,
    requests: [],
    bytesWritten: 0,
    openSockets: () => sockets.size,
    waitIdle(timeoutMs) {
      if (sockets.size === 0) return Promise.resolve(true);
      return new Promise<boolean>((resolve) => {
        const done = (ok: boolean): void => {
          clearTimeout(timer);
          idleWaiters.delete(onIdle);
          resolve(ok);
        };
        const onIdle = (): void => done(true);
        const timer = setTimeout(() => done(false), timeoutMs);
        idleWaiters.add(onIdle);
      });
    },
    close() {
      for (const s of sockets) s.destroy();
      return new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
  return hostile;
}

/** Writes and counts; returns false when the socket buffer is full (wait for 'drain'). */
function put(socket: Socket, server: HostileServer, bytes: Buffer | string): boolean {
  const b = typeof bytes === 'string' ? Buffer.from(bytes, 'latin1') : bytes;
  if (socket.destroyed) return false;
  server.bytesWritten += b.length;
  return socket.write(b);
}

/** Lets the socket read the next request on a kept-alive connection. */
function readNext(socket: Socket): void {
  (socket as Socket & { readNext?: () => void }).readNext?.();
}

/** A correct-looking JSON error envelope, as a target that knows the interface would send it. */
export const ENVELOPE = Buffer.from(JSON.stringify({ code: 400, msg: 'Both empty|mutuallyRequiredFieldsMissing' }));

function head(status: string, headers: Record<string, string | number>): string {
  return `HTTP/1.1 ${status}\r\n${Object.entries(headers)
    .map(([k, v]) => `${k}: ${v}\r\n`)
    .join('')}\r\n`;
}

/** Accepts, reads the request, never answers. */
export const hangForever: Behaviour = () => {};

/** Writes a whole, valid response one byte at a time, `everyMs` apart; the head comes slowly too. */
export function slowBytes(everyMs: number): Behaviour {
  return (socket, _req, server) => {
    const bytes = Buffer.concat([
      Buffer.from(head('200 OK', { 'Content-Type': 'application/json', 'Content-Length': ENVELOPE.length })),
      ENVELOPE,
    ]);
    let i = 0;
    const timer = setInterval(() => {
      if (i >= bytes.length || socket.destroyed) {
        clearInterval(timer);
        return;
      }
      put(socket, server, bytes.subarray(i, i + 1));
      i += 1;
    }, everyMs);
    socket.once('close', () => clearInterval(timer));
  };
}

/** The head at once, then the body one byte at a time. */
export function slowBody(everyMs: number): Behaviour {
  return (socket, _req, server) => {
    put(socket, server, head('200 OK', { 'Content-Type': 'application/json', 'Content-Length': ENVELOPE.length }));
    let i = 0;
    const timer = setInterval(() => {
      if (i >= ENVELOPE.length || socket.destroyed) {
        clearInterval(timer);
        return;
      }
      put(socket, server, ENVELOPE.subarray(i, i + 1));
      i += 1;
    }, everyMs);
    socket.once('close', () => clearInterval(timer));
  };
}

/** Deterministic junk: no status line, no CR LF structure, high bytes and NULs. */
export function garbage(bytes = 4096, seed = 7): Behaviour {
  return (socket, _req, server) => {
    let x = seed;
    const out = Buffer.alloc(bytes);
    for (let i = 0; i < bytes; i++) {
      x = (x * 1103515245 + 12345) & 0x7fffffff;
      out[i] = x & 0xff;
    }
    out[0] = 0x00; // never starts like "HTTP/"
    put(socket, server, out);
  };
}

export const GIGABYTE = 1024 * 1024 * 1024;

/**
 * A 1 GB body, streamed in 64 KiB slices of one reused buffer with backpressure: the server never
 * holds more than one slice. `framing` chooses Content-Length or chunked coding.
 */
export function gigabyte(framing: 'length' | 'chunked'): Behaviour {
  const slice = Buffer.alloc(64 * 1024, 0x61);
  return (socket, _req, server) => {
    const headers: Record<string, string | number> = { 'Content-Type': 'application/json' };
    if (framing === 'length') headers['Content-Length'] = GIGABYTE;
    else headers['Transfer-Encoding'] = 'chunked';
    put(socket, server, head('200 OK', headers));
    const start = Buffer.from('{"code":0,"msg":"success","data":{"pad":"');
    const crlf = Buffer.from('\r\n', 'latin1');
    if (framing === 'length') put(socket, server, start);
    else put(socket, server, Buffer.concat([Buffer.from(`${start.length.toString(16)}\r\n`, 'latin1'), start, crlf]));
    let sent = start.length;
    const chunkHead = Buffer.from(`${slice.length.toString(16)}\r\n`, 'latin1');
    const pump = (): void => {
      while (!socket.destroyed && sent < GIGABYTE) {
        sent += slice.length;
        const ok = framing === 'length' ? put(socket, server, slice) : put(socket, server, Buffer.concat([chunkHead, slice, crlf]));
        if (!ok) {
          socket.once('drain', pump);
          return;
        }
      }
      if (!socket.destroyed && framing === 'chunked') put(socket, server, '0\r\n\r\n');
    };
    pump();
  };
}

/** Head and part of the body, then a TCP reset (RST), not a clean close. */
export const resetMidResponse: Behaviour = (socket, _req, server) => {
  put(socket, server, head('200 OK', { 'Content-Type': 'application/json', 'Content-Length': ENVELOPE.length }));
  put(socket, server, ENVELOPE.subarray(0, 20));
  setTimeout(() => socket.resetAndDestroy(), 30);
};

/** HTTP 200 with an HTML page; keeps the connection for the next request. */
export const notJson: Behaviour = (socket, _req, server) => {
  const body = Buffer.from('<!doctype html><html><body>It works!</body></html>');
  put(socket, server, head('200 OK', { 'Content-Type': 'text/html', 'Content-Length': body.length }));
  put(socket, server, body);
  readNext(socket);
};

/** Declares more bytes than it sends; then either keeps the connection open or closes it. */
export function contentLengthTooLarge(then: 'hold' | 'close'): Behaviour {
  return (socket, _req, server) => {
    put(socket, server, head('200 OK', { 'Content-Type': 'application/json', 'Content-Length': ENVELOPE.length + 100 }));
    put(socket, server, ENVELOPE);
    if (then === 'close') setTimeout(() => socket.end(), 30);
  };
}

/** Declares fewer bytes than it sends: the rest of the envelope lands where the next response should start. */
export const contentLengthTooSmall: Behaviour = (socket, _req, server) => {
  put(socket, server, head('200 OK', { 'Content-Type': 'application/json', 'Content-Length': 10 }));
  put(socket, server, ENVELOPE);
  readNext(socket);
};

/** 302 to itself, forever; keeps the connection. */
export const redirectLoop: Behaviour = (socket, req, server) => {
  put(socket, server, head('302 Found', { Location: req.path, 'Content-Length': 0 }));
  readNext(socket);
};

/** A response head of `bytes` header bytes (never-ending cookies). */
export function hugeHead(bytes: number): Behaviour {
  return (socket, _req, server) => {
    put(socket, server, 'HTTP/1.1 200 OK\r\n');
    const line = `Set-Cookie: a=${'x'.repeat(1000)}\r\n`;
    for (let n = 0; n < bytes && !socket.destroyed; n += line.length) put(socket, server, line);
  };
}

/**
 * Forwards to a real target and strips the four signing headers from every answer: a valid
 * envelope, HTTP 200, no signature.
 */
export function unsignedProxy(upstream: string): Behaviour {
  const drop = new Set([
    'x-merchantid',
    'x-timestamp',
    'x-nonce',
    'x-sign',
    'content-length',
    'connection',
    'keep-alive',
    'transfer-encoding',
  ]);
  return (socket, req, server) => {
    const headers: Record<string, string> = {};
    for (const [k, v] of Object.entries(req.headers)) if (k !== 'host' && k !== 'connection' && k !== 'content-length') headers[k] = v;
    undiciRequest(upstream + req.path, { method: 'POST', headers, body: req.body })
      .then(async (res) => {
        const body = Buffer.from(await res.body.arrayBuffer());
        const out: Record<string, string> = { 'Content-Length': String(body.length) };
        for (const [k, v] of Object.entries(res.headers)) if (!drop.has(k) && typeof v === 'string') out[k] = v;
        put(socket, server, head(`${res.statusCode} OK`, out));
        put(socket, server, body);
        readNext(socket);
      })
      .catch(() => socket.destroy());
  };
}

/** Reads the request, then closes the connection cleanly (FIN) without a byte of answer. */
export const closeAtOnce: Behaviour = (socket) => {
  socket.end();
};

/** Interim 1xx responses, one every `everyMs`, and never the final one. */
export function endlessInterim(everyMs: number): Behaviour {
  return (socket, _req, server) => {
    const timer = setInterval(() => {
      if (socket.destroyed) {
        clearInterval(timer);
        return;
      }
      put(socket, server, 'HTTP/1.1 103 Early Hints\r\nLink: </a.css>; rel=preload\r\n\r\n');
    }, everyMs);
    socket.once('close', () => clearInterval(timer));
  };
}

/**
 * Answers with a Content-Length that stops short, followed at once by a second, complete and
 * valid-looking response nobody asked for: on a kept-alive connection a careless client takes it
 * as the answer to its next request.
 */
export const smuggledResponse: Behaviour = (socket, _req, server) => {
  const smuggled = Buffer.from(JSON.stringify({ code: 0, msg: 'success', data: { smuggled: true } }));
  put(socket, server, head('200 OK', { 'Content-Type': 'application/json', 'Content-Length': ENVELOPE.length }));
  put(socket, server, ENVELOPE);
  put(socket, server, head('200 OK', { 'Content-Type': 'application/json', 'Content-Length': smuggled.length }));
  put(socket, server, smuggled);
  readNext(socket);
};
