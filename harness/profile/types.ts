/**
 * A target profile: everything a run needs to know about one implementation, above all the
 * choices it made where INTERFACE.md says "not shown". Suites never guess these; a missing
 * section means the capability is not declared and its checks are skipped with a precondition.
 *
 * Templates: in a request template, a string that is exactly "${name}" is replaced by the
 * value of `name` (any JSON type, e.g. an Amount object); "${name}" inside a longer string is
 * replaced by its text. Paths into response data are dotted ("data.order_no" is written "order_no").
 */
export interface Profile {
  /** Free-form name shown in reports, e.g. "acme-sandbox". */
  name: string;
  description?: string;
  /** Base URL without trailing slash, or "embedded" for the reference started by the kit. */
  baseUrl: string;
  /** "sandbox" or "production": production-safe runs refuse anything that moves money. */
  environment: 'sandbox' | 'production';
  merchants: {
    primary: MerchantRef;
    /** Another active merchant: access-control checks need it. */
    second?: MerchantRef;
    /** A disabled merchant: merchantFrozen checks need it. */
    frozen?: MerchantRef;
    /** A merchant whose balances are too small: insufficientFunds and refund-balance checks need it. */
    lowBalance?: MerchantRef & { payoutBalance?: string; refundBalance?: string };
    /** An id the target does not know. */
    unknownId: string;
  };
  http?: { deadlineMs?: number; maxResponseBytes?: number; concurrency?: number };
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
  };
  /** Channel limits, USD, inclusive, as decimal strings. */
  limits?: {
    payments?: Record<string, { min: string; max: string }>;
    payouts?: Record<string, { min: string; max: string }>;
  };
  pricePoints?: {
    tiers: string[];
    /** How an amount between tiers is rounded; "up" = smallest tier >= amount. */
    rounding: 'up' | 'down' | 'nearest';
    /** Amounts that cannot be rounded to any tier. */
    unroundable: string[];
  };
  checkout?: {
    /** Extra fields sent with every checkout (beside the four the interface requires). */
    extras?: Record<string, unknown>;
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
    cards: { success: Card; decline?: Card; risk?: Card; invalid?: Card; noChannel?: Card };
    data: { orderNo: string; status?: string };
  };
  refunds?: {
    /** Variables: refundNo, orderNo, merchantOrderNo, amount, reason. */
    template: Record<string, unknown>;
    /** Per payment method: none, full (full refunds only) or partial. */
    support: Record<string, 'none' | 'full' | 'partial'>;
    /** Query field names: the refund's service number and merchant number. */
    queryBy: { serviceNo: string; merchantNo: string };
    data: { refundNo: string; status: string; amount?: string };
    /** A reason that makes the sandbox record the refund as failed (refundFailed). */
    failingReason?: string;
    /** Fee added to the refund when checking the merchant balance. */
    fee?: string;
  };
  payouts?: {
    /** Variables: payoutNo, method, amount, notifyUrl. */
    template: Record<string, unknown>;
    methods: Record<string, { cancel: boolean; usdOnly?: boolean }>;
    /** A payment method that exists but is not available for payouts (5007 unsupportedPayoutMethod). */
    notForPayouts?: string;
    queryBy: { serviceNo: string; merchantNo: string };
    cancelBy: { serviceNo: string; merchantNo: string };
    data: { payoutNo: string; status: string };
    balances?: { primary?: string };
  };
  /** Sandbox controls that stand in for the customer, the provider, the bank. */
  sandbox?: {
    /** Variables: orderNo, merchantOrderNo, outcome. */
    completeCheckout?: Control & { outcomes: { success: string; failed: string } };
    chargeback?: Control;
    expireCheckout?: Control;
    /** Variables: refundNo, merchantRefundNo, outcome. */
    settleRefund?: Control & { outcomes: { success: string; failed: string } };
    /** Variables: payoutNo, merchantPayoutNo, outcome. */
    settlePayout?: Control & { outcomes: { success: string; failed: string } };
  };
  webhooks?: {
    receiver?: { host?: string; port?: number; publicUrl?: string };
    /** Target's clock ratio: 0.001 means one interface-second lasts 1 ms. */
    timeScale: number;
    /** Effective ack limit of the target after scaling, in ms. */
    ackTimeoutMs: number;
    /** How long to wait for an event that must come (and to be sure one that must not come does not), ms. */
    deliveryWaitMs: number;
    /** Relative tolerance when comparing waits with the interface's "about" figures. */
    tolerance: number;
    /** Absolute allowance, ms, on each measured wait for timer and network delays (default 250). */
    jitterMs?: number;
  };
}

export type MerchantRef = { id: string; secret?: string; secretEnv?: string };
export interface Card {
  card_number: string;
  cardholder_name: string;
  exp_month: number;
  exp_year: number;
  cvc: string;
}
export interface Control {
  path: string;
  template: Record<string, unknown>;
}
