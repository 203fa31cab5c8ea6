/**
 * certificate.md, rendered from the JSON certificate alone (verify-certificate re-renders and compares):
 * one function per section, in the order the reader meets them.
 */
import { basename, join } from 'node:path';
import type { Certificate } from './certificate-build.js';
import type { CertificateKitProof } from './certificate-kit-proof.js';
import { declareHints } from './declare-hints.js';
import { mdCell } from './markdown.js';
import { kitLine } from '../run/replay.js';
import type { RunMeta } from './run-meta.js';
import { formatBytes } from './traffic.js';

const STATUS_LABEL: Record<string, string> = {
  passed: 'passed',
  failed: 'FAILED',
  'not-met': 'not met (should-level finding)',
  disputed: 'DISPUTED (neither passed nor failed)',
  'skipped-precondition': 'skipped (precondition)',
  'not-checked': 'not checked',
  unspecified: 'unspecified',
};

const VERDICT_MEANING =
  'Conformant means: no must-level statement of INTERFACE.md failed, and every selected check reached a verdict. ' +
  'Should-level recommendations that are not met are listed below but do not change the verdict. ' +
  'A known deviation (expectations file) is still a deviation: it keeps the verdict non-conformant, ' +
  'but does not fail the run (exit code 0). A check the vendor disputes counts neither as passed nor as failed: ' +
  'while one stands the verdict is at best "CONFORMANT except N disputed checks".';

/** The Markdown certificate: rendered from the JSON certificate alone (verify-certificate re-renders and compares). */
export function renderMarkdown(c: Certificate): string {
  return [
    ...headSection(c),
    ...reasonsSection(c),
    ...disputesSection(c),
    ...levelsSection(c),
    ...failedSection(c),
    ...doubtsSection(c),
    ...hintsSection(c),
    ...shouldSection(c),
    ...deviationsSection(c),
    ...unfinishedSection(c),
    ...warningsSection(c),
    ...loosenedSection(c),
    ...readingsSection(c),
    ...commandsSection(c),
    ...reproSection(c),
    ...suitesSection(c),
    ...clausesSection(c),
    ...integritySection(c),
  ].join('\n');
}

function headSection(c: Certificate): string[] {
  const partial =
    c.scope === 'partial' ? ' — partial run: only the checks selected below ran; this is not a certificate of the whole interface' : '';
  const L = ['# MPSI conformance certificate', '', `**Verdict: ${verdictLabel(c)}** — exit code ${c.exitCode}${partial}`, ''];
  L.push(VERDICT_MEANING, '');
  L.push('| | |', '|---|---|');
  L.push(`| Target | ${mdCell(c.target.url)}${c.target.faults.length ? ` — faults switched on: ${c.target.faults.join(', ')}` : ''} |`);
  L.push(`| Profile | ${mdCell(c.profile.name)} (${c.profile.environment}, file ${mdCell(c.profile.file)}) |`);
  if (c.meta.doctor) L.push(`| Profile doctor | ${doctorCell(c.meta.doctor)} |`);
  L.push(`| Kit | ${c.kit.name} ${c.kit.version} |`);
  if (c.kitProof) L.push(`| Kit's own proof | ${kitProofCell(c.kitProof, c.kit.version)} |`);
  L.push(`| Date | ${c.date} |`);
  L.push(`| Seed | ${c.seed} — replay: see [Commands](#commands) |`);
  const scale = c.meta.timeScale !== undefined ? `; time scale ${c.meta.timeScale}` : '';
  L.push(`| Runs per property | ${c.meta.numRuns}; webhooks ${c.meta.webhooks}${scale} |`);
  L.push(`| Scope | ${scopeCell(c)} |`);
  L.push(`| Checks | ${checksCell(c.summary.checks)} |`);
  if (c.traffic) L.push(`| Traffic | ${trafficCell(c, c.traffic)} |`);
  const ex = c.meta.expectations;
  if (ex) {
    const digest = `sha256 ${ex.sha256.slice(0, 16)}…`;
    L.push(`| Known deviations | ${mdCell(basename(ex.source))} (${ex.entries.length} entries, ${digest}) |`);
  }
  L.push('');
  return L;
}

function doctorCell(dr: NonNullable<RunMeta['doctor']>): string {
  if (!dr.ran) return 'not run (--no-doctor): the profile was not verified against the target';
  const doubts = dr.doubts?.length
    ? `${dr.doubts.length} in doubt (see [Doubts of the profile doctor](#doubts-of-the-profile-doctor)), `
    : '';
  return (
    `the profile's assumptions were verified against the target before the checks: ${dr.verified} verified, ` +
    `${dr.notVerifiable} not verifiable, ${doubts}${dr.warnings} warning${dr.warnings === 1 ? '' : 's'} (${dr.report})`
  );
}

/** How far to trust the kit: figures only when they were measured for the version that made the run. */
export function kitProofCell(k: CertificateKitProof, version: string): string {
  if (k.status === 'missing') {
    const file = k.why === 'no-file' ? 'is absent' : 'is unreadable';
    return `not measured: this package ships no proof of the kit (proof/kit-proof.json ${file})`;
  }
  if (k.status === 'other-version')
    return (
      `not measured for this version (${version}): the package's proof was measured for ${k.measuredVersion}, ` +
      'so its figures say nothing of this kit and are left out'
    );
  const p = k.proof;
  const l = p.legalTargets;
  const at = `${p.commit.slice(0, 12)}${p.dirty ? ' with uncommitted changes' : ''}`;
  const m = p.killMatrix;
  const over =
    `over ${l.targets} targets drawn by genome version ${l.genomeVersion}` + ` (seed ${l.seed}, ${l.runsPerProperty} runs per property)`;
  return (
    `measured for ${p.kitVersion} (commit ${at}, ${p.date.slice(0, 10)}), about the kit itself, not about the service ` +
    'this certificate is about: ' +
    `${m.killed}/${m.faults} of the kit's own seeded faults killed, each by a finding charged to its own clause ` +
    `(the reference's fault catalogue, seed ${m.seed}, ${m.runsPerProperty} runs per property); ` +
    `${l.falseVerdicts} false verdicts in ${l.checks} checks ${over}; ` +
    `${l.doctorFalseWrong} false WRONG of the profile doctor on those targets' true profiles ${over}. ` +
    'A fact of a service that this genome does not draw is covered by none of these figures' +
    (p.provenance ? ` (${p.provenance})` : '')
  );
}

function scopeCell(c: Certificate): string {
  const f = c.meta.filters;
  const suites = f.suites.length ? `; suites: ${f.suites.join(', ')}` : '';
  const clauses = f.clauses.length ? `; clauses: ${f.clauses.join(', ')}` : '';
  return `${c.scope}${suites}${clauses}${c.meta.shard ? `; shard ${c.meta.shard}` : ''}`;
}

function checksCell(k: Certificate['summary']['checks']): string {
  const disputed = k.disputed ? `${k.disputed} disputed (neither passed nor failed), ` : '';
  const noVerdict = k.inconclusive ? `, ${k.inconclusive} without verdict (throttled or machine too busy: not the target's)` : '';
  return (
    `${k.total} run: ${k.passed} passed, ${k.failed} failed, ${k.expectedFail} failed as expected, ${disputed}` +
    `${k.skipped + k.expectedSkip} skipped, ${k.broken} harness errors, ${k.unreachable} target unreachable${noVerdict}`
  );
}

function trafficCell(c: Certificate, t: NonNullable<Certificate['traffic']>): string {
  const doctor = c.meta.doctor?.ran ? ` (and ${c.meta.doctor.requests} by the profile doctor)` : '';
  const throttled = t.throttledAnswers
    ? `; ${t.throttledAnswers} throttled answers (${(t.throttleWaitMs / 1000).toFixed(1)} s waited)`
    : '';
  return (
    `${t.requests} requests by the checks${doctor}, ${t.webhooksReceived} webhooks received; ` +
    `${formatBytes(t.bytesSent)} sent, ${formatBytes(t.bytesReceived)} received${throttled}`
  );
}

function reasonsSection(c: Certificate): string[] {
  if (!c.reasons.length) return [];
  return ['## Why this verdict', '', ...c.reasons.map((r) => `- ${r}`), ''];
}

function levelsSection(c: Certificate): string[] {
  const L = [
    '## Clauses per level',
    '',
    '| level | passed | failed | not met (should-level finding) | disputed | skipped (precondition) | not checked | unspecified |',
    '|---|---|---|---|---|---|---|---|',
  ];
  for (const lvl of ['must', 'should', 'unspecified'] as const) {
    const r = c.summary.clauses[lvl];
    const cells = [r.passed, r.failed, r['not-met'], r.disputed, r['skipped-precondition'], r['not-checked'], r.unspecified];
    L.push(`| ${lvl} | ${cells.join(' | ')} |`);
  }
  L.push(
    '',
    'Service clauses only; statements that bind the client are listed as not checked. ' +
      'A clause is passed only when a check exercised it (an assertion evaluated it and it held); ' +
      'a check that merely names it is no evidence.',
    '',
  );
  return L;
}

function failedSection(c: Certificate): string[] {
  const failed = c.clauses.filter((x) => x.status === 'failed');
  if (failed.length === 0) return ['## Failed clauses', '', 'None.', ''];
  const L = [
    '## Failed clauses',
    '',
    "| clause | level | evidence (check · finding · exchange) | reproduction | known deviation | profile doctor's doubt |",
    '|---|---|---|---|---|---|',
  ];
  for (const x of failed) {
    const ev = x.failures.map((f) => `${f.checkId} · ${f.code}${f.exchangeId ? ` · ${f.exchangeId}` : ''}`);
    const evidence = `${mdCell(ev.slice(0, 4).join('<br>'))}${ev.length > 4 ? ` (+${ev.length - 4})` : ''}`;
    const repro = [...new Set(x.failures.map((f) => f.repro).filter(Boolean))].map((f) => `[${f}](repro/${f})`);
    const doubts = doubtsOf(c, x.id).map((d) => `\`${d.path}\`: ${d.answered} — ${d.fix}`);
    const deviation = x.knownDeviation ? mdCell(x.knownDeviation.comment) : '—';
    L.push(
      `| \`${x.id}\` | ${x.level} | ${evidence} | ${repro.slice(0, 3).join('<br>') || '—'} | ${deviation} | ${
        doubts.length ? mdCell(doubts.join('<br>')) : '—'
      } |`,
    );
  }
  L.push('');
  return L;
}

type Doubt = NonNullable<Extract<RunMeta['doctor'], { ran: true }>['doubts']>[number];

/** The doctor's doubts that name a clause. */
function doubtsOf(c: Certificate, clause: string): Doubt[] {
  const dr = c.meta.doctor;
  return dr?.ran ? (dr.doubts ?? []).filter((d) => d.clauses.includes(clause)) : [];
}

const DOUBTS_INTRO =
  'Before the checks, the target answered against the profile where the document fixes the answer. ' +
  'Either the profile is wrong or the target is: the doctor cannot tell. What it saw is evidence: each clause below ' +
  "fails with the answer the doctor saw, whatever the checks drew. If the profile is right, that is the target's " +
  'failure; if not, fix the profile as said and run again. Where no profile explains the answer, the last column says ' +
  "so: that is the target's failure alone, and the profile needs no change.";

/** Every doubt of the doctor, with what the run made of its clauses. */
function doubtsSection(c: Certificate): string[] {
  const dr = c.meta.doctor;
  if (!dr?.ran || !dr.doubts?.length) return [];
  const L = ['## Doubts of the profile doctor', '', DOUBTS_INTRO, ''];
  L.push(
    '| profile path | assumption | target answered | clauses (status in this run) | if the profile is not right |',
    '|---|---|---|---|---|',
  );
  const status = new Map(c.clauses.map((x) => [x.id, x.status]));
  const statusOf = (id: string) => STATUS_LABEL[status.get(id) ?? ''] ?? status.get(id) ?? 'not in this run';
  for (const d of dr.doubts) {
    const clauses = d.clauses.map((x) => `\`${x}\` ${statusOf(x)}`).join('<br>');
    L.push(`| \`${mdCell(d.path)}\` | ${mdCell(d.assumption)} | ${mdCell(d.answered)} | ${clauses} | ${mdCell(d.fix)} |`);
  }
  L.push('');
  return L;
}

function hintsSection(c: Certificate): string[] {
  const hints = declareHints(c);
  if (!hints.length) return [];
  const L = ['## Skipped for a precondition: what to change to run them', ''];
  for (const h of hints) L.push(`- ${h.hint}: ${h.clauses.map((x) => `\`${x}\``).join(', ')}`);
  L.push('');
  return L;
}

function shouldSection(c: Certificate): string[] {
  if (c.shouldNotMet.length === 0) return ['## Should-level recommendations not met', '', 'None.', ''];
  const L = ['## Should-level recommendations not met', ''];
  for (const s of c.shouldNotMet)
    L.push(`- \`${s.clause}\` — ${s.checks.join(', ')} (a should-level finding: does not change the verdict)`);
  L.push('');
  return L;
}

function deviationsSection(c: Certificate): string[] {
  const d = c.deviations;
  if (d.expectedFailures.length + d.expectedSkips.length + d.unexpectedPasses.length + d.expired.length + d.notExercised.length === 0)
    return [];
  const L = ['## Known deviations', ''];
  for (const x of d.expectedFailures) L.push(`- expected failure: ${x}`);
  for (const x of d.expectedSkips) L.push(`- expected skip: ${x}`);
  for (const x of d.unexpectedPasses) L.push(`- **unexpected pass**: ${x}`);
  for (const x of d.expired)
    L.push(`- **expired** on ${x.expires}: ${x.entry} (${x.comment}) — the run fails until it is renewed or removed`);
  for (const x of d.notExercised) L.push(`- not exercised: ${x}`);
  L.push('');
  return L;
}

function unfinishedSection(c: Certificate): string[] {
  if (!c.unfinished) return [];
  const by = c.runStatus.interruptedBy ? ` by ${c.runStatus.interruptedBy}` : '';
  return [
    '## Checks that did not finish',
    '',
    `The run was stopped${by} before these checks ended; they have no verdict:`,
    '',
    ...c.unfinished.map((id) => `- ${id}`),
    '',
  ];
}

function warningsSection(c: Certificate): string[] {
  if (!c.warnings.length) return [];
  return ['## Warnings', '', ...c.warnings.map((w) => `- ${w}`), ''];
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
    'The vendor says these checks are wrong. Their failures are neither passed nor counted against the target: ' +
      'the verdict cannot be CONFORMANT while they stand. A dispute is not a known deviation (which admits the target deviates).',
    '',
  );
  L.push('| check | clauses | reason | link |', '|---|---|---|---|');
  for (const d of c.disputes)
    L.push(`| ${d.checkId} | ${d.clauses.map((x) => `\`${x}\``).join(', ')} | ${mdCell(d.reason)} | ${mdCell(d.link)} |`);
  L.push('');
  return L;
}

/** The kit's allowances the profile widened: the checks judged with them were looser than the kit's own reading. */
function loosenedSection(c: Certificate): string[] {
  if (!c.loosened?.length) return [];
  const L = ['## Loosened checks', ''];
  L.push(
    "The profile widens an allowance the kit reads one way for every target: the checks of these clauses judged with the profile's " +
      "wider value, so a pass of them says less than it would with the kit's reading.",
    '',
  );
  L.push('| profile field | declared | kit reading | clauses |', '|---|---|---|---|');
  for (const l of c.loosened) L.push(`| \`${l.field}\` | ${l.declared} | ${l.reading} | ${l.clauses.map((x) => `\`${x}\``).join(', ')} |`);
  L.push('');
  return L;
}

function readingsSection(c: Certificate): string[] {
  const L = ['## Readings the target took', ''];
  if (c.readings.length === 0) return [...L, 'None recorded (no check met a point where the document allows several answers).', ''];
  L.push('Where the document allows several answers, the kit accepts each and records the one the target gave.', '');
  L.push('| topic | reading | checks |', '|---|---|---|');
  for (const r of c.readings) {
    const more = r.checks.length > 4 ? ` (+${r.checks.length - 4})` : '';
    L.push(`| ${mdCell(r.topic)} | ${mdCell(r.reading)} | ${mdCell(r.checks.slice(0, 4).join(', '))}${more} |`);
  }
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
      'The target was the embedded reference, which stopped with the run. ' +
        'To reproduce against it, start it again (it prints its URL; pass that as `--base-url`):',
      '',
      '```sh',
      c.commands.reference,
      '```',
      '',
    );
  return L;
}

const REPRO_INTRO =
  'Each is plain Node.js (20 or later) needing nothing but itself: it first sends the earlier requests of its check ' +
  'with fresh numbers (so what the failing request needs exists on any target), then the failing request, ' +
  're-signed with the secret read from the environment variable(s) named beside it ' +
  '(never printed, never on the command line: export them as for the run), and says REPRODUCED or NOT REPRODUCED.';

function reproSection(c: Certificate): string[] {
  const L = ['## Reproduction scripts', ''];
  if (c.repro.length === 0) return [...L, 'None (no failing exchange).', ''];
  const stopped = c.commands.reference ? ' Add `--base-url URL`: the embedded reference has stopped (see Commands).' : '';
  L.push(REPRO_INTRO + stopped, '');
  L.push('| file | check | exchange | clause | sha256 |', '|---|---|---|---|---|');
  for (const r of c.repro)
    L.push(`| [${r.file}](repro/${r.file}) | ${r.checkId} | ${r.exchangeId} | ${r.clause ?? ''} | \`${r.sha256.slice(0, 16)}…\` |`);
  L.push('', '```sh');
  for (const r of c.repro)
    L.push(`# ${r.checkId} · ${r.exchangeId}${r.secretEnvs.length ? ` · reads ${r.secretEnvs.join(', ')}` : ''}`, r.command);
  L.push('```', '');
  return L;
}

function suitesSection(c: Certificate): string[] {
  // The "no verdict" column only when some check got none: certificates of ordinary runs keep their shape.
  const nv = c.suites.some((s) => (s.inconclusive ?? 0) > 0);
  const L = [
    '## Suites',
    '',
    `| suite | passed | failed | expected failures | disputed | skipped | harness errors |${nv ? ' no verdict |' : ''}`,
    `|---|---|---|---|---|---|---|${nv ? '---|' : ''}`,
  ];
  for (const s of c.suites)
    L.push(
      `| ${s.suite} | ${s.passed} | ${s.failed} | ${s.expectedFail} | ${s.disputed ?? 0} | ${s.skipped} | ${s.broken} |${
        nv ? ` ${s.inconclusive ?? 0} |` : ''
      }`,
    );
  L.push('');
  return L;
}

function clausesSection(c: Certificate): string[] {
  const L = ['## All clauses', '', '| clause | level | party | status | basis |', '|---|---|---|---|---|'];
  for (const x of c.clauses)
    L.push(`| \`${x.id}\` | ${x.level} | ${x.party} | ${STATUS_LABEL[x.status] ?? x.status} | ${mdCell(x.basis)} |`);
  L.push('');
  return L;
}

function integritySection(c: Certificate): string[] {
  return [
    '## Integrity',
    '',
    `- Results: ${c.results.count} stored check results; SHA-256 over the canonical results: \`${c.integrity.resultsSha256}\``,
    `- Certificate SHA-256 (certificate.json, canonical, with this field empty): \`${c.integrity.certificateSha256}\``,
    `- Canonical form: ${c.integrity.canonicalization}.`,
    `- Check it: \`${verifyCommand(c)}\` (the results/ directory beside the certificate is read).`,
    '',
  ];
}

function verifyCommand(c: Certificate): string {
  const file = c.meta.reportsDir ? join(c.meta.reportsDir, 'certificate.json') : 'certificate.json';
  return c.meta.replay ? kitLine(c.meta.replay, ['verify-certificate', file]) : `npx mpsi-conformance verify-certificate ${file}`;
}
