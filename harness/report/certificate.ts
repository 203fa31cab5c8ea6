/**
 * The certificate: one verdict on one target, per registry clause what the run showed, and SHA-256
 * digests that let anyone check later that it was computed from these results and not edited.
 *
 * certificate.json is the authority; certificate.md is rendered from it alone. verify-certificate
 * recomputes the results digest from <reports>/results, rebuilds the whole certificate from those
 * results and the run settings the certificate carries, and compares — so an edited verdict, an
 * edited clause status, an edited or removed result file, or an edited Markdown file are all caught.
 */
import { mdCell } from './markdown.js';
import { declareHints } from './declare-hints.js';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import type { StoredResult } from '../run/results.js';
import { readResults } from '../run/results.js';
import { canonicalJson, sha256Hex } from './canonical.js';
import type { RunMeta } from './run-meta.js';
import { formatBytes, throttleTraffic, type Traffic } from './traffic.js';
import { computeVerdict, type ClauseOutcome, type RunStatus, type SuiteCounts, type Verdict } from './verdict.js';
import { maskUrl } from './mask.js';
import { readAllowlist } from './no-check.js';
import { reproCommand, shellQuote } from './repro.js';
import { replayLine } from '../run/replay.js';

export const CERTIFICATE_FORMAT = 'mpsi-conformance-certificate/1';
export const CANONICALIZATION =
  'JSON with object keys sorted, no whitespace, UTF-8; results: the array of stored results sorted by checkId';

export interface Certificate {
  format: typeof CERTIFICATE_FORMAT;
  verdict: Verdict['verdict'];
  /** The exit code of the run: 0 pass, 1 fail, 2 the run could not be completed. */
  exitCode: 0 | 1 | 2;
  reasons: string[];
  warnings: string[];
  kit: { name: string; version: string };
  target: { url: string; embedded: boolean; faults: string[] };
  profile: RunMeta['profile'];
  date: string;
  seed: number;
  scope: 'full' | 'partial';
  summary: {
    checks: Record<
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
      | 'inconclusive',
      number
    >;
    clauses: Verdict['levels'];
  };
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
  /** What the run cost the target (run.json's `traffic`); absent for runs made before it was counted. */
  traffic?: Traffic;
  /** Commands that work pasted from any folder (absolute paths, every flag that changes the run). */
  commands: { replay?: string; replayNote?: string; reference?: string };
  repro: { file: string; checkId: string; exchangeId: string; clause?: string; sha256: string; secretEnvs: string[]; command: string }[];
  results: { count: number; sha256: string };
  /** The settings the run was made with, and vitest's own account of it: the inputs verify-certificate rebuilds from. */
  meta: RunMeta;
  runStatus: RunStatus;
  integrity: { algorithm: 'sha256'; canonicalization: string; resultsSha256: string; certificateSha256: string };
}

export function resultsDigest(results: StoredResult[]): string {
  return sha256Hex(canonicalJson(results));
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
      .map((t) => ({ checkId: t.checkId, name: t.name, state: t.state, error: t.error?.split('\n', 1)[0] })),
  };
}

export interface CertificateInput {
  results: StoredResult[];
  meta: RunMeta;
  runStatus: RunStatus;
  /** sha256 of each repro file by name (missing files are listed with an empty digest). */
  reproDigests: Record<string, string>;
}

export function buildCertificate(input: CertificateInput): { certificate: Certificate; verdict: Verdict } {
  const { results, meta } = input;
  const runStatus = trimRunStatus(input.runStatus);
  const scope = meta.filters.suites.length === 0 && meta.filters.clauses.length === 0 && !meta.shard ? 'full' : 'partial';
  const v = computeVerdict({
    results,
    expectations: meta.expectations,
    today: meta.startedAt.slice(0, 10),
    runStatus,
    scope,
    noCheckReasons: noCheckReasons(),
  });
  const embedded = meta.target === 'embedded';
  const actual = results[0]?.target;
  const url = embedded ? `embedded reference${actual ? ` at ${maskUrl(actual)}` : ''}` : maskUrl(actual ?? meta.target);
  const count = (o: string) => v.checks.filter((k) => k.outcome === o).length;
  const certificate: Certificate = {
    format: CERTIFICATE_FORMAT,
    verdict: v.verdict,
    exitCode: v.exitCode,
    reasons: v.reasons,
    warnings: v.warnings,
    kit: meta.kit,
    target: { url, embedded, faults: meta.faults },
    profile: meta.profile,
    date: meta.finishedAt ?? meta.startedAt,
    seed: meta.seed,
    scope,
    // The throttling figures come from the recorded exchanges, so verify-certificate recomputes them too.
    ...(input.meta.traffic ? { traffic: { ...input.meta.traffic, ...throttleTraffic(results) } } : {}),
    summary: {
      checks: {
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
      },
      clauses: v.levels,
    },
    suites: v.suites,
    clauses: v.clauses.map(({ text: _t, ...c }) => c),
    shouldNotMet: v.clauses
      .filter((c) => c.status === 'not-met')
      .map((c) => ({ clause: c.id, checks: [...new Set(c.failures.map((f) => f.checkId))] })),
    deviations: v.deviations,
    disputes: v.disputes,
    readings: readingsOf(results),
    commands: commandsOf(meta),
    ...(runStatus.unfinished ? { unfinished: runStatus.unfinished } : {}),
    repro: results.flatMap((r) =>
      (r.repro ?? []).map((file) => {
        const exchangeId = /--(x-\d+)\.m?[jt]s$/.exec(file)?.[1] ?? '';
        const secretEnvs = r.reproSecretEnvs?.[file] ?? [];
        const path = meta.reportsDir ? join(meta.reportsDir, 'repro', file) : join('repro', file);
        return {
          file,
          checkId: r.checkId,
          exchangeId,
          clause: r.findings.find((f) => f.exchangeId === exchangeId)?.clause,
          sha256: input.reproDigests[file] ?? '',
          secretEnvs,
          command: reproCommand(path),
        };
      }),
    ),
    results: { count: results.length, sha256: resultsDigest(results) },
    meta,
    runStatus,
    integrity: { algorithm: 'sha256', canonicalization: CANONICALIZATION, resultsSha256: resultsDigest(results), certificateSha256: '' },
  };
  certificate.integrity.certificateSha256 = certificateDigest(certificate);
  return { certificate, verdict: v };
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
  const bin = `node ${shellQuote(meta.replay.bin)}`;
  const replay = replayLine(meta.replay);
  // The embedded reference stopped with the run: a reproduction needs one started again, the same way.
  const reference =
    meta.target === 'embedded'
      ? `${bin} serve${meta.timeScale !== undefined ? ` --time-scale ${meta.timeScale}` : ''}${meta.readings ? ` --readings ${shellQuote(meta.readings)}` : ''}${meta.faults.map((f) => ` --fault ${shellQuote(f)}`).join('')}`
      : undefined;
  return { replay, ...(meta.replay.note ? { replayNote: meta.replay.note } : {}), ...(reference ? { reference } : {}) };
}

/** SHA-256 over the canonical certificate with integrity.certificateSha256 left empty. */
export function certificateDigest(c: Certificate): string {
  return sha256Hex(canonicalJson({ ...c, integrity: { ...c.integrity, certificateSha256: '' } }));
}

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

const STATUS_LABEL: Record<string, string> = {
  passed: 'passed',
  failed: 'FAILED',
  'not-met': 'not met (should-level finding)',
  disputed: 'DISPUTED (neither passed nor failed)',
  'skipped-precondition': 'skipped (precondition)',
  'not-checked': 'not checked',
  unspecified: 'unspecified',
};

/** The Markdown certificate: rendered from the JSON certificate alone (verify-certificate re-renders and compares). */
export function renderMarkdown(c: Certificate): string {
  const L: string[] = [];
  const verdictText = verdictLabel(c);
  L.push('# MPSI conformance certificate', '');
  L.push(
    `**Verdict: ${verdictText}** — exit code ${c.exitCode}${c.scope === 'partial' ? ' — partial run: only the checks selected below ran; this is not a certificate of the whole interface' : ''}`,
    '',
  );
  L.push(
    'Conformant means: no must-level statement of INTERFACE.md failed, and every selected check reached a verdict. Should-level recommendations that are not met are listed below but do not change the verdict. A known deviation (expectations file) is still a deviation: it keeps the verdict non-conformant, but does not fail the run (exit code 0). A check the vendor disputes counts neither as passed nor as failed: while one stands the verdict is at best "CONFORMANT except N disputed checks".',
    '',
  );
  L.push('| | |', '|---|---|');
  L.push(`| Target | ${mdCell(c.target.url)}${c.target.faults.length ? ` — faults switched on: ${c.target.faults.join(', ')}` : ''} |`);
  L.push(`| Profile | ${mdCell(c.profile.name)} (${c.profile.environment}, file ${mdCell(c.profile.file)}) |`);
  const dr = c.meta.doctor;
  if (dr)
    L.push(
      `| Profile doctor | ${dr.ran ? `the profile's assumptions were verified against the target before the checks: ${dr.verified} verified, ${dr.notVerifiable} not verifiable, ${dr.doubts?.length ? `${dr.doubts.length} in doubt (see [Doubts of the profile doctor](#doubts-of-the-profile-doctor)), ` : ''}${dr.warnings} warning${dr.warnings === 1 ? '' : 's'} (${dr.report})` : 'not run (--no-doctor): the profile was not verified against the target'} |`,
    );
  L.push(`| Kit | ${c.kit.name} ${c.kit.version} |`);
  L.push(`| Date | ${c.date} |`);
  L.push(`| Seed | ${c.seed} — replay: see [Commands](#commands) |`);
  L.push(
    `| Runs per property | ${c.meta.numRuns}; webhooks ${c.meta.webhooks}${c.meta.timeScale !== undefined ? `; time scale ${c.meta.timeScale}` : ''} |`,
  );
  L.push(
    `| Scope | ${c.scope}${c.meta.filters.suites.length ? `; suites: ${c.meta.filters.suites.join(', ')}` : ''}${c.meta.filters.clauses.length ? `; clauses: ${c.meta.filters.clauses.join(', ')}` : ''}${c.meta.shard ? `; shard ${c.meta.shard}` : ''} |`,
  );
  const k = c.summary.checks;
  L.push(
    `| Checks | ${k.total} run: ${k.passed} passed, ${k.failed} failed, ${k.expectedFail} failed as expected, ${k.disputed ? `${k.disputed} disputed (neither passed nor failed), ` : ''}${k.skipped + k.expectedSkip} skipped, ${k.broken} harness errors, ${k.unreachable} target unreachable${k.inconclusive ? `, ${k.inconclusive} without verdict (throttled or machine too busy: not the target's)` : ''} |`,
  );
  const t = c.traffic;
  if (t) {
    const doctor = c.meta.doctor?.ran ? ` (and ${c.meta.doctor.requests} by the profile doctor)` : '';
    L.push(
      `| Traffic | ${t.requests} requests by the checks${doctor}, ${t.webhooksReceived} webhooks received; ${formatBytes(t.bytesSent)} sent, ${formatBytes(t.bytesReceived)} received${t.throttledAnswers ? `; ${t.throttledAnswers} throttled answers (${(t.throttleWaitMs / 1000).toFixed(1)} s waited)` : ''} |`,
    );
  }
  if (c.meta.expectations)
    L.push(
      `| Known deviations | ${mdCell(basename(c.meta.expectations.source))} (${c.meta.expectations.entries.length} entries, sha256 ${c.meta.expectations.sha256.slice(0, 16)}…) |`,
    );
  L.push('');
  if (c.reasons.length) {
    L.push('## Why this verdict', '');
    for (const r of c.reasons) L.push(`- ${r}`);
    L.push('');
  }
  L.push(...disputesSection(c));
  L.push(
    '## Clauses per level',
    '',
    '| level | passed | failed | not met (should-level finding) | disputed | skipped (precondition) | not checked | unspecified |',
    '|---|---|---|---|---|---|---|---|',
  );
  for (const lvl of ['must', 'should', 'unspecified'] as const) {
    const r = c.summary.clauses[lvl];
    L.push(
      `| ${lvl} | ${r.passed} | ${r.failed} | ${r['not-met']} | ${r.disputed} | ${r['skipped-precondition']} | ${r['not-checked']} | ${r.unspecified} |`,
    );
  }
  L.push(
    '',
    'Service clauses only; statements that bind the client are listed as not checked. A clause is passed only when a check exercised it (an assertion evaluated it and it held); a check that merely names it is no evidence.',
    '',
  );
  const failed = c.clauses.filter((x) => x.status === 'failed');
  L.push('## Failed clauses', '');
  if (failed.length === 0) L.push('None.', '');
  else {
    L.push(
      "| clause | level | evidence (check · finding · exchange) | reproduction | known deviation | profile doctor's doubt |",
      '|---|---|---|---|---|---|',
    );
    for (const x of failed) {
      const ev = x.failures.map((f) => `${f.checkId} · ${f.code}${f.exchangeId ? ` · ${f.exchangeId}` : ''}`);
      const repro = [...new Set(x.failures.map((f) => f.repro).filter(Boolean))].map((f) => `[${f}](repro/${f})`);
      const doubts = doubtsOf(c, x.id).map((d) => `\`${d.path}\`: ${d.answered} — ${d.fix}`);
      L.push(
        `| \`${x.id}\` | ${x.level} | ${mdCell(ev.slice(0, 4).join('<br>'))}${ev.length > 4 ? ` (+${ev.length - 4})` : ''} | ${repro.slice(0, 3).join('<br>') || '—'} | ${x.knownDeviation ? mdCell(x.knownDeviation.comment) : '—'} | ${doubts.length ? mdCell(doubts.join('<br>')) : '—'} |`,
      );
    }
    L.push('');
  }
  L.push(...doubtsSection(c));
  const hints = declareHints(c);
  if (hints.length) {
    L.push('## Skipped for a precondition: what to change to run them', '');
    for (const h of hints) L.push(`- ${h.hint}: ${h.clauses.map((x) => `\`${x}\``).join(', ')}`);
    L.push('');
  }
  L.push('## Should-level recommendations not met', '');
  if (c.shouldNotMet.length === 0) L.push('None.', '');
  else
    for (const s of c.shouldNotMet)
      L.push(`- \`${s.clause}\` — ${s.checks.join(', ')} (a should-level finding: does not change the verdict)`);
  if (c.shouldNotMet.length) L.push('');
  const d = c.deviations;
  if (d.expectedFailures.length + d.expectedSkips.length + d.unexpectedPasses.length + d.expired.length + d.notExercised.length > 0) {
    L.push('## Known deviations', '');
    for (const x of d.expectedFailures) L.push(`- expected failure: ${x}`);
    for (const x of d.expectedSkips) L.push(`- expected skip: ${x}`);
    for (const x of d.unexpectedPasses) L.push(`- **unexpected pass**: ${x}`);
    for (const x of d.expired)
      L.push(`- **expired** on ${x.expires}: ${x.entry} (${x.comment}) — the run fails until it is renewed or removed`);
    for (const x of d.notExercised) L.push(`- not exercised: ${x}`);
    L.push('');
  }
  if (c.unfinished) {
    L.push(
      '## Checks that did not finish',
      '',
      `The run was stopped${c.runStatus.interruptedBy ? ` by ${c.runStatus.interruptedBy}` : ''} before these checks ended; they have no verdict:`,
      '',
    );
    for (const id of c.unfinished) L.push(`- ${id}`);
    L.push('');
  }
  if (c.warnings.length) {
    L.push('## Warnings', '');
    for (const w of c.warnings) L.push(`- ${w}`);
    L.push('');
  }
  L.push(...readingsSection(c));
  L.push(...commandsSection(c));
  L.push(...reproSection(c));
  // The "no verdict" column only when some check got none: certificates of ordinary runs keep their shape.
  const nv = c.suites.some((s) => (s.inconclusive ?? 0) > 0);
  L.push(
    '## Suites',
    '',
    `| suite | passed | failed | expected failures | disputed | skipped | harness errors |${nv ? ' no verdict |' : ''}`,
    `|---|---|---|---|---|---|---|${nv ? '---|' : ''}`,
  );
  for (const s of c.suites)
    L.push(
      `| ${s.suite} | ${s.passed} | ${s.failed} | ${s.expectedFail} | ${s.disputed ?? 0} | ${s.skipped} | ${s.broken} |${nv ? ` ${s.inconclusive ?? 0} |` : ''}`,
    );
  L.push('', '## All clauses', '', '| clause | level | party | status | basis |', '|---|---|---|---|---|');
  for (const x of c.clauses)
    L.push(`| \`${x.id}\` | ${x.level} | ${x.party} | ${STATUS_LABEL[x.status] ?? x.status} | ${mdCell(x.basis)} |`);
  L.push('', '## Integrity', '');
  L.push(`- Results: ${c.results.count} stored check results; SHA-256 over the canonical results: \`${c.integrity.resultsSha256}\``);
  L.push(`- Certificate SHA-256 (certificate.json, canonical, with this field empty): \`${c.integrity.certificateSha256}\``);
  L.push(`- Canonical form: ${c.integrity.canonicalization}.`);
  L.push(`- Check it: \`${verifyCommand(c)}\` (the results/ directory beside the certificate is read).`);
  L.push('');
  return L.join('\n');
}

/** The doctor's doubts that name a clause. */
function doubtsOf(c: Certificate, clause: string): NonNullable<Extract<RunMeta['doctor'], { ran: true }>['doubts']> {
  const dr = c.meta.doctor;
  return dr?.ran ? (dr.doubts ?? []).filter((d) => d.clauses.includes(clause)) : [];
}

/** Every doubt of the doctor, with what the run made of its clauses. */
function doubtsSection(c: Certificate): string[] {
  const dr = c.meta.doctor;
  if (!dr?.ran || !dr.doubts?.length) return [];
  const L = ['## Doubts of the profile doctor', ''];
  L.push(
    "Before the checks, the target answered against the profile where the document fixes the answer. Either the profile is wrong or the target is: the doctor cannot tell, so the checks ran and judged the target. If the profile is right, a failed clause below is the target's failure; if not, fix the profile as said and run again.",
    '',
  );
  L.push(
    '| profile path | assumption | target answered | clauses (status in this run) | if the profile is not right |',
    '|---|---|---|---|---|',
  );
  const status = new Map(c.clauses.map((x) => [x.id, x.status]));
  for (const d of dr.doubts) {
    L.push(
      `| \`${mdCell(d.path)}\` | ${mdCell(d.assumption)} | ${mdCell(d.answered)} | ${d.clauses.map((x) => `\`${x}\` ${STATUS_LABEL[status.get(x) ?? ''] ?? status.get(x) ?? 'not in this run'}`).join('<br>')} | ${mdCell(d.fix)} |`,
    );
  }
  L.push('');
  return L;
}

/** The verdict in words; a dispute is never hidden in it. */
export function verdictLabel(c: Pick<Certificate, 'verdict' | 'disputes'>): string {
  if (c.verdict === 'conformant') return 'CONFORMANT';
  if (c.verdict === 'conformant-except-disputed') {
    const n = new Set(c.disputes.map((d) => d.checkId)).size;
    return `CONFORMANT except ${n} disputed check${n === 1 ? '' : 's'}`;
  }
  return c.verdict === 'non-conformant' ? 'NON-CONFORMANT' : 'INCOMPLETE (no verdict)';
}

function disputesSection(c: Certificate): string[] {
  if (c.disputes.length === 0) return [];
  const L = ['## ⚠ Disputed checks', ''];
  L.push(
    'The vendor says these checks are wrong. Their failures are neither passed nor counted against the target: the verdict cannot be CONFORMANT while they stand. A dispute is not a known deviation (which admits the target deviates).',
    '',
  );
  L.push('| check | clauses | reason | link |', '|---|---|---|---|');
  for (const d of c.disputes)
    L.push(`| ${d.checkId} | ${d.clauses.map((x) => `\`${x}\``).join(', ')} | ${mdCell(d.reason)} | ${mdCell(d.link)} |`);
  L.push('');
  return L;
}

function readingsSection(c: Certificate): string[] {
  const L = ['## Readings the target took', ''];
  if (c.readings.length === 0) return [...L, 'None recorded (no check met a point where the document allows several answers).', ''];
  L.push('Where the document allows several answers, the kit accepts each and records the one the target gave.', '');
  L.push('| topic | reading | checks |', '|---|---|---|');
  for (const r of c.readings)
    L.push(
      `| ${mdCell(r.topic)} | ${mdCell(r.reading)} | ${mdCell(r.checks.slice(0, 4).join(', '))}${r.checks.length > 4 ? ` (+${r.checks.length - 4})` : ''} |`,
    );
  L.push('');
  return L;
}

function commandsSection(c: Certificate): string[] {
  const L = ['## Commands', ''];
  if (!c.commands.replay) return [...L, 'This run did not record its command line.', ''];
  L.push('Each works pasted into a shell from any folder.', '');
  L.push(
    'Replay this run (same seed and every flag that changed it; reports go to ./reports unless you add `--reports DIR`):',
    '',
    '```sh',
    c.commands.replay,
    '```',
    '',
  );
  if (c.commands.replayNote) L.push(`Note: ${c.commands.replayNote}.`, '');
  if (c.commands.reference)
    L.push(
      'The target was the embedded reference, which stopped with the run. To reproduce against it, start it again (it prints its URL; pass that as `--base-url`):',
      '',
      '```sh',
      c.commands.reference,
      '```',
      '',
    );
  return L;
}

function reproSection(c: Certificate): string[] {
  const L = ['## Reproduction scripts', ''];
  if (c.repro.length === 0) return [...L, 'None (no failing exchange).', ''];
  L.push(
    'Each is plain Node.js (20 or later) needing nothing but itself: it first sends the earlier requests of its check with fresh numbers (so what the failing request needs exists on any target), then the failing request, re-signed with the secret read from the environment variable(s) named beside it (never printed, never on the command line: export them as for the run), and says REPRODUCED or NOT REPRODUCED.' +
      (c.commands.reference ? ' Add `--base-url URL`: the embedded reference has stopped (see Commands).' : ''),
    '',
  );
  L.push('| file | check | exchange | clause | sha256 |', '|---|---|---|---|---|');
  for (const r of c.repro)
    L.push(`| [${r.file}](repro/${r.file}) | ${r.checkId} | ${r.exchangeId} | ${r.clause ?? ''} | \`${r.sha256.slice(0, 16)}…\` |`);
  L.push('', '```sh');
  for (const r of c.repro)
    L.push(`# ${r.checkId} · ${r.exchangeId}${r.secretEnvs.length ? ` · reads ${r.secretEnvs.join(', ')}` : ''}`, r.command);
  L.push('```', '');
  return L;
}

function verifyCommand(c: Certificate): string {
  const file = c.meta.reportsDir ? join(c.meta.reportsDir, 'certificate.json') : 'certificate.json';
  return c.meta.replay
    ? `node ${shellQuote(c.meta.replay.bin)} verify-certificate ${shellQuote(file)}`
    : `npx mpsi-conformance verify-certificate ${file}`;
}

export function writeCertificate(dir: string, c: Certificate): { json: string; md: string } {
  const json = join(dir, 'certificate.json');
  const md = join(dir, 'certificate.md');
  writeFileSync(json, `${JSON.stringify(c, null, 2)}\n`);
  writeFileSync(md, renderMarkdown(c));
  return { json, md };
}

export interface VerifyOutcome {
  ok: boolean;
  problems: string[];
  certificate?: Certificate;
}

export class CertificateReadError extends Error {}

/** Checks a certificate (.json, or .md with its .json beside it) against the results it names. */
export function verifyCertificate(file: string, resultsDir?: string): VerifyOutcome {
  const problems: string[] = [];
  const isMd = file.endsWith('.md');
  const jsonPath = isMd ? file.replace(/\.md$/, '.json') : file;
  let cert: Certificate;
  try {
    cert = JSON.parse(readFileSync(jsonPath, 'utf8')) as Certificate;
  } catch (err) {
    throw new CertificateReadError(`cannot read certificate ${jsonPath}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`);
  }
  if (cert?.format !== CERTIFICATE_FORMAT || !cert.integrity || !cert.meta)
    throw new CertificateReadError(`${jsonPath} is not an mpsi-conformance certificate (${CERTIFICATE_FORMAT})`);
  if (certificateDigest(cert) !== cert.integrity.certificateSha256)
    problems.push('the certificate was edited: its SHA-256 does not match integrity.certificateSha256');
  if (isMd) {
    const md = readFileSync(file, 'utf8');
    if (md !== renderMarkdown(cert)) problems.push(`${basename(file)} differs from the Markdown rendering of ${basename(jsonPath)}`);
  }
  const dir = resultsDir ?? join(dirname(jsonPath), 'results');
  if (!existsSync(dir)) throw new CertificateReadError(`results directory ${dir} not found (give it with --results DIR)`);
  let results: StoredResult[];
  try {
    results = readResults(dir);
  } catch (err) {
    throw new CertificateReadError(`cannot read results in ${dir}: ${(err as Error).message}`);
  }
  const digest = resultsDigest(results);
  if (digest !== cert.integrity.resultsSha256)
    problems.push(
      `the results in ${dir} are not the ones certified: SHA-256 ${digest} ≠ ${cert.integrity.resultsSha256} (${results.length} results, certified ${cert.results.count})`,
    );
  else {
    const reproDir = join(dirname(jsonPath), 'repro');
    const digests: Record<string, string> = {};
    for (const r of cert.repro) digests[r.file] = r.sha256;
    const rebuilt = buildCertificate({ results, meta: cert.meta, runStatus: cert.runStatus, reproDigests: digests }).certificate;
    if (canonicalJson(rebuilt) !== canonicalJson(cert)) {
      const fields = (Object.keys(rebuilt) as (keyof Certificate)[]).filter((k) => canonicalJson(rebuilt[k]) !== canonicalJson(cert[k]));
      problems.push(
        `the certificate does not follow from its results: ${fields.join(', ')} differ${fields.includes('verdict') ? ` (recomputed verdict: ${rebuilt.verdict})` : ''}`,
      );
    }
    if (existsSync(reproDir)) {
      for (const r of cert.repro) {
        const p = join(reproDir, r.file);
        if (existsSync(p) && sha256Hex(readFileSync(p)) !== r.sha256)
          problems.push(`reproduction script ${r.file} was changed after the run`);
      }
    }
  }
  return { ok: problems.length === 0, problems, certificate: cert };
}
