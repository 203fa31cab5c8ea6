/**
 * A strict JSON scanner for the profile loader: finds the first syntax error (with its offset) and duplicate keys.
 * JSON.parse does the actual parsing; its messages are not used because they quote the text, and a profile's text
 * may hold a secret.
 */

export interface ScanResult {
  syntaxError?: { offset: number; message: string };
  duplicates: { path: string[]; key: string; offset: number }[];
}

class JsonSyntaxError extends Error {
  constructor(
    readonly offset: number,
    message: string,
  ) {
    super(message);
  }
}

/** "a string" or 'character "x"' (one character, never more of the text). */
function describeChar(c: string): string {
  if (c === '"') return 'a string';
  const code = c.codePointAt(0)!;
  return code >= 0x20 && code < 0x7f ? `character "${c}"` : `character U+${code.toString(16).toUpperCase().padStart(4, '0')}`;
}

export function scanJson(text: string): ScanResult {
  const duplicates: ScanResult['duplicates'] = [];
  let pos = 0;

  const fail = (message: string, at = pos): never => {
    throw new JsonSyntaxError(at, message);
  };
  const ws = () => {
    while (pos < text.length) {
      const c = text[pos];
      if (c === ' ' || c === '\t' || c === '\n' || c === '\r') pos++;
      else if (c === '/' && (text[pos + 1] === '/' || text[pos + 1] === '*')) fail('comments are not allowed in JSON');
      else break;
    }
  };
  const unexpected = (expected: string): never => {
    if (pos >= text.length) return fail(`unexpected end of input, expected ${expected}`);
    const c = text[pos]!;
    if (c === "'") return fail('strings must use double quotes');
    return fail(`unexpected ${describeChar(c)}, expected ${expected}`);
  };

  const string = (): string => {
    const start = pos;
    pos++; // opening quote
    while (true) {
      if (pos >= text.length) fail('unterminated string', start);
      const c = text.charCodeAt(pos);
      if (c === 0x22) break;
      if (c < 0x20) fail('control character in string (escape it, e.g. \\n)');
      if (c === 0x5c) {
        const e = text[pos + 1];
        if (e === 'u') {
          if (!/^[0-9a-fA-F]{4}$/.test(text.slice(pos + 2, pos + 6))) fail('invalid \\u escape in string');
          pos += 6;
        } else if (e !== undefined && '"\\/bfnrt'.includes(e)) pos += 2;
        else fail('invalid escape sequence in string');
      } else pos++;
    }
    pos++; // closing quote
    return JSON.parse(text.slice(start, pos)) as string;
  };

  const number = () => {
    const m = /^-?(0|[1-9]\d*)(\.\d+)?([eE][+-]?\d+)?/.exec(text.slice(pos, pos + 400));
    if (!m) return fail('invalid number');
    pos += m[0].length;
    if (pos < text.length && /[0-9.eE+-]/.test(text[pos]!)) fail('invalid number');
  };

  const value = (path: string[], depth: number): void => {
    if (depth > 200) fail('nesting too deep');
    ws();
    const c = text[pos];
    if (c === '{') object(path, depth);
    else if (c === '[') array(path, depth);
    else if (c === '"') string();
    else if (c === '-' || (c !== undefined && c >= '0' && c <= '9')) number();
    else literal();
  };

  const literal = () => {
    for (const lit of ['true', 'false', 'null']) {
      if (text.startsWith(lit, pos)) {
        pos += lit.length;
        return;
      }
    }
    unexpected('a value');
  };

  const object = (path: string[], depth: number) => {
    pos++; // {
    const seen = new Set<string>();
    ws();
    if (text[pos] === '}') {
      pos++;
      return;
    }
    while (true) {
      ws();
      if (text[pos] !== '"') {
        if (text[pos] === '}') fail('trailing comma before "}"');
        unexpected('a field name in double quotes');
      }
      const keyAt = pos;
      const key = string();
      if (seen.has(key)) duplicates.push({ path, key, offset: keyAt });
      seen.add(key);
      ws();
      if (text[pos] !== ':') unexpected('":" after the field name');
      pos++;
      value([...path, key], depth + 1);
      ws();
      if (text[pos] === ',') {
        pos++;
        continue;
      }
      if (text[pos] === '}') {
        pos++;
        return;
      }
      unexpected('"," or "}"');
    }
  };

  const array = (path: string[], depth: number) => {
    pos++; // [
    ws();
    if (text[pos] === ']') {
      pos++;
      return;
    }
    let i = 0;
    while (true) {
      ws();
      if (text[pos] === ']') fail('trailing comma before "]"');
      value([...path, String(i++)], depth + 1);
      ws();
      if (text[pos] === ',') {
        pos++;
        continue;
      }
      if (text[pos] === ']') {
        pos++;
        return;
      }
      unexpected('"," or "]"');
    }
  };

  try {
    ws();
    if (pos >= text.length) fail('the input is empty');
    value([], 0);
    ws();
    if (pos < text.length) fail(`unexpected ${describeChar(text[pos]!)} after the end of the JSON value`);
  } catch (err) {
    if (err instanceof JsonSyntaxError) return { syntaxError: { offset: err.offset, message: err.message }, duplicates };
    throw err;
  }
  return { duplicates };
}

/** 1-based line and column (in UTF-16 code units) of an offset. */
export function lineColumn(text: string, offset: number): { line: number; column: number } {
  let line = 1;
  let lineStart = 0;
  for (let i = 0; i < offset && i < text.length; i++) {
    if (text[i] === '\n') {
      line++;
      lineStart = i + 1;
    }
  }
  return { line, column: offset - lineStart + 1 };
}
