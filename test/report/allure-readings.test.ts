import { describe, expect, it } from 'vitest';
import { completeAllureResults } from '../../harness/report/allure.js';
import { exchangeMark, exchangeText } from '../../harness/report/exchange-text.js';
import type { RunMeta } from '../../harness/report/run-meta.js';
import type { StoredExchange, StoredResult } from '../../harness/run/results.js';

const meta: RunMeta = {
  kit: { name: 'k', version: '1' },
  startedAt: '2026-01-01T00:00:00Z',
  seed: 1,
  numRuns: 1,
  webhooks: 'off',
  profile: { name: 'p', file: 'p.json', environment: 'sandbox' },
  target: 'embedded',
  filters: { suites: [], clauses: [] },
  faults: [],
};

describe('the Allure report', () => {
  it('lists the readings the target took beside the run settings', () => {
    const files = new Map<string, Buffer>();
    completeAllureResults(
      files,
      meta,
      'http://t',
      [],
      [{ topic: 'price-point.unroundable', reading: '422 notSupported', checks: ['price-points/a', 'stateful/b'] }],
    );
    const env = files.get('environment.properties')!.toString('utf8');
    expect(env).toContain('reading.price-point.unroundable=422 notSupported (2 checks\\: price-points/a, stateful/b)');
  });

  it("writes each exchange's text from the stored result where the check's step holds its mark, redacted", () => {
    const exchange: StoredExchange = {
      id: 'x-2',
      label: 'checkout',
      timings: { startedAt: '', totalMs: 1 },
      request: { method: 'POST', url: 'http://t/p', headers: { 'X-Sign': 'ab' }, body: '{"secret":"s3cr3t-value"}' },
      response: { status: 200, headers: {}, body: '{"code":0}', truncated: false },
    };
    const stored = { checkId: 'suite/check', exchanges: [exchange] } as unknown as StoredResult;
    const step = (id: string, source: string) => ({
      name: `${id} checkout → HTTP 200`,
      steps: [{ name: 'request and response', attachments: [{ name: 'request and response', source, type: 'text/plain' }] }],
    });
    const result = {
      uuid: 'r1',
      labels: [{ name: 'checkId', value: 'suite/check' }],
      attachments: [{ name: 'clauses', source: 'c-attachment.txt', type: 'text/plain' }],
      steps: [step('x-2', 'a-attachment.txt'), step('x-9', 'b-attachment.txt')],
    };
    const files = new Map<string, Buffer>([
      ['r1-result.json', Buffer.from(JSON.stringify(result))],
      ['a-attachment.txt', Buffer.from(exchangeMark('x-2'))],
      ['b-attachment.txt', Buffer.from(exchangeMark('x-9'))],
      ['c-attachment.txt', Buffer.from('query.neither — must')],
    ]);
    completeAllureResults(files, meta, 'http://t', [stored], [], (t) => t.split('s3cr3t-value').join('***'));
    expect(files.get('a-attachment.txt')!.toString('utf8')).toBe(exchangeText(exchange).replace('s3cr3t-value', '***'));
    expect(files.get('b-attachment.txt')!.toString('utf8')).toMatch(/^exchange x-9: not in the check's stored result/);
    // Any other attachment is left as the check wrote it.
    expect(files.get('c-attachment.txt')!.toString('utf8')).toBe('query.neither — must');
  });
});
