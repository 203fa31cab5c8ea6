/**
 * The bytes a client could have signed, reproduced from the bytes it sent: the same JSON written by
 * the serialisers merchants use. A family is one combination of five dimensions, each value one
 * that some real serialiser produces — layout (separators, indentation), a trailing newline, key
 * order at every depth, string escaping, number forms — and the search walks the combinations with
 * the fewest changes from what was sent first, within a bound of work (bytes read and written, not
 * wall time: the same body gets the same diagnosis on a loaded machine), so a large body costs the
 * sandbox a bounded pause. What differs from the sent bytes is returned as data
 * (`Reserialisation`); its words are made by `reserialisationText`, at the edge.
 */
import { type JsonNode, type JsonString, parseJsonText } from './json-text.js';

/**
 * Separators and indentation:
 * - `compact`: `,` and `:` (JSON.stringify, Go json.Marshal, PHP json_encode, Ruby to_json, Jackson, Gson, System.Text.Json);
 * - `python`: `, ` and `: ` (Python json.dumps without separators= or indent=);
 * - `indent-2`, `indent-4`, `indent-tab`: one entry a line, `": "` (JSON.stringify(v, null, n), Python indent=n, Ruby
 *   JSON.pretty_generate (2), PHP JSON_PRETTY_PRINT (4), Go json.MarshalIndent, Gson/Newtonsoft/System.Text.Json indented (2));
 * - `jackson`: Jackson's DefaultPrettyPrinter: 2 spaces, `" : "`, arrays on one line as `[ a, b ]`, empty `{ }` and `[ ]`.
 */
export type Layout = 'compact' | 'python' | 'indent-2' | 'indent-4' | 'indent-tab' | 'jackson';
export const LAYOUTS: readonly Layout[] = ['compact', 'python', 'indent-2', 'indent-4', 'indent-tab', 'jackson'];

/** Key order at every depth: as sent, sorted by code unit, reversed, or the document's tables' order. */
export type KeyOrder = 'sent' | 'sorted' | 'reversed' | 'document';

/**
 * String escaping, beyond `\"`, `\\` and control characters:
 * - `sent`: each string exactly as sent;
 * - `minimal`: nothing more (JSON.stringify, Ruby JSON.generate, Jackson, Newtonsoft, Python ensure_ascii=False);
 * - `ascii`: non-ASCII as `\u00e9`, lower-case, astral as surrogate pairs (Python ensure_ascii, the default; Ruby ascii_only);
 * - `ascii-upper`: the same in upper case (Jackson ESCAPE_NON_ASCII);
 * - `php`: `/` as `\/` and non-ASCII as `\u00e9` (PHP json_encode without flags);
 * - `php-slashes`: `\/` only (PHP json_encode with JSON_UNESCAPED_UNICODE);
 * - `go-html`: `<`, `>`, `&`, U+2028, U+2029 as `\u003c` `\u003e` `\u0026` `\u2028` `\u2029` (Go encoding/json, Rails to_json);
 * - `gson-html`: `<`, `>`, `&`, `=`, `'` as `\u003c` … `\u0027` (Gson without disableHtmlEscaping);
 * - `stj`: System.Text.Json's default encoder: non-ASCII and `<>&'"+` and backtick as `\u00E9` `\u003C` … `\u0022`, upper case.
 */
export type Escaping = 'sent' | 'minimal' | 'ascii' | 'ascii-upper' | 'php' | 'php-slashes' | 'go-html' | 'gson-html' | 'stj';
const ESCAPINGS: readonly Escaping[] = ['sent', 'minimal', 'ascii', 'php', 'php-slashes', 'go-html', 'gson-html', 'stj', 'ascii-upper'];

/**
 * Number forms: `sent`; `shortest` (JavaScript: 10.0 as 10, 1e-7); `point-zero` (every whole number as a float, 10 as 10.0:
 * Python float, PHP float, Jackson and Gson double); `python` (fractions and exponents as Python's repr: 1e-07, 1e+16);
 * `java` (as Java's Double.toString: 1.0E-7, 1.0E7).
 */
export type NumberForm = 'sent' | 'shortest' | 'point-zero' | 'python' | 'java';
const NUMBER_FORMS: readonly NumberForm[] = ['sent', 'shortest', 'point-zero', 'python', 'java'];

export interface Family {
  layout: Layout;
  newline: boolean;
  order: KeyOrder;
  escaping: Escaping;
  numbers: NumberForm;
}

/** What the signed bytes had that the sent ones did not: only the dimensions that differ (data; words by `reserialisationText`). */
export interface Reserialisation {
  layout?: Layout;
  /** True: the signed bytes end in a line feed the sent ones lack; false: the reverse. */
  newline?: boolean;
  order?: KeyOrder | 'top-level';
  escaping?: Exclude<Escaping, 'sent'>;
  numbers?: Exclude<NumberForm, 'sent'>;
}

/** The request fields in the order the document's tables list them, by the key that holds them ('' at the top). */
const DOCUMENT_ORDER: Readonly<Record<string, readonly string[]>> = {
  '': [
    'payment_method',
    'merchant_order_no',
    'order_no',
    'trans_amount',
    'notify_url',
    'return_url',
    'trade_info',
    'metadata',
    'card',
    'billing_address',
    'device_ip',
  ],
  trans_amount: ['currency', 'value'],
  trade_info: ['goods_name', 'description'],
  card: ['card_number', 'cardholder_name', 'exp_month', 'exp_year', 'cvc'],
  billing_address: ['country', 'first_name', 'last_name', 'email', 'phone', 'state', 'city', 'address', 'street_number', 'postal_code'],
};

type Entry = { key: JsonString; value: JsonNode };

function ordered(entries: Entry[], order: KeyOrder, parent: string): Entry[] {
  if (order === 'sent' || entries.length < 2) return entries;
  if (order === 'reversed') return [...entries].reverse();
  if (order === 'sorted') return [...entries].sort((a, b) => (a.key.value < b.key.value ? -1 : a.key.value > b.key.value ? 1 : 0));
  const known = parent.endsWith('amount') ? DOCUMENT_ORDER['trans_amount']! : (DOCUMENT_ORDER[parent] ?? []);
  const rank = (e: Entry) => {
    const r = known.indexOf(e.key.value);
    return r < 0 ? known.length : r;
  };
  return entries
    .map((e, i) => ({ e, i }))
    .sort((a, b) => rank(a.e) - rank(b.e) || a.i - b.i)
    .map((x) => x.e);
}

const hex4 = (n: number, upper: boolean) => {
  const h = n.toString(16).padStart(4, '0');
  return `\\u${upper ? h.toUpperCase() : h}`;
};
const SHORT: Readonly<Record<string, string>> = {
  '"': '\\"',
  '\\': '\\\\',
  '\b': '\\b',
  '\f': '\\f',
  '\n': '\\n',
  '\r': '\\r',
  '\t': '\\t',
};
const STJ = new Set(['<', '>', '&', "'", '"', '+', '`']);

/** The characters each escaping writes as an escape; the rest go as they are (a native scan, no loop per character). */
const ESCAPED: Readonly<Record<Exclude<Escaping, 'sent'>, RegExp>> = {
  minimal: /["\\\x00-\x1f]/g,
  ascii: /["\\\x00-\x1f\x7f-\uffff]/g,
  'ascii-upper': /["\\\x00-\x1f\x80-\uffff]/g,
  php: /["\\\x00-\x1f/\x80-\uffff]/g,
  'php-slashes': /["\\\x00-\x1f/]/g,
  'go-html': /["\\\x00-\x1f<>&\u2028\u2029]/g,
  'gson-html': /["\\\x00-\x1f<>&='\u2028\u2029]/g,
  stj: /["\\\x00-\x1f<>&'+`\x80-\uffff]/g,
};

function escaped(s: JsonString, e: Escaping): string {
  if (e === 'sent') return s.raw;
  const upper = e === 'stj' || e === 'ascii-upper';
  return s.value.replace(ESCAPED[e], (ch) => {
    if (e === 'stj' && STJ.has(ch)) return hex4(ch.charCodeAt(0), true);
    if (SHORT[ch]) return SHORT[ch];
    if (ch === '/') return '\\/';
    return hex4(ch.charCodeAt(0), upper);
  });
}

/** The shortest digits of a double and its decimal exponent: 1.5e-7 → ['15', -7]. */
function digitsOf(x: number): [string, number] {
  const [m, e] = x.toExponential().split('e') as [string, string];
  return [m.replace('.', '').replace('-', ''), Number(e)];
}

function fixed(digits: string, exp: number): string {
  if (exp < 0) return `0.${'0'.repeat(-exp - 1)}${digits}`;
  const int = digits.slice(0, exp + 1).padEnd(exp + 1, '0');
  const frac = digits.slice(exp + 1);
  return frac ? `${int}.${frac}` : int;
}

function number(raw: string, form: NumberForm): string {
  const whole = /^-?\d+$/.test(raw);
  if (form === 'sent') return raw;
  if (form === 'point-zero') return whole ? `${raw}.0` : raw;
  const x = Number(raw);
  if (form === 'shortest') return Number.isFinite(x) ? String(x) : raw;
  if (whole || !Number.isFinite(x) || x === 0) return raw;
  const sign = x < 0 ? '-' : '';
  const [d, exp] = digitsOf(x);
  if (form === 'python') {
    if (exp >= -4 && exp < 16) {
      const f = fixed(d, exp);
      return sign + (f.includes('.') ? f : `${f}.0`);
    }
    const m = d.length > 1 ? `${d[0]}.${d.slice(1)}` : d;
    return `${sign}${m}e${exp < 0 ? '-' : '+'}${String(Math.abs(exp)).padStart(2, '0')}`;
  }
  if (Math.abs(x) >= 1e-3 && Math.abs(x) < 1e7) {
    const f = fixed(d, exp);
    return sign + (f.includes('.') ? f : `${f}.0`);
  }
  return `${sign}${d[0]}.${d.slice(1) || '0'}E${exp}`;
}

/** The text of `node` written by a family. */
export function write(node: JsonNode, f: Family): string {
  const body = emit(node, f, 0, '');
  return f.newline ? `${body}\n` : body;
}

function emit(n: JsonNode, f: Family, depth: number, parent: string): string {
  switch (n.t) {
    case 'string':
      return `"${escaped(n.s, f.escaping)}"`;
    case 'number':
      return number(n.raw, f.numbers);
    case 'literal':
      return n.raw;
    case 'array': {
      if (!n.items.length) return f.layout === 'jackson' ? '[ ]' : '[]';
      if (f.layout === 'jackson') return `[ ${n.items.map((x) => emit(x, f, depth, parent)).join(', ')} ]`;
      const items = n.items.map((x) => emit(x, f, depth + 1, parent));
      return wrap('[', ']', items, f.layout, depth);
    }
    case 'object': {
      if (!n.entries.length) return f.layout === 'jackson' ? '{ }' : '{}';
      const colon = f.layout === 'compact' ? ':' : f.layout === 'jackson' ? ' : ' : ': ';
      const items = ordered(n.entries, f.order, parent).map(
        (e) => `"${escaped(e.key, f.escaping)}"${colon}${emit(e.value, f, depth + 1, e.key.value)}`,
      );
      return wrap('{', '}', items, f.layout, depth);
    }
  }
}

const UNIT: Readonly<Record<Layout, string>> = {
  compact: '',
  python: '',
  'indent-2': '  ',
  'indent-4': '    ',
  'indent-tab': '\t',
  jackson: '  ',
};

function wrap(open: string, close: string, items: string[], layout: Layout, depth: number): string {
  if (layout === 'compact') return `${open}${items.join(',')}${close}`;
  if (layout === 'python') return `${open}${items.join(', ')}${close}`;
  const unit = UNIT[layout];
  const inner = unit.repeat(depth + 1);
  return `${open}\n${inner}${items.join(`,\n${inner}`)}\n${unit.repeat(depth)}${close}`;
}

/** What the body holds that a dimension can change: a value that changes nothing here is not tried. */
interface Features {
  reorderable: boolean;
  nonAscii: boolean;
  slash: boolean;
  goHtml: boolean;
  gsonHtml: boolean;
  stj: boolean;
  escaped: boolean;
  numbers: boolean;
  wholeNumbers: boolean;
  fractions: boolean;
  containers: boolean;
}

function features(node: JsonNode): Features {
  const f: Features = {
    reorderable: false,
    nonAscii: false,
    slash: false,
    goHtml: false,
    gsonHtml: false,
    stj: false,
    escaped: false,
    numbers: false,
    wholeNumbers: false,
    fractions: false,
    containers: false,
  };
  const str = (s: JsonString) => {
    if (s.raw.includes('\\')) f.escaped = true;
    if (/[^\x00-\x7f]/.test(s.value)) f.nonAscii = true;
    if (s.value.includes('/')) f.slash = true;
    if (/[<>&\u2028\u2029]/.test(s.value)) f.goHtml = true;
    if (/[<>&='\u2028\u2029]/.test(s.value)) f.gsonHtml = true;
    if (/[<>&'"+`]/.test(s.value)) f.stj = true;
  };
  const visit = (n: JsonNode): void => {
    if (n.t === 'string') str(n.s);
    else if (n.t === 'number') {
      f.numbers = true;
      if (/^-?\d+$/.test(n.raw)) f.wholeNumbers = true;
      else f.fractions = true;
    } else if (n.t === 'array') {
      f.containers ||= n.items.length > 0;
      n.items.forEach(visit);
    } else if (n.t === 'object') {
      f.containers ||= n.entries.length > 0;
      if (n.entries.length > 1) f.reorderable = true;
      for (const e of n.entries) {
        str(e.key);
        visit(e.value);
      }
    }
  };
  visit(node);
  return f;
}

function worthTrying(f: Features): {
  layouts: readonly Layout[];
  orders: readonly KeyOrder[];
  escapings: readonly Escaping[];
  numbers: readonly NumberForm[];
} {
  const esc: Record<Escaping, boolean> = {
    sent: true,
    minimal: f.escaped,
    ascii: f.nonAscii,
    'ascii-upper': f.nonAscii,
    php: f.slash || f.nonAscii,
    'php-slashes': f.slash,
    'go-html': f.goHtml,
    'gson-html': f.gsonHtml,
    stj: f.stj || f.nonAscii,
  };
  return {
    layouts: f.containers ? LAYOUTS : ['compact'],
    orders: f.reorderable ? ['sent', 'sorted', 'document', 'reversed'] : ['sent'],
    escapings: ESCAPINGS.filter((e) => esc[e]),
    numbers: NUMBER_FORMS.filter(
      (n) =>
        n === 'sent' || (n === 'point-zero' && f.wholeNumbers) || (f.numbers && n === 'shortest') || (f.fractions && n !== 'point-zero'),
    ),
  };
}

/** The sent bytes' own layout, when one of the families writes them exactly. */
function sentLayout(node: JsonNode, text: string, newline: boolean): Layout | undefined {
  for (const layout of LAYOUTS)
    if (write(node, { layout, newline, order: 'sent', escaping: 'sent', numbers: 'sent' }) === text) return layout;
  return undefined;
}

/** One candidate for the signed bytes, and how it differs from the sent ones. */
export interface SignedCandidate {
  bytes: Buffer;
  differs: Reserialisation;
}

/** How far the search went: the families tried, of how many, and whether the bound cut it. */
export interface SearchExtent {
  tried: number;
  of: number;
  cut: boolean;
}

/** Bodies larger than this are not re-serialised at all (the byte-level variants still apply): reading one costs time in proportion. */
export const MAX_SEARCH_BYTES = 256 * 1024;

/** Most top-level keys whose every order is tried (7! = 5040 orders), in the sent layout; nested objects keep theirs. */
const MAX_PERMUTED_KEYS = 7;

/**
 * Bytes of re-serialised text the search may write for one request (the body's own reading counted):
 * every family of a request body of a kilobyte or two, a few dozen of one of a hundred kilobytes.
 */
export const SEARCH_BUDGET_BYTES = 2 * 1024 * 1024;

/**
 * Every family's bytes for the sent body, fewest changes first, then top-level key orders, until
 * `budget` bytes are written. `extent` is filled in as it goes.
 */
export function* signedCandidates(raw: Buffer, extent: SearchExtent, budget = SEARCH_BUDGET_BYTES): Generator<SignedCandidate> {
  if (raw.length > MAX_SEARCH_BYTES) return;
  let spent = raw.length * (LAYOUTS.length + 1);
  const text = raw.toString('utf8');
  const parsed = parseJsonText(text);
  if (!parsed) return;
  const { node, newline } = parsed;
  const sent = sentLayout(node, text, newline);
  const f = features(node);
  const dims = worthTrying(f);
  const families: { family: Family; differs: Reserialisation; cost: number }[] = [];
  for (const layout of dims.layouts)
    for (const nl of [newline, !newline])
      for (const order of dims.orders)
        for (const escaping of dims.escapings)
          for (const numbers of dims.numbers) {
            const differs: Reserialisation = {
              ...(layout !== sent ? { layout } : {}),
              ...(nl !== newline ? { newline: nl } : {}),
              ...(order !== 'sent' ? { order } : {}),
              ...(escaping !== 'sent' ? { escaping } : {}),
              ...(numbers !== 'sent' ? { numbers } : {}),
            };
            families.push({ family: { layout, newline: nl, order, escaping, numbers }, differs, cost: Object.keys(differs).length });
          }
  families.sort((a, b) => a.cost - b.cost);
  const permutations = node.t === 'object' && node.entries.length <= MAX_PERMUTED_KEYS ? factorial(node.entries.length) - 1 : 0;
  extent.of = families.length + permutations;
  const seen = new Set<string>([text]);
  for (const c of families) {
    if (spent > budget) {
      extent.cut = true;
      return;
    }
    extent.tried++;
    if (c.cost === 0) continue;
    const s = write(node, c.family);
    spent += s.length;
    if (seen.has(s)) continue;
    seen.add(s);
    yield { bytes: Buffer.from(s), differs: c.differs };
  }
  if (node.t !== 'object' || !permutations) return;
  const base: Family = { layout: sent ?? 'compact', newline, order: 'sent', escaping: 'sent', numbers: 'sent' };
  for (const entries of orders(node.entries)) {
    if (spent > budget) {
      extent.cut = true;
      return;
    }
    extent.tried++;
    const s = write({ t: 'object', entries }, base);
    spent += s.length;
    if (seen.has(s)) continue;
    seen.add(s);
    yield { bytes: Buffer.from(s), differs: { order: 'top-level', ...(sent ? {} : { layout: 'compact' }) } };
  }
}

const factorial = (n: number): number => (n <= 1 ? 1 : n * factorial(n - 1));

/** Every other order of a small object's entries, one at a time. */
function* orders(entries: Entry[]): Generator<Entry[]> {
  function* permute(rest: Entry[], acc: Entry[]): Generator<Entry[]> {
    if (!rest.length) {
      if (acc.some((e, i) => e !== entries[i])) yield acc;
      return;
    }
    for (const [i, e] of rest.entries()) yield* permute([...rest.slice(0, i), ...rest.slice(i + 1)], [...acc, e]);
  }
  yield* permute(entries, []);
}

const LAYOUT_TEXT: Readonly<Record<Layout, string>> = {
  compact: 'compact separators (JSON.stringify, Go json.Marshal, PHP json_encode, Ruby to_json, Jackson, Gson, System.Text.Json)',
  python: "Python json.dumps default separators (', ' and ': ')",
  'indent-2':
    '2-space indentation (JSON.stringify(v, null, 2), Python indent=2, Ruby JSON.pretty_generate, ' +
    'Go json.MarshalIndent, Gson, Newtonsoft or System.Text.Json indented)',
  'indent-4': '4-space indentation (PHP JSON_PRETTY_PRINT, Python indent=4, JSON.stringify(v, null, 4))',
  'indent-tab': 'tab indentation (Go json.MarshalIndent with "\\t", JSON.stringify(v, null, "\\t"))',
  jackson: "Jackson's default pretty printer (' : ', arrays on one line)",
};

const ORDER_TEXT: Readonly<Record<KeyOrder | 'top-level', string>> = {
  sent: 'keys as sent',
  sorted:
    'keys sorted at every depth (Python sort_keys=True, Go maps, Jackson SORT_PROPERTIES_ALPHABETICALLY or ' +
    'ORDER_MAP_ENTRIES_BY_KEYS, a canonicalising middleware)',
  reversed: 'keys in reverse order at every depth',
  document:
    "keys in the document's field order at every depth (a class declared in the tables' order, as Jackson, Gson or Go " +
    'structs write it; the bytes sent have them re-ordered, e.g. a map or a middleware)',
  'top-level': 'top-level keys in another order (keys re-ordered after signing)',
};

const ESCAPING_TEXT: Readonly<Record<Exclude<Escaping, 'sent'>, string>> = {
  minimal: 'strings without the escapes sent (JSON.stringify, Ruby JSON.generate, Jackson, Newtonsoft, Python ensure_ascii=False)',
  ascii: 'non-ASCII escaped as \\u00e9 (Python json.dumps ensure_ascii, Ruby ascii_only)',
  'ascii-upper': 'non-ASCII escaped as \\u00E9 (Jackson ESCAPE_NON_ASCII)',
  php: 'slashes escaped as \\/ and non-ASCII as \\u00e9 (PHP json_encode default)',
  'php-slashes': 'slashes escaped as \\/ (PHP json_encode with JSON_UNESCAPED_UNICODE)',
  'go-html': '<, > and & escaped as \\u003c \\u003e \\u0026 (Go encoding/json, Rails to_json)',
  'gson-html': "<, >, &, = and ' escaped as \\u003c \\u003e \\u0026 \\u003d \\u0027 (Gson default)",
  stj: 'System.Text.Json default escaping (non-ASCII, + and HTML characters as \\u00E9 \\u002B \\u003C)',
};

const NUMBER_TEXT: Readonly<Record<Exclude<NumberForm, 'sent'>, string>> = {
  shortest: 'numbers in their shortest form (10.0 as 10, JavaScript exponents 1e-7)',
  'point-zero': 'whole numbers written as floats (10 as 10.0: Python, PHP or Java floats)',
  python: "fractions and exponents as Python's repr writes them (1e-07)",
  java: "fractions and exponents as Java's Double.toString writes them (1.0E-7)",
};

/** The family in words: what the signed bytes had that the sent ones did not, dimension by dimension. */
export function reserialisationText(r: Reserialisation): string {
  const parts: string[] = [];
  if (r.layout) parts.push(LAYOUT_TEXT[r.layout]);
  if (r.order) parts.push(ORDER_TEXT[r.order]);
  if (r.escaping) parts.push(ESCAPING_TEXT[r.escaping]);
  if (r.numbers) parts.push(NUMBER_TEXT[r.numbers]);
  if (r.newline !== undefined) parts.push(r.newline ? 'with a trailing newline (Go json.Encoder)' : 'without the trailing newline sent');
  return parts.join(', ');
}
