/**
 * A small correct merchant webhook receiver (what an integration should look like), and its named
 * faults: each one hook replaced the way real integrations get it wrong, breaking one clause.
 * Deliberately independent of harness/ signing: a shared bug would cancel itself out.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';

export interface ReceiverBehaviour {
  /** The string the receiver signs to compare. */
  toSign(id: string, ts: string, nonce: string, raw: Buffer): Buffer;
  /** Compares the presented X-Sign with the expected lower-case hex. */
  matches(presented: string, expectedHex: string): boolean;
  /** Whether the headers suffice to go on (all four present and non-empty). */
  headersOk(h: (string | undefined)[]): boolean;
  /** Whether X-MerchantID must be the receiver's own. */
  ownIdOnly: boolean;
  /** Whose id goes into the string to sign: the X-MerchantID header's, or the receiver's configured one. */
  signsWith: 'header-id' | 'own-id';
  /** Parses the body before verifying, and a body that is not JSON crashes the process for good. */
  parsesFirst: boolean;
  /** The deduplication key of a webhook body. */
  dedupKey(b: Record<string, unknown>): string;
  /** The answer to a verified webhook already acted on. */
  duplicateAnswer: 'success' | 'refuse';
  /** Whether a status arriving after another one of the same order is accepted. */
  acceptsAfter(seen: string[], status: string): boolean;
  /**
   * What it does with a status older than one it acted on for the order: acknowledge and leave the order be; act on it;
   * or query the order (`queryOrder`) and take the status the service answers.
   */
  onStale: 'keep-newer' | 'act' | 'query';
  /** The receiver's query of an order (its own service client): the status answered. */
  queryOrder(event: string, orderNo: string): string | undefined;
  /** Whether the handler can process this body at all. */
  handles(b: Record<string, unknown>): boolean;
  /** Whether the body's times can be read. */
  readsTimes(b: Record<string, unknown>): boolean;
  /** Acts on the webhook before the signature is checked (the handler's order of steps). */
  actsFirst: boolean;
  /** Looks the webhook up among those already processed before verifying it. */
  dedupFirst: boolean;
  /** Sends the acknowledgement (or a refusal). */
  reply(res: ServerResponse, ok: boolean, ackMs: number): void;
}

/** Statuses that come after another in the document's words: a refund PENDING becomes SUCCESS or FAILED; a paid payment is REFUNDED. */
const LATER: Readonly<Record<string, Readonly<Record<string, readonly string[]>>>> = {
  'refund.updated': { PENDING: ['SUCCESS', 'FAILED'] },
  'payment.updated': { SUCCESS: ['REFUNDED'] },
};
const isStale = (event: string, seen: readonly string[], status: string) => seen.some((s) => LATER[event]?.[status]?.includes(s));

const hmac = (secret: string, data: Buffer) => createHmac('sha256', secret).update(data).digest('hex');

export const correct: ReceiverBehaviour = {
  toSign: (id, ts, nonce, raw) => Buffer.concat([Buffer.from(`${id}\n${ts}\n${nonce}\n`), raw]),
  matches: (p, e) => /^[0-9a-f]{64}$/.test(p) && timingSafeEqual(Buffer.from(p), Buffer.from(e)),
  headersOk: (h) => h.every((v) => v !== undefined && v !== ''),
  ownIdOnly: true,
  signsWith: 'header-id',
  parsesFirst: false,
  dedupKey: (b) => `${b['event']}|${b['order_no']}|${b['status']}`,
  duplicateAnswer: 'success',
  acceptsAfter: () => true,
  onStale: 'keep-newer',
  queryOrder: () => undefined,
  readsTimes: (b) => ['finished_at', 'created_at'].every((k) => b[k] === undefined || !Number.isNaN(Date.parse(String(b[k])))),
  handles: () => true,
  actsFirst: false,
  dedupFirst: false,
  reply: (res, ok) => {
    res.writeHead(ok ? 200 : 401, { 'Content-Type': 'text/plain' });
    res.end(ok ? 'success' : 'invalid webhook');
  },
};

export interface ReceiverFault {
  name: string;
  /** The clause the fault breaks. */
  clause: string;
  doc: string;
  hooks: Partial<ReceiverBehaviour>;
}

const f = (name: string, clause: string, doc: string, hooks: Partial<ReceiverBehaviour>): ReceiverFault => ({ name, clause, doc, hooks });

export const receiverFaults: readonly ReceiverFault[] = [
  f(
    'accepts-any-signature',
    'webhook.receiver-verifies',
    'Never checks X-Sign: any well-formed signature is taken (verification commented out "for now").',
    { matches: (p) => p.length > 0 },
  ),
  f(
    'verifies-parsed-body',
    'merchant.verify.raw-body',
    'Verifies over JSON.stringify(JSON.parse(body)), not the raw bytes (framework body parser).',
    {
      toSign: (id, ts, nonce, raw) =>
        Buffer.concat([Buffer.from(`${id}\n${ts}\n${nonce}\n`), Buffer.from(JSON.stringify(JSON.parse(raw.toString())))]),
    },
  ),
  f('crlf-string-to-sign', 'merchant.verify.string-to-sign', 'Joins the string to sign with CR LF (a Windows template).', {
    toSign: (id, ts, nonce, raw) => Buffer.concat([Buffer.from(`${id}\r\n${ts}\r\n${nonce}\r\n`), raw]),
  }),
  f(
    'signs-without-merchant-id',
    'merchant.verify.string-to-sign',
    'Leaves the merchant id out of the string to sign (timestamp LF nonce LF body).',
    {
      toSign: (_id, ts, nonce, raw) => Buffer.concat([Buffer.from(`${ts}\n${nonce}\n`), raw]),
    },
  ),
  f(
    'acts-before-verifying',
    'webhook.receiver-verifies',
    'Records the event, then verifies the signature: a forged webhook is refused but already acted on.',
    { actsFirst: true },
  ),
  f(
    'dedups-before-verifying',
    'webhook.receiver-verifies',
    'Answers success to an event it has already processed without verifying the repeat (the dedup lookup comes first).',
    { dedupFirst: true },
  ),
  f('trusts-any-merchant-id', 'merchant.verify.merchant-id', 'Verifies the signature but never checks that X-MerchantID is its own.', {
    ownIdOnly: false,
  }),
  f(
    'ignores-merchant-id-header',
    'merchant.verify.merchant-id',
    'Verifies over its own configured merchant id and never looks at X-MerchantID: ' +
      'a webhook addressed to another merchant, signed with its key, passes.',
    {
      ownIdOnly: false,
      signsWith: 'own-id',
    },
  ),
  f(
    'parses-before-verifying',
    'webhook.receiver-verifies',
    'JSON.parse before the signature check, unguarded: a body that is not JSON crashes the handler, and the process never answers again.',
    { parsesFirst: true },
  ),
  f('accepts-unsigned', 'merchant.verify.headers-required', 'Treats a webhook without X-Sign as unsigned and lets it through.', {
    headersOk: () => true,
    matches: (p, e) => p === '' || p === e,
  }),
  f('case-insensitive-hex', 'merchant.verify.lower-hex', 'Compares X-Sign case-insensitively, so an upper-case copy passes.', {
    matches: (p, e) => p.toLowerCase() === e,
  }),
  f('json-ack', 'merchant.ack.success-body', 'Acknowledges with {"code":0,"msg":"success"} instead of the bare word.', {
    reply: (res, ok) => {
      res.writeHead(ok ? 200 : 401, { 'Content-Type': 'application/json' });
      res.end(ok ? '{"code":0,"msg":"success"}' : '{"code":401}');
    },
  }),
  f('ack-with-newline', 'merchant.ack.success-body', 'Acknowledges with "success\\n" (println).', {
    reply: (res, ok) => {
      res.writeHead(ok ? 200 : 401);
      res.end(ok ? 'success\n' : 'no');
    },
  }),
  f(
    'ack-with-trailing-bytes',
    'merchant.ack.success-body',
    'Acknowledges with success, flushes it, then writes 1 MiB more (a ' +
      'template that renders its page after the word), Content-Length honest.',
    {
      reply: (res, ok) => {
        if (!ok) return correct.reply(res, ok, 0);
        const pad = Buffer.alloc(1024 * 1024, ' ');
        res.writeHead(200, { 'Content-Type': 'text/plain', 'Content-Length': String(7 + pad.length) });
        // The word on its own first, so a reader that keeps only what fits a cap sees exactly "success".
        res.write('success', () => setTimeout(() => res.end(pad), 20));
      },
    },
  ),
  f('slow-ack', 'merchant.ack.within-5s', 'Does its work before answering: success comes after the acknowledgement time.', {
    reply: (res, ok, ackMs) => {
      setTimeout(() => correct.reply(res, ok, ackMs), ackMs * 1.3);
    },
  }),
  f('hangs', 'merchant.ack.within-5s', 'Never answers (a deadlock in the handler).', { reply: () => {} }),
  f('resets-connection', 'merchant.ack.success-body', 'Crashes mid-request: the connection is reset without a reply.', {
    reply: (res) => res.socket?.destroy(),
  }),
  f('answers-garbage', 'merchant.ack.success-body', 'Answers HTTP 200 with an HTML page instead of success.', {
    reply: (res) => {
      res.writeHead(200, { 'Content-Type': 'text/html' });
      res.end('<html><body>OK</body></html>');
    },
  }),
  f(
    'refuses-refunded-status',
    'merchant.ack.success-body',
    'Knows only SUCCESS and FAILED for payments: a retried payment.updated carrying REFUNDED gets "unknown status".',
    { handles: (b) => !(b['event'] === 'payment.updated' && b['status'] === 'REFUNDED') },
  ),
  f(
    'requires-requested-amount',
    'merchant.ack.success-body',
    'Reads requested_amount.value unguarded: a payment webhook without it (not rounded) crashes the handler.',
    {
      handles: (b) => b['event'] !== 'payment.updated' || b['requested_amount'] !== undefined,
    },
  ),
  f(
    'refuses-duplicates',
    'webhook.dup.may-repeat',
    'Answers a webhook it has already processed with "duplicate" (409), so the service retries it for 100 minutes.',
    { duplicateAnswer: 'refuse' },
  ),
  f('refuses-out-of-order', 'webhook.dup.out-of-order', 'Refuses a status that arrives after a later one of the same order.', {
    acceptsAfter: (seen, status) => !seen.some((s) => ['SUCCESS', 'FAILED', 'REFUNDED', 'CANCELED'].includes(s) && s !== status),
  }),
  f(
    'stale-overwrites-newer',
    'webhook.dup.stale-status',
    'Sets the order to whatever status a webhook carries: a refund PENDING arriving after SUCCESS becomes its status, unqueried.',
    { onStale: 'act' },
  ),
  f('processes-duplicates', 'webhook.dup.key', 'Acts on every delivery: no deduplication at all.', { dedupKey: () => `${Math.random()}` }),
  f('dedups-on-order-no', 'webhook.dup.key', 'Deduplicates on order_no alone, so a second status of the same order is dropped.', {
    dedupKey: (b) => String(b['order_no']),
  }),
  f('assumes-utc', 'conv.time.read-offset', 'Parses times with a regex that expects a trailing Z and refuses other offsets.', {
    readsTimes: (b) => ['finished_at', 'created_at'].every((k) => b[k] === undefined || /(Z|\+00:00)$/.test(String(b[k]))),
  }),
];

export interface RunningReceiver {
  url: string;
  inspectUrl: string;
  close(): Promise<void>;
}

export async function startReceiver(opts: {
  merchantId: string;
  secret: string;
  faults?: string[];
  ackMs?: number;
  hooks?: Partial<ReceiverBehaviour>;
}): Promise<RunningReceiver> {
  const b: ReceiverBehaviour = { ...correct, ...opts.hooks };
  for (const name of opts.faults ?? []) {
    const fault = receiverFaults.find((x) => x.name === name);
    if (!fault) throw new Error(`unknown receiver fault ${name}`);
    Object.assign(b, fault.hooks);
  }
  const ackMs = opts.ackMs ?? 5000;
  const done = new Set<string>();
  const statuses = new Map<string, string[]>();
  let dead = false;
  const acted: { event: unknown; order_no: unknown; status: unknown; queried?: true }[] = [];
  const sockets = new Set<Socket>();
  const act = (body: Record<string, unknown>, queried?: string): void => {
    done.add(b.dedupKey(body));
    const order = `${body['event']}|${body['order_no']}`;
    const status = queried ?? String(body['status']);
    statuses.set(order, [...(statuses.get(order) ?? []), status]);
    acted.push({ event: body['event'], order_no: body['order_no'], status, ...(queried ? { queried: true as const } : {}) });
  };
  const parse = (raw: Buffer): Record<string, unknown> | undefined => {
    try {
      return JSON.parse(raw.toString()) as Record<string, unknown>;
    } catch {
      return undefined;
    }
  };
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    if (dead && req.method !== 'GET') return void req.socket.destroy();
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      if (req.method === 'GET') {
        res.writeHead(200, { 'Content-Type': 'application/json' });
        res.end(JSON.stringify(acted));
        return;
      }
      const raw = Buffer.concat(chunks);
      const h = (n: string) => {
        const v = req.headers[n];
        return Array.isArray(v) ? v[0] : v;
      };
      const [id, ts, nonce, sign] = ['x-merchantid', 'x-timestamp', 'x-nonce', 'x-sign'].map(h);
      const early = parse(raw);
      if (!early && b.parsesFirst) {
        dead = true;
        return void req.socket.destroy();
      }
      if (early && b.dedupFirst && done.has(b.dedupKey(early))) return b.reply(res, true, ackMs);
      if (early && b.actsFirst) act(early);
      if (!b.headersOk([id, ts, nonce, sign])) return b.reply(res, false, ackMs);
      if (b.ownIdOnly && id !== opts.merchantId) return b.reply(res, false, ackMs);
      let body: Record<string, unknown>;
      try {
        if (
          !b.matches(
            sign ?? '',
            hmac(opts.secret, b.toSign((b.signsWith === 'own-id' ? opts.merchantId : id) ?? '', ts ?? '', nonce ?? '', raw)),
          )
        )
          return b.reply(res, false, ackMs);
        body = JSON.parse(raw.toString()) as Record<string, unknown>;
      } catch {
        return b.reply(res, false, ackMs);
      }
      if (!b.readsTimes(body) || !b.handles(body)) return b.reply(res, false, ackMs);
      const key = b.dedupKey(body);
      if (done.has(key)) return b.reply(res, b.duplicateAnswer === 'success', ackMs);
      const order = `${body['event']}|${body['order_no']}`;
      const seen = statuses.get(order) ?? [];
      if (!b.acceptsAfter(seen, String(body['status']))) return b.reply(res, false, ackMs);
      // Older than what the order already shows: acknowledged, processed once, and the order left as it is.
      if (b.onStale !== 'act' && isStale(String(body['event']), seen, String(body['status']))) {
        const answered = b.onStale === 'query' ? b.queryOrder(String(body['event']), String(body['order_no'])) : undefined;
        if (answered) act(body, answered);
        else done.add(key);
        return b.reply(res, true, ackMs);
      }
      if (!b.actsFirst) act(body);
      b.reply(res, true, ackMs);
    });
  });
  server.on('connection', (s: Socket) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url: `${url}/webhooks/mpsi`,
    inspectUrl: `${url}/acted`,
    close: () =>
      new Promise<void>((r) => {
        for (const s of sockets) s.destroy();
        server.close(() => r());
      }),
  };
}
