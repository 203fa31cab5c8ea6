import { describe, expect, it } from 'vitest';
import { buildCertificate, renderMarkdown } from '../../harness/report/certificate.js';
import { kitchenSink, withDoubts } from './certificate-sink.js';

// The fixtures were written by certificate.ts before build, render and verify were split apart:
// the same inputs give the same bytes. A deliberate change of the certificate updates them with `vitest -u`.
describe('certificate: build and render, byte for byte', () => {
  for (const [name, input] of [
    ['kitchen-sink', kitchenSink],
    ['doubts', withDoubts],
  ] as const) {
    it(`${name}: certificate.json and certificate.md are the ones written before the split`, async () => {
      const { certificate } = buildCertificate(input());
      await expect(`${JSON.stringify(certificate, null, 2)}\n`).toMatchFileSnapshot(`fixtures/certificate-${name}.json`);
      await expect(renderMarkdown(certificate)).toMatchFileSnapshot(`fixtures/certificate-${name}.md`);
    });
  }
});
