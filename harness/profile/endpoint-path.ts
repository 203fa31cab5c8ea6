/**
 * Endpoint path templates (profile version 4). The document leaves every path but two "not shown", and a service may
 * put the number of the resource a request is about into its path, OpenAPI style: `POST /api/v1/payouts/{payout_no}/cancel`
 * with body `{}`, `POST /api/v1/payments/{order_no}/refunds`. A path of `endpoints` may carry these placeholders; each is
 * filled, URL-encoded, with that number of the request's own resource. Which numbers a request of each endpoint knows
 * is fixed here, so the loader can refuse a placeholder an endpoint can never fill (`{payout_no}` in refundCreate).
 */

/** The numbers a path may carry, by the document's own field names. */
export const PATH_NUMBERS = [
  'order_no',
  'merchant_order_no',
  'refund_no',
  'merchant_refund_no',
  'payout_no',
  'merchant_payout_no',
] as const;
export type PathNumber = (typeof PATH_NUMBERS)[number];
/** Values for a request's placeholders; a number the request does not have is absent. */
export type PathNumbers = Partial<Record<PathNumber, unknown>>;

/** The endpoints of a profile (`endpoints.*`). */
export type EndpointKey =
  | 'paymentQuery'
  | 'checkout'
  | 'cardPayment'
  | 'refundCreate'
  | 'refundQuery'
  | 'payoutCreate'
  | 'payoutQuery'
  | 'payoutCancel';

/**
 * The numbers a request of each endpoint is about: a creation knows the merchant's own number (the service's does not
 * exist yet), a refund knows its payment's numbers too, a lookup knows the record's two numbers.
 */
export const FILLABLE: Readonly<Record<EndpointKey, readonly PathNumber[]>> = {
  paymentQuery: ['order_no', 'merchant_order_no'],
  checkout: ['merchant_order_no'],
  cardPayment: ['merchant_order_no'],
  refundCreate: ['order_no', 'merchant_order_no', 'merchant_refund_no'],
  refundQuery: ['refund_no', 'merchant_refund_no'],
  payoutCreate: ['merchant_payout_no'],
  payoutQuery: ['payout_no', 'merchant_payout_no'],
  payoutCancel: ['payout_no', 'merchant_payout_no'],
};

const PLACEHOLDER = /\{([^{}]*)\}/g;

/** The placeholder names in a path, in order (repeats kept), whatever they are. */
export function placeholdersIn(path: string): string[] {
  return [...path.matchAll(PLACEHOLDER)].map((m) => m[1]!);
}

/** The numbers a path carries (its known placeholders). */
export function carriedBy(path: string | undefined): ReadonlySet<PathNumber> {
  if (path === undefined) return new Set();
  return new Set(placeholdersIn(path).filter((n): n is PathNumber => (PATH_NUMBERS as readonly string[]).includes(n)));
}

/** Whether a path carries any placeholder. */
export const isTemplated = (path: string | undefined): boolean => path !== undefined && carriedBy(path).size > 0;

/** Problems of one endpoint's path: an unknown placeholder, one the endpoint cannot fill, a brace left open. */
export function pathTemplateProblems(endpoint: EndpointKey, path: string): string[] {
  const out: string[] = [];
  const at = `endpoints.${endpoint}`;
  for (const name of placeholdersIn(path)) {
    if (!(PATH_NUMBERS as readonly string[]).includes(name))
      out.push(`${at}: {${name.slice(0, 40)}} is not a placeholder a path may carry (${PATH_NUMBERS.map((n) => `{${n}}`).join(', ')})`);
    else if (!FILLABLE[endpoint].includes(name as PathNumber))
      out.push(
        `${at}: {${name}} cannot be filled there: a ${endpoint} request is ` +
          `about ${FILLABLE[endpoint].map((n) => `{${n}}`).join(', ')} only`,
      );
  }
  if (/[{}]/.test(path.replace(PLACEHOLDER, ''))) out.push(`${at}: a "{" or "}" outside a placeholder {name}`);
  if (/\$\{/.test(path)) out.push(`${at}: "\${…}" is a body template variable; a path carries {order_no}-style placeholders`);
  return out;
}

/** A filled path, or the placeholders this request has no number for. */
export type Filled = { path: string } | { missing: PathNumber[] };

/** Fills each placeholder with its number, URL-encoded; a number absent or not a non-empty string is missing. */
export function fillPath(path: string, numbers: PathNumbers): Filled {
  const missing: PathNumber[] = [];
  const out = path.replace(PLACEHOLDER, (whole, name: string) => {
    const v = numbers[name as PathNumber];
    if (typeof v === 'string' && v !== '') return encodeURIComponent(v);
    if (!missing.includes(name as PathNumber)) missing.push(name as PathNumber);
    return whole;
  });
  return missing.length > 0 ? { missing } : { path: out };
}

/**
 * The path of a request about these numbers: a templated path filled with them, a fixed one as it is; undefined when
 * the template needs a number the request does not have.
 */
export function pathFor(path: string, numbers: PathNumbers): string | undefined {
  const f = fillPath(path, numbers);
  return 'path' in f ? f.path : undefined;
}

/** A path filled with any numbers: each placeholder's own `make()` value (probes about numbers nobody used). */
export function fillWithAny(path: string, make: (n: PathNumber) => string): string {
  return path.replace(PLACEHOLDER, (_, name: string) => encodeURIComponent(make(name as PathNumber)));
}

/** Whether a concrete request path is the template's (each placeholder one non-empty segment part). */
export function matchesTemplate(template: string, concrete: string): boolean {
  if (!isTemplated(template)) return template === concrete;
  const parts = template.split(PLACEHOLDER);
  // split with one capture group: even indexes are literal text, odd ones placeholder names.
  const source = parts.map((p, i) => (i % 2 === 0 ? p.replace(/[.*+?^$()|[\]\\]/g, '\\$&') : '[^/]+')).join('');
  return new RegExp(`^${source}$`).test(concrete);
}
