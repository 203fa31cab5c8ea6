/**
 * The fault catalogue and how faults combine with the correct behaviour: hooks are overlaid in
 * the order the names are given, so when two faults replace the same hook the later one wins.
 */
import { defaultBehaviour, type Behaviour } from '../behaviour.js';
import { amountAccept3Decimals, amountOneDecimalEcho } from './amounts.js';
import type { Fault, FaultInfo } from './fault.js';
import { declinedFreesNumber, idemReplay, idemSeparateNamespaces } from './idempotency.js';
import { payoutCancelSuccess, refundExceedAllowed } from './lifecycle.js';
import { acceptCamelcase, authAcceptBadSign, mutualBothAccepted } from './requests.js';
import { errorEnvelopeWithData, errorHttp422, respSignReserialised, respUnsignedErrors, respUppercaseHex } from './responses.js';
import {
  webhook3Attempts,
  webhookAckAny200,
  webhookAckTrailingNewline,
  webhookAmountNoDecimals,
  webhookFlatWaits,
  webhookMetadataNull,
  webhookOnExpiry,
  webhookPaymentUpdatedOnRefund,
  webhookReuseNonce,
  webhookSlowAck,
  webhookTimeNoOffset,
} from './webhooks.js';

export const FAULTS: readonly Fault[] = [
  respUppercaseHex,
  respUnsignedErrors,
  errorHttp422,
  respSignReserialised,
  errorEnvelopeWithData,
  authAcceptBadSign,
  amountAccept3Decimals,
  amountOneDecimalEcho,
  acceptCamelcase,
  mutualBothAccepted,
  idemReplay,
  idemSeparateNamespaces,
  declinedFreesNumber,
  refundExceedAllowed,
  payoutCancelSuccess,
  webhookAckTrailingNewline,
  webhookAckAny200,
  webhook3Attempts,
  webhookReuseNonce,
  webhookFlatWaits,
  webhookSlowAck,
  webhookPaymentUpdatedOnRefund,
  webhookOnExpiry,
  webhookMetadataNull,
  webhookAmountNoDecimals,
  webhookTimeNoOffset,
];

export const faultCatalogue: ReadonlyArray<FaultInfo> = Object.freeze(
  FAULTS.map((f) => Object.freeze({ name: f.name, clause: f.clause, doc: f.doc })),
);

const INFO_KEYS: ReadonlySet<string> = new Set(['name', 'clause', 'doc']);

export function behaviourWith(names: readonly string[]): Behaviour {
  let b: Behaviour = { ...defaultBehaviour };
  for (const name of names) {
    const fault = FAULTS.find((f) => f.name === name);
    if (fault === undefined) {
      throw new Error(`Unknown fault ${JSON.stringify(name)}. Known faults: ${FAULTS.map((f) => f.name).join(', ')}`);
    }
    const overrides = Object.fromEntries(Object.entries(fault).filter(([k]) => !INFO_KEYS.has(k)));
    b = { ...b, ...overrides };
  }
  return b;
}
