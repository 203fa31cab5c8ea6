/**
 * Webhooks: a card payment that charges at once (no sandbox control needed) with the kit's receiver as
 * notify_url. The receiver refuses the first attempt, so the wait before the retry (about 15 s in the
 * document) gives the target's clock ratio.
 */
import { measuresTheTarget, processLag } from '../check/lag.js';
import { startReceiver } from '../webhooks/receiver.js';
import type { Receiver } from '../webhooks/types.js';
import type { CardResult } from './card-refund.js';
import type { Evidence } from './evidence.js';
import { type Answer, describe, type Prober, postFresh } from './prober.js';

const FIRST_RETRY_MS = 15_000;

export interface WebhookResult {
  arrives: boolean;
  /** Measured acknowledgement limit to write (ms). */
  ackTimeoutMs?: number;
  /** The bracket the measure found: a reply after `waitedMs` was taken, one after `notWaitedMs` was not. */
  ackBracket?: AckBracket;
  timeScale?: number;
  /** ms from the request to the first attempt. */
  latencyMs?: number;
}

/** Two significant digits: a measured ratio carries network jitter. */
function twoDigits(x: number): number {
  return Number(x.toPrecision(2));
}

/** A first round whose shortest wait is below this (a clock 5 times real time or faster) is followed by a second. */
const SECOND_ROUND_BELOW_MS = 3000;

/** Rounds of three refused first attempts at most: a round whose every retry wait our machine's stalls overlap is taken again. */
const MAX_ROUNDS = 3;

interface RetryWait {
  gapMs: number;
  /** Time this process lost within the wait (its stalls delay the arrival we note, and an embedded target's timers). */
  lostMs: number;
}

export async function learnWebhooks(
  p: Prober,
  ev: Evidence,
  receiver: Receiver,
  card: CardResult,
  cardPath: string,
  waitMs: number,
): Promise<WebhookResult> {
  p.phase(`webhooks: a card payment notified to the kit's receiver (waiting up to ${Math.round(waitMs / 1000)} s)`);
  const lag = processLag();
  const waits: RetryWait[] = [];
  let latencyMs: number | undefined;
  for (let round = 0; round < MAX_ROUNDS; round++) {
    const r = await retryRound(p, receiver, card, cardPath, waitMs);
    if (r.refused) {
      if (round === 0) {
        ev.todo('webhooks', `whether webhooks arrive (the card payment meant to trigger one was answered ${describe(r.refused)})`);
        return { arrives: false };
      }
      break;
    }
    if (round === 0) {
      const first = r.deliveries[0]!;
      if (first.length === 0) {
        ev.todo(
          'webhooks',
          `no webhook reached ${receiver.url} within ${waitMs} ms of a charged card payment: check ` +
            `the target can reach the receiver (webhooks.receiver.publicUrl), then write the section`,
        );
        return { arrives: false };
      }
      latencyMs = first[0]!.receivedAt - r.sent;
      ev.learnt(
        'webhooks (arrive)',
        true,
        `${first[0]!.json && typeof first[0]!.json === 'object' ? String((first[0]!.json as { event?: unknown }).event) : 'a delivery'}` +
          ` for ${r.nos[0]} reached the receiver ${latencyMs} ms ` +
          `after the payment; signature ${first[0]!.signature.ok ? 'verified' : 'did NOT verify'}`,
      );
    }
    const measured = r.deliveries
      .filter((d) => d.length >= 2)
      .map((d) => ({ gapMs: d[1]!.receivedAt - d[0]!.receivedAt, lostMs: Math.round(lag.lostDuring(d[0]!.receivedAt, d[1]!.receivedAt)) }));
    if (measured.length === 0) break;
    waits.push(...measured);
    // The three waits of a round run side by side, so one stall the meter missed (the kernel, another hop) stretches all
    // three: on a fast clock a second round, later, costs a second at most and is not stretched by the same stall.
    const fastClock = Math.min(...measured.map((w) => w.gapMs)) < SECOND_ROUND_BELOW_MS;
    if (waits.some((w) => measuresTheTarget(w.gapMs, w.lostMs)) && !(round === 0 && fastClock)) break;
  }
  return { arrives: true, latencyMs, ...judgeRetryWaits(ev, waits, waitMs) };
}

/**
 * Three payments at once, each refused on its first delivery: load on either side only ever lengthens a retry's wait,
 * so the shortest of three is the measure (one alone, on a busy machine, was 2.4 times the true scale).
 */
async function retryRound(p: Prober, receiver: Receiver, card: CardResult, cardPath: string, waitMs: number) {
  const nos: string[] = [];
  const answers: Answer[] = [];
  const sent = Date.now();
  for (let i = 0; i < 3; i++) {
    // Scripted before the answer comes: a target may deliver before it answers.
    const { answer, no } = await postFresh(p, cardPath, 'o', (n) => {
      receiver.script(n, ['reject', 'success']);
      return card.body(n, card.paid.cents, receiver.url);
    });
    nos.push(no);
    answers.push(answer);
  }
  if (answers[0]!.code !== 0) return { refused: answers[0]!, nos, sent, deliveries: [] };
  const deliveries = await Promise.all(
    nos.filter((_, i) => answers[i]!.code === 0).map((n) => receiver.waitFor({ merchantNo: n }, (x) => x.length >= 2, waitMs)),
  );
  return { refused: undefined, nos, sent, deliveries };
}

/** The clock ratio from the retry waits measured: the shortest our machine did not stretch, else a TODO saying why. */
function judgeRetryWaits(ev: Evidence, waits: readonly RetryWait[], waitMs: number): { timeScale?: number } {
  if (waits.length === 0) {
    ev.todo(
      'webhooks.timeScale',
      `the target's clock ratio (no retry came within ${waitMs} ms of a refused first attempt; 1 means real time)`,
    );
    return {};
  }
  const seen = waits.map((w) => `${w.gapMs} ms${w.lostMs > 0 ? ` (${w.lostMs} ms of it ours)` : ''}`).join(', ');
  const clean = waits.filter((w) => measuresTheTarget(w.gapMs, w.lostMs));
  if (clean.length === 0) {
    ev.todo(
      'webhooks.timeScale',
      `the target's clock ratio (1 means real time): ${waits.length} refused first attempts were retried ${seen} later, ` +
        `but this machine lost time within every one of those waits, so they measure it as much as the target; run init ` +
        `again on a quieter machine, or give the scale the vendor documents`,
    );
    return {};
  }
  const gap = Math.min(...clean.map((w) => w.gapMs));
  const timeScale = twoDigits(gap / FIRST_RETRY_MS);
  ev.learnt(
    'webhooks.timeScale',
    timeScale,
    `${waits.length} refused first attempts were retried ${seen} later; the document's first wait is about 15 s; ` +
      "load and the target's own delays only lengthen a wait, so the shortest our machine lost no time in is taken " +
      '(still a little high)',
  );
  return { timeScale };
}

export interface AckBracket {
  /** The longest reply delay taken as an acknowledgement (none when even the shortest was not). */
  waitedMs?: number;
  /** The shortest reply delay not taken (the webhook came again). */
  notWaitedMs: number;
}

/** Reply delays tried, ascending: the first one the target does not wait for bounds its acknowledgement limit. */
const ACK_DELAYS_MS = [50, 100, 200, 400, 800, 1600, 3200, 6400, 12_800];

/**
 * The target's acknowledgement limit, bracketed: the receiver answers `success` after a growing delay
 * until the target stops waiting and sends the webhook again. The limit lies between the last delay
 * accepted and the first not. ackTimeoutMs is written as the last delay accepted: only that is proved
 * (our reply left no earlier than the delay, so the target waited at least as long), while a refused
 * delay may only mean our machine replied late. Since the delays double, the limit is below twice it:
 * the kit's "in time" reply (half of it) keeps half the limit as margin, its "slow" one (three times it,
 * plus 200 ms) comes after. Only when even the shortest delay is refused is it ¾ of that delay.
 */
export async function measureAckLimit(
  p: Prober,
  ev: Evidence,
  card: CardResult,
  cardPath: string,
  merchant: { id: string; secret: string },
  timeScale: number,
  leftMs: () => number,
): Promise<(AckBracket & { ackTimeoutMs: number }) | undefined> {
  p.phase('webhooks: the acknowledgement limit (replies after growing delays)');
  let accepted: number | undefined;
  for (const delay of ACK_DELAYS_MS) {
    const waitMs = delay + 1.5 * FIRST_RETRY_MS * timeScale + 1000;
    if (waitMs > leftMs()) break;
    const receiver = await startReceiver({ host: '127.0.0.1', port: 0, merchants: [merchant], ackTimeoutMs: 2 * delay });
    try {
      const { answer: a, no } = await postFresh(p, cardPath, 'o', (n) => {
        receiver.script(n, ['in-time', 'success']);
        return card.body(n, card.paid.cents, receiver.url);
      });
      if (a.code !== 0) break;
      const ds = await receiver.waitFor({ merchantNo: no }, (x) => x.length >= 2, waitMs);
      if (ds.length === 0) break;
      if (ds.length >= 2) {
        const ack = accepted ?? Math.round(0.75 * delay);
        ev.learnt(
          'webhooks.ackTimeoutMs',
          ack,
          accepted === undefined
            ? `even the shortest delay was too long: a reply after ${delay} ms was not taken (the webhook came again); ` +
                `written at ¾ of ${delay} ms`
            : `a reply after ${accepted} ms was taken as an acknowledgement, one after ${delay} ms was not (the webhook ` +
                `came again): the limit lies between; written as the delay the target was seen to wait`,
        );
        return { ackTimeoutMs: ack, ...(accepted !== undefined ? { waitedMs: accepted } : {}), notWaitedMs: delay };
      }
      accepted = delay;
    } finally {
      await receiver.close();
    }
  }
  return undefined;
}
