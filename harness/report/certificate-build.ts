/**
 * The certificate's data, built from the stored results and the run settings (and the kit's own allowlist of
 * clauses it has no check for, package data read here): the same inputs give the same certificate, byte for
 * byte, which is what lets verify-certificate rebuild it and compare. Nothing here writes or reads the reports.
 * Rendering is certificate-render.ts; checking a certificate, certificate-verify.ts.
 */
import { join } from 'node:path';
import type { StoredResult } from '../run/results.js';
import { kitLine, type Replay, replayLine } from '../run/replay.js';
import { firstLine } from '../kit/text.js';
import { canonicalJson, sha256Hex } from './canonical.js';
import type { CertificateKitProof } from './certificate-kit-proof.js';
import { maskUrl } from './mask.js';
import { readAllowlist } from './no-check.js';
import { reproCommand, reproFileName } from './repro.js';
import type { RunMeta } from './run-meta.js';
import { throttleTraffic, type Traffic } from './traffic.js';
import { computeVerdict, type ClauseOutcome, type RunStatus, type SuiteCounts, type Verdict } from './verdict.js';

export const CERTIFICATE_FORMAT = 'mpsi-conformance-certificate/1';
export const CANONICALIZATION =
  'JSON with object keys sorted, no whitespace, UTF-8; results: the array of stored results sorted by checkId';

type CheckCount =
  | 'total'
  | 'passed'
  | 'failed'
  | 'expectedFail'
  | 'disputed'
  | 'unexpectedPass'
  | 'skipped'
  | 'expectedSkip'
  | 'broken'
  | 'unreachable'
  | 'inconclusive';

export interface ReproEntry {
  file: string;
  checkId: string;
  exchangeId: string;
  clause?: string;
  sha256: string;
  secretEnvs: string[];
  command: string;
}

export interface Certificate {
  format: typeof CERTIFICATE_FORMAT;
  verdict: Verdict['verdict'];
  /** The exit code of the run: 0 pass, 1 fail, 2 the run could not be completed. */
  exitCode: 0 | 1 | 2;
  reasons: string[];
  warnings: string[];
  kit: { name: string; version: string };
  /**
   * How far the kit that made it can be trusted (its kill score and false-verdict rate, measured at
   * release), or why it cannot be said; absent from certificates made before the kit shipped its proof.
   */
  kitProof?: CertificateKitProof;
  target: { url: string; embedded: boolean; faults: string[] };
  profile: RunMeta['profile'];
  date: string;
  seed: number;
  scope: 'full' | 'partial';
  summary: { checks: Record<CheckCount, number>; clauses: Verdict['levels'] };
  suites: SuiteCounts[];
  /** Every registry clause. */
  clauses: Omit<ClauseOutcome, 'text'>[];
  /** Should-level statements not met: shown, but they do not change the verdict. */
  shouldNotMet: { clause: string; checks: string[] }[];
  deviations: Verdict['deviations'];
  /** Checks that did not finish (an interrupted run); absent when every selected check finished. */
  unfinished?: string[];
  /** Checks the vendor disputes (the check is said to be wrong): never counted as passed. */
  disputes: Verdict['disputes'];
  /** Where the document allows several answers, which one the target took, and the checks that saw it. */
  readings: { topic: string; reading: string; checks: string[] }[];
  /**
   * The kit's allowances the profile widened (run.json's `loosened`), with the clauses whose checks judged with them:
   * those checks were looser than the kit's one reading of the document. Absent when none was widened.
   */
  loosened?: RunMeta['loosened'];
  /** What the run cost the target (run.json's `traffic`); absent for runs made before it was counted. */
  traffic?: Traffic;
  /** Commands that work pasted from any folder (absolute paths, every flag that changes the run). */
  commands: { replay?: string; replayNote?: string; reference?: string };
  repro: ReproEntry[];
  results: { count: number; sha256: string };
  /** The settings the run was made with, and vitest's own account of it: the inputs verify-certificate rebuilds from. */
  meta: RunMeta;
  runStatus: RunStatus;
  integrity: { algorithm: 'sha256'; canonicalization: string; resultsSha256: string; certificateSha256: string };
}

export function resultsDigest(results: StoredResult[]): string {
  return sha256Hex(canonicalJson(results));
}

/** SHA-256 over the canonical certificate with integrity.certificateSha256 left empty. */
export function certificateDigest(c: Certificate): string {
  return sha256Hex(canonicalJson({ ...c, integrity: { ...c.integrity, certificateSha256: '' } }));
}

/** Only what the verdict needs from vitest's account (failed tests, not the whole list). */
export function trimRunStatus(s: RunStatus | undefined): RunStatus {
  return {
    moduleErrors: s?.moduleErrors ?? [],
    unhandledErrors: s?.unhandledErrors ?? [],
    ...(s?.reason ? { reason: s.reason } : {}),
    ...(s?.interruptedBy ? { interruptedBy: s.interruptedBy } : {}),
    ...(s?.unfinished?.length ? { unfinished: s.unfinished } : {}),
    tests: (s?.tests ?? [])
      .filter((t) => t.state === 'failed')
      // vitest's own message (foreign text, harness/kit/text.ts): the verdict needs its first line only.
      .map((t) => ({
        checkId: t.checkId,
        name: t.name,
        state: t.state,
        error: typeof t.error === 'string' ? firstLine(t.error) : undefined,
      })),
  };
}

export interface CertificateInput {
  results: StoredResult[];
  meta: RunMeta;
  runStatus: RunStatus;
  /** sha256 of each repro file by name (missing files are listed with an empty digest). */
  reproDigests: Record<string, string>;
  /** What the package says of the kit's own proof (certificate-kit-proof.ts); none: the certificate is silent on it. */
  kitProof?: CertificateKitProof;
}

export function buildCertificate(input: CertificateInput): { certificate: Certificate; verdict: Verdict } {
  const { results, meta } = input;
  const runStatus = trimRunStatus(input.runStatus);
  const scope = scopeOf(meta);
  // Over every result, canonicalised (megabytes): computed once for the two places it is written.
  const resultsSha256 = resultsDigest(results);
  const v = computeVerdict({
    results,
    expectations: meta.expectations,
    today: meta.startedAt.slice(0, 10),
    runStatus,
    scope,
    noCheckReasons: noCheckReasons(),
    ...(meta.doctor?.ran && meta.doctor.unverified ? { unverified: meta.doctor.unverified } : {}),
  });
  const certificate: Certificate = {
    format: CERTIFICATE_FORMAT,
    verdict: v.verdict,
    exitCode: v.exitCode,
    reasons: v.reasons,
    warnings: v.warnings,
    kit: meta.kit,
    ...(input.kitProof ? { kitProof: input.kitProof } : {}),
    target: targetOf(meta, results),
    profile: meta.profile,
    date: meta.finishedAt ?? meta.startedAt,
    seed: meta.seed,
    scope,
    // The throttling figures come from the recorded exchanges, so verify-certificate recomputes them too.
    ...(meta.traffic ? { traffic: { ...meta.traffic, ...throttleTraffic(results) } } : {}),
    summary: { checks: checkCounts(v), clauses: v.levels },
    suites: v.suites,
    clauses: v.clauses.map(({ text: _t, ...c }) => c),
    shouldNotMet: shouldNotMet(v),
    deviations: v.deviations,
    disputes: v.disputes,
    readings: readingsOf(results),
    ...(meta.loosened?.length ? { loosened: meta.loosened } : {}),
    commands: commandsOf(meta),
    ...(runStatus.unfinished ? { unfinished: runStatus.unfinished } : {}),
    repro: reproEntries(results, meta, input.reproDigests),
    results: { count: results.length, sha256: resultsSha256 },
    meta,
    runStatus,
    integrity: { algorithm: 'sha256', canonicalization: CANONICALIZATION, resultsSha256, certificateSha256: '' },
  };
  certificate.integrity.certificateSha256 = certificateDigest(certificate);
  return { certificate, verdict: v };
}

function scopeOf(meta: RunMeta): Certificate['scope'] {
  return meta.filters.suites.length === 0 && meta.filters.clauses.length === 0 && !meta.shard ? 'full' : 'partial';
}

function targetOf(meta: RunMeta, results: StoredResult[]): Certificate['target'] {
  const embedded = meta.target === 'embedded';
  const actual = results[0]?.target;
  const url = embedded ? `embedded reference${actual ? ` at ${maskUrl(actual)}` : ''}` : maskUrl(actual ?? meta.target);
  return { url, embedded, faults: meta.faults };
}

function checkCounts(v: Verdict): Certificate['summary']['checks'] {
  const count = (o: string) => v.checks.filter((k) => k.outcome === o).length;
  return {
    total: v.checks.length,
    passed: count('passed'),
    failed: count('failed'),
    expectedFail: count('expected-fail'),
    disputed: count('disputed'),
    unexpectedPass: count('unexpected-pass'),
    skipped: count('skipped'),
    expectedSkip: count('expected-skip'),
    broken: count('broken'),
    unreachable: count('unreachable'),
    inconclusive: count('inconclusive'),
  };
}

function shouldNotMet(v: Verdict): Certificate['shouldNotMet'] {
  return v.clauses
    .filter((c) => c.status === 'not-met')
    .map((c) => ({ clause: c.id, checks: [...new Set(c.failures.map((f) => f.checkId))] }));
}

/**
 * One entry per reproduction script. A script is written per failing exchange under the name
 * reproFileName(check, exchange), so the finding it reproduces is the one whose exchange gives that name.
 */
function reproEntries(results: StoredResult[], meta: RunMeta, digests: Record<string, string>): ReproEntry[] {
  return results.flatMap((r) =>
    (r.repro ?? []).map((file) => {
      const finding = r.findings.find((f) => f.exchangeId !== undefined && reproFileName(r.checkId, f.exchangeId) === file);
      const path = meta.reportsDir ? join(meta.reportsDir, 'repro', file) : join('repro', file);
      return {
        file,
        checkId: r.checkId,
        exchangeId: finding?.exchangeId ?? '',
        clause: finding?.clause,
        sha256: digests[file] ?? '',
        secretEnvs: r.reproSecretEnvs?.[file] ?? [],
        command: reproCommand(path),
      };
    }),
  );
}

/** Why the kit has no check for a clause; none when the kit's allowlist cannot be read (the basis then just says so). */
function noCheckReasons(): Record<string, string> {
  try {
    return readAllowlist();
  } catch {
    return {};
  }
}

/** topic → reading → checks, from every result that recorded one. */
export function readingsOf(results: StoredResult[]): Certificate['readings'] {
  const by = new Map<string, Set<string>>();
  for (const r of results) {
    for (const [topic, reading] of Object.entries(r.readings ?? {})) {
      const key = JSON.stringify([topic, reading]);
      by.set(key, (by.get(key) ?? new Set()).add(r.checkId));
    }
  }
  return [...by.entries()]
    .map(([key, checks]) => {
      const [topic, reading] = JSON.parse(key) as [string, string];
      return { topic, reading, checks: [...checks].sort() };
    })
    .sort((a, b) => a.topic.localeCompare(b.topic) || a.reading.localeCompare(b.reading));
}

function commandsOf(meta: RunMeta): Certificate['commands'] {
  if (!meta.replay) return {};
  const replay = replayLine(meta.replay);
  // The embedded reference stopped with the run: a reproduction needs one started again, the same way.
  const reference = meta.target === 'embedded' ? referenceLine(meta, meta.replay) : undefined;
  return { replay, ...(meta.replay.note ? { replayNote: meta.replay.note } : {}), ...(reference ? { reference } : {}) };
}

function referenceLine(meta: RunMeta, replay: Replay): string {
  const flags = [
    ...(meta.timeScale !== undefined ? ['--time-scale', String(meta.timeScale)] : []),
    ...(meta.readings ? ['--readings', meta.readings] : []),
    ...meta.faults.flatMap((f) => ['--fault', f]),
  ];
  return kitLine(replay, ['serve', ...flags]);
}
