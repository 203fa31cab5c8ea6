import type { ClauseId } from '../clauses/registry.js';
/**
 * Webhook evidence for checks: waiting on the receiver with profile timing, recording each
 * delivery as an exchange (so reports show it), the rules every delivery must keep (applied like
 * the response invariants: method and Content-Type, signature, body schema, two-decimal amounts,
 * RFC 3339 times with an offset), and named assertions on bodies.
 */
import type { Exchange } from '../http/exchange.js';
import type { Target } from '../target.js';
import type { Finding } from '../check/failure.js';
import {
  currentRecorder,
  note,
  recordExchange,
  recordExercised,
  recordFinding,
  recordMachineBusy,
  type CheckRecorder,
} from '../check/context.js';
import { LAG_SIGNIFICANT_MS, lagAllowanceMs, processLag } from '../check/lag.js';
import { failCheck } from '../check/expect.js';
import { valueClauses, valueFindings } from '../check/invariants.js';
import { validate } from '../http/envelope.js';
import { shortJson } from '../http/exchange-text.js';
import { describeVerifyFailure, headerValue } from '../http/signing.js';
import type { Delivery, Receiver } from './types.js';
import { wireReply } from './receiver.js';
import { webhookTiming, type WebhookTiming } from './schedule.js';

export type Body = Record<string, unknown>;
type Filter = { merchantNo?: string; event?: string };

/** Body fields of INTERFACE.md › Events › Body fields, and the clause each one belongs to. */
export const BODY_FIELD_CLAUSES: Readonly<Record<string, ClauseId>> = {
  event: 'webhook.body.event',
  order_no: 'webhook.body.order-no',
  merchant_order_no: 'webhook.body.merchant-order-no',
  payment_method: 'webhook.body.payment-method',
  trans_amount: 'webhook.body.trans-amount',
  requested_amount: 'webhook.body.requested-amount',
  trade_info: 'webhook.body.trade-info',
  status: 'webhook.body.status',
  status_reason: 'webhook.body.status-reason',
  metadata: 'webhook.body.metadata',
  original_order_no: 'webhook.body.original-refs',
  original_merchant_order_no: 'webhook.body.original-refs',
  finished_at: 'webhook.body.finished-at',
  created_at: 'webhook.body.created-at',
};

/** The webhook receiver and the profile's timing; either missing skips the check. */
export function webhookSetup(t: Target): { receiver: Receiver; timing: WebhookTiming } {
  const timing = webhookTiming(t.profile);
  return { receiver: t.receiver(), timing };
}

export function bodyOf(d: Delivery): Body | undefined {
  return d.json !== null && typeof d.json === 'object' && !Array.isArray(d.json) ? (d.json as Body) : undefined;
}

export function eventOf(d: Delivery): unknown {
  return bodyOf(d)?.['event'];
}

export function statusOf(d: Delivery): unknown {
  return bodyOf(d)?.['status'];
}

function flatHeaders(h: Delivery['headers']): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(h)) out[k] = Array.isArray(v) ? v.join(', ') : v;
  return out;
}

/** A delivery as an exchange record: the target's POST to the receiver, and the receiver's scripted reply. */
export function deliveryExchange(d: Delivery, receiverUrl: string, ackTimeoutMs: number): Exchange {
  const reply = wireReply(d.reply, ackTimeoutMs);
  const what = [eventOf(d), statusOf(d), d.merchantNo].filter((x) => typeof x === 'string').join(' ');
  return {
    id: `wh-${String(d.seq).padStart(6, '0')}`,
    label: `webhook #${d.seq} received from the target${what ? ` (${what})` : ''}, answered ${d.reply}`,
    request: { method: d.method, url: receiverUrl, headers: flatHeaders(d.headers), body: d.body },
    ...(reply.drop
      ? { error: { kind: 'connection' as const, message: 'the receiver dropped the connection without an answer (scripted)' } }
      : {
          response: {
            status: reply.status,
            headers: reply.contentType ? { 'content-type': reply.contentType } : {},
            body: reply.body,
            truncated: false,
          },
        }),
    timings: { startedAt: new Date(d.receivedAt).toISOString(), totalMs: reply.delayMs ?? 0 },
    signature: d.signature,
  };
}

/** The States table's named values per event (the schema's per-event status enums). */
const STATUS_VALUE_CLAUSES: Readonly<Record<string, ClauseId>> = {
  'payment.updated': 'state.payment.values',
  'refund.updated': 'state.refund.values',
  'payout.updated': 'state.payout.values',
};

function problemClause(problem: string, body: Body): ClauseId {
  const required = /^body: must have required property '([^']+)'/.exec(problem);
  const field = required ? required[1]! : problem.split(/[.:]/, 1)[0]!;
  // A status the States table does not name for the event breaks that table, not the field's presence.
  if (field === 'status' && /allowed values/.test(problem) && typeof body['status'] === 'string') {
    const states = STATUS_VALUE_CLAUSES[String(body['event'])];
    if (states) return states;
  }
  return BODY_FIELD_CLAUSES[field] ?? 'webhook.body.event';
}

function finding(code: string, clause: ClauseId, message: string, ex: Exchange, expected?: string, seen?: string): Finding {
  return { code, clause, level: 'must', title: message, message, expected, seen, exchangeId: ex.id };
}

/** The rules every delivery must keep, whatever the check is about. */
export function deliveryInvariants(d: Delivery, ex: Exchange): Finding[] {
  const out: Finding[] = [];
  if (d.method !== 'POST')
    out.push(finding('WEBHOOK_NOT_POST', 'webhook.post-json', 'a webhook must be sent with POST', ex, 'POST', d.method));
  const ct = headerValue(d.headers, 'Content-Type');
  if (ct === undefined || ct.split(';')[0]!.trim().toLowerCase() !== 'application/json') {
    out.push(
      finding(
        'WEBHOOK_CONTENT_TYPE',
        'webhook.post-json',
        'a webhook must carry Content-Type: application/json',
        ex,
        'application/json',
        ct ?? '(none)',
      ),
    );
  }
  if (!d.signature.ok)
    out.push(
      finding(
        'WEBHOOK_SIGNATURE_INVALID',
        'webhook.signed',
        `the webhook signature does not verify: ${describeVerifyFailure(d.signature)}`,
        ex,
      ),
    );
  const body = bodyOf(d);
  if (!body) {
    out.push(
      finding(
        'WEBHOOK_BODY_NOT_JSON_OBJECT',
        'webhook.body.event',
        'a webhook body must be a JSON object',
        ex,
        'a JSON object',
        d.jsonError ?? shortJson(d.json),
      ),
    );
    return out;
  }
  for (const p of validate('webhook', body))
    out.push(
      finding(
        'WEBHOOK_BODY_SCHEMA',
        problemClause(p, body),
        `the webhook body breaks INTERFACE.md › Events › Body fields: ${p}`,
        ex,
        'a body per the Events table',
        p,
      ),
    );
  out.push(...valueFindings(body, 'body', ex, 'WEBHOOK_'));
  return out;
}

/** The rules a delivery gave something to judge: method and type, signature, the body fields it carries, its values. */
export function deliveryClauses(d: Delivery): ClauseId[] {
  const out = new Set<ClauseId>(['webhook.post-json', 'webhook.signed']);
  const body = bodyOf(d);
  if (body) {
    for (const k of Object.keys(body)) if (BODY_FIELD_CLAUSES[k]) out.add(BODY_FIELD_CLAUSES[k]!);
    for (const c of valueClauses(body)) out.add(c);
  }
  return [...out];
}

const recorded = new WeakMap<CheckRecorder, Set<number>>();

/** Adds deliveries to the running check's evidence and applies the delivery invariants once each. */
export function recordDeliveries(t: Target, ds: readonly Delivery[]): Exchange[] {
  const rec = currentRecorder();
  const seen = rec ? (recorded.get(rec) ?? new Set<number>()) : new Set<number>();
  if (rec) recorded.set(rec, seen);
  const ackTimeoutMs = t.profile.webhooks?.ackTimeoutMs ?? 0;
  const url = t.notifyUrl();
  return ds.map((d) => {
    const ex = deliveryExchange(d, url, ackTimeoutMs);
    if (!seen.has(d.seq)) {
      seen.add(d.seq);
      recordExchange(ex);
      for (const f of deliveryInvariants(d, ex)) recordFinding(f);
      recordExercised(...deliveryClauses(d));
    }
    return ex;
  });
}

function holds(pred: (ds: Delivery[]) => boolean, ds: Delivery[]): boolean {
  try {
    return pred(ds);
  } catch {
    return true;
  }
}

/**
 * Waits on the receiver (never rejects), then records what matched. A window in which our own process
 * lost time (lagMeter) is extended by that time before it is concluded, for a delivery that must come
 * as for one that must not: the time lost was not the target's. The extension is bounded
 * (lagAllowanceMs: at most MAX_LAG_STRETCH times the window in all); lost time beyond it is noted on the check
 * (recordMachineBusy), so a timing finding drawn from this window is retried and, if our machine
 * stays that busy, reported as no verdict.
 */
export async function awaitDeliveries(
  t: Target,
  filter: Filter,
  pred: (ds: Delivery[]) => boolean,
  timeoutMs: number,
): Promise<Delivery[]> {
  const receiver = t.receiver();
  const lag = processLag();
  const startedAt = Date.now();
  let ds = await receiver.waitFor(filter, pred, timeoutMs);
  const allowance = lagAllowanceMs(timeoutMs);
  let granted = 0;
  let segmentFrom = startedAt;
  while (!holds(pred, ds)) {
    const now = Date.now();
    const lost = lag.lostDuring(segmentFrom, now);
    if (lost < LAG_SIGNIFICANT_MS) break;
    const more = Math.min(lost, allowance - granted);
    if (more <= 0) break;
    granted += more;
    segmentFrom = now;
    ds = await receiver.waitFor(filter, pred, more);
  }
  // The target had less of our attention than the window promised: what we lost beyond what we gave back.
  const lostAll = lag.lostDuring(startedAt, Date.now());
  if (!holds(pred, ds) && lostAll - granted >= LAG_SIGNIFICANT_MS) {
    recordMachineBusy(
      `our process lost ${Math.round(lostAll)} ms of a ${Math.round(timeoutMs)} ms webhook ` +
        `window, ${Math.round(granted)} ms given back (at most ${Math.round(allowance)} ms)`,
    );
  }
  if (granted > 0)
    note(
      `the webhook window of ${Math.round(timeoutMs)} ms was extended by ` +
        `${Math.round(granted)} ms: our process lost that time while waiting`,
    );
  recordDeliveries(t, ds);
  return ds;
}

/** Deliveries seen so far, recorded. */
export function currentDeliveries(t: Target, filter: Filter): Delivery[] {
  const ds = t.receiver().deliveries(filter);
  recordDeliveries(t, ds);
  return ds;
}

export function describeDeliveries(ds: readonly Delivery[]): string {
  if (ds.length === 0) return 'no delivery';
  return ds
    .map(
      (d) =>
        `#${d.seq} ${String(eventOf(d) ?? '?')} ${String(statusOf(d) ?? '?')}` +
        ` at +${d.receivedAt - ds[0]!.receivedAt} ms, answered ${d.reply}`,
    )
    .join('; ');
}

/** The first delivery with this event (and status, when given); fails the check when none came. */
export function expectDelivery(
  ds: readonly Delivery[],
  want: { event: string; status?: string | string[] },
  clause: ClauseId,
  what: string,
  t: Target,
): { delivery: Delivery; body: Body; exchange: Exchange } {
  const statuses = want.status === undefined ? undefined : Array.isArray(want.status) ? want.status : [want.status];
  const d = ds.find((x) => eventOf(x) === want.event && (statuses === undefined || statuses.includes(String(statusOf(x)))));
  const expected = `${want.event}${statuses ? ` with status ${statuses.join(' or ')}` : ''}`;
  if (!d) {
    failCheck(clause, { code: 'WEBHOOK_NOT_SENT', title: `${what}: no ${expected} arrived`, expected, seen: describeDeliveries(ds) });
  }
  const [exchange] = recordDeliveries(t, [d]);
  recordExercised(clause);
  return { delivery: d, body: bodyOf(d)!, exchange: exchange! };
}

export function expectBodyField(body: Body, field: string, expected: unknown, clause: ClauseId, message: string, ex: Exchange): void {
  const seen = body[field];
  if (JSON.stringify(seen) !== JSON.stringify(expected)) {
    failCheck(clause, {
      code: 'WEBHOOK_FIELD_WRONG',
      title: message,
      expected: `${field}: ${shortJson(expected)}`,
      seen: `${field}: ${shortJson(seen)}`,
      exchange: ex,
    });
  }
  recordExercised(clause);
}

/**
 * Waits (up to the profile's delivery wait) for an event of this merchant number with one of the
 * statuses, records what came, and fails the check when it did not come.
 */
export async function expectEventArrives(
  t: Target,
  merchantNo: string,
  event: string,
  status: string | string[],
  clause: ClauseId,
  what: string,
): Promise<{ delivery: Delivery; body: Body; exchange: Exchange; all: Delivery[] }> {
  const { timing } = webhookSetup(t);
  const statuses = Array.isArray(status) ? status : [status];
  const all = await awaitDeliveries(
    t,
    { merchantNo, event },
    (ds) => ds.some((d) => statuses.includes(String(statusOf(d)))),
    timing.deliveryWaitMs,
  );
  // Deliveries of this order under another event name still face the body rules (an unknown `event` shows there).
  if (!all.some((d) => statuses.includes(String(statusOf(d))))) currentDeliveries(t, { merchantNo });
  return { ...expectDelivery(all, { event, status: statuses }, clause, what, t), all };
}

/** Fails the check with the first schema problem of a body, under that field's clause. */
export function expectValidBody(body: Body, ex: Exchange, what: string): void {
  const problems = validate('webhook', body);
  if (problems.length > 0) {
    failCheck(problemClause(problems[0]!, body), {
      code: 'WEBHOOK_BODY_SCHEMA',
      title: `${what} breaks INTERFACE.md › Events › Body fields`,
      expected: 'a body per the Events table',
      seen: problems.join('; '),
      exchange: ex,
    });
  }
  for (const k of Object.keys(body)) recordExercised(BODY_FIELD_CLAUSES[k]);
}
