/**
 * The HTTP client of the harness. It sends exactly the bytes it is given (the body that was signed, the
 * headers as written by the check) and turns every outcome — including a target that hangs, resets,
 * floods or speaks broken HTTP — into an Exchange. It never throws for target misbehaviour.
 *
 * Two paths:
 * - undici (keep-alive Agent) for ordinary requests. undici writes, in this order:
 *   `host`, `connection` (`keep-alive`, or `close` for HEAD), the caller's headers as given
 *   (names and values untouched), then `content-length`. The recorded `request.headers` is exactly that.
 * - a raw socket (./client-raw.ts) for requests undici would refuse or rewrite: a declared Content-Length
 *   different from the body (larger: send the body, then half-close — the "unreadable body" case),
 *   caller-supplied Host / Content-Length / Connection / Transfer-Encoding / Keep-Alive / Upgrade /
 *   Expect headers, header names or values undici rejects. It writes `host` (unless the caller gave one),
 *   the caller's headers, then `content-length` (unless the caller gave Content-Length or
 *   Transfer-Encoding) — and no `connection` header.
 */
import { createRequire } from 'node:module';
import type { Socket } from 'node:net';
import type { Agent as UndiciAgent, Dispatcher } from 'undici';
import type { Duplex } from 'node:stream';
import type { Exchange, ExchangeError } from './exchange.js';
import type { RequestTag, SectionGate } from './exclusive.js';
import { gated } from './gated-pacer.js';
import { isThrottledAnswer, Pacer, type RequestPacer, sleep, throttleWaitMs, type WireAttempt } from './throttle.js';
import type { Credentials } from './signing.js';
import { verify } from './signing.js';
import { CappedSink, hostHeaderValue, problemContext, rawSend, requestTarget, socketError, type WireResult } from './client-raw.js';
import { makeNetwork, type Network, type ProblemContext, tlsAlertProbe } from './network.js';

/**
 * undici's Agent alone: the package's index also loads its fetch, WebSocket, cookies, cache and mock
 * modules (and Node's own bundled undici), about 0.1 s of CPU in every process that sends, for a client that only
 * dispatches. The same class the index exports (`module.exports.Agent = require('./lib/dispatcher/agent')`).
 */
const kitRequire = createRequire(import.meta.url);
const Agent = kitRequire('undici/lib/dispatcher/agent.js') as typeof UndiciAgent;

/** Hosts never sent through a proxy: the embedded reference and anything else on this machine (harness/http/network.ts). */
const LOOPBACK_NO_PROXY = ['localhost', '127.0.0.1', '::1', '[::1]'];

/**
 * The dispatcher for a network: undici's Agent with the profile's TLS options, or, when a proxy variable is set, its
 * EnvHttpProxyAgent (CONNECT tunnels, NO_PROXY) with the same options for the TLS to the target.
 */
function dispatcherFor(network: Network | undefined): Dispatcher {
  // Timeouts are ours (one deadline per exchange); undici's own would only blur the error kinds.
  const base = { headersTimeout: 0, bodyTimeout: 0, connectTimeout: 0, keepAliveTimeout: 4_000 };
  const tls = network?.tls;
  const { http, https, noProxy } = network?.proxy ?? {};
  if (!http && !https) return new Agent({ ...base, ...(tls ? { connect: { ...tls.connect } } : {}) });
  // The whole package here: its proxy agent tunnels with the dispatcher API (`connect`) its index adds to every dispatcher.
  const { EnvHttpProxyAgent } = kitRequire('undici') as typeof import('undici');
  return new EnvHttpProxyAgent({
    ...base,
    ...(http ? { httpProxy: http } : {}),
    ...(https ? { httpsProxy: https } : {}),
    noProxy: [noProxy ?? '', ...LOOPBACK_NO_PROXY].filter(Boolean).join(','),
    ...(tls ? { connect: { ...tls.connect }, requestTls: { ...tls.connect } } : {}),
  });
}

export interface RawRequest {
  /** What the check meant, copied into the exchange. */
  label: string;
  /** Absolute http: or https: URL. */
  url: string;
  /** Default POST. */
  method?: string;
  /** Sent exactly as given (names and values); nothing is added except Host and Content-Length (and undici's Connection). */
  headers: Record<string, string>;
  /** Exactly these bytes go on the wire. */
  body: Buffer;
  /**
   * Declare this Content-Length instead of body.length. When larger than body.length the client sends
   * the body, then stops sending (half-close) — the "unreadable body" case.
   */
  declaredContentLength?: number;
}

export interface ClientOptions {
  deadlineMs: number;
  maxResponseBytes: number;
  /** Requests per second this client may send (its share of the profile's `http.rateLimit`); absent: unpaced. */
  rateLimit?: number;
  /** The in-flight width the window returns to after throttling (the profile's `http.concurrency`). */
  concurrency?: number;
  /**
   * Who hands out each request's slot and rate token instead of the client's own pacing (`rateLimit`,
   * `concurrency` are then unused): the conformance run's run-wide pool (harness/run/pool.ts).
   */
  pacer?: RequestPacer;
  /** The profile's TLS options and the environment's proxies (harness/http/network.ts); absent: direct, Node's defaults. */
  network?: Network;
}

export interface SendOptions {
  deadlineMs?: number;
  maxResponseBytes?: number;
  /** Verify the response signature with these credentials (the merchant whose request it was). */
  verifyWith?: Credentials;
  /**
   * Headers for a resend after a throttled answer (a new timestamp and nonce over the same body). Absent: the same
   * headers again — the gateway refused the request, so the service never saw its nonce.
   */
  resign?: () => Record<string, string>;
  /** Told of every attempt once it is answered, with when it went on the wire (`http.rateLimit` proposals, throttle.ts). */
  onAttempt?: (attempt: WireAttempt) => void;
  /**
   * A request to the target: who signs it, what it is, the sections its sender holds (harness/http/exclusive.ts). Held back
   * while another's exclusive section covers it. Absent: not a request to the target, never held.
   */
  request?: RequestTag;
}

export interface Client {
  send(req: RawRequest, opts?: SendOptions): Promise<Exchange>;
  /** Opens an exclusive section over the requests this client's pacer sees (the run-wide pool's, or its own). */
  openSection: SectionGate['openSection'];
  /** Destroys the keep-alive agent and any raw socket still open. */
  close(): Promise<void>;
}

let exchangeSeq = 0;
function nextExchangeId(): string {
  exchangeSeq += 1;
  return `x-${String(exchangeSeq).padStart(6, '0')}`;
}

/** Header names undici consumes, rewrites or refuses; a request carrying one goes over the raw socket. */
const RAW_ONLY_HEADERS = new Set(['host', 'content-length', 'connection', 'transfer-encoding', 'keep-alive', 'upgrade', 'expect']);
const TOKEN = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
/** The header-value check undici applies (lib/core/util.js headerCharRegex). */
const UNDICI_BAD_VALUE = /[^\t\x20-\x7e\x80-\xff]/;
/** undici errors raised while building the request, before any byte is written. */
const UNDICI_REFUSALS = new Set(['UND_ERR_INVALID_ARG', 'UND_ERR_NOT_SUPPORTED', 'UND_ERR_REQ_CONTENT_LENGTH_MISMATCH']);
/** Methods for which undici sends `content-length: 0` on an empty body (client-h1.js expectsPayload). */
const PAYLOAD_METHODS = new Set(['PUT', 'POST', 'PATCH', 'QUERY', 'PROPFIND', 'PROPPATCH']);

function hasHeader(headers: Record<string, string>, lowerName: string): boolean {
  return Object.keys(headers).some((k) => k.toLowerCase() === lowerName);
}

function callerContentLength(headers: Record<string, string>): number | undefined {
  for (const [k, v] of Object.entries(headers)) {
    if (k.toLowerCase() === 'content-length' && /^\s*\d{1,15}\s*$/.test(v)) return Number(v);
  }
  return undefined;
}

function needsRawSocket(req: RawRequest): boolean {
  if (req.declaredContentLength !== undefined && req.declaredContentLength !== req.body.length) return true;
  for (const [name, value] of Object.entries(req.headers)) {
    if (RAW_ONLY_HEADERS.has(name.toLowerCase())) return true;
    if (!TOKEN.test(name) || UNDICI_BAD_VALUE.test(value)) return true;
  }
  return false;
}

interface ErrorLike {
  name?: unknown;
  code?: unknown;
  message?: unknown;
  cause?: unknown;
  errors?: unknown;
}

function errorCode(err: unknown): string | undefined {
  if (typeof err !== 'object' || err === null) return undefined;
  const e = err as ErrorLike;
  if (typeof e.code === 'string') return e.code;
  if (Array.isArray(e.errors)) return errorCode(e.errors[0]);
  return errorCode(e.cause);
}

function errorMessage(err: unknown): string {
  if (typeof err === 'object' && err !== null && typeof (err as ErrorLike).message === 'string') {
    return String((err as ErrorLike).message).slice(0, 200);
  }
  return String(err).slice(0, 200);
}

function classifyUndiciError(err: unknown, where: string, ctx: ProblemContext): ExchangeError {
  const code = errorCode(err) ?? '';
  const name = typeof err === 'object' && err !== null ? (err as ErrorLike).name : undefined;
  const msg = errorMessage(err);
  if (code.startsWith('HPE_') || name === 'HTTPParserError') {
    return { kind: 'protocol', message: `malformed HTTP response (${code || 'parser error'}: ${msg}) ${where}` };
  }
  switch (code) {
    case 'UND_ERR_HEADERS_OVERFLOW':
      return { kind: 'protocol', message: `response head larger than the client accepts (${code})` };
    case 'UND_ERR_SOCKET':
      return { kind: 'connection', message: `connection closed by the server (${msg}) ${where}` };
    case 'UND_ERR_RES_CONTENT_LENGTH_MISMATCH':
      // undici raises this for conflicting Content-Length headers and some malformed heads too.
      return { kind: 'protocol', message: `response framing invalid: body length does not match Content-Length (${where})` };
    case 'UND_ERR_CONNECT_TIMEOUT':
      return { kind: 'unreachable', message: `connect timed out (${code})` };
    case 'UND_ERR_CLOSED':
    case 'UND_ERR_DESTROYED':
      return { kind: 'connection', message: `the client was closed while the request was in flight (${code})` };
    case 'UND_ERR_INFO':
      return { kind: 'connection', message: `connection aborted (${msg}) ${where}` };
    default: {
      const e = { message: msg, code: code || undefined } as NodeJS.ErrnoException;
      return socketError(e, true, where, ctx);
    }
  }
}

/** One exchange's deadline: a timer, and what to abort when it fires (the send path in use). */
class Deadline {
  expired = false;
  onExpire: { expire(reason: Error): void } | undefined;
  private readonly timer: NodeJS.Timeout;
  constructor(readonly ms: number) {
    this.timer = setTimeout(() => {
      this.expired = true;
      this.onExpire?.expire(this.reason());
    }, ms);
  }
  reason(): Error {
    return new Error(`deadline of ${this.ms} ms`);
  }
  clear(): void {
    clearTimeout(this.timer);
  }
}

function deadlineError(deadlineMs: number, where: string): ExchangeError {
  return { kind: 'deadline', message: `no complete response within ${deadlineMs} ms; stopped ${where}` };
}

// ignoreBOM: keep a BOM so that JSON.parse rejects it — JSON text must not start with one. One decoder
// for every body: decode() without { stream } keeps no state between calls.
const UTF8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

/** Parses the body as JSON when it is complete, valid UTF-8 and valid JSON; otherwise says why not. */
export function parseJsonBody(body: Buffer, incompleteBecause?: string): { json?: unknown; jsonError?: string } {
  if (incompleteBecause) return { jsonError: `not parsed: ${incompleteBecause}` };
  if (body.length === 0) return { jsonError: 'empty body' };
  let text: string;
  try {
    text = UTF8.decode(body);
  } catch {
    return { jsonError: 'body is not valid UTF-8' };
  }
  try {
    return { json: JSON.parse(text) as unknown };
  } catch (err) {
    return { jsonError: `invalid JSON: ${errorMessage(err).slice(0, 120)}` };
  }
}

function cleanResponseHeaders(headers: Record<string, string | string[] | undefined>): Record<string, string | string[]> {
  const out: Record<string, string | string[]> = {};
  for (const [k, v] of Object.entries(headers)) if (v !== undefined) out[k] = v;
  return out;
}

/**
 * One exchange through undici's dispatch API: the same request as `agent.request` (same options,
 * same header parsing by undici), without the response stream, the AbortSignal and the async
 * resource that `request` puts around every exchange. The deadline aborts through the dispatch
 * controller. A class rather than closures: nothing is created per exchange but this object.
 */
class UndiciExchange implements Dispatcher.DispatchHandler {
  private settled = false;
  private controller: Dispatcher.DispatchController | undefined;
  private status = 0;
  private headers: Record<string, string | string[]> | undefined;
  private sink: CappedSink | undefined;
  private headersAt: number | undefined;

  constructor(
    private readonly deadline: Deadline,
    private readonly cap: number,
    private readonly resolve: (r: WireResult | 'refused') => void,
    private readonly ctx: ProblemContext,
  ) {
    deadline.onExpire = this;
  }

  /** The deadline fired. */
  expire(reason: Error): void {
    // Aborting an exchange on a socket ends it at once (onResponseError). One still waiting for a
    // connection, or one undici no longer lets us abort, ends here: the deadline bounds every exchange.
    this.controller?.abort(reason);
    if (this.settled) return;
    const sink = this.sink;
    if (!sink) this.settle({ error: deadlineError(this.deadline.ms, 'before the response head') });
    else this.settle(this.withResponse(sink, deadlineError(this.deadline.ms, `mid-response body (${sink.length} bytes read)`)));
  }

  private settle(result: WireResult | 'refused'): void {
    if (this.settled) return;
    this.settled = true;
    this.deadline.onExpire = undefined;
    this.resolve(result);
  }

  private withResponse(sink: CappedSink, error?: ExchangeError): WireResult {
    const result: WireResult = {
      response: { status: this.status, headers: this.headers!, body: sink.buffer(), truncated: sink.truncated },
      headersAt: this.headersAt,
    };
    if (error) result.error = error;
    return result;
  }

  onRequestStart(controller: Dispatcher.DispatchController): void {
    this.controller = controller;
    // Expired while queued for a connection: abort now, as the signal of `request` did at this point.
    if (this.deadline.expired) controller.abort(this.deadline.reason());
  }

  onResponseStart(_c: Dispatcher.DispatchController, statusCode: number, headers: Record<string, string | string[] | undefined>): void {
    // 1xx heads are informational; the response is the final head that follows.
    if (statusCode < 200) return;
    this.headersAt = performance.now();
    this.status = statusCode;
    this.headers = cleanResponseHeaders(headers);
    this.sink = new CappedSink(this.cap);
  }

  onResponseData(controller: Dispatcher.DispatchController, chunk: Buffer): void {
    const sink = this.sink;
    if (this.settled || !sink || sink.push(chunk)) return;
    this.settle(
      this.withResponse(sink, { kind: 'too-large', message: `response body exceeds ${this.cap} bytes; reading stopped at the cap` }),
    );
    controller.abort(new Error('response body over the cap')); // aborts the request and its socket
  }

  onRequestUpgrade(_c: Dispatcher.DispatchController, statusCode: number, _headers: unknown, socket: Duplex): void {
    // Only a CONNECT or an Upgrade request can get here, and those go over the raw socket; never leave an exchange open.
    socket.destroy();
    this.settle({
      error: { kind: 'protocol', message: `the server switched protocols (HTTP ${statusCode}) on a request that asked for no upgrade` },
    });
  }

  onResponseEnd(): void {
    // No pause here for undici to hand the connection back to its pool: the exchange resolves while
    // undici completes the response, and a send that follows is dispatched after that.
    if (this.sink) this.settle(this.withResponse(this.sink));
    else this.settle({ error: { kind: 'protocol', message: 'the response ended without a final head' } });
  }

  onResponseError(_c: Dispatcher.DispatchController | undefined, err: Error): void {
    if (this.settled) return;
    const { sink, deadline } = this;
    if (!sink) {
      if (deadline.expired) this.settle({ error: deadlineError(deadline.ms, 'before the response head') });
      else if (UNDICI_REFUSALS.has(errorCode(err) ?? '')) this.settle('refused');
      else this.settle({ error: classifyUndiciError(err, 'before the response head', this.ctx) });
      return;
    }
    const where = `mid-response body (${sink.length} bytes read)`;
    this.settle(this.withResponse(sink, deadline.expired ? deadlineError(deadline.ms, where) : classifyUndiciError(err, where, this.ctx)));
  }
}

export function createClient(opts: ClientOptions): Client {
  const agent = dispatcherFor(opts.network);
  const rawSockets = new Set<Socket>();
  let closed = false;

  const track = (s: Socket): (() => void) => {
    rawSockets.add(s);
    return () => {
      rawSockets.delete(s);
    };
  };

  type Prepared = { headers: Record<string, string> };

  function prepareUndici(url: URL, method: string, req: RawRequest): Prepared {
    const headers: Record<string, string> = {
      host: hostHeaderValue(url),
      connection: method === 'HEAD' ? 'close' : 'keep-alive',
      ...req.headers,
    };
    if (req.body.length > 0 || PAYLOAD_METHODS.has(method)) headers['content-length'] = String(req.body.length);
    return { headers };
  }

  function viaUndici(
    url: URL,
    method: string,
    req: RawRequest,
    body: Buffer,
    deadline: Deadline,
    cap: number,
  ): Promise<WireResult | 'refused'> {
    // agent.request refused CONNECT before sending anything (dispatch would treat it as a tunnel): raw socket.
    if (method === 'CONNECT') return Promise.resolve('refused');
    return new Promise((resolve) => {
      const handler = new UndiciExchange(deadline, cap, resolve, problemContext(url, opts.network));
      agent.dispatch({ origin: url.origin, path: requestTarget(url), method, headers: req.headers, body }, handler);
    });
  }

  function prepareRaw(
    url: URL,
    method: string,
    req: RawRequest,
  ): { headers: Record<string, string>; lines: [string, string][]; halfClose: boolean } {
    const lines: [string, string][] = [];
    if (!hasHeader(req.headers, 'host')) lines.push(['host', hostHeaderValue(url)]);
    for (const [k, v] of Object.entries(req.headers)) lines.push([k, v]);
    const declared = req.declaredContentLength ?? req.body.length;
    const callerFramed = hasHeader(req.headers, 'content-length') || hasHeader(req.headers, 'transfer-encoding');
    if (!callerFramed && (declared > 0 || req.declaredContentLength !== undefined || PAYLOAD_METHODS.has(method))) {
      lines.push(['content-length', String(declared)]);
    }
    const effective = req.declaredContentLength ?? callerContentLength(req.headers) ?? req.body.length;
    return { headers: Object.fromEntries(lines), lines, halfClose: effective > req.body.length };
  }

  const pacer = gated(opts.pacer ?? new Pacer({ ratePerSecond: opts.rateLimit, concurrency: opts.concurrency }));

  /**
   * Sends until the answer is the service's: a throttled answer (429, or 503 with Retry-After) is waited
   * out and the same body resent, newly signed, until the exchange's deadline, which counts from the first send.
   * The exchange recorded is the last attempt's; `throttled` counts the refusals before it.
   */
  async function send(req: RawRequest, sendOpts: SendOptions = {}): Promise<Exchange> {
    if (closed) throw new Error('client is closed');
    const deadlineMs = sendOpts.deadlineMs ?? opts.deadlineMs;
    let answers = 0;
    let waitMs = 0;
    let current = req;
    let firstAt: number | undefined;
    let queuedMs = 0;
    for (;;) {
      const asked = performance.now();
      // One tag per attempt: a resend is another request in flight for the gate.
      const request = sendOpts.request && { ...sendOpts.request };
      await pacer.acquire({ resend: answers > 0, ...(request ? { request } : {}) });
      queuedMs += performance.now() - asked;
      const onWire = performance.now();
      firstAt ??= onWire;
      const left = Math.max(1, Math.round(deadlineMs - (performance.now() - firstAt)));
      let ex: Exchange;
      try {
        ex = await sendOnce(current, { ...sendOpts, deadlineMs: left });
      } catch (err) {
        const attempt: WireAttempt = { at: onWire, answeredAt: performance.now(), answer: 'none' };
        pacer.release(false, { attempt, ...(request ? { request } : {}) });
        sendOpts.onAttempt?.(attempt);
        throw err;
      }
      const throttled = ex.response !== undefined && isThrottledAnswer(ex.response.status, ex.response.headers);
      const attempt: WireAttempt = {
        at: onWire,
        answeredAt: performance.now(),
        answer: throttled ? 'throttled' : ex.response ? 'admitted' : 'none',
      };
      const wait = throttled ? throttleWaitMs(ex.response!.headers, answers + 1) : 0;
      pacer.release(throttled, { attempt, ...(throttled ? { waitMs: wait } : {}), ...(request ? { request } : {}) });
      sendOpts.onAttempt?.(attempt);
      if (queuedMs >= 1) ex.timings.queuedMs = round(queuedMs);
      if (!throttled) {
        if (answers > 0) ex.throttled = { answers, waitMs: Math.round(waitMs) };
        return ex;
      }
      answers += 1;
      const spent = performance.now() - firstAt;
      if (closed || spent + wait >= deadlineMs) {
        // Never a verdict: the gateway's answer is kept for the record, the signature is not the service's to judge.
        delete ex.signature;
        ex.throttled = { answers, waitMs: Math.round(waitMs) };
        ex.error = {
          kind: 'throttled',
          message:
            `throttled ${answers} time(s) (HTTP ${ex.response!.status}) within the deadline ` +
            `of ${deadlineMs} ms; the next wait (${Math.round(wait)} ms) would pass it`,
        };
        return ex;
      }
      await sleep(wait);
      waitMs += wait;
      current = sendOpts.resign ? { ...req, headers: sendOpts.resign() } : req;
    }
  }

  async function sendOnce(req: RawRequest, sendOpts: SendOptions & { deadlineMs: number }): Promise<Exchange> {
    const url = new URL(req.url);
    if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new TypeError(`unsupported URL scheme ${url.protocol}`);
    const method = req.method ?? 'POST';
    const deadlineMs = sendOpts.deadlineMs;
    const cap = sendOpts.maxResponseBytes ?? opts.maxResponseBytes;
    const body = Buffer.from(req.body); // our own copy: what is recorded is what was written
    const id = nextExchangeId();
    const startedAt = new Date().toISOString();
    const t0 = performance.now();

    const deadline = new Deadline(deadlineMs);

    let sentHeaders: Record<string, string> = {};
    let wire: WireResult;
    try {
      let outcome: WireResult | 'refused' = 'refused';
      if (!needsRawSocket(req)) {
        sentHeaders = prepareUndici(url, method, req).headers;
        outcome = await viaUndici(url, method, req, body, deadline, cap);
      }
      if (outcome === 'refused') {
        const raw = prepareRaw(url, method, req);
        sentHeaders = raw.headers;
        const ac = new AbortController();
        if (deadline.expired) ac.abort(deadline.reason());
        deadline.onExpire = { expire: (reason) => ac.abort(reason) };
        outcome = await rawSend({
          url,
          method,
          headerLines: raw.lines,
          body,
          halfClose: raw.halfClose,
          maxResponseBytes: cap,
          deadlineMs,
          signal: ac.signal,
          track,
          ...(opts.network ? { network: opts.network } : {}),
        });
      }
      wire = outcome;
    } finally {
      deadline.clear();
    }
    // A TLS connection closed before any answer: a server that refused our client certificate says so by an alert,
    // which a request in TLS 1.3 does not get to read. Asked once more, on a connection of its own (harness/http/network.ts).
    if (wire.error?.kind === 'connection' && !wire.response && !wire.error.network && url.protocol === 'https:' && !closed) {
      const network = await tlsAlertProbe(url, opts.network ?? makeNetwork(undefined, {}));
      if (network) wire = { error: { kind: 'unreachable', message: `${network.what}; ${network.fix}`, network } };
    }
    const t1 = performance.now();

    const exchange: Exchange = {
      id,
      label: req.label,
      request: { method, url: req.url, headers: sentHeaders, body },
      timings: { startedAt, totalMs: round(t1 - t0) },
    };
    if (wire.headersAt !== undefined) exchange.timings.headersMs = round(wire.headersAt - t0);
    if (wire.response) {
      const incomplete = wire.error ? `response incomplete (${wire.error.kind})` : undefined;
      exchange.response = { ...wire.response, ...parseJsonBody(wire.response.body, incomplete) };
    }
    if (wire.error) exchange.error = wire.error;
    // Only a complete response gets a verdict: a cut body would always "mismatch" and accuse the target wrongly.
    if (sendOpts.verifyWith && exchange.response && !exchange.error) {
      exchange.signature = verify(exchange.response.headers, exchange.response.body, sendOpts.verifyWith);
    }
    return exchange;
  }

  async function close(): Promise<void> {
    if (closed) return;
    closed = true;
    for (const s of rawSockets) {
      s.destroy(Object.assign(new Error('the client was closed while the request was in flight'), { code: 'ERR_CLIENT_CLOSED' }));
    }
    rawSockets.clear();
    await agent.destroy();
  }

  return { send, close, openSection: (spec, holds) => pacer.openSection(spec, holds) };
}

function round(ms: number): number {
  return Math.round(ms * 10) / 10;
}
