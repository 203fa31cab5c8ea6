/**
 * The request pipeline: method, body, authentication, path, content type, JSON, handler. Every
 * step's failure maps to one status the interface defines (or, for a non-POST method, the one
 * documented choice: 405), and nothing a client sends can make the pipeline throw or hang.
 */
import { createServer, type IncomingHttpHeaders, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import type { AuthAnswer, AuthFailure } from '../behaviour.js';
import { ApiError, E } from '../errors.js';
import type { MerchantFixture } from '../fixtures.js';
import type { NonceCache } from '../nonce-cache.js';
import { ROUTES } from '../routes.js';
import { checkLengths, takeQueryParams } from '../request-limits.js';
import { SANDBOX_ROUTES, vendorAnswer } from '../sandbox-shape.js';
import type { Service } from '../service.js';
import type { Target } from '../sandbox-data.js';
import { isPlainObject } from '../validate.js';
import type { TamperedField, Tamperer } from '../rough/tamper.js';
import type { TransientFailures } from '../rough/transient.js';
import { authenticate } from './auth.js';
import { runDue } from '../handlers/clock.js';
import type { Gateway } from '../gateway.js';
import { MAX_BODY_BYTES, readBody } from './body.js';
import { errorEnvelope, sendSigned, sendUnsigned, successEnvelope } from './respond.js';

export interface PipelineOptions {
  svc: Service;
  nonces: NonceCache;
  log: (line: string) => void;
  readIdleMs: number;
  /** Told of every answered request (ReferenceOptions.onExchange). */
  observe?: (x: ObservedExchange) => void;
  /** Field conditions (serve --rate-limit, --latency): the gateway in front of the pipeline. */
  gateway?: Gateway;
  /** Alters some successful answers (ReferenceOptions.tamperResponses). */
  tamper?: Tamperer;
  /** Transient failures the document allows (ReferenceOptions.rough). */
  transient?: TransientFailures;
}

/** One request as received (raw bytes, headers) and a summary of the answer: for an observer. */
export interface ObservedExchange {
  method: string;
  path: string;
  headers: Readonly<Record<string, string | string[] | undefined>>;
  /** Exactly the bytes received; absent when the body could not be read. */
  body?: Buffer;
  /** When the request arrived and when it was answered (epoch milliseconds, sub-millisecond resolution). */
  receivedAt: number;
  answeredAt: number;
  http: number;
  code: number;
  /** The error key (after the last `|` of msg); absent on success. */
  key?: string;
  /** The TCP connection it came on: its number, when it was opened, and this request's place on it (0 = first). */
  connection: { id: number; openedAt: number; index: number };
  /** Present when the answer was tampered with: the fields altered (its signature does not verify). */
  tampered?: TamperedField[];
}

interface ConnectionInfo {
  id: number;
  openedAt: number;
  requests: number;
}

const AUTH_ANSWERS: Readonly<Record<AuthFailure, AuthAnswer>> = {
  'missing-header': { http: 401, code: 401, key: 'unauthorized', message: 'Missing authentication headers' },
  'unknown-merchant': { http: 401, code: 401, key: 'merchantNotFound', message: 'Merchant ID not found or invalid' },
  forbidden: { http: 403, code: 403, key: 'forbidden', message: 'Invalid signature' },
  unreadable: { http: 500, code: 500, key: 'internalServerError', message: 'Internal server error' },
};

/** The answer to an authentication failure or an unreadable body, as the behaviour has it. */
function authAnswer(svc: Service, failure: AuthFailure): { http: number; err: ApiError } {
  const a = svc.behaviour.authAnswer(failure, AUTH_ANSWERS[failure]);
  return { http: a.http, err: new ApiError(a.code, a.key, a.message) };
}
const METHOD_NOT_ALLOWED = new ApiError(405, 'methodNotAllowed', 'Only POST is allowed');

export function createReferenceServer(opts: PipelineOptions): Server {
  // The language of the request in flight on each socket: an unreadable body is reported from
  // 'clientError', where the request's headers are no longer at hand.
  const english = new WeakMap<Socket, boolean>();
  // Which connection a request came on tells a client's parallel requests from its sequential ones.
  const connections = new WeakMap<Socket, ConnectionInfo>();
  let connectionCount = 0;
  const server = createServer((req, res) => {
    // Noted as the request arrives: behind a gateway's latency the service sees it later, and an unreadable body
    // can be reported from 'clientError' before then.
    english.set(req.socket, opts.svc.behaviour.plainEnglish(req.headers['accept-language']));
    if (opts.gateway) {
      void opts.gateway.front(req, res).then((answered) => {
        if (!answered) serve(req, res);
      });
      return;
    }
    serve(req, res);
  });
  function serve(req: IncomingMessage, res: ServerResponse): void {
    const conn = connections.get(req.socket) ?? { id: 0, openedAt: 0, requests: 0 };
    conn.requests += 1;
    handle(req, res, opts, { id: conn.id, openedAt: conn.openedAt, index: conn.requests - 1 }).catch(() => {
      // Last resort: the pipeline itself failed; never leave the client hanging.
      const unreadable = authAnswer(opts.svc, 'unreadable');
      sendUnsigned(res, unreadable.http, unreadable.err, false, true);
    });
  }
  server.on('connection', (socket: Socket) => {
    connectionCount += 1;
    connections.set(socket, { id: connectionCount, openedAt: performance.timeOrigin + performance.now(), requests: 0 });
  });
  // Malformed HTTP (bad request line, oversized headers): the request cannot be read.
  server.on('clientError', (err: NodeJS.ErrnoException, socket: Socket) => {
    if (err.code === 'ECONNRESET' || !socket.writable || opts.svc.behaviour.unreadableBodyClosed) {
      socket.destroy();
      return;
    }
    const unreadable = authAnswer(opts.svc, 'unreadable');
    const body = JSON.stringify(errorEnvelope(unreadable.err, english.get(socket) ?? false));
    socket.end(
      `HTTP/1.1 ${unreadable.http} ${unreadable.http === 500 ? 'Internal Server Error' : 'Error'}\r\nContent-Type: ` +
        `application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
    );
  });
  return server;
}

async function handle(
  req: IncomingMessage,
  res: ServerResponse,
  opts: PipelineOptions,
  connection: ObservedExchange['connection'],
): Promise<void> {
  const english = opts.svc.behaviour.plainEnglish(req.headers['accept-language']);
  const path = pathOf(req.url);
  const receivedAt = performance.timeOrigin + performance.now();
  let body: Buffer | undefined;
  let tampered: TamperedField[] | undefined;
  const logDone = (status: number, code: number, merchantId = '-', key?: string): void => {
    opts.log(
      `${req.method ?? '?'} ${printable(path)} ${merchantId} -> HTTP ${status} ` +
        `code ${code}${tampered ? ' (tampered with: signature does not verify)' : ''}`,
    );
    try {
      const x: ObservedExchange = {
        method: req.method ?? '?',
        path,
        headers: { ...req.headers },
        body,
        receivedAt,
        answeredAt: performance.timeOrigin + performance.now(),
        http: status,
        code,
        key,
        connection,
      };
      if (tampered) x.tampered = tampered;
      opts.observe?.(x);
    } catch {
      // An observer's failure must never reach the client.
    }
  };

  if (req.method !== 'POST') {
    sendUnsigned(res, 405, METHOD_NOT_ALLOWED, english, true, { Allow: 'POST' });
    req.resume();
    logDone(405, 405);
    return;
  }

  const read = await readBody(req, { maxBytes: MAX_BODY_BYTES, idleMs: opts.readIdleMs, totalMs: Math.max(opts.readIdleMs * 15, 30_000) });
  if (!read.ok && opts.svc.behaviour.unreadableBodyClosed) {
    req.socket.destroy();
    logDone(0, 0);
    return;
  }
  if (!read.ok) {
    const unreadable = authAnswer(opts.svc, 'unreadable');
    sendUnsigned(res, unreadable.http, unreadable.err, english, true);
    // Let the response flush, then drop whatever the client is still sending.
    req.resume();
    res.once('finish', () => setTimeout(() => req.socket.destroy(), 1000).unref());
    logDone(500, 500);
    return;
  }

  body = read.body;
  const now = Date.now();
  const { svc } = opts;
  const auth = authenticate(req.headers, read.body, opts.nonces, svc.behaviour, now, svc.target);
  if (auth.outcome !== 'ok' || auth.merchant === undefined) {
    const failure = authAnswer(svc, auth.outcome === 'missing-header' || auth.outcome === 'unknown-merchant' ? auth.outcome : 'forbidden');
    if (svc.behaviour.signAuthErrors && auth.merchant !== undefined) {
      sendSigned(res, auth.merchant, errorEnvelope(failure.err, english), svc, failure.http);
    } else {
      sendUnsigned(res, failure.http, failure.err, english, false, {}, svc.behaviour.unsignedPlainText);
    }
    logDone(failure.http, failure.err.code, '-', failure.err.key);
    return;
  }

  const merchant = auth.merchant;
  if (
    svc.behaviour.contentTypeRefusal === 'unauthorized' &&
    !isJsonContentType(req.headers['content-type']) &&
    svc.behaviour.enforces('request.content-type')
  ) {
    sendUnsigned(res, 401, new ApiError(401, 'unauthorized', 'Content-Type must be application/json'), english, false);
    logDone(401, 401, merchant.id);
    return;
  }
  if (svc.behaviour.invalidJsonUnreadable && !isJsonText(read.body)) {
    const unreadable = authAnswer(svc, 'unreadable');
    sendUnsigned(res, unreadable.http, unreadable.err, english, false);
    logDone(unreadable.http, unreadable.err.code, merchant.id);
    return;
  }
  const envelope = respondTo(path, req.headers, read.body, merchant, now, opts, english);
  const altered = opts.tamper?.tamper(envelope, merchant.id);
  tampered = altered?.fields;
  const status = altered ? sendSigned(res, merchant, altered.envelope, svc, undefined, envelope) : sendSigned(res, merchant, envelope, svc);
  const msg = typeof envelope['msg'] === 'string' ? envelope['msg'] : '';
  logDone(
    status,
    typeof envelope['code'] === 'number' ? envelope['code'] : -1,
    merchant.id,
    envelope['code'] === 0 ? undefined : msg.slice(msg.lastIndexOf('|') + 1),
  );
}

/** Everything after authentication; always yields an envelope (success or error), never throws. */
function respondTo(
  path: string,
  headers: IncomingHttpHeaders,
  raw: Buffer,
  merchant: MerchantFixture,
  now: number,
  opts: PipelineOptions,
  english: boolean,
): Record<string, unknown> {
  // Error hooks see the route, not the request path: a fault written against a route must still fire when a
  // reading serves that route under another path (other-endpoint-paths), so faults compose with every reading.
  let route = path;
  try {
    // A route the target serves at a path of its own (its number in the path, reference/api-paths.ts) is taken as it is.
    const shaped = (p: string) => opts.svc.target.sandbox.route(opts.svc.behaviour.routePath(p));
    // A service under a base path (`/mpsi`) knows its paths inside it alone; the message names the path as sent.
    const inner = withinBase(path, opts.svc.target.basePath);
    if (inner === undefined) throw E.invalidRequest(`Unknown path ${printable(path)}`);
    const routed = opts.svc.behaviour.routePath(inner);
    const api = opts.svc.target.apiPaths.resolve(inner, (p) => ROUTES.has(shaped(p) ?? ''), routed);
    route = api === undefined ? '/unknown' : api.route !== inner ? api.route : routed;
    // The target's own sandbox control paths (reference/sandbox-shape.ts); a control moved elsewhere is not served here.
    route = opts.svc.target.sandbox.route(route) ?? '/unknown';
    const handler = ROUTES.get(route);
    if (handler === undefined) throw E.invalidRequest(`Unknown path ${printable(path)}`);
    if (!isJsonContentType(headers['content-type']) && opts.svc.behaviour.enforces('request.content-type'))
      throw E.invalidRequest('Content-Type must be application/json');
    const limits = opts.svc.target.requestLimits;
    const parsed = parseObject(raw);
    // Records that end by themselves, and proceeds that become available, are so before this request sees them.
    runDue(opts.svc, now);
    const body = isSandboxRoute(route) ? parsed : takeQueryParams(limits, route, parsed, merchant.id);
    const callBody = {
      ...opts.svc.behaviour.normaliseRequest(opts.svc.target.sandbox.body(route, liftRefundFields(route, body, opts.svc.target)), route),
      ...api?.fields,
    };
    if (!isSandboxRoute(route)) checkLengths(limits, route, raw, callBody);
    const transient = opts.transient?.pick(route, merchant.id, body);
    if (transient === 'query-failed') throw new ApiError(500, 'queryFailed', 'Query failed, please try again');
    if (transient === 'busy-not-created') throw E.systemBusy();
    const data = handler(opts.svc, {
      merchant,
      body: callBody,
      now,
      headers,
    });
    // Recorded, and answered as if it might not have been.
    if (transient === 'busy-created') throw E.systemBusy();
    // A control of a sandbox that reports in its own names (reference/sandbox-shape.ts `answers`).
    if (opts.svc.target.sandbox.vendorAnswers && isSandboxRoute(route)) return successEnvelope(vendorAnswer(route, now));
    return successEnvelope(data);
  } catch (e) {
    if (e instanceof ApiError) return errorEnvelope(opts.svc.behaviour.mapError(e, route), english);
    opts.log(`internal failure on ${printable(path)}: ${e instanceof Error ? e.name : 'unknown'}`);
    return errorEnvelope(E.systemBusy(), english);
  }
}

/** The path inside the service's base path (reference/sandbox-data.ts `basePath`); undefined for a path outside it. */
function withinBase(path: string, base: string): string | undefined {
  if (base === '') return path;
  if (path === base) return '/';
  return path.startsWith(`${base}/`) ? path.slice(base.length) : undefined;
}

/** The refunded payment's numbers, the fields a nested refund request keeps beside its own object. */
const REFUND_PAYMENT_FIELDS = ['original_order_no', 'original_merchant_order_no'];

/**
 * A refund request of a service that reads the refund's own fields from under a key (`refundRequestUnder`): those
 * fields and the payment's numbers beside them, nothing else of the top level (a flat body lacks the refund's fields).
 */
function liftRefundFields(route: string, body: Record<string, unknown>, target: Target): Record<string, unknown> {
  const key = target.refundRequestUnder;
  if (key === undefined || route !== '/api/v1/refunds/create') return body;
  const own = body[key];
  const beside = Object.fromEntries(Object.entries(body).filter(([k]) => REFUND_PAYMENT_FIELDS.includes(k)));
  return isPlainObject(own) ? { ...own, ...beside } : beside;
}

const UTF8 = new TextDecoder('utf-8', { fatal: true });

function isSandboxRoute(route: string): boolean {
  return (SANDBOX_ROUTES as readonly string[]).includes(route);
}

function isJsonText(raw: Buffer): boolean {
  try {
    JSON.parse(UTF8.decode(raw));
    return true;
  } catch {
    return false;
  }
}

function parseObject(raw: Buffer): Record<string, unknown> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(UTF8.decode(raw));
  } catch {
    throw E.invalidRequest('Body is not valid UTF-8 JSON');
  }
  if (!isPlainObject(parsed)) throw E.invalidRequest('Body must be a JSON object');
  return parsed;
}

function isJsonContentType(v: string | undefined): boolean {
  return (v ?? '').split(';')[0]?.trim().toLowerCase() === 'application/json';
}

function pathOf(url: string | undefined): string {
  try {
    return new URL(url ?? '/', 'http://sandbox.invalid').pathname;
  } catch {
    return url ?? '/';
  }
}

/** Paths are caller data: keep log lines and messages short and free of control characters. */
function printable(s: string): string {
  const cut = s.length > 100 ? `${s.slice(0, 100)}…` : s;
  return cut.replace(/[^\x20-\x7e]/g, '?');
}
