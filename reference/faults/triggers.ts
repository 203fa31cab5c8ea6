/**
 * Faults in the failures a sandbox causes by magic values in a request or a header (reference/magic-triggers.ts). A
 * trigger that fires only the first time it is used (one flag per trigger, not per record) meets the doctor's one probe
 * and is ignored for every later request: the checks' requests find it.
 */
import { defineFault } from './fault.js';

export const magicQueryFailureIgnored = defineFault({
  name: 'magic-query-failure-ignored',
  clause: 'err.pay.query-failed',
  doc: 'A payment query the sandbox fails by a magic value ("Query failed; retry") is answered with the record once the value was used.',
  triggerFiresOnce: (failure) => failure === 'QUERY_FAILED',
});

export const magicCreationFailureIgnored = defineFault({
  name: 'magic-creation-failure-ignored',
  clause: 'err.pay.creation-failed',
  doc: 'A payment whose creation the sandbox fails by a magic value ("Order creation failed") is created once the value was used.',
  triggerFiresOnce: (failure) => failure === 'ORDER_CREATION_FAILED',
});

export const magicRefundBusyIgnored = defineFault({
  name: 'magic-refund-busy-ignored',
  clause: 'err.ref.system-busy',
  doc: 'A refund the sandbox fails by a magic value or header (systemBusy, "order creation failed") is created once the value was used.',
  triggerFiresOnce: (failure) => failure === 'REFUND_SYSTEM_BUSY',
});

export const magicRefundFailureIgnored = defineFault({
  name: 'magic-refund-failure-ignored',
  clause: 'err.ref.failed',
  doc: 'A refund the sandbox fails by a magic value ("refundFailed: refund request failed") is accepted once the value was used.',
  triggerFiresOnce: (failure) => failure === 'REFUND_FAILED',
});

export const magicQueryFailureNotTransient = defineFault({
  name: 'magic-query-failure-not-transient',
  clause: 'query.transient',
  doc: 'A transient query failure caused by a magic value ("Transient failure: code 500 queryFailed (try again)") never ends.',
  countsTriggers: false,
});
