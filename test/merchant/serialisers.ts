/**
 * The bytes the JSON serialisers merchants use write, reproduced for the test clients: each function
 * follows its library's documented behaviour (cited), written apart from the audit's own
 * re-serialiser (harness/merchant/audit/families.ts) so that a shared mistake cannot cancel out.
 * Python's output is also checked against python3 itself (serialisers.test.ts, recorded bytes).
 *
 * Values are plain JSON values, with `Float` marking a number a typed language holds as a float
 * (Python float, PHP float, Java double): those serialisers write 25.0 where JavaScript writes 25.
 */

export class Float {
  constructor(readonly value: number) {}
}
export type Value = null | boolean | number | Float | string | Value[] | { [key: string]: Value };

interface Style {
  /** Between items, and between a key and its value, when not indenting. */
  itemSep: string;
  keySep: string;
  /** One level of indentation; undefined for one line. */
  indent?: string;
  /** Key order at every depth. */
  sortKeys?: boolean;
  /** Key order of the object held under `parent` ('' at the top), when a library writes it in an order of its own. */
  orderKeys?(keys: string[], parent: string): string[];
  /** The text of a string's content (without the quotes). */
  str(s: string): string;
  /** The text of a number. */
  num(n: number | Float): string;
  /** Jackson's DefaultPrettyPrinter: `" : "`, arrays inline as `[ a, b ]`, empty containers `{ }` and `[ ]`. */
  jackson?: boolean;
}

function emit(v: Value, st: Style, depth = 0, parent = ''): string {
  if (v === null || typeof v === 'boolean') return String(v);
  if (typeof v === 'number' || v instanceof Float) return st.num(v);
  if (typeof v === 'string') return `"${st.str(v)}"`;
  const pad = (d: number) => (st.indent ?? '').repeat(d);
  if (Array.isArray(v)) {
    if (!v.length) return st.jackson ? '[ ]' : '[]';
    if (st.jackson) return `[ ${v.map((x) => emit(x, st, depth, parent)).join(', ')} ]`;
    const items = v.map((x) => emit(x, st, depth + 1, parent));
    return st.indent === undefined
      ? `[${items.join(st.itemSep)}]`
      : `[\n${items.map((x) => pad(depth + 1) + x).join(',\n')}\n${pad(depth)}]`;
  }
  let keys = Object.keys(v);
  if (st.sortKeys) keys = keys.sort();
  if (st.orderKeys) keys = st.orderKeys(keys, parent);
  if (!keys.length) return st.jackson ? '{ }' : '{}';
  const sep = st.jackson ? ' : ' : st.keySep;
  const items = keys.map((k) => `"${st.str(k)}"${sep}${emit(v[k]!, st, depth + 1, k)}`);
  return st.indent === undefined ? `{${items.join(st.itemSep)}}` : `{\n${items.map((x) => pad(depth + 1) + x).join(',\n')}\n${pad(depth)}}`;
}

const u4 = (c: number, upper = false) => {
  const h = c.toString(16).padStart(4, '0');
  return `\\u${upper ? h.toUpperCase() : h}`;
};
const CONTROL: Record<string, string> = { '\b': '\\b', '\f': '\\f', '\n': '\\n', '\r': '\\r', '\t': '\\t' };

/** Escapes `"`, `\` and control characters, and whatever `extra` names (by the UTF-16 unit), as `\uXXXX`. */
function escaper(extra: (c: number, ch: string) => boolean, upper = false, slash = false) {
  return (s: string): string => {
    let out = '';
    for (const ch of s) {
      for (let i = 0; i < ch.length; i++) {
        const unit = ch[i]!;
        const c = unit.charCodeAt(0);
        if (extra(c, unit)) out += u4(c, upper);
        else if (unit === '"') out += '\\"';
        else if (unit === '\\') out += '\\\\';
        else if (CONTROL[unit]) out += CONTROL[unit];
        else if (c < 0x20) out += u4(c, upper);
        else if (slash && unit === '/') out += '\\/';
        else out += unit;
      }
    }
    return out;
  };
}

const plainNumber = (n: number | Float) => String(n instanceof Float ? n.value : n);

/** repr() of a Python float: shortest round-trip digits; fixed between 1e-4 and 1e16, `.0` when whole; else `1e-07`. */
function pythonFloat(x: number): string {
  if (Number.isInteger(x) && Math.abs(x) < 1e16) return `${x}.0`;
  const [m, e] = x.toExponential().split('e') as [string, string];
  const exp = Number(e);
  if (exp >= -4 && exp < 16) return String(x);
  return `${m}e${exp < 0 ? '-' : '+'}${String(Math.abs(exp)).padStart(2, '0')}`;
}

/**
 * Python `json.dumps` (docs.python.org/3/library/json.html): separators default to `(', ', ': ')`,
 * or `(',', ': ')` when indent is not None; ensure_ascii (default True) escapes every non-ASCII
 * character as `\uXXXX` (lower-case hex, surrogate pairs), and DEL too; sort_keys sorts every object.
 */
export function pythonDumps(
  v: Value,
  o: { indent?: number | string; separators?: [string, string]; sortKeys?: boolean; ensureAscii?: boolean } = {},
): string {
  const indent = o.indent === undefined ? undefined : typeof o.indent === 'number' ? ' '.repeat(o.indent) : o.indent;
  const [itemSep, keySep] = o.separators ?? (indent === undefined ? [', ', ': '] : [',', ': ']);
  const ascii = o.ensureAscii ?? true;
  return emit(v, {
    itemSep,
    keySep,
    indent,
    sortKeys: o.sortKeys,
    str: escaper((c) => ascii && c >= 0x7f),
    num: (n) => (n instanceof Float ? pythonFloat(n.value) : String(n)),
  });
}

/** JavaScript `JSON.stringify(v, null, space)` (ECMA-262 §25.5.2): no escapes beyond JSON's own. */
export function jsStringify(v: Value, space?: number | string): string {
  const indent = space === undefined ? undefined : typeof space === 'number' ? ' '.repeat(space) : space;
  return emit(v, { itemSep: ',', keySep: indent === undefined ? ':' : ': ', indent, str: escaper(() => false), num: plainNumber });
}

/**
 * Go `encoding/json` (pkg.go.dev/encoding/json): Marshal sorts map keys (a struct keeps its field
 * order); "String values encode as JSON strings coerced to valid UTF-8 … So that the JSON will be
 * safe to embed inside HTML <script> tags, the string is encoded using HTMLEscape, which replaces
 * "<", ">", "&", U+2028, and U+2029 are escaped to "\u003c","\u003e", "\u0026", "\u2028", and
 * "\u2029"" (unless Encoder.SetEscapeHTML(false)); MarshalIndent indents with the given string;
 * Encoder.Encode follows the value with a newline.
 */
export function goJson(v: Value, o: { map?: boolean; indent?: string; escapeHTML?: boolean; encoder?: boolean } = {}): string {
  const html = o.escapeHTML ?? true;
  const out = emit(v, {
    itemSep: ',',
    keySep: o.indent === undefined ? ':' : ': ',
    indent: o.indent,
    sortKeys: o.map,
    str: escaper((c, ch) => (html && (ch === '<' || ch === '>' || ch === '&')) || c === 0x2028 || c === 0x2029),
    num: plainNumber,
  });
  return o.encoder ? `${out}\n` : out;
}

/**
 * PHP `json_encode` (php.net/json_encode): without flags, "/" is escaped as "\/" (unless
 * JSON_UNESCAPED_SLASHES) and multibyte characters as "\uXXXX" in lower-case hex (unless
 * JSON_UNESCAPED_UNICODE); JSON_PRETTY_PRINT indents with 4 spaces and writes `": "`; a float is
 * written with serialize_precision -1, keeping ".0" on a whole float (PHP >= 7.1).
 */
export function phpJsonEncode(v: Value, o: { unescapedSlashes?: boolean; unescapedUnicode?: boolean; prettyPrint?: boolean } = {}): string {
  return emit(v, {
    itemSep: ',',
    keySep: o.prettyPrint ? ': ' : ':',
    indent: o.prettyPrint ? '    ' : undefined,
    str: escaper((c) => !o.unescapedUnicode && c >= 0x80, false, !o.unescapedSlashes),
    num: (n) => (n instanceof Float ? (Number.isInteger(n.value) ? `${n.value}.0` : String(n.value)) : String(n)),
  });
}

/**
 * Ruby's `json` (ruby.github.io/json): JSON.generate / to_json write compact JSON, UTF-8 as is;
 * JSON.pretty_generate indents by 2 spaces with `": "`. Rails' ActiveSupport to_json
 * (api.rubyonrails.org, ActiveSupport::JSON::Encoding.escape_html_entities_in_json, true by default)
 * escapes "<", ">", "&" as "\u003c", "\u003e", "\u0026", and U+2028/U+2029.
 */
export function rubyJson(v: Value, o: { pretty?: boolean; rails?: boolean } = {}): string {
  return emit(v, {
    itemSep: ',',
    keySep: o.pretty ? ': ' : ':',
    indent: o.pretty ? '  ' : undefined,
    str: escaper((c, ch) => !!o.rails && (ch === '<' || ch === '>' || ch === '&' || c === 0x2028 || c === 0x2029)),
    num: plainNumber,
  });
}

/**
 * Java's `Double.toString(d)` (docs.oracle.com, java.lang.Double), which `String.valueOf`, `String.format("%s", d)`
 * and Jackson's writeNumber(double) use: between 10^-3 and 10^7 a plain decimal with at least one digit after the
 * point (25.0, 0.001); otherwise "computerized scientific notation", one digit before the point (1.0E-4, 1.0E7).
 */
export function javaDouble(x: number): string {
  const a = Math.abs(x);
  if (a === 0) return '0.0';
  if (a >= 1e-3 && a < 1e7) {
    const s = String(x);
    return s.includes('.') || s.includes('e') ? s : `${s}.0`;
  }
  const [m, e] = x.toExponential().split('e') as [string, string];
  return `${m.includes('.') ? m : `${m}.0`}E${Number(e)}`;
}

/**
 * Jackson `ObjectMapper` (github.com/FasterXML/jackson-core DefaultPrettyPrinter): compact by
 * default; writerWithDefaultPrettyPrinter() puts each object entry on its own line indented by 2
 * spaces with `" : "` between key and value, arrays on one line as `[ a, b ]`, empty `{ }` and
 * `[ ]`; a double is written as Double.toString writes it (25.0, 1.0E-4). No escapes beyond JSON's own by default.
 * Property order (jackson-databind, MapperFeature): a POJO's properties in their declaration order (`declared`:
 * the class held under each field, '' at the top), or sorted by name with SORT_PROPERTIES_ALPHABETICALLY.
 */
export function jackson(
  v: Value,
  o: { pretty?: boolean; sortProperties?: boolean; declared?: Readonly<Record<string, readonly string[]>> } = {},
): string {
  const num = (n: number | Float) => (n instanceof Float ? javaDouble(n.value) : plainNumber(n));
  const orderKeys = (keys: string[], parent: string): string[] => {
    if (o.sortProperties) return [...keys].sort();
    const declared = o.declared?.[parent];
    if (!declared) return keys;
    const rank = (k: string) => (declared.includes(k) ? declared.indexOf(k) : declared.length);
    return keys
      .map((k, i) => ({ k, i }))
      .sort((a, b) => rank(a.k) - rank(b.k) || a.i - b.i)
      .map((x) => x.k);
  };
  if (!o.pretty) return emit(v, { itemSep: ',', keySep: ':', str: escaper(() => false), num, orderKeys });
  return emit(v, { itemSep: ',', keySep: ' : ', indent: '  ', jackson: true, str: escaper(() => false), num, orderKeys });
}

/**
 * Gson (github.com/google/gson, GsonBuilder): HTML-safe by default — "<", ">", "&", "=" and "'"
 * written as "\u003c", "\u003e", "\u0026", "\u003d", "\u0027" (disableHtmlEscaping() turns it off),
 * U+2028/U+2029 always escaped; setPrettyPrinting() indents by 2 spaces with `": "`.
 */
export function gson(v: Value, o: { pretty?: boolean; disableHtmlEscaping?: boolean } = {}): string {
  const html = new Set(['<', '>', '&', '=', "'"]);
  return emit(v, {
    itemSep: ',',
    keySep: o.pretty ? ': ' : ':',
    indent: o.pretty ? '  ' : undefined,
    str: escaper((c, ch) => (!o.disableHtmlEscaping && html.has(ch)) || c === 0x2028 || c === 0x2029),
    num: plainNumber,
  });
}

/**
 * System.Text.Json `JsonSerializer.Serialize` (learn.microsoft.com, "How to customize character
 * encoding with System.Text.Json"): the default encoder escapes every non-ASCII character and the
 * HTML-sensitive characters `<`, `>`, `&`, `'`, `"`, `+` and the backtick, as `\uXXXX` in upper-case
 * hex (`"` as `\u0022`); WriteIndented uses 2 spaces and `": "`.
 */
export function systemTextJson(v: Value, o: { indented?: boolean } = {}): string {
  const sensitive = new Set(['<', '>', '&', "'", '"', '+', '`']);
  return emit(v, {
    itemSep: ',',
    keySep: o.indented ? ': ' : ':',
    indent: o.indented ? '  ' : undefined,
    str: escaper((c, ch) => c >= 0x7f || sensitive.has(ch), true),
    num: plainNumber,
  });
}

/**
 * Newtonsoft.Json `JsonConvert.SerializeObject` (newtonsoft.com/json, StringEscapeHandling.Default:
 * only control characters, `"` and `\`): compact; Formatting.Indented indents by 2 spaces with `": "`.
 */
export function newtonsoft(v: Value, o: { indented?: boolean } = {}): string {
  return emit(v, {
    itemSep: ',',
    keySep: o.indented ? ': ' : ':',
    indent: o.indented ? '  ' : undefined,
    str: escaper(() => false),
    num: plainNumber,
  });
}

/** A value with every `Float` as the plain number JavaScript holds. */
export function plain(v: Value): Value {
  if (v instanceof Float) return v.value;
  if (Array.isArray(v)) return v.map(plain);
  if (v && typeof v === 'object') return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, plain(x)]));
  return v;
}

/**
 * PHP `number_format($num, $decimals, '.', ',')` (php.net/number_format): rounds half away from zero to `decimals`
 * places and groups thousands with "," by default: number_format(1249.5, 2) is "1,249.50".
 */
export function phpNumberFormat(n: number, decimals = 0, point = '.', thousands = ','): string {
  const fixed = (Math.sign(n) * (Math.round(Math.abs(n) * 10 ** decimals) / 10 ** decimals)).toFixed(decimals);
  const [int, frac] = fixed.replace('-', '').split('.') as [string, string | undefined];
  const grouped = int.replace(/\B(?=(\d{3})+(?!\d))/g, thousands);
  return `${n < 0 ? '-' : ''}${grouped}${frac ? `${point}${frac}` : ''}`;
}

/**
 * Java `String.format(format, double)` for `%.Nf` and `%,.Nf` (docs.oracle.com, java.util.Formatter): "the
 * locale-specific decimal separator" and, with the ',' flag, "locale-specific grouping separators"; the locale is
 * `Locale.getDefault(Locale.Category.FORMAT)` unless one is passed. German (de_DE): "," as decimal separator, "." grouping.
 */
export function javaStringFormat(format: '%.2f' | '%,.2f', x: number, locale: 'en_US' | 'de_DE' = 'en_US'): string {
  const [point, group] = locale === 'de_DE' ? [',', '.'] : ['.', ','];
  return phpNumberFormat(x, 2, point, format === '%,.2f' ? group : '');
}
