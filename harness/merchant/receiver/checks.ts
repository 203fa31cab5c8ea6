/**
 * The webhook receiver's checks, by clause: the kit plays the service and posts webhooks to the
 * merchant's endpoint. Acknowledgement is judged on the reply body alone (HTTP status does not
 * count); a refusal that does not come is charged to the 5-second rule (a refusal is a reply too);
 * each refusal check first sends the correctly signed twin, so it cannot pass on a receiver that
 * refuses everything, and each acknowledgement check of one aspect (offsets, layouts, duplicates,
 * order) first needs a plain control acknowledged, so a failure is charged to its own clause.
 */
import { type MerchantCheck, defineMerchantChecks } from '../check.js';
import { acknowledgementSpecs } from './acknowledge.js';
import type { ReceiverContext } from './context.js';
import { duplicateSpecs } from './duplicates.js';
import { refusalSpecs } from './refusals.js';

export type { ReceiverContext };

export const receiverChecks: MerchantCheck<ReceiverContext>[] = defineMerchantChecks<ReceiverContext>('receiver', [
  ...acknowledgementSpecs,
  ...refusalSpecs,
  ...duplicateSpecs,
]);
