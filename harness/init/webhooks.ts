/**
 * Webhooks: a card payment that charges at once (no sandbox control needed) with the kit's receiver as
 * notify_url. The receiver refuses the first attempt, so the wait before the retry (about 15 s in the
 * document) gives the target's clock ratio.
 */
import { startReceiver } from '../webhooks/receiver.js';
import type { Receiver } from '../webhooks/types.js';
import type { CardResult } from './card-refund.js';
import type { Evidence } from './evidence.js';
import { type Answer, describe, type Prober } from './prober.js';

const FIRST_RETRY_MS = 15_000;

export interface WebhookResult {
  arrives: boolean;
  /** Measured acknowledgement limit to write (ms). */
  ackTimeoutMs?: number;
  timeScale?: number;
  /** ms from the request to the first attempt. */
  latencyMs?: number;
}

/** Two significant digits: a measured ratio carries network jitter. */
function twoDigits(x: number): number {
  return Number(x.toPrecision(2));
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
  // Three payments at once, each refused on its first delivery: load on either side only ever lengthens a retry's
  // wait, so the shortest of three is the measure (one alone, on a busy machine, was 2.4 times the true scale).
  const nos = [p.newNo('o'), p.newNo('o'), p.newNo('o')];
  for (const n of nos) receiver.script(n, ['reject', 'success']);
  const no = nos[0]!;
  const sent = Date.now();
  const answers: Answer[] = [];
  for (const n of nos) answers.push(await p.post(cardPath, card.body(n, card.paid.cents, receiver.url)));
  const a = answers[0]!;
  if (a.code !== 0) {
    ev.todo('webhooks', `whether webhooks arrive (the card payment meant to trigger one was answered ${describe(a)})`);
    return { arrives: false };
  }
  const all = await Promise.all(
    nos.filter((_, i) => answers[i]!.code === 0).map((n) => receiver.waitFor({ merchantNo: n }, (x) => x.length >= 2, waitMs)),
  );
  const ds = all[0]!;
  if (ds.length === 0) {
    ev.todo(
      'webhooks',
      `no webhook reached ${receiver.url} within ${waitMs} ms of a charged card payment: check ` +
        `the target can reach the receiver (webhooks.receiver.publicUrl), then write the section`,
    );
    return { arrives: false };
  }
  const latencyMs = ds[0]!.receivedAt - sent;
  ev.learnt(
    'webhooks (arrive)',
    true,
    `${ds[0]!.json && typeof ds[0]!.json === 'object' ? String((ds[0]!.json as { event?: unknown }).event) : 'a delivery'}` +
      ` for ${no} reached the receiver ${latencyMs} ms ` +
      `after the payment; signature ${ds[0]!.signature.ok ? 'verified' : 'did NOT verify'}`,
  );
  const gaps = all.filter((d) => d.length >= 2).map((d) => d[1]!.receivedAt - d[0]!.receivedAt);
  if (gaps.length === 0) {
    ev.todo(
      'webhooks.timeScale',
      `the target's clock ratio (no retry came within ${waitMs} ms of a refused first attempt; 1 means real time)`,
    );
    return { arrives: true, latencyMs };
  }
  const gap = Math.min(...gaps);
  const timeScale = twoDigits(gap / FIRST_RETRY_MS);
  ev.learnt(
    'webhooks.timeScale',
    timeScale,
    `${gaps.length} refused first attempts were retried ${gaps.join(', ')} ms later; the document's first wait is about 15 s; ` +
      "load and the target's own delays only lengthen a wait, so the shortest is taken (still a little high)",
  );
  return { arrives: true, timeScale, latencyMs };
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
): Promise<number | undefined> {
  p.phase('webhooks: the acknowledgement limit (replies after growing delays)');
  let accepted: number | undefined;
  for (const delay of ACK_DELAYS_MS) {
    const waitMs = delay + 1.5 * FIRST_RETRY_MS * timeScale + 1000;
    if (waitMs > leftMs()) break;
    const receiver = await startReceiver({ host: '127.0.0.1', port: 0, merchants: [merchant], ackTimeoutMs: 2 * delay });
    try {
      const no = p.newNo('o');
      receiver.script(no, ['in-time', 'success']);
      const a = await p.post(cardPath, card.body(no, card.paid.cents, receiver.url));
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
        return ack;
      }
      accepted = delay;
    } finally {
      await receiver.close();
    }
  }
  return undefined;
}
