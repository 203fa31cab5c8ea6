/**
 * Webhooks: a card payment that charges at once (no sandbox control needed) with the kit's receiver as
 * notify_url. The receiver refuses the first attempt, so the wait before the retry (about 15 s in the
 * document) gives the target's clock ratio.
 */
import type { Receiver } from '../webhooks/types.js';
import type { CardResult } from './card-refund.js';
import type { Evidence } from './evidence.js';
import { describe, type Prober } from './prober.js';

const FIRST_RETRY_MS = 15_000;

export interface WebhookResult {
  arrives: boolean;
  timeScale?: number;
  /** ms from the request to the first attempt. */
  latencyMs?: number;
}

/** Two significant digits: a measured ratio carries network jitter. */
function twoDigits(x: number): number {
  return Number(x.toPrecision(2));
}

export async function learnWebhooks(p: Prober, ev: Evidence, receiver: Receiver, card: CardResult, cardPath: string, waitMs: number): Promise<WebhookResult> {
  p.phase(`webhooks: a card payment notified to the kit's receiver (waiting up to ${Math.round(waitMs / 1000)} s)`);
  const no = p.newNo('o');
  receiver.script(no, ['reject', 'success']);
  const sent = Date.now();
  const a = await p.post(cardPath, card.body(no, card.paid.cents, receiver.url));
  if (a.code !== 0) {
    ev.todo('webhooks', `whether webhooks arrive (the card payment meant to trigger one was answered ${describe(a)})`);
    return { arrives: false };
  }
  const ds = await receiver.waitFor({ merchantNo: no }, (x) => x.length >= 2, waitMs);
  if (ds.length === 0) {
    ev.todo('webhooks', `no webhook reached ${receiver.url} within ${waitMs} ms of a charged card payment: check the target can reach the receiver (webhooks.receiver.publicUrl), then write the section`);
    return { arrives: false };
  }
  const latencyMs = ds[0]!.receivedAt - sent;
  ev.learnt('webhooks (arrive)', true, `${ds[0]!.json && typeof ds[0]!.json === 'object' ? String((ds[0]!.json as { event?: unknown }).event) : 'a delivery'} for ${no} reached the receiver ${latencyMs} ms after the payment; signature ${ds[0]!.signature.ok ? 'verified' : 'did NOT verify'}`);
  if (ds.length < 2) {
    ev.todo('webhooks.timeScale', `the target's clock ratio (no retry came within ${waitMs} ms of a refused first attempt; 1 means real time)`);
    return { arrives: true, latencyMs };
  }
  const gap = ds[1]!.receivedAt - ds[0]!.receivedAt;
  const timeScale = twoDigits(gap / FIRST_RETRY_MS);
  ev.learnt('webhooks.timeScale', timeScale, `a refused first attempt was retried ${gap} ms later; the document's first wait is about 15 s; the target's own delays are included, so the figure is a little high`);
  return { arrives: true, timeScale, latencyMs };
}
