/**
 * Reading a target's own words: the internal field names its invalidRequest messages use, the paths of
 * values in its answers, and request bodies completed field by field from what it says is missing.
 */
import type { Answer, Prober } from './prober.js';
import { valueOfCents } from '../facts/money.js';

/** Case, underscores, dots and dashes removed: `TradeInfo.GoodsName` and `trade_info.goods_name` meet. */
export function normalizeName(s: string): string {
  return s.toLowerCase().replace(/[_.\-\s]/g, '');
}

const STOP_WORDS = new Set([
  'field',
  'fields',
  'the',
  'is',
  'required',
  'missing',
  'must',
  'be',
  'a',
  'an',
  'parameter',
  'invalid',
  'unknown',
  'in',
  'of',
  'string',
  'integer',
  'object',
  'number',
  'not',
  'and',
  'or',
  'value',
  'request',
  'body',
  'longer',
  'than',
  'characters',
  'format',
  'type',
  'wrong',
]);

/** Field-like tokens of a message, quoted ones first. */
export function fieldTokens(message: string): string[] {
  const quoted = [...message.matchAll(/["'`]([A-Za-z][\w.]*)["'`]/g)].map((m) => m[1]!);
  const bare = message.split(/[\s"'`:,()[\]{}]+/).filter((t) => /^[A-Za-z][\w.]*[A-Za-z0-9]$/.test(t) && !STOP_WORDS.has(t.toLowerCase()));
  return [...new Set([...quoted, ...bare])];
}

/** The token of `message` that names `snakePath` in the target's own spelling, if any. */
export function internalNameIn(message: string, snakePath: string): string | undefined {
  const want = normalizeName(snakePath);
  return fieldTokens(message).find((t) => normalizeName(t) === want);
}

/** `TradeInfo.GoodsName` → `trade_info.goods_name`, `NotifyURL` → `notify_url`; snake names unchanged. */
export function snakeOf(internal: string): string {
  return internal
    .split('.')
    .map((part) => (part.match(/[A-Z]+(?![a-z])|[A-Z]?[a-z0-9]+/g) ?? [part]).map((w) => w.toLowerCase()).join('_'))
    .join('.');
}

/** Every value in `data` with its dotted path, objects included (an Amount is one value). */
export function entries(data: unknown, prefix = ''): [string, unknown][] {
  if (data === null || typeof data !== 'object' || Array.isArray(data)) return [];
  const out: [string, unknown][] = [];
  for (const [k, v] of Object.entries(data as Record<string, unknown>)) {
    const p = prefix ? `${prefix}.${k}` : k;
    out.push([p, v]);
    out.push(...entries(v, p));
  }
  return out;
}

export function getPath(data: unknown, path: string): unknown {
  let cur = data;
  for (const k of path.split('.')) {
    if (cur === null || typeof cur !== 'object') return undefined;
    cur = (cur as Record<string, unknown>)[k];
  }
  return cur;
}

export function setPath(body: Record<string, unknown>, path: string, value: unknown): void {
  const keys = path.split('.');
  let cur = body;
  for (const k of keys.slice(0, -1)) {
    if (cur[k] === null || typeof cur[k] !== 'object') cur[k] = {};
    cur = cur[k] as Record<string, unknown>;
  }
  cur[keys[keys.length - 1]!] = value;
}

export function deletePath(body: Record<string, unknown>, path: string): void {
  const keys = path.split('.');
  let cur: unknown = body;
  for (const k of keys.slice(0, -1)) cur = (cur as Record<string, unknown>)?.[k];
  if (cur && typeof cur === 'object') delete (cur as Record<string, unknown>)[keys[keys.length - 1]!];
}

/** Paths whose value equals `want` (deep, for Amount objects), status-like keys first. */
export function pathsOf(data: unknown, want: unknown): string[] {
  const s = JSON.stringify(want);
  return entries(data)
    .filter(([, v]) => JSON.stringify(v) === s)
    .map(([p]) => p);
}

/** An amount object as the document writes it. */
export function amount(cents: bigint, currency = 'USD'): { currency: string; value: string } {
  return { currency, value: valueOfCents(cents) };
}

export function isRequiredMessage(a: Answer): boolean {
  return (
    a.envelope &&
    a.code === 400 &&
    a.key === 'invalidRequest' &&
    /required|missing|must be (sent|present|provided)|cannot be (empty|blank)/i.test(a.message ?? '')
  );
}

/** A plausible value for a request field the target says is required, by its snake name. */
export type FieldFiller = (snakePath: string) => unknown;

export interface Completed {
  body: Record<string, unknown>;
  answer: Answer;
  /** Fields added because the target named them as required, in order. */
  added: string[];
  /** snake path → the target's internal name, from the messages read. */
  internal: Record<string, string>;
}

/**
 * Sends `body`, and while the target answers "field X is required", adds X (its snake form) with a value
 * from `fill` and sends again, at most `rounds` times. `fresh` renews the merchant number before each send.
 */
export async function completeBody(
  p: Prober,
  path: string,
  body: Record<string, unknown>,
  fill: FieldFiller,
  fresh: (body: Record<string, unknown>) => void,
  rounds = 24,
): Promise<Completed> {
  const added: string[] = [];
  const internal: Record<string, string> = {};
  const retyped = new Set<string>();
  let answer: Answer = { envelope: false };
  for (let i = 0; i <= rounds; i++) {
    fresh(body);
    answer = await p.post(path, body);
    if (answer.key !== 'invalidRequest') break;
    const token = fieldTokens(answer.message ?? '')[0];
    if (!token) break;
    const snake = snakeOf(token);
    if (isRequiredMessage(answer)) {
      // Asked again for a field we gave as text: the target wants an object there (a payee, a beneficiary), whose own
      // fields it then asks for one by one. Once only: asked again for the object, the body cannot be completed.
      const given = getPath(body, snake);
      if (added.includes(snake) && given !== null && typeof given !== 'object' && !retyped.has(snake)) {
        retyped.add(snake);
        setPath(body, snake, {});
        continue;
      }
      if (given !== undefined || added.includes(snake)) break;
      internal[snake] = token;
      added.push(snake);
      setPath(body, snake, fill(snake));
      continue;
    }
    // A field we added with a guessed type: the target says which type it wants.
    const retype = /must be an? object/i.test(answer.message ?? '')
      ? {}
      : /must be an? (integer|number)/i.test(answer.message ?? '')
        ? 1
        : undefined;
    if (retype === undefined || !added.includes(snake) || JSON.stringify(getPath(body, snake)) === JSON.stringify(retype)) break;
    setPath(body, snake, retype);
  }
  return { body, answer, added, internal };
}

/** Default values for fields a target asks for, chosen so a sandbox accepts them. */
/**
 * The goods name init's payments carry: short, as a target may accept goods names only a few characters long (a
 * profile's lengths.maxLength.goodsName is the target's to say; init has not read it when it first pays).
 */
export const PROBE_GOODS_NAME = 'init';

export function defaultFiller(notifyUrl: string, amountValue: () => unknown): FieldFiller {
  return (snake) => {
    const leaf = snake.split('.').pop()!;
    if (leaf === 'notify_url' || leaf === 'callback_url' || leaf === 'webhook_url') return notifyUrl;
    if (leaf.endsWith('_url') || leaf === 'url') return 'https://merchant.invalid/return';
    if (leaf.endsWith('amount')) return amountValue();
    if (leaf === 'currency') return 'USD';
    if (leaf === 'email') return 'init@merchant.invalid';
    if (leaf === 'country') return 'US';
    if (leaf === 'phone') return '+15550100';
    if (leaf.endsWith('_ip') || leaf === 'ip') return '203.0.113.7';
    if (leaf === 'account' || leaf.endsWith('_account')) return 'US00INIT0000000001';
    if (leaf.endsWith('name')) return 'Init Probe';
    if (leaf === 'reason' || leaf === 'description') return 'init probe';
    return 'init';
  };
}

/** A profile template variable, "${name}" (written so, not as a literal, to keep it apart from JS templates). */
export function variable(name: string): string {
  return '$' + '{' + name + '}';
}
