/**
 * What this sandbox is, as data: its merchants, methods, channels, balances and cards. The default is the
 * constants of fixtures.ts and methods.ts (the reference README's choices); a `TargetDescription` replaces
 * any part of it, so one reference can be any of the legal targets the document allows
 * (test/legal-targets draws them). JSON only (cents as integers), so a profile can carry it.
 */
import { type MerchantFixture, MERCHANTS } from './fixtures.js';
import {
  type CentsRange,
  CHECKOUT_REQUIRED_BY_METHOD,
  ENABLED_PAYMENT_METHODS,
  KNOWN_METHODS,
  NO_CHANNEL_METHODS,
  PAYEE_FIELDS,
  PAYMENT_CHANNELS,
  PAYOUT_CHANNELS,
  type PaymentChannel,
  type PayoutChannel,
  type RefundSupport,
} from './methods.js';
import { DEFAULT_PAYOUT_FEES, type Fee } from './fees.js';
import { resolveSandbox, type SandboxDescription, type SandboxShape } from './sandbox-shape.js';
import { type ApiPaths, type ApiRoute, resolveApiPaths } from './api-paths.js';
import { checkLimitsDescription, type MaxLengthsDescription, type QueryParamsDescription, type RequestLimits } from './request-limits.js';

/** Overrides for one fixture merchant, found by its fixture id. */
export interface MerchantDescription {
  readonly id: string;
  /** The X-MerchantID this target assigns it instead of the fixture's (the description still names it by `id`). */
  readonly assignedId?: string;
  /** Its test key and production key on this target. */
  readonly secret?: string;
  readonly productionSecret?: string;
  readonly name?: string;
  readonly login?: string;
  /** Payout balance per currency, in cents; a currency not listed is held at 0. */
  readonly payoutBalancesCents?: Readonly<Record<string, number>>;
  readonly refundCoverCents?: number;
  /** Payment methods enabled for this merchant (replacing every merchant's list for it). */
  readonly paymentMethods?: readonly string[];
  readonly payoutMethods?: readonly string[];
  /**
   * Its own payout channels where they differ from every merchant's (`payoutChannels`), each part laid over that
   * channel: e.g. a method that takes EUR only for this merchant, or another range.
   */
  readonly payoutChannels?: Readonly<Record<string, Partial<PayoutChannelDescription>>>;
  /** Its own payout fees per method, where they differ from every merchant's (`fees.payouts`). */
  readonly payoutFees?: Readonly<Record<string, FeeDescription>>;
  /**
   * Its own channel ranges of a ranged payment method, where they differ from every merchant's (`paymentChannels`):
   * "Numeric channel minimum and maximum amounts: not shown", and a range is a merchant's fact like any other.
   */
  readonly paymentChannels?: Readonly<Record<string, Pick<PaymentChannelDescription, 'ranges'>>>;
  /** Its own payment fees per method, each replacing every merchant's (`fees.payments`) for it. */
  readonly paymentFees?: Readonly<Record<string, FeeDescription>>;
  /** Its own refund fees per method of the refunded payment, each replacing every merchant's (`fees.refunds`) for it. */
  readonly refundFees?: Readonly<Record<string, FeeDescription>>;
}

export interface PaymentChannelDescription {
  /** Each channel's inclusive range in cents (overlapping or gapped); absent for price-point methods. */
  readonly ranges?: readonly { readonly minCents: number; readonly maxCents: number }[];
  readonly tiersCents?: readonly number[];
  /**
   * How the channel rounds to its tiers (absent: up): to the nearest within `maxDistanceCents`, ties to the higher (or to the
   * lower with `ties: 'down'`).
   */
  readonly rounding?:
    | { readonly mode: 'up' }
    | { readonly mode: 'nearest'; readonly maxDistanceCents: number; readonly ties?: 'up' | 'down' };
  /** A price-point channel's largest amount in cents (absent: none): an amount above it is refused 2006. */
  readonly maxCents?: number;
  readonly refunds: RefundSupport;
  /** Whether a new refund is SUCCESS at once (else PENDING until `refunds/settle`). */
  readonly refundSettlesImmediately: boolean;
}

export interface PayoutChannelDescription {
  readonly currencies: readonly string[];
  readonly minCents: number;
  readonly maxCents: number;
  readonly cancelable: boolean;
  /** The range in a currency other than USD, in that currency's cents, where it differs from minCents..maxCents. */
  readonly byCurrency?: Readonly<Record<string, { readonly minCents: number; readonly maxCents: number }>>;
}

/** One fee: a fixed part plus millionths of the amount (1 % is 10000), rounded half up to the cent; at least / at most. */
export interface FeeDescription {
  readonly fixedCents: number;
  readonly percentMillionths?: number;
  readonly minCents?: number;
  readonly maxCents?: number;
}

/** Fees per payment method, per kind of operation. */
export interface FeesDescription {
  readonly payments?: Readonly<Record<string, FeeDescription>>;
  /** A refund's fee, per method of the refunded payment (absent: the README's flat refund fee). */
  readonly refunds?: Readonly<Record<string, FeeDescription>>;
  readonly payouts?: Readonly<Record<string, FeeDescription>>;
}

export interface TargetDescription {
  readonly merchants?: readonly MerchantDescription[];
  /** Methods enabled for every merchant without a list of its own. */
  readonly paymentMethods?: readonly string[];
  /** Enabled methods whose every channel is down. */
  readonly noChannelMethods?: readonly string[];
  /** Replaces the payment channel table (a method absent here has no channel at all). */
  readonly paymentChannels?: Readonly<Record<string, PaymentChannelDescription>>;
  readonly payoutChannels?: Readonly<Record<string, PayoutChannelDescription>>;
  /** Card numbers the provider declines (422 paymentFailed). */
  readonly declineCards?: readonly string[];
  /**
   * Waits between webhook attempts, ms at time scale 1 (one fewer than the attempts): the document says they "grow from
   * about 15 seconds to about 40 minutes" and the last attempt is "about 80 to 100 minutes after the first". Absent:
   * behaviour.ts RETRY_WAITS_MS.
   */
  readonly retryWaitsMs?: readonly number[];
  /** Per payout method, the payee fields it requires (of name, account, email; the others are optional). */
  readonly payeeFields?: Readonly<Record<string, readonly string[]>>;
  /** The sandbox controls' paths, body field names, outcome values and failure switch (reference/sandbox-shape.ts). */
  readonly sandbox?: SandboxDescription;
  /** Fees on payments, refunds and payouts (absent: the README's: a payout fee on BANK_TRANSFER, the flat refund fee). */
  readonly fees?: FeesDescription;
  /**
   * The balances a successful payment credits with its amount less its payment fee. Absent (with `proceedsAfter` absent
   * too): the README's: the USD payout balance, with proceeds pending until released in the portal, so no balance a
   * payout or refund draws on ever moves by a payment.
   */
  readonly paymentsCredit?: readonly ('payout' | 'refund')[];
  /**
   * Where the endpoints the document does not place are served, by the reference's route: any path, carrying the
   * resource's number in placeholders such as {payout_no} (reference/api-paths.ts). A moved route is served there alone.
   */
  readonly apiPaths?: Readonly<Partial<Record<ApiRoute, string>>>;
  /**
   * The status a card payment waiting for its completion (3-D Secure) shows, where it differs from a new checkout's
   * ("Transitions between states (from-state, trigger, condition): not shown."). Absent: the same as a checkout's.
   */
  readonly cardPendingStatus?: string;
  /**
   * Payouts that end by themselves: an open payout becomes `status` once `afterMs` ms have passed since its creation
   * (time the vendor keeps; "Transitions between states (from-state, trigger, condition): not shown."). Absent: a payout
   * waits for a cancel or the sandbox's settle control.
   */
  readonly payoutsSettleAfter?: { readonly afterMs: number; readonly status: 'SUCCESS' | 'FAILED' };
  /**
   * The path the whole service is served under, before every path of it (a gateway's prefix such as `/mpsi`): "The address
   * is `{base_url}` followed by the path.", and the base URL ends with this prefix. A path outside it is unknown. Absent:
   * served at the root.
   */
  readonly basePath?: string;
  /**
   * Where a payment query's record sits in `data`, under these keys one inside the other (`["payment", "order"]`:
   * `data.payment.order.order_no`): "Fields of the payment record returned by a payment query: not shown." Absent: `data`
   * is the record.
   */
  readonly paymentRecordPath?: readonly string[];
  /**
   * The key a refund request's own fields (its number, amount and reason) are read from, the refunded payment's numbers
   * beside it (`{"original_order_no": …, "refund": {"refund_amount": …}}`): "Refund creation request fields and refund query
   * record fields: not shown beyond the names above." Such a service reads no refund field at the top. Absent: a flat body.
   */
  readonly refundRequestUnder?: string;
  /**
   * Method names this target knows beside the reference's own ("Complete list of allowed `payment_method` values: not
   * shown.": an open alphabet, e.g. `SEPA_DEBIT`, `WIRE`); each may then be named wherever a method is. Absent: none.
   */
  readonly otherMethodNames?: readonly string[];
  /**
   * Per payment method (or `*` for every method), the optional checkout fields a checkout of it requires ("Which of
   * `notify_url`, `return_url`, `card`, `billing_address`, `device_ip`, `metadata` are required for each payment method:
   * not shown."); missing, it is refused 400 invalidRequest naming the field. Absent: `return_url` for PAYPAL.
   */
  readonly checkoutRequiredFields?: Readonly<Record<string, readonly CheckoutRequirable[]>>;
  /**
   * Fields each query requires beside its lookup number, by query ("Only `merchant_order_no`/`order_no` lookup inputs are
   * shown, other query parameters: not shown."): a query without one, or with another value, is refused 400
   * invalidRequest naming it (reference/request-limits.ts). Absent: the lookup numbers only.
   */
  readonly queryParams?: QueryParamsDescription;
  /**
   * The longest value accepted per string field, in characters, and the largest body in bytes ("Maximum lengths of string
   * fields and maximum request body size: not shown."): a longer value on a creation, or a larger body, is refused 422
   * validationFailed. Absent: the handlers' own limits (64 for a number, 256 for a name or reason, …).
   */
  readonly maxLengths?: MaxLengthsDescription;
  readonly maxBodyBytes?: number;
  /**
   * Refunds that end by themselves: a PENDING refund becomes `status` once `afterMs` ms have passed since its creation
   * (time the vendor keeps). Absent: a PENDING refund waits for the sandbox's settle control.
   */
  readonly refundsSettleAfter?: { readonly afterMs: number; readonly status: 'SUCCESS' | 'FAILED' };
  /** Checkouts that expire by themselves: one left unpaid expires once `afterMs` ms have passed since its creation. */
  readonly checkoutsExpireAfter?: { readonly afterMs: number };
  /**
   * When the proceeds a successful payment credits (`paymentsCredit`) become available: after `n` ms (wall clock, from
   * the payment's success) or, "control", only when the sandbox's release control is sent. Absent: at once. Until then
   * they are a pending balance no payout or refund draws on.
   */
  readonly proceedsAfter?: number | 'control';
  /** What a chargeback takes: the payment's amount charged and `fee`, from the `from` balance (absent: nothing). */
  readonly chargebackDebit?: { readonly from: 'payout' | 'refund'; readonly fee?: FeeDescription };
}

/** The checkout fields a target may require per method (notify_url is required for every checkout already). */
export const CHECKOUT_REQUIRABLE = ['return_url', 'metadata'] as const;
export type CheckoutRequirable = (typeof CHECKOUT_REQUIRABLE)[number];

/** The description resolved against the defaults, in the shapes the handlers use. */
export interface Target {
  readonly merchants: readonly MerchantFixture[];
  readonly paymentMethods: readonly string[];
  readonly noChannelMethods: ReadonlySet<string>;
  readonly paymentChannels: ReadonlyMap<string, PaymentChannel>;
  readonly payoutChannels: ReadonlyMap<string, PayoutChannel>;
  readonly payeeFields: ReadonlyMap<string, readonly string[]>;
  /** In their published order. */
  readonly declineCards: readonly string[];
  readonly retryWaitsMs?: readonly number[];
  readonly sandbox: SandboxShape;
  readonly fees: {
    readonly payments: ReadonlyMap<string, Fee>;
    readonly refunds: ReadonlyMap<string, Fee>;
    readonly payouts: ReadonlyMap<string, Fee>;
  };
  readonly paymentsCredit: { readonly payout: boolean; readonly refund: boolean };
  readonly apiPaths: ApiPaths;
  readonly cardPendingStatus?: string;
  readonly payoutsSettleAfter?: { readonly afterMs: number; readonly status: 'SUCCESS' | 'FAILED' };
  /** The prefix every path is served under ('' for the root). */
  readonly basePath: string;
  readonly paymentRecordPath: readonly string[];
  readonly refundRequestUnder?: string;
  /** Every method name the target knows: the reference's and the description's `otherMethodNames`. */
  readonly knownMethods: ReadonlySet<string>;
  /** Per method (or `*`), the optional checkout fields a checkout of it requires. */
  readonly checkoutRequiredFields: ReadonlyMap<string, readonly string[]>;
  /** What it asks of a request beyond the document's fields (reference/request-limits.ts). */
  readonly requestLimits: RequestLimits;
  readonly refundsSettleAfter?: { readonly afterMs: number; readonly status: 'SUCCESS' | 'FAILED' };
  readonly checkoutsExpireAfter?: { readonly afterMs: number };
  readonly proceedsAfter?: number | 'control';
  readonly chargebackDebit?: { readonly from: 'payout' | 'refund'; readonly fee?: Fee };
  findMerchant(id: string): MerchantFixture | undefined;
}

/** The payee fields a payout request may carry (reference/handlers/payout-create.ts). */
const PAYEE_FIELD_NAMES: readonly string[] = ['name', 'account', 'email'];

/** Two, as a sandbox may publish several (the document's table has one row: "The provider declined the payment"). */
export const DEFAULT_DECLINE_CARDS: readonly string[] = ['4000000000000002', '4000000000000069'];

/** Refuses a description the reference cannot be: a clear error, never a half-built target. */
export function resolveTarget(d: TargetDescription = {}): Target {
  const knownMethods = knownMethodsOf(d.otherMethodNames);
  const known = (where: string, methods: readonly string[]): void => {
    const bad = methods.filter((m) => !knownMethods.has(m));
    if (bad.length > 0) throw new Error(`target ${where}: unknown method(s) ${bad.join(', ')}`);
  };
  const cents = (where: string, n: number): bigint => {
    if (!Number.isSafeInteger(n) || n < 0) throw new Error(`target ${where}: cents must be a non-negative integer, got ${n}`);
    return BigInt(n);
  };
  const byId = new Map((d.merchants ?? []).map((m) => [m.id, m]));
  const sharedPayoutChannels = d.payoutChannels ?? payoutDescriptions(PAYOUT_CHANNELS);
  for (const id of byId.keys()) if (!MERCHANTS.some((m) => m.id === id)) throw new Error(`target merchants: no fixture merchant ${id}`);
  const merchants = MERCHANTS.map((fixture): MerchantFixture => {
    // A description with channels of its own replaces the fixtures' per-merchant channels too, and one with payout channels
    // of its own the fixtures' payout fees (a merchant's own fees then come from its entry); one without keeps them.
    const { payoutChannels, paymentChannels, payoutFees, ...bare } = fixture;
    const m: MerchantFixture = {
      ...bare,
      ...(payoutChannels && !d.payoutChannels ? { payoutChannels } : {}),
      ...(payoutFees && !d.payoutChannels ? { payoutFees } : {}),
      ...(paymentChannels && !d.paymentChannels ? { paymentChannels } : {}),
    };
    const o = byId.get(m.id);
    if (o === undefined) return m;
    if (o.paymentMethods) known(`merchants.${m.id}.paymentMethods`, o.paymentMethods);
    if (o.payoutMethods) known(`merchants.${m.id}.payoutMethods`, o.payoutMethods);
    const balances = o.payoutBalancesCents;
    const other = balances && Object.entries(balances).filter(([c]) => c !== 'USD');
    for (const [k, v] of [
      ['assignedId', o.assignedId],
      ['secret', o.secret],
      ['productionSecret', o.productionSecret],
    ] as const)
      if (v !== undefined && (typeof v !== 'string' || v.trim() === '' || v !== v.trim()))
        throw new Error(`target merchants.${m.id}.${k}: a non-empty string without surrounding spaces`);
    return {
      ...m,
      ...(o.assignedId !== undefined ? { id: o.assignedId } : {}),
      ...(o.secret !== undefined ? { secret: o.secret } : {}),
      ...(o.productionSecret !== undefined ? { productionSecret: o.productionSecret } : {}),
      ...(o.name !== undefined ? { name: o.name } : {}),
      ...(o.login !== undefined ? { login: o.login } : {}),
      ...(balances ? { payoutBalanceCents: cents(`${m.id}.USD`, balances['USD'] ?? 0) } : {}),
      ...(other ? { otherPayoutBalancesCents: Object.fromEntries(other.map(([c, v]) => [c, cents(`${m.id}.${c}`, v)])) } : {}),
      ...(o.refundCoverCents !== undefined ? { refundCoverCents: cents(`${m.id}.refundCover`, o.refundCoverCents) } : {}),
      ...(o.paymentMethods ? { paymentMethods: [...o.paymentMethods] } : {}),
      ...(o.payoutMethods ? { payoutMethods: [...o.payoutMethods] } : {}),
      ...(o.payoutChannels ? { payoutChannels: ownPayoutChannels(m.id, o.payoutChannels, sharedPayoutChannels, cents) } : {}),
      ...(o.payoutFees ? { payoutFees: feeTable(`merchants.${m.id}.payoutFees`, o.payoutFees, cents) } : {}),
      ...(o.paymentChannels ? { paymentChannels: ownPaymentChannels(m.id, o.paymentChannels, cents) } : {}),
      ...(o.paymentFees ? { paymentFees: feeTable(`merchants.${m.id}.paymentFees`, o.paymentFees, cents) } : {}),
      ...(o.refundFees ? { refundFees: feeTable(`merchants.${m.id}.refundFees`, o.refundFees, cents) } : {}),
    };
  });
  const ids = merchants.map((m) => m.id);
  const twice = ids.filter((id, i) => ids.indexOf(id) !== i);
  if (twice.length > 0) throw new Error(`target merchants: the id ${twice[0]} is given to two merchants`);
  const secrets = merchants.flatMap((m) => [m.secret, ...(m.productionSecret !== undefined ? [m.productionSecret] : [])]);
  if (new Set(secrets).size !== secrets.length)
    throw new Error('target merchants: two keys are the same (each merchant and environment has its own)');
  const paymentMethods = d.paymentMethods ?? ENABLED_PAYMENT_METHODS;
  known('paymentMethods', paymentMethods);
  const paymentChannels = d.paymentChannels
    ? new Map(Object.entries(d.paymentChannels).map(([method, c]) => [method, paymentChannel(method, c, cents)]))
    : PAYMENT_CHANNELS;
  known('paymentChannels', [...paymentChannels.keys()]);
  const payoutChannels = d.payoutChannels
    ? new Map(Object.entries(d.payoutChannels).map(([method, c]): [string, PayoutChannel] => [method, payoutChannel(method, c, cents)]))
    : PAYOUT_CHANNELS;
  known('payoutChannels', [...payoutChannels.keys()]);
  const waits = d.retryWaitsMs;
  if (waits !== undefined && (waits.length === 0 || waits.length > 8 || waits.some((w) => !Number.isSafeInteger(w) || w <= 0)))
    throw new Error(`target retryWaitsMs: give 1 to 8 positive integer waits in ms (9 attempts at most), got ${JSON.stringify(waits)}`);
  const payee = d.payeeFields;
  for (const [method, fields] of Object.entries(payee ?? {})) {
    const bad = fields.filter((f) => !PAYEE_FIELD_NAMES.includes(f));
    if (bad.length > 0) throw new Error(`target payeeFields.${method}: ${bad.join(', ')} is not one of ${PAYEE_FIELD_NAMES.join(', ')}`);
  }
  const cardPending = d.cardPendingStatus;
  if (cardPending !== undefined && (typeof cardPending !== 'string' || !/^[A-Za-z][A-Za-z0-9_]{0,31}$/.test(cardPending)))
    throw new Error(`target cardPendingStatus: a status name of letters, digits and "_", got ${JSON.stringify(cardPending)}`);
  const settle = d.payoutsSettleAfter;
  if (settle !== undefined && (!(settle.afterMs >= 0) || (settle.status !== 'SUCCESS' && settle.status !== 'FAILED')))
    throw new Error(`target payoutsSettleAfter: { afterMs: a number >= 0, status: SUCCESS or FAILED }, got ${JSON.stringify(settle)}`);
  const basePath = d.basePath ?? '';
  if (basePath !== '' && (typeof basePath !== 'string' || !/^(\/[A-Za-z0-9._~-]+)+$/.test(basePath)))
    throw new Error(
      `target basePath: a path such as /mpsi (segments of letters, digits, ".", "_", "~", "-"), got ${JSON.stringify(basePath)}`,
    );
  const recordPath = d.paymentRecordPath ?? [];
  const key = (k: unknown) => typeof k === 'string' && /^[A-Za-z][A-Za-z0-9_]{0,31}$/.test(k);
  if (!Array.isArray(recordPath) || recordPath.length > 4 || !recordPath.every(key))
    throw new Error(`target paymentRecordPath: up to 4 field names, got ${JSON.stringify(recordPath)}`);
  const refundUnder = d.refundRequestUnder;
  if (refundUnder !== undefined && !key(refundUnder))
    throw new Error(`target refundRequestUnder: a field name, got ${JSON.stringify(refundUnder)}`);
  const requestLimits: RequestLimits = {
    ...(d.queryParams !== undefined ? { queryParams: d.queryParams } : {}),
    ...(d.maxLengths !== undefined ? { maxLengths: d.maxLengths } : {}),
    ...(d.maxBodyBytes !== undefined ? { maxBodyBytes: d.maxBodyBytes } : {}),
  };
  checkLimitsDescription(requestLimits);
  const refundsSettle = d.refundsSettleAfter;
  if (
    refundsSettle !== undefined &&
    (!(refundsSettle.afterMs >= 0) || (refundsSettle.status !== 'SUCCESS' && refundsSettle.status !== 'FAILED'))
  )
    throw new Error(
      `target refundsSettleAfter: { afterMs: a number >= 0, status: SUCCESS or FAILED }, got ${JSON.stringify(refundsSettle)}`,
    );
  const expire = d.checkoutsExpireAfter;
  if (expire !== undefined && !(expire.afterMs >= 0))
    throw new Error(`target checkoutsExpireAfter: { afterMs: a number >= 0 }, got ${JSON.stringify(expire)}`);
  // The README's sandbox: proceeds credit the payout balance once released in the portal, which nothing here does.
  const readmeProceeds = d.paymentsCredit === undefined && d.proceedsAfter === undefined;
  const proceeds = readmeProceeds ? 'control' : d.proceedsAfter;
  if (proceeds !== undefined && proceeds !== 'control' && !(typeof proceeds === 'number' && proceeds >= 0))
    throw new Error(`target proceedsAfter: a number of ms >= 0 or "control", got ${JSON.stringify(proceeds)}`);
  const chargeback = d.chargebackDebit;
  if (chargeback !== undefined && chargeback.from !== 'payout' && chargeback.from !== 'refund')
    throw new Error(`target chargebackDebit.from: payout or refund, got ${JSON.stringify(chargeback.from)}`);
  return {
    basePath,
    paymentRecordPath: [...recordPath],
    ...(refundUnder !== undefined ? { refundRequestUnder: refundUnder } : {}),
    merchants,
    paymentMethods,
    noChannelMethods: d.noChannelMethods ? new Set(d.noChannelMethods) : NO_CHANNEL_METHODS,
    paymentChannels,
    payoutChannels,
    payeeFields: payee ? new Map(Object.entries(payee).map(([m, f]) => [m, [...f]])) : PAYEE_FIELDS,
    declineCards: d.declineCards ?? DEFAULT_DECLINE_CARDS,
    ...(waits !== undefined ? { retryWaitsMs: [...waits] } : {}),
    sandbox: resolveSandbox(d.sandbox),
    fees: {
      payments: feeTable('payments', d.fees?.payments, cents),
      refunds: feeTable('refunds', d.fees?.refunds, cents),
      payouts: d.fees || d.payoutChannels ? feeTable('payouts', d.fees?.payouts, cents) : DEFAULT_PAYOUT_FEES,
    },
    paymentsCredit: {
      payout: readmeProceeds || (d.paymentsCredit?.includes('payout') ?? false),
      refund: d.paymentsCredit?.includes('refund') ?? false,
    },
    apiPaths: resolveApiPaths(d.apiPaths),
    ...(cardPending !== undefined ? { cardPendingStatus: cardPending } : {}),
    ...(settle !== undefined ? { payoutsSettleAfter: { afterMs: settle.afterMs, status: settle.status } } : {}),
    knownMethods,
    checkoutRequiredFields: checkoutRequired(d.checkoutRequiredFields),
    requestLimits,
    ...(refundsSettle !== undefined ? { refundsSettleAfter: { afterMs: refundsSettle.afterMs, status: refundsSettle.status } } : {}),
    ...(expire !== undefined ? { checkoutsExpireAfter: { afterMs: expire.afterMs } } : {}),
    ...(proceeds !== undefined ? { proceedsAfter: proceeds } : {}),
    ...(chargeback !== undefined
      ? {
          chargebackDebit: {
            from: chargeback.from,
            ...(chargeback.fee ? { fee: feeTable('chargeback', { fee: chargeback.fee }, cents).get('fee')! } : {}),
          },
        }
      : {}),
    findMerchant: (id) => merchants.find((m) => m.id === id),
  };
}

/** The reference's method names and the description's own, each checked to be a method name. */
function knownMethodsOf(names: readonly string[] = []): ReadonlySet<string> {
  const bad = names.filter((n) => typeof n !== 'string' || !/^[A-Z][A-Z0-9_]{0,31}$/.test(n));
  if (bad.length > 0) throw new Error(`target otherMethodNames: upper-case names of letters, digits and "_", got ${JSON.stringify(bad)}`);
  return new Set([...KNOWN_METHODS, ...names]);
}

/** The description's required checkout fields, each one a field a checkout may carry; absent: the README's. */
function checkoutRequired(d: TargetDescription['checkoutRequiredFields']): ReadonlyMap<string, readonly string[]> {
  if (d === undefined) return CHECKOUT_REQUIRED_BY_METHOD;
  for (const [method, fields] of Object.entries(d)) {
    const bad = fields.filter((f) => !(CHECKOUT_REQUIRABLE as readonly string[]).includes(f));
    if (bad.length > 0)
      throw new Error(`target checkoutRequiredFields.${method}: ${bad.join(', ')} is not one of ${CHECKOUT_REQUIRABLE.join(', ')}`);
  }
  return new Map(Object.entries(d).map(([m, f]) => [m, [...f]]));
}

/** A merchant's own payment channel ranges: each replaces every merchant's ranges of that method for it. */
function ownPaymentChannels(
  id: string,
  own: Readonly<Record<string, Pick<PaymentChannelDescription, 'ranges'>>>,
  cents: (where: string, n: number) => bigint,
): ReadonlyMap<string, Pick<PaymentChannel, 'minCents' | 'maxCents' | 'ranges'>> {
  return new Map(
    Object.entries(own).map(([method, part]) => {
      const { minCents, maxCents, ranges } = paymentChannel(
        `merchants.${id}.${method}`,
        { ranges: part.ranges, refunds: 'none', refundSettlesImmediately: false },
        cents,
      );
      return [method, { minCents, maxCents, ...(ranges ? { ranges } : {}) }];
    }),
  );
}

/** A payout channel of a description, in the handlers' shape. */
function payoutChannel(method: string, c: PayoutChannelDescription, cents: (where: string, n: number) => bigint): PayoutChannel {
  const { byCurrency, ...rest } = c;
  const ranges = Object.entries(byCurrency ?? {}).map(([cur, r]): [string, { minCents: bigint; maxCents: bigint }] => [
    cur,
    { minCents: cents(`${method}.${cur}.min`, r.minCents), maxCents: cents(`${method}.${cur}.max`, r.maxCents) },
  ]);
  return {
    ...rest,
    minCents: cents(`${method}.min`, c.minCents),
    maxCents: cents(`${method}.max`, c.maxCents),
    ...(ranges.length > 0 ? { byCurrency: new Map(ranges) } : {}),
  };
}

/** The default payout channels as descriptions, so a merchant's own parts can be laid over them. */
function payoutDescriptions(channels: ReadonlyMap<string, PayoutChannel>): Readonly<Record<string, PayoutChannelDescription>> {
  return Object.fromEntries(
    [...channels].map(([method, c]) => [
      method,
      {
        currencies: c.currencies,
        minCents: Number(c.minCents),
        maxCents: Number(c.maxCents),
        cancelable: c.cancelable,
        ...(c.byCurrency
          ? {
              byCurrency: Object.fromEntries(
                [...c.byCurrency].map(([k, r]) => [k, { minCents: Number(r.minCents), maxCents: Number(r.maxCents) }]),
              ),
            }
          : {}),
      },
    ]),
  );
}

/** A merchant's own payout channels: each part it gives laid over every merchant's channel of that method. */
function ownPayoutChannels(
  id: string,
  own: Readonly<Record<string, Partial<PayoutChannelDescription>>>,
  shared: Readonly<Record<string, PayoutChannelDescription>>,
  cents: (where: string, n: number) => bigint,
): ReadonlyMap<string, PayoutChannel> {
  return new Map(
    Object.entries(own).map(([method, part]): [string, PayoutChannel] => {
      const base = shared[method];
      const whole = { ...base, ...part } as PayoutChannelDescription;
      if (whole.currencies === undefined || whole.minCents === undefined || whole.maxCents === undefined || whole.cancelable === undefined)
        throw new Error(`target merchants.${id}.payoutChannels.${method}: no channel of every merchant to complete it; give it whole`);
      return [method, payoutChannel(`merchants.${id}.${method}`, whole, cents)];
    }),
  );
}

function feeTable(
  kind: string,
  t: Readonly<Record<string, FeeDescription>> | undefined,
  cents: (where: string, n: number) => bigint,
): ReadonlyMap<string, Fee> {
  return new Map(
    Object.entries(t ?? {}).map(([method, f]): [string, Fee] => [
      method,
      {
        fixedCents: cents(`fees.${kind}.${method}.fixed`, f.fixedCents),
        percentMillionths: cents(`fees.${kind}.${method}.percent`, f.percentMillionths ?? 0),
        ...(f.minCents !== undefined ? { minCents: cents(`fees.${kind}.${method}.min`, f.minCents) } : {}),
        ...(f.maxCents !== undefined ? { maxCents: cents(`fees.${kind}.${method}.max`, f.maxCents) } : {}),
      },
    ]),
  );
}

function paymentChannel(method: string, c: PaymentChannelDescription, cents: (where: string, n: number) => bigint): PaymentChannel {
  const base = { refunds: c.refunds, refundSettlesImmediately: c.refundSettlesImmediately };
  if (c.tiersCents !== undefined) {
    const r = c.rounding;
    const rounding =
      r?.mode === 'nearest'
        ? {
            mode: 'nearest' as const,
            maxDistanceCents: cents(`${method}.rounding.maxDistanceCents`, r.maxDistanceCents),
            ...(r.ties === 'down' ? { tiesDown: true } : {}),
          }
        : undefined;
    return {
      ...base,
      tiersCents: c.tiersCents.map((t, i) => cents(`${method}.tiers[${i}]`, t)),
      ...(rounding ? { rounding } : {}),
      ...(c.maxCents !== undefined ? { maxCents: cents(`${method}.maxCents`, c.maxCents) } : {}),
    };
  }
  const ranges: CentsRange[] = (c.ranges ?? []).map((r, i) => ({
    minCents: cents(`${method}.ranges[${i}].min`, r.minCents),
    maxCents: cents(`${method}.ranges[${i}].max`, r.maxCents),
  }));
  if (ranges.length === 0) throw new Error(`target paymentChannels.${method}: give ranges or tiersCents`);
  const minCents = ranges.reduce((a, r) => (r.minCents < a ? r.minCents : a), ranges[0]!.minCents);
  const maxCents = ranges.reduce((a, r) => (r.maxCents > a ? r.maxCents : a), ranges[0]!.maxCents);
  return { ...base, minCents, maxCents, ...(ranges.length > 1 ? { ranges } : {}) };
}

export const DEFAULT_TARGET: Target = resolveTarget();
