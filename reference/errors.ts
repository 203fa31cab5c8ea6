/**
 * Errors the service answers with. A handler throws an ApiError; the server turns it into the
 * envelope, so no handler ever writes a status or a message format by itself.
 */
export class ApiError extends Error {
  constructor(
    /** The envelope `code` (a body field, not the HTTP status). */
    readonly code: number,
    /** The stable key after the last `|`. */
    readonly key: string,
    /** Message with details (may name an internal field); dropped for `Accept-Language: en`. */
    readonly detail: string,
  ) {
    super(`${detail}|${key}`);
    this.name = 'ApiError';
  }
}

/**
 * Plain English sentences for `Accept-Language: en`: no key and no field details. Where the
 * interface gives a message text (authentication errors, systemBusy) that text is used as is.
 */
const PLAIN: ReadonlyMap<string, string> = new Map([
  ['unauthorized', 'Missing authentication headers'],
  ['merchantNotFound', 'Merchant ID not found or invalid'],
  ['forbidden', 'Invalid signature'],
  ['internalServerError', 'Internal server error'],
  ['systemBusy', 'System busy, please try again later'],
  ['methodNotAllowed', 'Only the POST method is allowed.'],
  ['invalidRequest', 'The request is invalid.'],
  ['unsupportedPaymentMethod', 'The payment method is not supported.'],
  ['mutuallyRequiredFieldsMissing', 'One of the two lookup numbers must be sent.'],
  ['mutuallyExclusiveFieldsConflict', 'Only one of the two lookup numbers may be sent.'],
  ['merchantFrozen', 'The merchant account is disabled.'],
  ['amountOutOfRange', 'The amount is not accepted by any available channel.'],
  ['paymentMethodUnavailable', 'The payment method is not available.'],
  ['duplicateMerchantOrder', 'The merchant order number already exists.'],
  ['invalidAmount', 'The amount must be a positive number.'],
  ['validationFailed', 'The request failed validation.'],
  ['notSupported', 'The operation is not supported.'],
  ['paymentFailed', 'The payment was declined.'],
  ['orderNotFound', 'The order was not found.'],
  ['orderAccessDenied', 'Access to the order is denied.'],
  ['queryFailed', 'The query failed, please try again.'],
  ['invalidRefundAmount', 'The refund amount must be a positive number.'],
  ['refundOrderNotPaid', 'The original order was not paid successfully.'],
  ['refundAmountExceeded', 'The refund amount exceeds the original order amount.'],
  ['duplicateRefundOrder', 'The refund number already exists.'],
  ['refundFailed', 'The refund request failed.'],
  ['refundNotFound', 'The refund was not found.'],
  ['unsupportedPayoutMethod', 'The payment method is not available for payouts.'],
  ['insufficientFunds', 'The payout balance is insufficient.'],
  ['notFound', 'The payout was not found.'],
  ['payoutNotCancelable', 'The payout cannot be canceled in its current status.'],
  ['duplicatePayoutOrder', 'The merchant payout number already exists.'],
]);

export function plainMessage(key: string): string {
  return PLAIN.get(key) ?? 'The request could not be processed.';
}

/** `msg` as the envelope carries it, in the caller's chosen language. */
export function envelopeMessage(err: ApiError, english: boolean): string {
  return english ? plainMessage(err.key) : `${err.detail}|${err.key}`;
}

export const SYSTEM_BUSY = 'System busy, please try again later';

// Short constructors keep handlers readable and the code/key pairs in one place.
export const E = {
  invalidRequest: (detail: string) => new ApiError(400, 'invalidRequest', detail),
  mutuallyRequired: (a: string, b: string) => new ApiError(400, 'mutuallyRequiredFieldsMissing', `One of ${a} and ${b} is required`),
  mutuallyExclusive: (a: string, b: string) =>
    new ApiError(400, 'mutuallyExclusiveFieldsConflict', `Only one of ${a} and ${b} may be sent`),
  unsupportedPaymentMethod: (code: number, method: string) =>
    new ApiError(code, 'unsupportedPaymentMethod', `Payment method ${quote(method)} is not supported`),
  paymentMethodUnavailable: (method: string) =>
    new ApiError(3003, 'paymentMethodUnavailable', `Payment method ${quote(method)} is not available for this merchant`),
  merchantFrozen: () => new ApiError(1001, 'merchantFrozen', 'Merchant account is disabled'),
  validationFailed: (detail: string) => new ApiError(422, 'validationFailed', detail),
  systemBusy: () => new ApiError(422, 'systemBusy', SYSTEM_BUSY),
} as const;

/** Echo a caller's value in a message without letting it grow the message unboundedly. */
export function quote(s: string): string {
  const cut = s.length > 40 ? `${s.slice(0, 40)}…` : s;
  return JSON.stringify(cut);
}
