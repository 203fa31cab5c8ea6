/**
 * The lengths a profile says (version 5, `lengths`): "Maximum lengths of string fields and maximum request body size: not
 * shown." A length said is the longest value the target accepts, and the kit never sends a longer one (`fitLength`,
 * `fitNumber`). A length unsaid is an unknown like any other: a refusal (invalidRequest, validationFailed) that names a
 * field the request carried whose length is unsaid, or that speaks of a length, may be the target's limit and is no
 * verdict (`unsaidLengthRefusal`); the check is skipped naming the field, and the doctor calls nothing WRONG on it.
 */
import type { LengthField, Profile } from './types.js';

export const LENGTH_FIELDS: readonly LengthField[] = [
  'merchantOrderNo',
  'merchantRefundNo',
  'merchantPayoutNo',
  'goodsName',
  'description',
  'metadata',
  'reason',
  'payee',
  'email',
];

/** The longest value of `field` the target accepts, as the profile says it (undefined: unsaid). */
export function maxLengthOf(profile: Pick<Profile, 'lengths'>, field: LengthField): number | undefined {
  return profile.lengths?.maxLength?.[field];
}

/** `text` cut to the field's said length (whole code points); unchanged where the length is unsaid or not reached. */
export function fitLength(profile: Pick<Profile, 'lengths'>, field: LengthField, text: string): string {
  const max = maxLengthOf(profile, field);
  if (max === undefined || text.length <= max) return text;
  let out = '';
  for (const ch of text) {
    if (out.length + ch.length > max) break;
    out += ch;
  }
  return out;
}

/**
 * A merchant number within the said lengths of `fields` (the shortest of them): the run's prefix loses characters from its
 * front (after its lead letter) so the tag and the counter, which keep numbers of one run apart, stay whole.
 */
export function fitNumber(profile: Pick<Profile, 'lengths'>, fields: readonly LengthField[], prefix: string, rest: string): string {
  const said = fields.map((f) => maxLengthOf(profile, f)).filter((n): n is number => n !== undefined);
  const max = said.length > 0 ? Math.min(...said) : undefined;
  const whole = `${prefix}${rest}`;
  if (max === undefined || whole.length <= max) return whole;
  const keep = Math.max(0, max - rest.length - 1);
  return `${prefix.slice(0, 1)}${keep > 0 ? prefix.slice(-keep) : ''}${rest}`.slice(-max);
}

/** One string field a request carried whose length the profile leaves unsaid, with the names a message may call it by. */
export interface UnsaidLength {
  /** A LengthField, or 'maxBodyBytes'. */
  readonly field: string;
  readonly names: readonly string[];
}

const FIXED_KEYS: Readonly<Record<string, LengthField>> = {
  merchant_order_no: 'merchantOrderNo',
  original_merchant_order_no: 'merchantOrderNo',
  merchant_refund_no: 'merchantRefundNo',
  merchant_payout_no: 'merchantPayoutNo',
  goods_name: 'goodsName',
  description: 'description',
  metadata: 'metadata',
  reason: 'reason',
  email: 'email',
  payee: 'payee',
};

/** The keys of the profile's refund and payout templates that carry a field the kit chooses, by their variable. */
function templateKeys(profile: Profile): Map<string, LengthField> {
  const byVariable: Readonly<Record<string, LengthField>> = {
    [`\${merchantRefundNo}`]: 'merchantRefundNo',
    [`\${merchantPayoutNo}`]: 'merchantPayoutNo',
    [`\${payoutNo}`]: 'merchantPayoutNo',
    [`\${refundNo}`]: 'merchantRefundNo',
    [`\${reason}`]: 'reason',
    [`\${payee}`]: 'payee',
    [`\${merchantOrderNo}`]: 'merchantOrderNo',
  };
  const out = new Map<string, LengthField>();
  for (const template of [profile.refunds?.template, profile.payouts?.template])
    for (const [k, v] of Object.entries(template ?? {})) if (typeof v === 'string' && byVariable[v]) out.set(k, byVariable[v]!);
  return out;
}

/** The unsaid lengths of the strings a request body carries (none when the profile says them all). */
export function unsaidLengthsOf(profile: Profile, body: Buffer): UnsaidLength[] {
  let parsed: unknown;
  try {
    parsed = JSON.parse(body.toString('utf8'));
  } catch {
    return [];
  }
  const keys = templateKeys(profile);
  const internal = (profile.internalFieldNames ?? {}) as Record<string, string>;
  const found = new Map<string, Set<string>>();
  const walk = (node: unknown, path: string[], inherited?: LengthField): void => {
    if (typeof node === 'string') {
      const key = path[path.length - 1] ?? '';
      const field = keys.get(key) ?? FIXED_KEYS[key] ?? inherited;
      if (field === undefined || maxLengthOf(profile, field) !== undefined) return;
      const names = found.get(field) ?? new Set<string>();
      names.add(key);
      const dotted = path.join('.');
      if (internal[dotted]) names.add(internal[dotted]!);
      if (internal[key]) names.add(internal[key]!);
      found.set(field, names);
      return;
    }
    if (node && typeof node === 'object')
      for (const [k, v] of Object.entries(node)) {
        const field = keys.get(k) ?? FIXED_KEYS[k];
        walk(v, [...path, k], field === 'payee' ? 'payee' : inherited);
      }
  };
  walk(parsed, []);
  const out: UnsaidLength[] = [...found].map(([field, names]) => ({ field, names: [...names] }));
  if (profile.lengths?.maxBodyBytes === undefined) out.push({ field: 'maxBodyBytes', names: [] });
  return out;
}

const normal = (s: string): string => s.toLowerCase().replace(/[^a-z0-9]/g, '');
/** Words a message uses for a length or a size refused. */
const LENGTH_WORDS = /\b(too long|longer|length|too large|larger|size|characters|exceeds? (the )?max)/i;
const LENGTH_KEYS = new Set(['invalidRequest', 'validationFailed']);

/**
 * The unsaid lengths a refusal may be about: the refusal is one the document gives a field's value (invalidRequest,
 * validationFailed), and its message names a carried field whose length is unsaid, or speaks of a length or a size
 * (then every unsaid one). Empty: the refusal is not explained by an unsaid length.
 */
export function unsaidLengthRefusal(unsaid: readonly UnsaidLength[] | undefined, key: unknown, msg: unknown): UnsaidLength[] {
  if (!unsaid || unsaid.length === 0 || typeof key !== 'string' || !LENGTH_KEYS.has(key) || typeof msg !== 'string') return [];
  const text = msg.slice(0, Math.max(0, msg.lastIndexOf('|')) || msg.length);
  const flat = normal(text);
  const named = unsaid.filter((u) => u.names.some((n) => normal(n).length > 0 && flat.includes(normal(n))));
  const strings = named.filter((u) => u.field !== 'maxBodyBytes');
  if (strings.length > 0) return strings;
  return LENGTH_WORDS.test(text) ? [...unsaid] : [];
}

/** The profile fields a skip names for these unsaid lengths. */
export function lengthFieldsNamed(unsaid: readonly UnsaidLength[]): string[] {
  return unsaid.map((u) => (u.field === 'maxBodyBytes' ? 'lengths.maxBodyBytes' : `lengths.maxLength.${u.field}`));
}
