import { describe, expect, it } from 'vitest';
import { hasClause } from '../../harness/clauses/registry.js';
import { readingTopics } from '../../harness/clauses/topics.js';

/**
 * Topics and clause ids share a shape (dotted, kebab-case) and once shared the same string slots; a string that is
 * both would let a topic pass where a clause belongs (or the reverse) without the compiler noticing.
 */
describe('reading topics', () => {
  it('are no clause ids, and each is listed once', () => {
    expect(readingTopics.filter((t) => hasClause(t))).toEqual([]);
    expect(new Set(readingTopics).size).toBe(readingTopics.length);
  });
});
