/**
 * One-shot failures armed by the sandbox control /sandbox/v1/failures/arm: the merchant's next
 * request of that kind fails once, the way a transient failure of a real service would, and the
 * service behaves normally again. Nothing is recorded by a request that failed this way.
 */
import { ApiError } from '../errors.js';
import type { Service } from '../service.js';
import type { ArmedFailure } from '../store.js';

/** Whether the failure is armed for the merchant (and disarms it unless a fault makes it stick). */
export function armed(svc: Service, merchantId: string, failure: ArmedFailure): boolean {
  return svc.store.takeArmed(merchantId, failure, svc.behaviour.armedFailureOneShot);
}

/** Payment query: 500 queryFailed (try again). */
export function failQueryIfArmed(svc: Service, merchantId: string): void {
  if (armed(svc, merchantId, 'QUERY_FAILED')) throw new ApiError(500, 'queryFailed', 'Query failed, please try again');
}

/** Payment creation (checkout, card): 422 systemBusy, order creation failed. */
export function failCreationIfArmed(svc: Service, merchantId: string): void {
  if (armed(svc, merchantId, 'ORDER_CREATION_FAILED')) throw new ApiError(422, 'systemBusy', 'Order creation failed');
}

/** Refund creation: 422 systemBusy (order creation failed). */
export function failRefundIfArmed(svc: Service, merchantId: string): void {
  if (armed(svc, merchantId, 'REFUND_SYSTEM_BUSY')) throw new ApiError(422, 'systemBusy', 'Order creation failed');
}
