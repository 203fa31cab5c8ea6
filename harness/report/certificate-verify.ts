/**
 * verify-certificate: recomputes the results digest from <reports>/results, rebuilds the whole certificate
 * from those results and the run settings the certificate carries, and compares — so an edited verdict, an
 * edited clause status, an edited or removed result file, or an edited Markdown file are all caught.
 */
import { existsSync, readFileSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { readResults, type StoredResult } from '../run/results.js';
import { canonicalJson, sha256Hex } from './canonical.js';
import { buildCertificate, CERTIFICATE_FORMAT, type Certificate, certificateDigest, resultsDigest } from './certificate-build.js';
import { KitProofError, parseKitProof } from './certificate-kit-proof.js';
import { renderMarkdown } from './certificate-render.js';

export interface VerifyOutcome {
  ok: boolean;
  problems: string[];
  certificate?: Certificate;
}

export class CertificateReadError extends Error {}

/** Checks a certificate (.json, or .md with its .json beside it) against the results it names. */
export function verifyCertificate(file: string, resultsDir?: string): VerifyOutcome {
  const isMd = file.endsWith('.md');
  const jsonPath = isMd ? file.replace(/\.md$/, '.json') : file;
  const cert = readCertificate(jsonPath);
  const problems: string[] = [];
  if (certificateDigest(cert) !== cert.integrity.certificateSha256)
    problems.push('the certificate was edited: its SHA-256 does not match integrity.certificateSha256');
  if (isMd && readFileSync(file, 'utf8') !== renderMarkdown(cert))
    problems.push(`${basename(file)} differs from the Markdown rendering of ${basename(jsonPath)}`);
  problems.push(...kitProofProblems(cert));
  const dir = resultsDir ?? join(dirname(jsonPath), 'results');
  const results = readCertifiedResults(dir);
  const digest = resultsDigest(results);
  if (digest !== cert.integrity.resultsSha256)
    problems.push(
      `the results in ${dir} are not the ones certified: SHA-256 ${digest} ≠ ${cert.integrity.resultsSha256} ` +
        `(${results.length} results, certified ${cert.results.count})`,
    );
  else problems.push(...rebuildProblems(cert, results), ...reproProblems(cert, join(dirname(jsonPath), 'repro')));
  return { ok: problems.length === 0, problems, certificate: cert };
}

function readCertificate(jsonPath: string): Certificate {
  let cert: Certificate;
  try {
    cert = JSON.parse(readFileSync(jsonPath, 'utf8')) as Certificate;
  } catch (err) {
    throw new CertificateReadError(`cannot read certificate ${jsonPath}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`);
  }
  if (cert?.format !== CERTIFICATE_FORMAT || !cert.integrity || !cert.meta)
    throw new CertificateReadError(`${jsonPath} is not an mpsi-conformance certificate (${CERTIFICATE_FORMAT})`);
  return cert;
}

function readCertifiedResults(dir: string): StoredResult[] {
  if (!existsSync(dir)) throw new CertificateReadError(`results directory ${dir} not found (give it with --results DIR)`);
  try {
    return readResults(dir);
  } catch (err) {
    throw new CertificateReadError(`cannot read results in ${dir}: ${(err as Error).message}`);
  }
}

/**
 * The kit's proof is read from the package at build time, so the rebuild takes it from the certificate;
 * what can be checked is that a proof shown as measured is whole and measured this very kit version.
 */
function kitProofProblems(cert: Certificate): string[] {
  const k = cert.kitProof;
  if (k?.status !== 'measured') return [];
  try {
    parseKitProof(k.proof);
  } catch (err) {
    if (!(err instanceof KitProofError)) throw err;
    return [`the kit's proof it carries is not whole: ${err.message}`];
  }
  return k.proof.kitVersion === cert.kit.version
    ? []
    : [`the kit's proof it shows as measured is for kit ${k.proof.kitVersion}, not for ${cert.kit.version} that made the run`];
}

function rebuildProblems(cert: Certificate, results: StoredResult[]): string[] {
  const digests: Record<string, string> = {};
  for (const r of cert.repro) digests[r.file] = r.sha256;
  const rebuilt = buildCertificate({
    results,
    meta: cert.meta,
    runStatus: cert.runStatus,
    reproDigests: digests,
    ...(cert.kitProof ? { kitProof: cert.kitProof } : {}),
  }).certificate;
  if (canonicalJson(rebuilt) === canonicalJson(cert)) return [];
  const fields = (Object.keys(rebuilt) as (keyof Certificate)[]).filter((k) => canonicalJson(rebuilt[k]) !== canonicalJson(cert[k]));
  const verdict = fields.includes('verdict') ? ` (recomputed verdict: ${rebuilt.verdict})` : '';
  return [`the certificate does not follow from its results: ${fields.join(', ')} differ${verdict}`];
}

function reproProblems(cert: Certificate, reproDir: string): string[] {
  if (!existsSync(reproDir)) return [];
  return cert.repro
    .filter((r) => {
      const p = join(reproDir, r.file);
      return existsSync(p) && sha256Hex(readFileSync(p)) !== r.sha256;
    })
    .map((r) => `reproduction script ${r.file} was changed after the run`);
}
