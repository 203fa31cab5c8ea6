/**
 * A target profile: everything a run needs to know about one implementation, above all the
 * choices it made where INTERFACE.md says "not shown". Suites never guess these; a missing
 * section means the capability is not declared and its checks are skipped with a precondition.
 *
 * Templates: in a request template, a string that is exactly "${name}" is replaced by the
 * value of `name` (any JSON type, e.g. an Amount object); "${name}" inside a longer string is
 * replaced by its text. Paths into response data are dotted ("data.order_no" is written "order_no").
 */
import type { TlsProfile } from '../http/network.js';

export interface Profile {
  /**
   * Profile format version. 1 (or absent): the first format; 2: adds per-merchant methods, channel lists,
   * rounding distance, armed failures, pending cards, per-method fields (all optional, so a version-1
   * profile is a valid version-2 profile); 3: adds merchants' names and logins, every merchant's balances,
   * overlapping channels, a method of another merchant only, more decline cards, refunds' created status, a sandbox failure
   * switch of several values or matching a refund by its number; 4: the facts of services written apart from the kit
   * (fees, templated paths, how balances move, a failure switch's scope, …); 5: the open world (every way a sandbox causes
   * a failure, sandbox.triggers; every method-level fact per merchant, `merchants.<role>.facts`; a payout method's
   * currencies as a set; a fee's minimum and maximum, …). See docs/PROFILE.md.
   */
  profileVersion?: 1 | 2 | 3 | 4 | 5;
  /** Free-form name shown in reports, e.g. "acme-sandbox". */
  name: string;
  /**
   * Version 5: the parameters each query needs beside the lookup number ("Only `merchant_order_no`/`order_no` lookup
   * inputs are shown, other query parameters: not shown."), as value templates (harness/profile/template.ts; variables
   * `merchantId`, the sending merchant's id, and `today`, the UTC date YYYY-MM-DD). Every query the kit sends carries
   * them. Absent: the lookup numbers only.
   */
  queryParams?: QueryParams;
  /**
   * Version 5: the longest value the target accepts for each string the kit chooses, in characters, and the largest
   * body in bytes ("Maximum lengths of string fields and maximum request body size: not shown."). The kit never sends a
   * longer one; a length left unsaid is an unknown: a refusal that names such a field is no verdict.
   */
  lengths?: Lengths;
  description?: string;
  /** Base URL without trailing slash, or "embedded" for the reference started by the kit. */
  baseUrl: string;
  /**
   * Only with baseUrl "embedded": how the kit starts its own reference. `readings` names the set of
   * readings it takes where the document allows more than one answer ("default" or "alt"), or the reading
   * names themselves (a generated target, test/legal-targets). A real target has no such section; the loader
   * refuses it beside a URL.
   */
  embedded?: {
    readings?: 'default' | 'alt' | string[];
    /** Field conditions (serve --rate-limit): a gateway in front answering HTTP 429 beyond this many requests per second. */
    rateLimit?: number;
    /** Field conditions (serve --latency): one-way delay on every exchange and webhook delivery, ms. */
    latencyMs?: number;
    /**
     * What the reference has instead of its README's fixtures: merchants' balances, names, logins and methods, channels,
     * cards (reference/sandbox-data.ts `TargetDescription`, `serve --target`). A generated target's (test/legal-targets).
     */
    target?: Record<string, unknown>;
  };
  /** What a run keeps in its reports folder: `history`, the runs kept in history/ (default 20; `run --history` wins). */
  reports?: { history?: number };
  /** "sandbox" or "production": production-safe runs refuse anything that moves money. */
  environment: 'sandbox' | 'production';
  merchants: {
    primary: MerchantRef;
    /** Another active merchant: access-control checks need it. */
    second?: MerchantRef;
    /** A disabled merchant: merchantFrozen checks need it. */
    frozen?: MerchantRef;
    /** A merchant whose balances are too small: insufficientFunds and refund-balance checks need it. */
    lowBalance?: MerchantRef & {
      /** Its payout balance in USD (the shorthand for payoutBalances.USD; when both are given they must agree). */
      payoutBalance?: string;
      /**
       * Its payout balance in each currency it holds, keyed by ISO code (upper case, e.g. "EUR": "3.00").
       * A payout draws on the balance of its own currency: one above it is refused with 5004 insufficientFunds.
       */
      payoutBalances?: Record<string, string>;
      refundBalance?: string;
    };
    /** An id the target does not know. */
    unknownId: string;
  };
  http?: {
    deadlineMs?: number;
    maxResponseBytes?: number;
    concurrency?: number;
    /** Requests per second the target's gateway allows: the kit paces itself under it from the first request. */
    rateLimit?: number;
    /**
     * Version 4: TLS to the target (a private CA, a client certificate for mutual TLS, the name to verify), each file a
     * path or an `…Env` variable holding a path or the PEM; resolved when the profile loads (harness/http/network.ts).
     */
    tls?: TlsProfile;
  };
  /** Paths after baseUrl. paymentQuery and checkout are fixed by the interface but may be overridden. */
  endpoints: {
    paymentQuery?: string;
    checkout?: string;
    cardPayment?: string;
    refundCreate?: string;
    refundQuery?: string;
    payoutCreate?: string;
    payoutQuery?: string;
    payoutCancel?: string;
  };
  /** Server's internal field names used in invalidRequest messages, keyed by the JSON path. */
  internalFieldNames?: Record<string, string>;
  methods: {
    /** Methods accepted by checkout for the primary merchant. The first one is used by default. */
    checkout: string[];
    /** Method used with the card endpoint. */
    card?: string;
    /** Known to the target but not enabled for the primary merchant (3003 paymentMethodUnavailable). */
    notEnabled?: string;
    /** A value the target does not know (3003 unsupportedPaymentMethod). */
    unknown: string;
    /** Methods that accept price points only (Apple Pay, Google Pay). */
    pricePoint?: string[];
    /**
     * A method the target knows and enables for the primary merchant but whose every channel is down:
     * checkout answers 422 validationFailed ("No payment channel available"). A method, not only a card.
     */
    noChannel?: string;
  };
  /**
   * Channel limits, USD, inclusive, as decimal strings, per method (see ChannelLimits: one range, or
   * several channels with their own ranges).
   */
  limits?: {
    payments?: Record<string, ChannelLimits>;
    payouts?: Record<string, PayoutLimits>;
  };
  /**
   * Version 4: the fees the target charges, per kind of operation and payment method ("*": every method not named).
   * harness/facts/fees.ts computes them; every amount just above or within a balance includes them.
   */
  fees?: {
    payments?: Record<string, FeeModel>;
    /** Replaces `refunds.fee` for the methods it names. */
    refunds?: Record<string, FeeModel>;
    payouts?: Record<string, FeeModel>;
  };
  /**
   * Version 4: how the merchants' balances move while the kit runs. Absent: only by the kit's own payouts and refunds,
   * each given back, so a declared balance is a constant.
   */
  balances?: {
    /** The balances a successful payment credits with its amount less its fee: "payout" (USD payout balance), "refund". */
    paymentsCredit?: ('payout' | 'refund')[];
    /** Where a payout's fee is taken from: the payout balance of its currency (default) or elsewhere. */
    payoutFee?: 'payoutBalance' | 'elsewhere';
    /**
     * Version 5: when the proceeds of a successful payment (what `paymentsCredit` credits) become available. Absent: at
     * once. `after` a number: they wait as a pending balance for that many ms (wall clock, from the payment's success);
     * "control": they wait until a sandbox control or the portal releases them, which the kit never does. Pending proceeds
     * are never taken as already credited: a payout or refund drawn against them may be refused.
     */
    proceeds?: { after: number | 'control' };
    /**
     * Version 5: what a chargeback takes: the payment's amount (the USD amount charged) and `fee` from the merchant's
     * `from` balance (the USD payout balance, or the balance refunds draw on). Absent: not stated (the doctor's account
     * lists a chargeback apart, and no check judges a balance one may have moved as a constant).
     */
    chargeback?: { from: 'payout' | 'refund'; fee?: FeeModel };
  };
  pricePoints?: {
    tiers: string[];
    /** How an amount between tiers is rounded; "up" = smallest tier >= amount. */
    rounding: 'up' | 'down' | 'nearest';
    /**
     * Largest distance (USD, decimal string) between an amount and the tier it is rounded to; an amount
     * farther from every tier it could be rounded to is refused. Absent: any distance.
     */
    maxDistance?: string;
    /** With rounding "nearest": the tier chosen when an amount is exactly between two (default "up"). */
    tie?: 'up' | 'down';
    /** Per-method tiers where methods differ (overrides `tiers` for that method). */
    tiersByMethod?: Record<string, string[]>;
    /**
     * Version 3: per method, a rounding rule other than the shared one (`rounding`, `maxDistance`, `tie` replaced
     * together for that method), e.g. one wallet rounds up and another to the nearest tier within 0.25.
     */
    ruleByMethod?: Record<string, { rounding: 'up' | 'down' | 'nearest'; maxDistance?: string; tie?: 'up' | 'down' }>;
    /** Amounts that cannot be rounded to any tier. */
    unroundable: string[];
  };
  checkout?: {
    /** Extra fields sent with every checkout (beside the four the interface requires). */
    extras?: Record<string, unknown>;
    /**
     * Fields required by one payment method, sent with a checkout of that method on top of `extras`
     * (same template variables; a key set to null removes an `extras` field for that method).
     */
    extrasByMethod?: Record<string, Record<string, unknown>>;
    /** Where the created order's numbers and status are found in `data`. */
    data: { orderNo: string; status?: string };
    /** Status name of a checkout not yet paid, as the target reports it. */
    pendingStatus?: string;
  };
  /** How payment records look in `data` of a query. */
  paymentRecord?: { orderNo: string; merchantOrderNo: string; status: string; transAmount: string; requestedAmount?: string };
  cardPayment?: {
    /** Body template; variables: merchantOrderNo, amount, method, card, notifyUrl, goodsName, metadata. */
    template: Record<string, unknown>;
    cards: {
      success: Card;
      decline?: Card;
      risk?: Card;
      invalid?: Card;
      noChannel?: Card;
      /** A card whose payment stays pending (e.g. 3-D Secure) until `sandbox.completeCard` completes it. */
      pending?: Card;
    };
    /**
     * Version 4: the status of a card payment that stays pending (`cards.pending`, e.g. 3-D Secure), where it differs
     * from checkout.pendingStatus (absent: that one).
     */
    pendingStatus?: string;
    data: { orderNo: string; status?: string };
    /** Version 3: more cards the provider declines, beside `cards.decline` (each refused 422 paymentFailed). */
    declines?: Card[];
  };
  refunds?: {
    /** Variables: refundNo, orderNo, merchantOrderNo, amount, reason. */
    template: Record<string, unknown>;
    /** Per payment method: none, full (full refunds only) or partial. */
    support: Record<string, 'none' | 'full' | 'partial'>;
    /**
     * Version 4: per merchant role, per method, where that merchant's channel differs from `support` (e.g. a method only
     * the second merchant has, without refunds). A method not listed has `support`'s value.
     */
    supportByMerchant?: Partial<Record<'primary' | 'second' | 'lowBalance', Record<string, 'none' | 'full' | 'partial'>>>;
    /** Query field names: the refund's service number and merchant number. */
    queryBy: { serviceNo: string; merchantNo: string };
    data: { refundNo: string; status: string; amount?: string };
    /** Version 3: per payment method, the status a new refund is created with ("created (as PENDING or SUCCESS)"). */
    createdStatus?: Record<string, 'PENDING' | 'SUCCESS'>;
    /** A reason that makes the sandbox record the refund as failed (refundFailed). */
    failingReason?: string;
    /** Fee added to the refund when checking the merchant balance. */
    fee?: string;
  };
  payouts?: {
    /** Variables: payoutNo, method, amount, notifyUrl. */
    template: Record<string, unknown>;
    methods: Record<string, PayoutMethodFacts>;
    /** A payment method that exists but is not available for payouts (5007 unsupportedPayoutMethod). */
    notForPayouts?: string;
    queryBy: { serviceNo: string; merchantNo: string };
    cancelBy: { serviceNo: string; merchantNo: string };
    data: { payoutNo: string; status: string };
    balances?: { primary?: string };
    /** true when refunds and payouts draw on one merchant balance (refunds then lower what can be paid out). */
    sharedBalance?: boolean;
  };
  /** Sandbox controls that stand in for the customer, the provider, the bank. */
  sandbox?: {
    /** Variables: orderNo, merchantOrderNo, outcome. */
    completeCheckout?: Control & { outcomes: { success: string; failed: string } };
    chargeback?: Control;
    expireCheckout?: Control;
    /** Variables: refundNo, merchantRefundNo, outcome. */
    settleRefund?: Control & { outcomes: { success: string; failed: string } };
    /** Variables: payoutNo, merchantPayoutNo, outcome, reason (the status_reason to record, when the target takes one). */
    settlePayout?: Control & { outcomes: { success: string; failed: string }; reason?: string };
    /** Completes a pending card payment (cardPayment.cards.pending). Variables: orderNo, merchantOrderNo, outcome. */
    completeCard?: Control & { outcomes: { success: string; failed: string } };
    /**
     * Version 5: time the vendor keeps. Records that end by themselves after a documented delay, with or without a control:
     * `payouts`: an open payout becomes `status` once `afterMs` (ms on the wall clock, from its creation) have passed;
     * `refunds`: a PENDING refund becomes `status` so; `checkouts`: a checkout left unpaid expires so (it can no longer
     * be paid; an expired link sends no webhook).
     * The checks never take such a record as waiting for a control once the delay may have passed (harness/ops.ts
     * `maySettleByItself`).
     */
    autoSettle?: { payouts?: AutoSettle; refunds?: AutoSettle; checkouts?: { afterMs: number } };
    /**
     * Arms a one-shot failure: the merchant's next request of that kind fails once, then the target
     * behaves normally. Lets the kit prove the transient-failure rows (queryFailed, order creation systemBusy,
     * refund systemBusy, refundFailed) that no ordinary request provokes. Variables (harness/profile/arm-failure.ts):
     * - `failure`: the kind's value, when `failures.<kind>` is one string;
     * - each key of `failures.<kind>`, when it is an object (version 3: a switch that takes several values, e.g.
     *   `{ "operation": "query", "error": "500" }` fills `${operation}` and `${error}`); a key another kind gives and
     *   this one does not is left out of the body, as an undefined variable is;
     * - `merchantOrderNo`: the payment's number (for a refund kind, the refunded payment's);
     * - `merchantRefundNo`: for a refund kind, the number the refund will be created with (absent otherwise);
     * - `subject`: the number the switch matches, `merchantOrderNo`, or for a refund kind the one `refundSubject` names.
     */
    armFailure?: Control & {
      failures: Partial<Record<ArmFailureKind, ArmFailureValue>>;
      /**
       * Version 3: what the switch matches a refund failure by: the refunded payment's merchant order number (default)
       * or the refund's own merchant refund number.
       */
      refundSubject?: 'merchantOrderNo' | 'merchantRefundNo';
      /**
       * Version 4: which requests an armed failure may hit (harness/http/exclusive.ts): only those about the number it was
       * armed for (`subject`), the arming merchant's requests of its operation (`operation`), any of the arming
       * merchant's requests (`merchant`), or any request to the target (`target`, the default: the document does not
       * show the switch, so nothing narrower is assumed unless the profile says so).
       */
      scope?: 'subject' | 'operation' | 'merchant' | 'target';
      /** Version 4: how many requests one arming fails (default 1). */
      count?: number;
    };
    /**
     * Version 5: every way the sandbox causes each failure (harness/profile/triggers.ts): the switch above, or a magic
     * value in a request (an exact amount, an amount's ending, a prefix or suffix of a number the merchant chooses, a card
     * number, an e-mail, a refund reason) or a request header. The transient-failure and refund-failure checks run with
     * each way; every value the kit draws avoids the magic values unless it means to trigger one.
     */
    triggers?: Partial<Record<ArmFailureKind, FailureTrigger[]>>;
  };
  webhooks?: {
    receiver?: { host?: string; port?: number; publicUrl?: string };
    /** Target's clock ratio: 0.001 means one interface-second lasts 1 ms. */
    timeScale: number;
    /** Effective ack limit of the target after scaling, in ms. */
    ackTimeoutMs: number;
    /** How long to wait for an event that must come (and to be sure one that must not come does not), ms. */
    deliveryWaitMs: number;
    /**
     * Relative tolerance when comparing waits with the interface's "about" figures. The kit reads every "about" one way,
     * ±25 % (harness/webhooks/schedule.ts ABOUT_TOLERANCE): a smaller value is read as 0.25, a larger one widens the
     * schedule checks and is named in the certificate as a loosened check.
     */
    tolerance: number;
    /** Absolute allowance, ms, on each measured wait for timer and network delays (default 250). */
    jitterMs?: number;
  };
}

export type MerchantRef = {
  id: string;
  secret?: string;
  secretEnv?: string;
  /** Version 3: the merchant's name and a login of its users; neither is a merchant id (auth.merchant-id checks both are refused). */
  name?: string;
  login?: string;
  /** Version 3: its payout balance per currency (lowBalance has had it since version 2). */
  payoutBalances?: Record<string, string>;
  /** Payment methods enabled for this merchant (default: methods.checkout, plus methods.card). */
  paymentMethods?: string[];
  /** Payout methods enabled for this merchant (default: every key of payouts.methods). */
  payoutMethods?: string[];
  /**
   * Version 5: this merchant's own method-level facts, in the shape of the profile's shared sections, laid over them for
   * this merchant alone (harness/facts/): objects merge key by key (a fee model replaces the shared one whole), lists and
   * scalars replace, `null` removes. A fact said here for one merchant is no other merchant's.
   */
  facts?: MerchantFactSections;
  /**
   * The merchant's production key, for a sandbox profile: the kit checks the sandbox refuses a request
   * signed with it (auth.env-keys). Never sent anywhere else; redacted like every secret.
   */
  productionSecret?: string;
  productionSecretEnv?: string;
};
/** One channel's inclusive range, USD decimal strings. */
export interface ChannelRange {
  min: string;
  max: string;
  /** The channel's name, shown in findings (optional). */
  name?: string;
}
/**
 * A method's limits: `min`/`max` are the overall bounds (the smallest channel minimum, the largest maximum);
 * `channels`, when the method has several channels whose ranges leave gaps, lists each one. An amount is
 * accepted when some channel's range holds it. The loader refuses a `channels` list whose extremes are
 * not `min` and `max`.
 */
export type ChannelLimits = ChannelRange & { channels?: ChannelRange[] };
/**
 * A payout method's limits: USD as `ChannelLimits`, and version 4 `byCurrency`, the method's range in another currency
 * (in that currency's units) where it differs; a currency not listed has the method's own min and max.
 */
export type PayoutLimits = ChannelLimits & { byCurrency?: Record<string, ChannelLimits> };
/**
 * Version 4: one fee: `fixed` (in `currency`, default the amount's) plus `percent` % of the amount, the percentage part
 * rounded to the cent as `rounding` says (default halfUp). An absent part counts as zero.
 */
export interface FeeModel {
  fixed?: string;
  percent?: string;
  rounding?: 'up' | 'down' | 'halfUp';
  currency?: string;
  /** Version 5: the least the fee is (e.g. 1 %, at least 0.25), in the fee's currency. */
  min?: string;
  /** Version 5: the most the fee is (a cap), in the fee's currency. */
  max?: string;
}
/** A payout method's facts (payouts.methods.<method>). */
export interface PayoutMethodFacts {
  cancel: boolean;
  /** The old spelling of `currencies: ["USD"]` (true); false: it takes other currencies than USD too. */
  usdOnly?: boolean;
  /**
   * Version 5: the currencies the method takes, as a set (ISO codes, upper case). Absent: USD, and with `usdOnly: false`
   * the other currencies the profile names.
   */
  currencies?: string[];
  /** Payee fields this method needs, bound to the template variable `payee` (e.g. bank account, PayPal email). */
  payee?: Record<string, unknown>;
}
/**
 * Version 5: the method-level sections a merchant's `facts` may restate for itself (`merchants.<role>.facts`), each in
 * the shape of the profile's shared one.
 */
export interface MerchantFactSections {
  methods?: {
    checkout?: string[];
    card?: string | null;
    notEnabled?: string | null;
    pricePoint?: string[] | null;
    noChannel?: string | null;
  };
  limits?: { payments?: Record<string, ChannelLimits | null>; payouts?: Record<string, PayoutLimitsOverlay | null> };
  payouts?: { methods?: Record<string, Partial<PayoutMethodFacts> | null> };
  refunds?: { support?: Record<string, 'none' | 'full' | 'partial' | null>; createdStatus?: Record<string, 'PENDING' | 'SUCCESS' | null> };
  fees?: {
    payments?: Record<string, FeeModel | null>;
    refunds?: Record<string, FeeModel | null>;
    payouts?: Record<string, FeeModel | null>;
  };
  checkout?: { extras?: Record<string, unknown>; extrasByMethod?: Record<string, Record<string, unknown> | null> };
}
/** A payout method's limits as a merchant's facts restate them: any part, a currency's range removed with null. */
export type PayoutLimitsOverlay = Partial<ChannelLimits> & { byCurrency?: Record<string, ChannelLimits | null> };
export interface Card {
  card_number: string;
  cardholder_name: string;
  exp_month: number;
  exp_year: number;
  cvc: string;
}
/** The failures a sandbox switch may arm (sandbox.armFailure.failures). */
export type ArmFailureKind = 'queryFailed' | 'orderCreationFailed' | 'refundSystemBusy' | 'refundFailed';
/**
 * Version 5: one way a sandbox causes a failure (sandbox.triggers.<kind>). Where the magic value goes, per kind: for
 * queryFailed, in the payment that is then queried (its number, amount, card, e-mail), or the header on the query; for
 * orderCreationFailed, in the payment's creation; for a refund kind, in the refund's creation (the refund's amount, its
 * number or the refunded payment's, its reason, the header), or in the refunded payment (its card, its e-mail).
 * `count`: how many requests carrying the value fail (per payment or refund), the sandbox then behaving normally;
 * absent, every one does.
 */
export type FailureTrigger =
  /** The switch sandbox.armFailure (its failures.<kind>). */
  | { way: 'control' }
  /** An exact amount, e.g. "5.02". */
  | { way: 'amount'; value: string; count?: number }
  /** The end of the amount written with two decimals: ".91" or "91" (7.91, 0.91), "5" (1.05, 3.25). */
  | { way: 'amountEnding'; value: string; count?: number }
  /** A prefix or suffix of a number the merchant chooses, e.g. "QF-" of merchantOrderNo. */
  | { way: 'numberPrefix' | 'numberSuffix'; number: 'merchantOrderNo' | 'merchantRefundNo'; value: string; count?: number }
  /** A card number the payment is made with. */
  | { way: 'card'; value: string; count?: number }
  /** An e-mail address at `field` of the payment's creation body (dotted, default billing_address.email). */
  | { way: 'email'; value: string; field?: string; count?: number }
  /** A refund reason (refunds.failingReason is the same way for refundFailed). */
  | { way: 'reason'; value: string; count?: number }
  /** A request header with a value, e.g. X-Mock-Response: BUSY. */
  | { way: 'header'; name: string; value: string; count?: number };
export type TriggerWay = FailureTrigger['way'];
/** One value (the `failure` variable) or, version 3, several named ones (each key a template variable). */
export type ArmFailureValue = string | Record<string, string>;
/** Version 5: a record that ends by itself after a delay the vendor documents (profile `sandbox.autoSettle`). */
export interface AutoSettle {
  /** Milliseconds on the wall clock from the record's creation; it may end any time after (never before). */
  afterMs: number;
  /** The status it ends in. */
  status: 'SUCCESS' | 'FAILED';
}

export interface Control {
  path: string;
  template: Record<string, unknown>;
}

/** Version 5: the extra parameters of each query, by the query (harness/profile/query-params.ts). */
export interface QueryParams {
  payment?: Record<string, unknown>;
  refund?: Record<string, unknown>;
  payout?: Record<string, unknown>;
}

/** The strings the kit chooses whose longest accepted length a profile may say (harness/profile/lengths.ts). */
export type LengthField =
  | 'merchantOrderNo'
  | 'merchantRefundNo'
  | 'merchantPayoutNo'
  | 'goodsName'
  | 'description'
  | 'metadata'
  | 'reason'
  | 'payee'
  | 'email';

/** Version 5: the longest accepted string per field (characters) and the largest accepted body (bytes). */
export interface Lengths {
  maxLength?: Partial<Record<LengthField, number>>;
  maxBodyBytes?: number;
}
