/** A stored result is written on one line (no indentation: a quick run's 216 files were a third larger) and read back whole. */
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { readResults, type StoredResult, writeResult } from '../../harness/run/results.js';

describe('results/*.json', () => {
  it('holds one line per result, read back as it was written, redacted', () => {
    const dir = mkdtempSync(join(tmpdir(), 'mpsi-results-'));
    const result = {
      checkId: 'suite/a check',
      status: 'passed',
      suite: 'suite',
      target: 'http://t',
      profile: 'p',
      findings: [],
      exchanges: [
        {
          id: 'x-1',
          label: 'l',
          timings: { startedAt: '', totalMs: 1 },
          request: { method: 'POST', url: 'http://t/p', headers: { a: 'b' }, body: '{"k":"s3cr3t-value"}' },
        },
      ],
    } as unknown as StoredResult;
    const file = writeResult(dir, result, (t) => t.split('s3cr3t-value').join('***'));
    const text = readFileSync(file, 'utf8');
    expect(text.split('\n')).toHaveLength(1);
    expect(text).not.toContain('s3cr3t-value');
    expect(readResults(dir)).toEqual([JSON.parse(JSON.stringify(result).replace('s3cr3t-value', '***'))]);
  });
});
