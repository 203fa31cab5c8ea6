/**
 * Strict request reading. Each JSON object is wrapped once; keys the schema does not list are
 * refused up front (this is what refuses camelCase names), and every field error names the
 * field by the server's internal name, as the interface describes for `invalidRequest`.
 */
import { isIP } from 'node:net';
import { E, quote } from './errors.js';

const ACRONYMS: ReadonlyMap<string, string> = new Map([
  ['url', 'URL'],
  ['ip', 'IP'],
  ['cvc', 'CVC'],
]);

/** snake_case to the internal PascalCase: `trade_info.goods_name` is `TradeInfo.GoodsName`. */
export function internalName(snake: string): string {
  return snake
    .split('_')
    .map((w) => ACRONYMS.get(w) ?? (w.length > 0 ? w[0]!.toUpperCase() + w.slice(1) : w))
    .join('');
}

export function isPlainObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** Default maximum length of a free-text field, in UTF-16 code units. */
const DEFAULT_MAX = 256;

export interface StringRule {
  /** Longest accepted value. */
  max?: number;
}

export class Fields {
  private constructor(
    private readonly raw: Record<string, unknown>,
    /** Internal name of this object, '' at the top level. */
    private readonly prefix: string,
  ) {}

  /** Wraps an object, refusing any key outside `allowed` (checked before any field is read). */
  static of(raw: Record<string, unknown>, allowed: readonly string[], prefix = ''): Fields {
    for (const key of Object.keys(raw)) {
      if (!allowed.includes(key)) {
        const where = prefix === '' ? '' : ` in ${prefix}`;
        throw E.invalidRequest(`Unknown field ${quote(key)}${where}`);
      }
    }
    return new Fields(raw, prefix);
  }

  name(key: string): string {
    return this.prefix === '' ? internalName(key) : `${this.prefix}.${internalName(key)}`;
  }

  has(key: string): boolean {
    return Object.hasOwn(this.raw, key);
  }

  private get(key: string): unknown {
    return Object.hasOwn(this.raw, key) ? this.raw[key] : undefined;
  }

  /** A required string must be present, a string, and non-empty. */
  requiredString(key: string, rule: StringRule = {}): string {
    const v = this.get(key);
    if (v === undefined || v === '') throw E.invalidRequest(`Field ${this.name(key)} is required`);
    return this.checkString(key, v, rule);
  }

  optionalString(key: string, rule: StringRule = {}): string | undefined {
    const v = this.get(key);
    if (v === undefined) return undefined;
    return this.checkString(key, v, rule);
  }

  requiredInteger(key: string): number {
    const v = this.get(key);
    if (v === undefined) throw E.invalidRequest(`Field ${this.name(key)} is required`);
    if (typeof v !== 'number' || !Number.isSafeInteger(v)) {
      throw E.invalidRequest(`Field ${this.name(key)} must be an integer`);
    }
    return v;
  }

  requiredObject(key: string, allowed: readonly string[]): Fields {
    const v = this.get(key);
    if (v === undefined) throw E.invalidRequest(`Field ${this.name(key)} is required`);
    if (!isPlainObject(v)) throw E.invalidRequest(`Field ${this.name(key)} must be an object`);
    return Fields.of(v, allowed, this.name(key));
  }

  /** An absolute http or https URL. */
  url(key: string, required: boolean): string | undefined {
    const v = required ? this.requiredString(key, { max: 2048 }) : this.optionalString(key, { max: 2048 });
    if (v === undefined) return undefined;
    let parsed: URL;
    try {
      parsed = new URL(v);
    } catch {
      throw E.invalidRequest(`Field ${this.name(key)} must be an absolute http or https URL`);
    }
    if ((parsed.protocol !== 'http:' && parsed.protocol !== 'https:') || parsed.hostname === '') {
      throw E.invalidRequest(`Field ${this.name(key)} must be an absolute http or https URL`);
    }
    return v;
  }

  ipAddress(key: string): string {
    const v = this.requiredString(key, { max: 64 });
    if (isIP(v) === 0) throw E.invalidRequest(`Field ${this.name(key)} must be an IPv4 or IPv6 address`);
    return v;
  }

  /**
   * Exactly one of two lookup numbers. Absent and "" both count as not sent. When both are sent
   * the behaviour decides: refuse (correct) or silently use the first (a fault).
   */
  exactlyOne(a: string, b: string, both: 'refuse' | 'use-first' | 'refuse-present'): { key: string; value: string } {
    const va = this.optionalString(a, { max: 64 });
    const vb = this.optionalString(b, { max: 64 });
    const sentA = va !== undefined && va !== '';
    const sentB = vb !== undefined && vb !== '';
    if (both === 'refuse-present' && va !== undefined && vb !== undefined && (sentA || sentB)) throw E.mutuallyExclusive(a, b);
    if (sentA && sentB) {
      if (both !== 'use-first') throw E.mutuallyExclusive(a, b);
      return { key: a, value: va };
    }
    if (sentA) return { key: a, value: va };
    if (sentB) return { key: b, value: vb };
    throw E.mutuallyRequired(a, b);
  }

  private checkString(key: string, v: unknown, rule: StringRule): string {
    if (typeof v !== 'string') throw E.invalidRequest(`Field ${this.name(key)} must be a string`);
    const max = rule.max ?? DEFAULT_MAX;
    if (v.length > max) throw E.invalidRequest(`Field ${this.name(key)} is longer than ${max} characters`);
    return v;
  }
}
