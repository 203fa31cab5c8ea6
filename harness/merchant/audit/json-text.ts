/**
 * JSON read without losing how it was written: every string keeps its text as sent (its escapes)
 * beside its value, every number its literal (`10.0`, `1E2`, a 20-digit number), every object its
 * keys in the order sent (duplicates too). The signature diagnosis re-serialises this tree the ways
 * other serialisers would, and "as sent" must then mean the very bytes.
 */

export interface JsonString {
  /** The text between the quotes, as sent. */
  raw: string;
  value: string;
}

export type JsonNode =
  | { t: 'object'; entries: { key: JsonString; value: JsonNode }[] }
  | { t: 'array'; items: JsonNode[] }
  | { t: 'string'; s: JsonString }
  | { t: 'number'; raw: string }
  | { t: 'literal'; raw: 'true' | 'false' | 'null' };

const NUMBER = /-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?/y;

/** Deeper than this is not a request body anyone signs: not parsed (no deep recursion on hostile input). */
const MAX_DEPTH = 128;

/** The tree, and whether a single trailing line feed followed it; undefined when the text is not one JSON value. */
export function parseJsonText(text: string): { node: JsonNode; newline: boolean } | undefined {
  let i = 0;
  const ws = (): void => {
    while (i < text.length && (text[i] === ' ' || text[i] === '\n' || text[i] === '\r' || text[i] === '\t')) i++;
  };
  const fail = (): never => {
    throw new SyntaxError('not JSON');
  };
  const str = (): JsonString => {
    const start = ++i;
    while (i < text.length && text[i] !== '"') i += text[i] === '\\' ? 2 : 1;
    if (i >= text.length) fail();
    const raw = text.slice(start, i++);
    return { raw, value: raw.includes('\\') ? (JSON.parse(`"${raw}"`) as string) : raw };
  };
  const value = (depth: number): JsonNode => {
    if (depth > MAX_DEPTH) fail();
    ws();
    const c = text[i];
    if (c === '{') {
      i++;
      const entries: { key: JsonString; value: JsonNode }[] = [];
      ws();
      if (text[i] === '}') {
        i++;
        return { t: 'object', entries };
      }
      for (;;) {
        ws();
        if (text[i] !== '"') fail();
        const key = str();
        ws();
        if (text[i++] !== ':') fail();
        entries.push({ key, value: value(depth + 1) });
        ws();
        if (text[i] === ',') i++;
        else if (text[i++] === '}') return { t: 'object', entries };
        else fail();
      }
    }
    if (c === '[') {
      i++;
      const items: JsonNode[] = [];
      ws();
      if (text[i] === ']') {
        i++;
        return { t: 'array', items };
      }
      for (;;) {
        items.push(value(depth + 1));
        ws();
        if (text[i] === ',') i++;
        else if (text[i++] === ']') return { t: 'array', items };
        else fail();
      }
    }
    if (c === '"') return { t: 'string', s: str() };
    NUMBER.lastIndex = i;
    const m = NUMBER.exec(text);
    if (m?.[0]) {
      i += m[0].length;
      return { t: 'number', raw: m[0] };
    }
    for (const lit of ['true', 'false', 'null'] as const)
      if (text.startsWith(lit, i)) {
        i += lit.length;
        return { t: 'literal', raw: lit };
      }
    return fail();
  };
  try {
    const node = value(0);
    const end = i;
    ws();
    if (i !== text.length) return undefined;
    return { node, newline: text.slice(end) === '\n' };
  } catch {
    return undefined;
  }
}
