/**
 * What every handler works with: state, behaviour, the outbox. Handlers are synchronous
 * functions of (service, call) that return `data` or throw an ApiError.
 */
import type { Behaviour } from './behaviour.js';
import type { MerchantFixture } from './fixtures.js';
import type { Payment, Payout, Refund, Store } from './store.js';
import type { Target } from './sandbox-data.js';
import { paymentWebhookBody, payoutWebhookBody, refundWebhookBody } from './webhooks/bodies.js';
import type { Outbox } from './webhooks/outbox.js';

export interface Service {
  readonly store: Store;
  readonly behaviour: Behaviour;
  readonly outbox: Outbox;
  /** Merchants, methods, channels and cards this sandbox has (reference/sandbox-data.ts). */
  readonly target: Target;
  /** Known only once the server listens; used for checkout links. */
  baseUrl(): string;
}

export interface Call {
  readonly merchant: MerchantFixture;
  /** The parsed JSON object, after the behaviour's key normalisation. */
  readonly body: Record<string, unknown>;
  readonly now: number;
  /** The request's headers (lower-case names), for a sandbox that causes failures by a header (reference/magic-triggers.ts). */
  readonly headers?: Readonly<Record<string, string | string[] | undefined>>;
}

export type Handler = (svc: Service, call: Call) => Record<string, unknown>;

/** Who signs a webhook of this merchant, and with which secret. */
function signerOf(svc: Service, merchantId: string): { merchantId: string; secret: string } | undefined {
  const signer = svc.target.findMerchant(svc.behaviour.signAs(merchantId, 'webhook', svc.target.merchants[0]!.id));
  return signer === undefined ? undefined : { merchantId: signer.id, secret: signer.secret };
}

/** payment.updated to the payment's notify_url; nothing when the payment has none. */
export function emitPaymentUpdated(svc: Service, p: Payment): void {
  const signer = signerOf(svc, p.merchantId);
  if (p.notifyUrl === undefined || signer === undefined) return;
  svc.outbox.enqueue({
    ...signer,
    url: p.notifyUrl,
    label: `payment.updated ${p.orderNo} ${p.status}`,
    body: () => paymentWebhookBody(p, svc.behaviour),
    onAcked: (body) => {
      p.ackedStatus = String(body['status']);
    },
  });
}

/** refund.updated goes to the original payment's notify_url. */
export function emitRefundUpdated(svc: Service, r: Refund): void {
  const p = svc.store.payments.get(r.orderNo);
  const signer = signerOf(svc, r.merchantId);
  if (p === undefined || p.notifyUrl === undefined || signer === undefined) return;
  svc.outbox.enqueue({
    ...signer,
    url: p.notifyUrl,
    label: `refund.updated ${r.refundNo} ${r.status}`,
    body: () => refundWebhookBody(r, p, svc.behaviour),
    onAcked: (body) => {
      r.ackedStatus = String(body['status']);
    },
  });
}

export function emitPayoutUpdated(svc: Service, p: Payout): void {
  const signer = signerOf(svc, p.merchantId);
  if (signer === undefined) return;
  svc.outbox.enqueue({
    ...signer,
    url: p.notifyUrl,
    label: `payout.updated ${p.payoutNo} ${p.status}`,
    body: () => payoutWebhookBody(p, svc.behaviour),
  });
}
