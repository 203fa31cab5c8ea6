/**
 * The run's webhook receiver: a plain node:http server that plays the merchant. Every delivery is
 * recorded (arrival time, method, headers, raw body capped at 1 MiB), its signature is verified
 * over the raw bytes with the secret of the merchant named in X-MerchantID, and it is answered by
 * the script of its merchant number. Junk, huge bodies and floods are recorded within fixed memory
 * bounds and never crash it; close() ends every connection, slow replies included.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { headerValue, headerValues, verify, type VerifyResult } from '../http/signing.js';
import type { Delivery, Receiver, ReplyKind } from './types.js';
import { processLag } from '../check/lag.js';

/** Raw body bytes kept per delivery; the rest is read and discarded. */
export const MAX_BODY_BYTES = 1024 * 1024;
/** Memory bounds for the record: the oldest deliveries are forgotten first. */
export const DEFAULT_MAX_DELIVERIES = 20_000;
export const DEFAULT_MAX_STORED_BYTES = 64 * 1024 * 1024;
/** Path of the receiver's URL (any path is accepted). */
export const RECEIVER_PATH = '/mpsi/webhooks';

export interface ReceiverOptions {
  host: string;
  /** 0: any free port. */
  port: number;
  /** What the target must call, when it cannot reach host:port directly (tunnel, proxy). */
  publicUrl?: string;
  /**
   * The public URL of this receiver, asked once it listens (its local URL given): a run's `--tunnel` relay
   * (harness/webhooks/relay.ts) gives each receiver one of its own. Wins over `publicUrl`.
   */
  publicUrlFor?: (localUrl: string) => Promise<string>;
  /** Merchants whose signatures the receiver accepts. */
  merchants: { id: string; secret: string }[];
  /** The target's effective ack limit (profile webhooks.ackTimeoutMs): `slow` replies exceed it. */
  ackTimeoutMs: number;
  maxDeliveries?: number;
  maxStoredBytes?: number;
}

/** What goes on the wire for one reply kind. `delayMs` postpones it; `drop` destroys the connection instead. */
export interface WireReply {
  status: number;
  body: Buffer;
  contentType?: string;
  delayMs?: number;
  drop?: boolean;
}

/** A `slow` reply comes this long after the delivery arrived: well past the target's ack limit. */
export function slowReplyDelayMs(ackTimeoutMs: number): number {
  return ackTimeoutMs * 3 + 200;
}

const TEXT = 'text/plain; charset=utf-8';

/** The exact bytes and status of each reply kind. */
/** An `in-time` reply comes half the target's ack limit after the delivery arrived: late, but in time. */
export function inTimeReplyDelayMs(ackTimeoutMs: number): number {
  return Math.round(ackTimeoutMs / 2);
}

export function wireReply(kind: ReplyKind, ackTimeoutMs: number): WireReply {
  switch (kind) {
    case 'success':
      return { status: 200, body: Buffer.from('success'), contentType: TEXT };
    case 'success-newline':
      return { status: 200, body: Buffer.from('success\n'), contentType: TEXT };
    case 'upper':
      return { status: 200, body: Buffer.from('SUCCESS'), contentType: TEXT };
    case 'quoted':
      return { status: 200, body: Buffer.from('"success"'), contentType: TEXT };
    case 'json':
      return { status: 200, body: Buffer.from('{"code":0,"msg":"success"}'), contentType: 'application/json' };
    case 'empty-200':
      return { status: 200, body: Buffer.alloc(0) };
    case 'http500-success':
      return { status: 500, body: Buffer.from('success'), contentType: TEXT };
    case 'in-time':
      return { status: 200, body: Buffer.from('success'), contentType: TEXT, delayMs: inTimeReplyDelayMs(ackTimeoutMs) };
    case 'slow':
      return { status: 200, body: Buffer.from('success'), contentType: TEXT, delayMs: slowReplyDelayMs(ackTimeoutMs) };
    case 'drop':
      return { status: 0, body: Buffer.alloc(0), drop: true };
    case 'reject':
      return { status: 401, body: Buffer.from('rejected'), contentType: TEXT };
  }
}

const ALL_KINDS: ReadonlySet<string> = new Set<ReplyKind>([
  'success',
  'success-newline',
  'upper',
  'quoted',
  'json',
  'empty-200',
  'http500-success',
  'slow',
  'in-time',
  'drop',
  'reject',
]);

function clip(text: string): string {
  return text.length > 80 ? `${text.slice(0, 80)}…` : text;
}

/** Verdict against the merchant named in X-MerchantID; an id the receiver does not know fails. */
function verdictFor(headers: Record<string, string[]>, body: Buffer, merchants: ReceiverOptions['merchants']): VerifyResult {
  const ids = headerValues(headers, 'X-MerchantID');
  const id = ids.length === 1 ? ids[0] : undefined;
  const merchant = id === undefined ? undefined : merchants.find((m) => m.id === id);
  if (merchant) return verify(headers, body, { merchantId: merchant.id, secret: merchant.secret });
  // Header problems (missing, empty, repeated) are reported as such whatever the merchant.
  const probe = verify(headers, body, { merchantId: '\u0000', secret: '\u0000' });
  if (!probe.ok && probe.reason !== 'merchant-mismatch') return probe;
  return {
    ok: false,
    reason: 'merchant-mismatch',
    expected: `one of ${merchants.map((m) => m.id).join(', ') || '(no merchants)'}`,
    seen: clip(id ?? ''),
  };
}

function parseJson(body: Buffer, truncated: boolean): { json?: unknown; jsonError?: string } {
  if (truncated) return { jsonError: `body longer than ${MAX_BODY_BYTES} bytes, only its start was kept` };
  if (body.length === 0) return { jsonError: 'empty body' };
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(body);
  } catch {
    return { jsonError: 'body is not valid UTF-8' };
  }
  try {
    return { json: JSON.parse(text) as unknown };
  } catch (err) {
    return { jsonError: (err as Error).message };
  }
}

function merchantNoOf(json: unknown): string | undefined {
  if (json === null || typeof json !== 'object' || Array.isArray(json)) return undefined;
  const no = (json as Record<string, unknown>)['merchant_order_no'];
  return typeof no === 'string' ? no : undefined;
}

function eventOf(d: Delivery): unknown {
  return d.json !== null && typeof d.json === 'object' ? (d.json as Record<string, unknown>)['event'] : undefined;
}

type Filter = { merchantNo?: string; event?: string };

function matches(d: Delivery, f: Filter): boolean {
  return (f.merchantNo === undefined || d.merchantNo === f.merchantNo) && (f.event === undefined || eventOf(d) === f.event);
}

function urlFor(host: string, port: number): string {
  const h = host === '0.0.0.0' || host === '' ? '127.0.0.1' : host === '::' ? '::1' : host;
  return `http://${h.includes(':') ? `[${h}]` : h}:${port}${RECEIVER_PATH}`;
}

export async function startReceiver(opts: ReceiverOptions): Promise<Receiver> {
  // Timing checks ask how much time this process lost while they waited: the meter runs from now on.
  processLag();
  const maxDeliveries = Math.max(1, opts.maxDeliveries ?? DEFAULT_MAX_DELIVERIES);
  const maxStoredBytes = Math.max(MAX_BODY_BYTES, opts.maxStoredBytes ?? DEFAULT_MAX_STORED_BYTES);
  const merchants = opts.merchants.map((m) => ({ id: m.id, secret: m.secret }));

  const all: Delivery[] = [];
  const byNo = new Map<string, Delivery[]>();
  let storedBytes = 0;
  let seq = 0;
  const scripts = new Map<string, { replies: ReplyKind[]; used: number }>();
  const waiters = new Set<{ filter: Filter; check: () => void; finish: () => void }>();
  const timers = new Set<NodeJS.Timeout>();
  const sockets = new Set<Socket>();
  let closing: Promise<void> | undefined;

  function nextReply(d: Pick<Delivery, 'signature' | 'json' | 'merchantNo'>): ReplyKind {
    // A receiver acts only on what verifies (webhook.receiver-verifies) and on what it can read.
    if (!d.signature.ok) return 'reject';
    if (d.json === null || typeof d.json !== 'object' || Array.isArray(d.json)) return 'reject';
    const s = d.merchantNo === undefined ? undefined : scripts.get(d.merchantNo);
    if (!s) return 'success';
    const kind = s.replies[Math.min(s.used, s.replies.length - 1)]!;
    s.used += 1;
    return kind;
  }

  function store(d: Delivery): void {
    all.push(d);
    storedBytes += d.body.length;
    if (d.merchantNo !== undefined) {
      const list = byNo.get(d.merchantNo);
      if (list) list.push(d);
      else byNo.set(d.merchantNo, [d]);
    }
    if (all.length <= maxDeliveries && storedBytes <= maxStoredBytes) return;
    // Forget the oldest, in a batch so a flood costs amortised O(1) per delivery.
    let n = 0;
    let bytes = storedBytes;
    while (n < all.length - 1 && (all.length - n > maxDeliveries || bytes > maxStoredBytes || n < Math.floor(maxDeliveries / 10))) {
      bytes -= all[n]!.body.length;
      n += 1;
    }
    for (const old of all.splice(0, n)) {
      storedBytes -= old.body.length;
      if (old.merchantNo === undefined) continue;
      const list = byNo.get(old.merchantNo);
      if (!list) continue;
      const i = list.indexOf(old);
      if (i >= 0) list.splice(i, 1);
      if (list.length === 0) byNo.delete(old.merchantNo);
    }
  }

  function select(f: Filter): Delivery[] {
    const pool = f.merchantNo !== undefined ? (byNo.get(f.merchantNo) ?? []) : all;
    return pool.filter((d) => matches(d, f));
  }

  function notify(d: Delivery): void {
    for (const w of [...waiters]) if (matches(d, w.filter)) w.check();
  }

  function send(req: IncomingMessage, res: ServerResponse, reply: WireReply, d: Delivery): void {
    if (reply.drop) {
      req.socket.destroy();
      return;
    }
    const write = (): void => {
      if (closing || res.destroyed || res.writableEnded) return;
      const headers: Record<string, string | number> = { 'Content-Length': reply.body.length };
      if (reply.contentType) headers['Content-Type'] = reply.contentType;
      res.writeHead(reply.status, headers);
      res.end(reply.body);
      // When our reply really left: on a busy machine a delayed reply leaves later than scripted.
      d.repliedAt = Date.now();
    };
    if (!reply.delayMs) {
      write();
      return;
    }
    const timer = setTimeout(() => {
      timers.delete(timer);
      write();
    }, reply.delayMs);
    timers.add(timer);
    // The target gave up (or the receiver closed): nothing left to answer.
    res.once('close', () => {
      clearTimeout(timer);
      timers.delete(timer);
    });
  }

  function handle(req: IncomingMessage, res: ServerResponse): void {
    const receivedAt = Date.now();
    const chunks: Buffer[] = [];
    let kept = 0;
    let truncated = false;
    let done = false;
    res.on('error', () => {});
    req.on('error', () => {});
    req.on('data', (chunk: Buffer) => {
      if (kept >= MAX_BODY_BYTES) {
        truncated = true;
        return;
      }
      const room = MAX_BODY_BYTES - kept;
      if (chunk.length > room) truncated = true;
      const part = chunk.length > room ? chunk.subarray(0, room) : chunk;
      chunks.push(Buffer.from(part));
      kept += part.length;
    });
    const finish = (complete: boolean): void => {
      if (done) return;
      done = true;
      const body = Buffer.concat(chunks, kept);
      const headers: Record<string, string | string[]> = {};
      for (const [k, v] of Object.entries(req.headersDistinct)) if (v) headers[k] = v.length === 1 ? v[0]! : [...v];
      const parsed = parseJson(body, truncated);
      const signature = verdictFor(req.headersDistinct as Record<string, string[]>, body, merchants);
      const merchantNo = merchantNoOf(parsed.json);
      const base = { signature, json: parsed.json, merchantNo };
      const reply: ReplyKind = complete ? nextReply(base) : 'drop';
      seq += 1;
      const d: Delivery = {
        seq,
        receivedAt,
        method: req.method ?? '',
        headers,
        body,
        ...(truncated ? { truncated: true } : {}),
        ...('json' in parsed ? { json: parsed.json } : {}),
        ...(parsed.jsonError !== undefined
          ? { jsonError: complete ? parsed.jsonError : `request aborted by the sender (${parsed.jsonError})` }
          : {}),
        signature,
        ...(merchantNo !== undefined ? { merchantNo } : {}),
        reply,
      };
      store(d);
      if (complete) send(req, res, wireReply(reply, opts.ackTimeoutMs), d);
      notify(d);
    };
    req.on('end', () => finish(true));
    // A sender that gives up mid-body: still a delivery, with what arrived.
    req.on('close', () => finish(req.complete));
  }

  const server = createServer({ requestTimeout: 60_000, headersTimeout: 30_000 }, handle);
  server.on('connection', (s: Socket) => {
    sockets.add(s);
    s.on('error', () => {});
    s.once('close', () => sockets.delete(s));
  });
  // Bytes that are not HTTP: answer 400 when the socket still takes it, never throw.
  server.on('clientError', (_err: Error, socket: Socket) => {
    if (socket.writable && !socket.destroyed) socket.end('HTTP/1.1 400 Bad Request\r\nConnection: close\r\nContent-Length: 0\r\n\r\n');
    else socket.destroy();
  });

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port, opts.host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const local = urlFor(opts.host, (server.address() as AddressInfo).port);
  let url = opts.publicUrl ?? local;
  if (opts.publicUrlFor) {
    try {
      url = await opts.publicUrlFor(local);
    } catch (err) {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      throw err;
    }
  }

  return {
    url,
    script(merchantNo, replies) {
      if (replies.length === 0) throw new Error('a reply script needs at least one reply');
      for (const r of replies) if (!ALL_KINDS.has(r)) throw new Error(`unknown reply kind ${JSON.stringify(r)}`);
      scripts.set(merchantNo, { replies: [...replies], used: 0 });
    },
    deliveries(filter = {}) {
      return select(filter);
    },
    waitFor(filter, pred, timeoutMs) {
      return new Promise<Delivery[]>((resolve) => {
        let timer: NodeJS.Timeout | undefined;
        const w = {
          filter,
          finish() {
            waiters.delete(w);
            if (timer) clearTimeout(timer);
            resolve(select(filter));
          },
          check() {
            let ok: boolean;
            try {
              ok = pred(select(filter));
            } catch {
              // A predicate that cannot decide hands the deliveries to the check, which asserts.
              ok = true;
            }
            if (ok) w.finish();
          },
        };
        if (closing) {
          resolve(select(filter));
          return;
        }
        waiters.add(w);
        timer = setTimeout(() => w.finish(), Math.max(0, Number.isFinite(timeoutMs) ? timeoutMs : 0));
        w.check();
      });
    },
    close() {
      closing ??= (async () => {
        for (const t of timers) clearTimeout(t);
        timers.clear();
        for (const w of [...waiters]) w.finish();
        const stopped = new Promise<void>((resolve) => server.close(() => resolve()));
        server.closeAllConnections();
        for (const s of sockets) s.destroy();
        await stopped;
      })();
      return closing;
    },
  };
}

/** The signing header values of a delivery, first value each (a repeated header fails verification anyway). */
export function signingHeadersOf(d: Delivery): { merchantId?: string; timestamp?: string; nonce?: string; sign?: string } {
  return {
    merchantId: headerValue(d.headers, 'X-MerchantID'),
    timestamp: headerValue(d.headers, 'X-Timestamp'),
    nonce: headerValue(d.headers, 'X-Nonce'),
    sign: headerValue(d.headers, 'X-Sign'),
  };
}
