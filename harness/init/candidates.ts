/**
 * What `init` tries, as data: the shapes real services give their endpoints, the payment method names
 * in common use, the test cards every card sandbox publishes. Add a row here, not a branch in code.
 */
import type { EndpointName } from '../target.js';

/** Prefixes tried in order; the document's own (`/api/v1`) first, the others only when it finds nothing. */
export const PATH_PREFIXES = ['/api/v1', '/v1', '/api', ''] as const;

/** Per endpoint, resource paths after the prefix, most common first. The first that answers wins. */
export const ENDPOINT_CANDIDATES: Record<Exclude<EndpointName, 'checkout' | 'paymentQuery'>, string[]> = {
  cardPayment: [
    '/payments/card',
    '/payments/card/create',
    '/payments/cards',
    '/payments/direct',
    '/payments/create',
    '/card/payments',
    '/cards/pay',
    '/payments/card-payment',
    '/payments/pay',
  ],
  refundCreate: [
    '/refunds/create',
    '/refunds',
    '/refund/create',
    '/refunds/apply',
    '/payments/refund',
    '/payments/refunds/create',
    '/refunds/submit',
  ],
  refundQuery: ['/refunds/query', '/refund/query', '/refunds/get', '/refunds/detail', '/payments/refunds/query'],
  payoutCreate: [
    '/payouts/create',
    '/payouts',
    '/payout/create',
    '/payouts/apply',
    '/payouts/submit',
    '/payouts/initiate',
    '/transfers/create',
    '/disbursements/create',
  ],
  payoutQuery: ['/payouts/query', '/payout/query', '/payouts/get', '/payouts/detail', '/transfers/query', '/disbursements/query'],
  payoutCancel: ['/payouts/cancel', '/payout/cancel', '/payouts/void', '/payouts/revoke', '/transfers/cancel', '/disbursements/cancel'],
};

/**
 * Creation paths carrying the merchant's own number (`/payouts/{merchant_payout_no}/submit`), after the prefix: tried only
 * when no fixed shape answered, and written only once a record init created there was served (served.ts).
 */
export const NUMBERED_CANDIDATES: Partial<Record<keyof typeof ENDPOINT_CANDIDATES, string[]>> = {
  cardPayment: ['/payments/{merchant_order_no}/card', '/payments/card/{merchant_order_no}', '/payments/{merchant_order_no}/pay'],
  payoutCreate: ['/payouts/{merchant_payout_no}/submit', '/payouts/{merchant_payout_no}/create', '/payouts/{merchant_payout_no}'],
};

/** The two paths INTERFACE.md gives (Endpoints). */
export const DOCUMENT_PATHS = { checkout: '/api/v1/payments/checkout', paymentQuery: '/api/v1/payments/query' } as const;

/** Payment method names tried for checkout and payouts (the document names CARD, PAYPAL, CASH_APP, Apple Pay, Google Pay). */
export const METHOD_CANDIDATES = [
  'CARD',
  'PAYPAL',
  'CASH_APP',
  'APPLE_PAY',
  'GOOGLE_PAY',
  'KLARNA',
  'BANK_TRANSFER',
  'VENMO',
  'AFTERPAY',
  'AFFIRM',
  'ALIPAY',
  'WECHAT_PAY',
  'SEPA',
  'IDEAL',
  'ACH',
  'ZELLE',
  'AMAZON_PAY',
  'SAMSUNG_PAY',
  'CRYPTO',
  'PIX',
];

/** A merchant id no service issues: merchants.unknownId once the target answers it merchantNotFound. */
export const UNKNOWN_MERCHANT_ID = 'INIT_NO_SUCH_MERCHANT_ZZ';

/** A name no service uses: what an unknown method is answered with. */
export const UNKNOWN_METHOD = 'INIT_NO_SUCH_METHOD_ZZ';

/** Published test card numbers that charge successfully in common sandboxes, tried in order. */
export const SUCCESS_CARD_CANDIDATES = ['4242424242424242', '4111111111111111', '5555555555554444'];

/**
 * Published sandbox card numbers with other outcomes (card networks' and large providers' test lists):
 * each is tried and classified by the answer's key and message, never assumed.
 */
export const OTHER_CARD_CANDIDATES = [
  '4000000000000002',
  // More published decline numbers (expired card, incorrect CVC, declined after attaching): a sandbox may decline several.
  '4000000000000069',
  '4000000000000127',
  '4000000000000341',
  '4000000000009995',
  '4000000000009235',
  '4100000000000019',
  '4000000000000119',
  '4000000000003220',
  '4000002500003155',
];

/**
 * Request fields the document names whose internal names `init` reads from invalidRequest messages:
 * those the checks read (payment_method, merchant_order_no, order_no, trade_info, trade_info.goods_name)
 * and the other checkout fields, as documentation. order_no is a payment query field.
 */
export const INTERNAL_NAME_FIELDS = [
  'payment_method',
  'merchant_order_no',
  'trans_amount',
  'trans_amount.value',
  'trans_amount.currency',
  'trade_info',
  'trade_info.goods_name',
  'notify_url',
  'return_url',
] as const;
export const QUERY_INTERNAL_NAME_FIELDS = ['order_no'] as const;

/** Where a created record's fields are likely found, best first (the webhook body's names lead). */
export const STATUS_KEYS = ['status', 'state', 'order_status', 'payment_status', 'trade_status', 'refund_status', 'payout_status'];

/**
 * Amount probes for a method whose limits are unknown: one of these is inside most channels. Odd cents,
 * so no price point tier is asked exactly (a tier asked is charged as is and looks like a plain method).
 */
export const FIRST_AMOUNTS_CENTS = [1037n, 137n, 10037n, 203n, 1n, 100037n];

/** Bounds of every bisection: one cent to ten million dollars. */
export const MAX_AMOUNT_CENTS = 1_000_000_000n;
