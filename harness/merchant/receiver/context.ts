/**
 * What every receiver check shares: the context, one delivery with its evidence line, the two
 * verdicts on a reply (acknowledged, refused), the controls a check needs acknowledged before it
 * judges its own clause, and the optional inspection hook.
 */
import { PreconditionSkip } from '../../check/failure.js';
import { fail } from '../check.js';
import { type Reply, deliver, describeReply, isSuccess, replyLength } from './deliver.js';
import { type Body, type Headers, type Identity, bytesOf, signed } from './webhooks.js';

export interface ReceiverContext {
  url: string;
  id: Identity;
  /** The document's acknowledgement time (5000 ms); tests scale it down. */
  ackLimitMs: number;
  /** Longest wait for any reply (the acknowledgement time and a second more). */
  deadlineMs: number;
  numRuns: number;
  /**
   * Optional: GET answers a JSON array of {event, order_no, status} the receiver acted on, in the order it acted on
   * them (an order's last entry is its acted-on status); `"queried": true` on an entry: that status was taken after
   * querying the order.
   */
  inspectUrl?: string;
  /** Evidence lines of the running check. */
  log: string[];
}

export async function post(ctx: ReceiverContext, label: string, raw: Buffer, headers: Headers): Promise<Reply> {
  const r = await deliver(ctx.url, raw, headers, ctx.deadlineMs, deadlineText(ctx));
  ctx.log.push(`${label}: ${subject(raw)} (${raw.length} bytes) -> ${describeReply(r)}`);
  return r;
}

/** What a sent body was, for the evidence line: a webhook's event, number and status, or the first bytes of anything else. */
function subject(raw: Buffer): string {
  try {
    const b = JSON.parse(raw.toString()) as Body;
    if (b && typeof b === 'object' && 'event' in b) return `${b['event']} ${b['order_no']} ${b['status']}`;
  } catch {
    // not JSON: shown as bytes below
  }
  return `body ${JSON.stringify(raw.subarray(0, 40).toString('latin1'))}${raw.length > 40 ? '…' : ''}`;
}

/** The rule as the document states it, with the kit's grace (and the scaling, in the project's tests) said apart. */
export function ruleText(ctx: ReceiverContext): string {
  return ctx.ackLimitMs === 5000 ? "5 s (the document's rule)" : `${ctx.ackLimitMs} ms (the document's 5 s, scaled down for this run)`;
}

function deadlineText(ctx: ReceiverContext): string {
  return `${ruleText(ctx)} and the kit's ${ctx.deadlineMs - ctx.ackLimitMs} ms grace`;
}

/** Acknowledged, and in time: a late one is charged to the 5-second rule and ends the check (no run of late deliveries). */
export function expectAck(r: Reply, clause: string, what: string, ctx: ReceiverContext): void {
  if (r.error)
    fail(clause, 'NO_REPLY', `${what}: no complete reply (${r.error})`, {
      expected: 'a whole reply with body success',
      ...(r.body ? { seen: `${JSON.stringify(r.body.subarray(0, 60).toString('latin1'))}… (${replyLength(r)})` } : {}),
    });
  if (!isSuccess(r))
    fail(clause, 'NOT_ACKNOWLEDGED', `${what} was not acknowledged: ${describeReply(r)}`, {
      expected: 'body exactly "success" (7 bytes)',
      seen: `${JSON.stringify(r.body!.subarray(0, 60).toString('latin1'))}${(r.size ?? 0) > 60 ? '…' : ''} (${replyLength(r)})`,
    });
  if (r.ms > ctx.ackLimitMs)
    fail('merchant.ack.within-5s', 'SLOW_REPLY', `${what} was acknowledged after ${Math.round(r.ms)} ms`, {
      expected: `at most ${ruleText(ctx)}`,
      seen: `${Math.round(r.ms)} ms`,
    });
}

export function expectRefused(r: Reply, clause: string, what: string, ctx?: ReceiverContext): void {
  if (r.error) fail('merchant.ack.within-5s', 'NO_REPLY', `${what}: no complete reply (${r.error}); a refusal is a reply too`);
  if (isSuccess(r))
    fail(clause, 'ACKNOWLEDGED_BAD_WEBHOOK', `${what} was acknowledged with "success"; it must get a non-success reply`, {
      expected: 'any body but "success"',
      seen: '"success"',
    });
  if (ctx && r.ms > ctx.ackLimitMs)
    fail('merchant.ack.within-5s', 'SLOW_REPLY', `${what}: the refusal took ${Math.round(r.ms)} ms; a refusal is a reply too`, {
      expected: `at most ${ruleText(ctx)}`,
      seen: `${Math.round(r.ms)} ms`,
    });
}

/** The correctly signed twin first: whether it was acknowledged decides what a refusal proves. */
export async function control(ctx: ReceiverContext, body: Body): Promise<{ raw: Buffer; twin: Reply }> {
  const raw = bytesOf(body);
  return { raw, twin: await post(ctx, 'control (correctly signed)', raw, signed(ctx.id, raw)) };
}

/** A delivery a check needs acknowledged before it can judge its own clause (whether it is, is judged elsewhere). */
export async function delivered(ctx: ReceiverContext, label: string, raw: Buffer): Promise<void> {
  const r = await post(ctx, label, raw, signed(ctx.id, raw));
  if (!isSuccess(r)) throw new PreconditionSkip(`${label} was not acknowledged (${describeReply(r)}): not judged here`);
  if (r.ms > ctx.ackLimitMs)
    throw new PreconditionSkip(`${label} was acknowledged late (${describeReply(r)}): the 5-second rule is judged elsewhere, not here`);
}

export interface ActedOn {
  event: string;
  order_no: string;
  status: string;
  /** The receiver took this status after querying the order (it "queries the order when in doubt"). */
  queried?: boolean;
}

export async function actedOn(ctx: ReceiverContext, orderNo: string): Promise<ActedOn[]> {
  if (!ctx.inspectUrl)
    throw new PreconditionSkip(
      'whether a webhook was processed once cannot be seen from outside; declare an inspection hook (--inspect-url) to check it',
    );
  const ac = new AbortController();
  const t = setTimeout(() => ac.abort(), ctx.deadlineMs);
  try {
    const res = await fetch(ctx.inspectUrl, { signal: ac.signal });
    const list = (await res.json()) as unknown;
    if (!Array.isArray(list)) throw new Error('the inspection hook did not answer a JSON array');
    const mine = list.filter((x): x is ActedOn => !!x && typeof x === 'object' && (x as ActedOn).order_no === orderNo);
    ctx.log.push(`inspection hook: ${JSON.stringify(mine)}`);
    return mine;
  } catch (e) {
    throw new Error(`the inspection hook ${ctx.inspectUrl} could not be read: ${(e as Error).message}`);
  } finally {
    clearTimeout(t);
  }
}
