/**
 * The certificate: one verdict on one target, per registry clause what the run showed, and SHA-256
 * digests that let anyone check later that it was computed from these results and not edited.
 *
 * certificate.json is the authority; certificate.md is rendered from it alone. The data is built in
 * certificate-build.ts (pure), rendered in certificate-render.ts and checked by certificate-verify.ts;
 * this module is where they meet the reports directory (the repro files' digests, the files written).
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { StoredResult } from '../run/results.js';
import { sha256Hex } from './canonical.js';
import type { Certificate } from './certificate-build.js';
import { renderMarkdown } from './certificate-render.js';

export {
  buildCertificate,
  CANONICALIZATION,
  CERTIFICATE_FORMAT,
  type Certificate,
  type CertificateInput,
  certificateDigest,
  type ReproEntry,
  readingsOf,
  resultsDigest,
  trimRunStatus,
} from './certificate-build.js';
export { renderMarkdown, verdictLabel } from './certificate-render.js';
export { CertificateReadError, type VerifyOutcome, verifyCertificate } from './certificate-verify.js';

export function reproDigests(reproDir: string, results: StoredResult[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (const r of results) {
    for (const f of r.repro ?? []) {
      const p = join(reproDir, f);
      out[f] = existsSync(p) ? sha256Hex(readFileSync(p)) : '';
    }
  }
  return out;
}

export function writeCertificate(dir: string, c: Certificate): { json: string; md: string } {
  const json = join(dir, 'certificate.json');
  const md = join(dir, 'certificate.md');
  writeFileSync(json, `${JSON.stringify(c, null, 2)}\n`);
  writeFileSync(md, renderMarkdown(c));
  return { json, md };
}
