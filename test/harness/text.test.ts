import { describe, expect, it } from 'vitest';
import { firstLine } from '../../harness/kit/text.js';

describe('firstLine', () => {
  it('keeps the first line of an error message, of an error-like value and of a text', () => {
    expect(firstLine(new SyntaxError('Unexpected token\n    at parse (x.ts:1:1)'))).toBe('Unexpected token');
    expect(firstLine({ message: 'ajv: must be object\nmore' })).toBe('ajv: must be object');
    expect(firstLine('one\ntwo')).toBe('one');
    expect(firstLine('')).toBe('');
  });

  it('never throws on what a throw statement may carry', () => {
    expect(firstLine(undefined)).toBe('undefined');
    expect(firstLine(42)).toBe('42');
    expect(firstLine({ message: 7 })).toBe('[object Object]');
  });
});
