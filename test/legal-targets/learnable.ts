/**
 * Which facts of a true profile a probe as the primary merchant can learn: the denominator of bare init's share
 * (bench/init-share.ts), and the complement of the vendor's hints (init.ts vendorHints: the vendor says what no probe learns).
 *
 * A fact is learnable when some answer to requests signed with the primary's sandbox key shows it, whatever path or
 * value the probe had to try to get that answer (a path spelled as services spell it, a published test card number, a
 * sandbox control at a common path): the interface's operations, its error catalogue (an `invalidRequest` names the
 * field by its internal name), the records, the webhooks and their retries. A fact is not learnable when no such
 * answer shows it, for one of the reasons below. Facts are named as judgeDraft names them (a leaf's dotted path, or
 * `pricePoints.tiersByMethod.<m>`, `pricePoints.rounding.<m>`, `payouts.methods.<m>.payee`, `refunds.template.<field>`).
 */
import type { Profile } from '../../harness/profile/types.js';

/** Why a fact is not learnable by a probe as the primary. */
export type Unlearnable =
  /** Another merchant's id, key, name, methods, balances or facts: only its own key acts as it. */
  | 'another merchant'
  /** The primary's name, login and production key travel in no request or answer of the sandbox (`X-MerchantID` is its id). */
  | 'not on the wire'
  /** The interface has no balance query: a refused payout or refund shows one amount is above a balance, an accepted one spends it. */
  | 'a balance'
  /** Fees and how payments move the balances: no record or webhook states a fee, and no answer shows a balance. */
  | 'money terms'
  /** A value that makes the sandbox fail a refund: any text may be one, and no answer names it. */
  | 'a sandbox trigger'
  /** The limits of a method the primary cannot use: its payments or payouts are refused before their amount is read. */
  | 'a method the primary cannot use'
  /** A refund record's field names and the status a refund is created with, where no method the primary pays takes a refund. */
  | 'no refund the primary can make';

const OTHER_MERCHANT = /^(merchants\.(?!primary\.|unknownId$)|payouts\.balances\.(?!primary$)|refunds\.supportByMerchant\.(?!primary\.))/;

/** The reason a fact is not learnable by a probe as the primary; undefined where it is. */
export function unlearnable(path: string, truth: Profile): Unlearnable | undefined {
  if (OTHER_MERCHANT.test(path)) return 'another merchant';
  if (/^merchants\.primary\.(name|login|productionSecret|productionSecretEnv)$/.test(path)) return 'not on the wire';
  if (/^merchants\.primary\.(payoutBalance|refundBalance|payoutBalances\.)/.test(path) || path === 'payouts.balances.primary')
    return 'a balance';
  if (/^(fees\.|balances\.)/.test(path) || path === 'refunds.fee') return 'money terms';
  if (path === 'refunds.failingReason' || path.startsWith('sandbox.triggers.')) return 'a sandbox trigger';
  const limit = /^limits\.(payments|payouts)\.([^.]+)\./.exec(path);
  if (limit && !primaryUses(truth, limit[1] as 'payments' | 'payouts', limit[2]!)) return 'a method the primary cannot use';
  if (/^refunds\.(data|queryBy|createdStatus)\./.test(path) && !primaryRefunds(truth)) return 'no refund the primary can make';
  return undefined;
}

/** Whether some method the primary pays with takes a refund (its request's fields show without one; its record does not). */
function primaryRefunds(truth: Profile): boolean {
  const methods = [...truth.methods.checkout, ...(truth.methods.pricePoint ?? []), truth.methods.card].filter(
    (m): m is string => typeof m === 'string' && primaryUses(truth, 'payments', m),
  );
  const support = (m: string) => truth.refunds?.supportByMerchant?.['primary']?.[m] ?? truth.refunds?.support?.[m];
  return methods.some((m) => support(m) !== undefined && support(m) !== 'none');
}

/** Whether the primary can pay (or pay out) with a method, so that its amounts are read. */
function primaryUses(truth: Profile, kind: 'payments' | 'payouts', method: string): boolean {
  const primary = truth.merchants.primary;
  if (kind === 'payouts') return (primary.payoutMethods ?? Object.keys(truth.payouts?.methods ?? {})).includes(method);
  const enabled = primary.paymentMethods ?? [...truth.methods.checkout, ...(truth.methods.pricePoint ?? []), truth.methods.card];
  return enabled.includes(method) && method !== truth.methods.noChannel;
}

export function learnable(path: string, truth: Profile): boolean {
  return unlearnable(path, truth) === undefined;
}
