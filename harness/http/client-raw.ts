/**
 * Raw-socket HTTP/1.1 exchange for requests undici will not send as given: a Content-Length that
 * differs from the body (the "unreadable body" case), caller-supplied Host / Content-Length /
 * Connection / Transfer-Encoding / Expect headers, header bytes undici rejects.
 *
 * Writes exactly: request line, the header lines it is given, CR LF, the body bytes. Then optionally
 * half-closes (FIN) and reads one response with a small, bounded HTTP/1.1 parser. The socket is never
 * reused: it is destroyed as soon as the response is complete or the exchange fails.
 */
import { connect as netConnect, type Socket } from 'node:net';
import { connect as tlsConnect } from 'node:tls';
import type { ExchangeError } from './exchange.js';
import { type Network, networkProblem, type ProblemContext, proxyOf } from './network.js';

/** What came back over the wire, before it is turned into an Exchange. Shared by both send paths. */
export interface WireResult {
  response?: {
    status: number;
    headers: Record<string, string | string[]>;
    body: Buffer;
    truncated: boolean;
  };
  error?: ExchangeError;
  /** performance.now() when the response head was complete. */
  headersAt?: number;
}

/** Collects body bytes up to a cap; memory never exceeds the cap. */
export class CappedSink {
  private readonly chunks: Buffer[] = [];
  length = 0;
  truncated = false;
  constructor(private readonly cap: number) {}
  /** Returns false once the cap has been passed (the excess is dropped and `truncated` is set). */
  push(chunk: Buffer): boolean {
    const room = this.cap - this.length;
    if (chunk.length > room) {
      if (room > 0) {
        this.chunks.push(Buffer.from(chunk.subarray(0, room)));
        this.length += room;
      }
      this.truncated = true;
      return false;
    }
    if (chunk.length > 0) {
      // A small view on a large pooled buffer would keep the whole buffer alive: copy it.
      this.chunks.push(chunk.length * 2 < chunk.buffer.byteLength ? Buffer.from(chunk) : chunk);
      this.length += chunk.length;
    }
    return true;
  }
  buffer(): Buffer {
    return Buffer.concat(this.chunks, this.length);
  }
}

export interface RawSendParams {
  url: URL;
  method: string;
  /** Header lines in wire order, names and values exactly as they go out. */
  headerLines: ReadonlyArray<readonly [string, string]>;
  body: Buffer;
  /** End our side (FIN) after the body: the server then sees fewer bytes than declared and EOF. */
  halfClose: boolean;
  maxResponseBytes: number;
  deadlineMs: number;
  signal: AbortSignal;
  /** Called with the socket so the owning client can destroy it on close(); returns the untrack function. */
  track: (socket: Socket) => () => void;
  /** TLS options and proxies (harness/http/network.ts); absent: a direct connection with Node's defaults. */
  network?: Network;
}

const MAX_HEAD_BYTES = 64 * 1024;
const MAX_CHUNK_LINE = 4 * 1024;
const CRLF = Buffer.from('\r\n');
const HEAD_END = Buffer.from('\r\n\r\n');
/** Every HTTP/1.x response starts with these bytes. */
const STATUS_PREFIX = Buffer.from('HTTP/1.', 'latin1');
const TOKEN = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
const NOT_LATIN1 = /[^\u0000-\u00ff]/;

/**
 * Header bytes: one byte per character (latin1), as undici and node:http write them. A line that
 * holds a character above U+00FF cannot be written that way and is written as UTF-8 instead.
 */
export function encodeLine(line: string): Buffer {
  return Buffer.from(line, NOT_LATIN1.test(line) ? 'utf8' : 'latin1');
}

export function requestTarget(url: URL): string {
  return `${url.pathname || '/'}${url.search}`;
}

/** The Host header value undici writes for a URL: hostname plus the port when it is not the default. */
export function hostHeaderValue(url: URL): string {
  return `${url.hostname}${url.port ? `:${url.port}` : ''}`;
}

type Framing = { kind: 'none' } | { kind: 'length'; remaining: number } | { kind: 'chunked' } | { kind: 'close' };
type ChunkState = 'size' | 'data' | 'data-crlf' | 'trailers';

class ProtocolError extends Error {}

function hostPort(url: URL): { host: string; port: number } {
  const host = url.hostname.startsWith('[') ? url.hostname.slice(1, -1) : url.hostname;
  return { host, port: url.port ? Number(url.port) : url.protocol === 'https:' ? 443 : 80 };
}

/** TLS to the target over `socket` (a proxy's tunnel) or a new connection, with the profile's options. */
function tlsToTarget(url: URL, network: Network | undefined, socket?: Socket): Socket {
  const { host, port } = hostPort(url);
  const servername = network?.tls?.connect.servername ?? (/^[\d.]+$|:/.test(host) ? undefined : host);
  return tlsConnect({ ...network?.tls?.connect, host, port, ...(socket ? { socket } : {}), ...(servername ? { servername } : {}) });
}

/** What a failure on this request's connection is evidence of: its client certificate, its proxy. */
export function problemContext(url: URL, network: Network | undefined): ProblemContext {
  const proxy = network ? proxyOf(url, network.proxy) : undefined;
  return {
    clientCert: network?.tls?.clientCert === true,
    ...(proxy ? { proxy: proxy.url, proxyVar: proxy.variable } : {}),
  };
}

/**
 * A tunnel through the proxy: CONNECT host:port, the proxy's answer read up to its blank line; a 2xx gives the socket
 * (TLS to the target over it for https), anything else an error naming the proxy's status.
 */
function tunnel(p: RawSendParams, proxy: URL): Promise<{ socket: Socket } | { error: ExchangeError }> {
  const { host, port } = hostPort(p.url);
  const authority = `${host.includes(':') ? `[${host}]` : host}:${port}`;
  const ctx = problemContext(p.url, p.network);
  return new Promise((resolve) => {
    const proxyPort = Number(proxy.port) || (proxy.protocol === 'https:' ? 443 : 80);
    const s =
      proxy.protocol === 'https:'
        ? tlsConnect({ host: proxy.hostname, port: proxyPort, servername: proxy.hostname })
        : netConnect({ host: proxy.hostname, port: proxyPort });
    const untrack = p.track(s);
    let head = Buffer.alloc(0);
    const done = (r: { socket: Socket } | { error: ExchangeError }) => {
      s.off('data', onData);
      s.off('error', onError);
      p.signal.removeEventListener('abort', onAbort);
      untrack();
      if ('error' in r) s.destroy();
      resolve(r);
    };
    const onAbort = () => done({ error: { kind: 'deadline', message: `no tunnel from the proxy within ${p.deadlineMs} ms` } });
    const onError = (err: NodeJS.ErrnoException) => done({ error: socketError(err, false, 'while connecting to the proxy', ctx) });
    const onData = (chunk: Buffer) => {
      head = Buffer.concat([head, chunk]);
      const end = head.indexOf(HEAD_END);
      if (end < 0) {
        if (head.length > MAX_HEAD_BYTES) done({ error: { kind: 'protocol', message: 'the proxy answered CONNECT with an endless head' } });
        return;
      }
      const status = /^HTTP\/1\.[01] (\d{3})/.exec(head.subarray(0, end).toString('latin1'))?.[1] ?? '000';
      if (!status.startsWith('2')) {
        const message = `proxy answered CONNECT with HTTP ${status}`;
        const network = networkProblem('', message, ctx);
        done({ error: { kind: 'unreachable', message: network ? network.what : message, ...(network ? { network } : {}) } });
        return;
      }
      if (head.length > end + 4) s.unshift(head.subarray(end + 4));
      done({ socket: p.url.protocol === 'https:' ? tlsToTarget(p.url, p.network, s) : s });
    };
    if (p.signal.aborted) return onAbort();
    p.signal.addEventListener('abort', onAbort, { once: true });
    s.on('data', onData);
    s.on('error', onError);
    const auth =
      proxy.username || proxy.password
        ? `proxy-authorization: Basic ` +
          `${Buffer.from(`${decodeURIComponent(proxy.username)}:${decodeURIComponent(proxy.password)}`).toString('base64')}\r\n`
        : '';
    s.write(`CONNECT ${authority} HTTP/1.1\r\nhost: ${authority}\r\n${auth}\r\n`);
  });
}

export async function rawSend(p: RawSendParams): Promise<WireResult> {
  const proxy = p.network ? proxyOf(p.url, p.network.proxy) : undefined;
  if (!proxy) return rawSendOn(p);
  const t = await tunnel(p, proxy.url);
  if ('error' in t) return { error: t.error };
  return rawSendOn(p, t.socket);
}

/** One exchange on `given` (a proxy's tunnel: connected already, TLS under way for https) or on a new connection. */
function rawSendOn(p: RawSendParams, given?: Socket): Promise<WireResult> {
  return new Promise<WireResult>((resolve) => {
    const { url } = p;
    const tls = url.protocol === 'https:';
    const ctx = problemContext(url, p.network);

    let socket: Socket;
    try {
      socket = given ?? (tls ? tlsToTarget(url, p.network) : netConnect(hostPort(url)));
    } catch (err) {
      resolve({ error: { kind: 'connection', message: `could not open a socket: ${(err as Error).message}` } });
      return;
    }
    const untrack = p.track(socket);

    let settled = false;
    // A plain tunnel is connected already; TLS over it still has its handshake to make.
    let connected = given !== undefined && !tls;
    let bytesIn = 0;
    let state: 'head' | 'body' | 'done' = 'head';
    let pending: Buffer = Buffer.alloc(0);
    let status = 0;
    let headers: Record<string, string | string[]> = {};
    let headersAt: number | undefined;
    let framing: Framing = { kind: 'none' };
    let chunkState: ChunkState = 'size';
    let chunkRemaining = 0;
    const sink = new CappedSink(p.maxResponseBytes);

    const responseSoFar = (): WireResult['response'] =>
      state === 'head' ? undefined : { status, headers, body: sink.buffer(), truncated: sink.truncated };

    const finish = (error?: ExchangeError): void => {
      if (settled) return;
      settled = true;
      p.signal.removeEventListener('abort', onAbort);
      untrack();
      socket.destroy();
      const result: WireResult = { response: responseSoFar() };
      if (error) result.error = error;
      if (headersAt !== undefined) result.headersAt = headersAt;
      resolve(result);
    };

    const where = (): string => {
      if (state === 'head') return bytesIn === 0 ? 'before any response byte' : 'in the middle of the response head';
      if (framing.kind === 'length') return `mid-response body (${sink.length} bytes read, ${framing.remaining} still expected)`;
      return `mid-response body (${sink.length} bytes read)`;
    };

    function onAbort(): void {
      finish({ kind: 'deadline', message: `no complete response within ${p.deadlineMs} ms; stopped ${where()}` });
    }

    const take = (bytes: Buffer): void => {
      if (!sink.push(bytes)) {
        finish({ kind: 'too-large', message: `response body exceeds ${p.maxResponseBytes} bytes; reading stopped at the cap` });
      }
    };

    const parseHead = (head: Buffer): void => {
      const lines = head.toString('latin1').split('\r\n');
      const statusLine = lines[0] ?? '';
      const m = /^HTTP\/1\.[01] (\d{3})(?:[ \t].*)?$/.exec(statusLine);
      if (!m) throw new ProtocolError(`malformed status line ${JSON.stringify(statusLine.slice(0, 80))}`);
      status = Number(m[1]);
      headers = {};
      for (const line of lines.slice(1)) {
        if (line === '') continue;
        if (line.startsWith(' ') || line.startsWith('\t')) throw new ProtocolError('obsolete folded header line');
        const idx = line.indexOf(':');
        const name = idx > 0 ? line.slice(0, idx) : '';
        if (!TOKEN.test(name)) throw new ProtocolError(`malformed header line ${JSON.stringify(line.slice(0, 80))}`);
        const key = name.toLowerCase();
        const value = line.slice(idx + 1).replace(/^[ \t]+|[ \t]+$/g, '');
        const prev = headers[key];
        headers[key] = prev === undefined ? value : Array.isArray(prev) ? [...prev, value] : [prev, value];
      }
    };

    const chooseFraming = (): Framing => {
      if (p.method.toUpperCase() === 'HEAD' || status === 204 || status === 304) return { kind: 'none' };
      const te = headers['transfer-encoding'];
      if (te !== undefined) {
        const codings = (Array.isArray(te) ? te.join(',') : te).split(',').map((s) => s.trim().toLowerCase());
        return codings[codings.length - 1] === 'chunked' ? { kind: 'chunked' } : { kind: 'close' };
      }
      const cl = headers['content-length'];
      if (cl !== undefined) {
        const values = new Set((Array.isArray(cl) ? cl : [cl]).flatMap((v) => v.split(',')).map((v) => v.trim()));
        const [only] = values;
        if (values.size !== 1 || only === undefined || !/^\d{1,15}$/.test(only)) {
          throw new ProtocolError(`invalid Content-Length ${JSON.stringify(String(cl).slice(0, 40))}`);
        }
        const n = Number(only);
        return n === 0 ? { kind: 'none' } : { kind: 'length', remaining: n };
      }
      return { kind: 'close' };
    };

    /** Feeds chunked-coding bytes; returns true when the terminating chunk and trailers are read. */
    const feedChunked = (data: Buffer): boolean => {
      pending = pending.length ? Buffer.concat([pending, data]) : data;
      for (;;) {
        if (settled) return false;
        if (chunkState === 'data') {
          if (pending.length === 0) return false;
          const n = Math.min(chunkRemaining, pending.length);
          take(pending.subarray(0, n));
          pending = pending.subarray(n);
          chunkRemaining -= n;
          if (chunkRemaining === 0) chunkState = 'data-crlf';
          continue;
        }
        if (chunkState === 'data-crlf') {
          if (pending.length < 2) return false;
          if (pending[0] !== 0x0d || pending[1] !== 0x0a) throw new ProtocolError('chunk data not followed by CR LF');
          pending = pending.subarray(2);
          chunkState = 'size';
          continue;
        }
        const eol = pending.indexOf(CRLF);
        if (eol < 0) {
          if (pending.length > MAX_CHUNK_LINE) throw new ProtocolError('chunk-size or trailer line too long');
          return false;
        }
        const line = pending.subarray(0, eol).toString('latin1');
        pending = pending.subarray(eol + 2);
        if (chunkState === 'trailers') {
          if (line === '') return true;
          continue;
        }
        const sizeText = (line.split(';')[0] ?? '').trim();
        if (!/^[0-9a-fA-F]{1,12}$/.test(sizeText)) throw new ProtocolError(`invalid chunk size ${JSON.stringify(line.slice(0, 40))}`);
        const size = Number.parseInt(sizeText, 16);
        if (size === 0) chunkState = 'trailers';
        else {
          chunkState = 'data';
          chunkRemaining = size;
        }
      }
    };

    const feedBody = (data: Buffer): void => {
      if (data.length === 0 && framing.kind !== 'none') return;
      switch (framing.kind) {
        case 'none':
          state = 'done';
          finish();
          return;
        case 'length': {
          const n = Math.min(framing.remaining, data.length);
          framing.remaining -= n;
          take(data.subarray(0, n));
          if (!settled && framing.remaining === 0) {
            state = 'done';
            finish();
          }
          return;
        }
        case 'chunked':
          if (feedChunked(data) && !settled) {
            state = 'done';
            finish();
          }
          return;
        case 'close':
          take(data);
          return;
      }
    };

    const onData = (chunk: Buffer): void => {
      if (settled) return;
      bytesIn += chunk.length;
      try {
        if (state === 'body') {
          feedBody(chunk);
          return;
        }
        pending = pending.length ? Buffer.concat([pending, chunk]) : chunk;
        // Loop: interim 1xx responses (100 Continue, 103 Early Hints) precede the real one.
        while (state === 'head') {
          // Bytes that cannot begin a status line fail at once, not at the deadline.
          const lead = pending.subarray(0, STATUS_PREFIX.length);
          if (!lead.equals(STATUS_PREFIX.subarray(0, lead.length))) {
            throw new ProtocolError(`response does not start with a status line (first bytes ${JSON.stringify(lead.toString('latin1'))})`);
          }
          const end = pending.indexOf(HEAD_END);
          if (end < 0) {
            if (pending.length > MAX_HEAD_BYTES) throw new ProtocolError(`response head exceeds ${MAX_HEAD_BYTES} bytes`);
            return;
          }
          parseHead(pending.subarray(0, end));
          const rest = pending.subarray(end + 4);
          pending = Buffer.alloc(0);
          if (status >= 100 && status < 200 && status !== 101) {
            pending = rest;
            continue;
          }
          headersAt = performance.now();
          framing = chooseFraming();
          state = 'body';
          feedBody(rest);
        }
      } catch (err) {
        if (err instanceof ProtocolError) finish({ kind: 'protocol', message: `malformed HTTP response: ${err.message}` });
        else throw err;
      }
    };

    const onEnd = (): void => {
      if (settled) return;
      if (state === 'body' && framing.kind === 'close') {
        state = 'done';
        finish();
        return;
      }
      finish({ kind: 'connection', message: `connection closed by the server (FIN) ${where()}` });
    };

    const onError = (err: NodeJS.ErrnoException): void => {
      if (settled) return;
      finish(socketError(err, connected, where(), ctx));
    };

    if (p.signal.aborted) {
      onAbort();
      return;
    }
    p.signal.addEventListener('abort', onAbort, { once: true });
    socket.on('data', onData);
    socket.on('end', onEnd);
    socket.on('close', onEnd);
    socket.on('error', onError);
    socket.once(tls ? 'secureConnect' : 'connect', () => {
      connected = true;
    });

    const head: Buffer[] = [encodeLine(`${p.method} ${requestTarget(url)} HTTP/1.1\r\n`)];
    for (const [name, value] of p.headerLines) head.push(encodeLine(`${name}: ${value}\r\n`));
    head.push(CRLF);
    socket.cork();
    socket.write(Buffer.concat(head));
    if (p.body.length > 0) socket.write(p.body);
    socket.uncork();
    if (p.halfClose) socket.end();
  });
}

/**
 * What a socket error says about the exchange. `unreachable` when no connection to the target could be made
 * (refused, no such host, no route, connect timeout): the run then has no verdict on the target, which is
 * told by this kind and never by reading the message again.
 */
export function socketError(err: NodeJS.ErrnoException, connected: boolean, where: string, ctx?: ProblemContext): ExchangeError {
  const code = err.code ?? '';
  const network = ctx ? networkProblem(code, err.message ?? '', ctx) : undefined;
  if (network) return { kind: 'unreachable', message: `${network.what}; ${network.fix}`, network };
  switch (code) {
    case 'ECONNREFUSED':
      return { kind: 'unreachable', message: `connection refused (ECONNREFUSED)` };
    case 'ECONNRESET':
      return {
        kind: 'connection',
        message: connected ? `connection reset by the server (ECONNRESET) ${where}` : 'connection reset while connecting (ECONNRESET)',
      };
    case 'EPIPE':
      return { kind: 'connection', message: `connection closed by the server while the request was being written (EPIPE) ${where}` };
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
      return { kind: 'unreachable', message: `host name lookup failed (${code})` };
    case 'ETIMEDOUT':
      return { kind: 'unreachable', message: `connect timed out (ETIMEDOUT)` };
    case 'EHOSTUNREACH':
    case 'ENETUNREACH':
      return { kind: 'unreachable', message: `host unreachable (${code})` };
    default:
      return { kind: 'connection', message: `${code ? `${code}: ` : ''}${err.message} ${where}`.trim() };
  }
}
