/**
 * One-shot failures armed by the sandbox control /sandbox/v1/failures/arm (or the target's own, sandbox-shape.ts): the merchant's next
 * request of that kind fails once, the way a transient failure of a real service would, and the
 * service behaves normally again. Nothing is recorded by a request that failed this way.
 */
import { ApiError } from '../errors.js';
import type { Service } from '../service.js';
import type { ArmedFailure } from '../store.js';

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
