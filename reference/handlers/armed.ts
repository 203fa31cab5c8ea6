/**
 * One-shot failures armed by the sandbox control /sandbox/v1/failures/arm (or the target's own, sandbox-shape.ts): the merchant's next
 * request of that kind fails once, the way a transient failure of a real service would, and the
 * service behaves normally again. Nothing is recorded by a request that failed this way.
 */
import { ApiError } from '../errors.js';
import type { Call, Service } from '../service.js';
import type { ArmedFailure, Payment } from '../store.js';
import { type RequestFacts, TriggerUses } from '../magic-triggers.js';

/**
 * Whether the failure is armed for the merchant's request about `subject` (the payment's number; for a refund,
 * the original payment's, or the refund's own where the sandbox matches refunds by number), and disarms it unless a
 * fault makes it stick.
 */
export function armed(svc: Service, merchantId: string, failure: ArmedFailure, subject: string): boolean {
  return svc.store.takeArmed(merchantId, failure, subject, svc.behaviour.armedFailureOneShot);
}

/** Payment query: 500 queryFailed (try again). */
export function failQueryIfArmed(svc: Service, merchantId: string, merchantOrderNo: string): void {
  if (armed(svc, merchantId, 'QUERY_FAILED', merchantOrderNo)) throw new ApiError(500, 'queryFailed', 'Query failed, please try again');
}

/** Payment creation (checkout, card): 422 systemBusy, order creation failed. */
export function failCreationIfArmed(svc: Service, merchantId: string, merchantOrderNo: string): void {
  if (armed(svc, merchantId, 'ORDER_CREATION_FAILED', merchantOrderNo)) throw new ApiError(422, 'systemBusy', 'Order creation failed');
}

/** Refund creation: 422 systemBusy (order creation failed). */
export function failRefundIfArmed(svc: Service, merchantId: string, subject: string): void {
  if (armed(svc, merchantId, 'REFUND_SYSTEM_BUSY', subject)) throw new ApiError(422, 'systemBusy', 'Order creation failed');
}

/**
 * Whether one of the sandbox's magic-value triggers of `failure` fails this request (reference/magic-triggers.ts):
 * `facts` are what the request carries, the headers are the call's.
 */
export function triggered(svc: Service, call: Call, failure: ArmedFailure, facts: Omit<RequestFacts, 'headers'>): boolean {
  const b = svc.behaviour;
  return new TriggerUses(svc.store.triggerUses).fails(
    svc.target.sandbox.triggers,
    failure,
    { ...facts, headers: call.headers ?? {} },
    { once: b.triggerFiresOnce(failure), counted: b.countsTriggers },
  );
}

/** What a payment carries that a trigger of its query or of a refund of it may match. */
export function paymentFacts(p: Payment): Omit<RequestFacts, 'headers' | 'subject'> {
  return { merchantOrderNo: p.merchantOrderNo, cents: p.chargedCents, card: p.cardNumber, emails: p.emails };
}

/** Payment creation (checkout, card): 422 systemBusy when a magic value or header of the request causes it. */
export function failCreationIfTriggered(
  svc: Service,
  call: Call,
  facts: { merchantOrderNo: string; cents: bigint; card?: string; emails: readonly string[] },
): void {
  if (triggered(svc, call, 'ORDER_CREATION_FAILED', { ...facts, subject: facts.merchantOrderNo }))
    throw new ApiError(422, 'systemBusy', 'Order creation failed');
}
