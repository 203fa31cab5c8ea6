import { afterAll, beforeAll, describe, inject, it } from 'vitest';
import { publicUrlThroughTunnel } from '../run/open-receiver.js';
import * as allure from 'allure-js-commons';
import { join } from 'node:path';
import { runsConcurrently, type SuiteDef, type CheckDef } from '../check/define.js';
import { runCheck, type CheckResult } from '../check/run.js';
import { watchStallFile } from '../check/lag.js';
import { currentRecorder } from '../check/context.js';
import { clause, hasClause } from '../clauses/registry.js';
import { RUN_CONFIG_ENV, readRunConfig, type RunConfig } from '../run/config.js';
import { environmentTarget, replayLine, replayOf } from '../run/replay.js';
import { loadProfile, merchantSecrets } from '../profile/load.js';
import { openSession, type Session } from '../run/session.js';
import { startReceiver } from '../webhooks/receiver.js';
import type { Receiver } from '../webhooks/types.js';
import { checkTraffic, writeSuiteWebhooks } from '../report/traffic.js';
import { makeRedactor, type Redactor } from '../kit/redact.js';
import { storeExchange, writeResult, type StoredExchange } from '../run/results.js';
import { failureHeadline, formatResultFailure } from './format.js';
import {
  activeDisputes,
  activeEntries,
  dayOf,
  disputeFor,
  expectationFor,
  loadExpectations,
  type CheckExpectation,
  type ExpectationEntry,
} from '../report/expectations.js';
import { emitProgress, narrateReceiver } from '../report/progress.js';
import { buildRepros, writeRepros, type ReproFile } from '../report/repro.js';
import { clauseHref, reportPaths, reproHref } from '../report/paths.js';
import { exchangeMark, signatureText } from '../report/exchange-text.js';
import { maskUrl } from '../report/mask.js';
import { kitInfo } from '../report/kit.js';
import type { Outcome } from '../report/verdict.js';
import { selectChecks } from '../report/select.js';

const SEVERITY = { must: 'critical', should: 'normal' } as const;
/** Exchanges shown as report steps per check: every one a finding names, plus the last ones. */
const STEPS_SHOWN = 12;

export { selectChecks };

/** A target's failure: named so reporters (Allure) file it as a failed assertion, not a harness error. */
class ConformanceFailure extends Error {
  override readonly name = 'AssertionError';
}
/** The harness could not reach a verdict: reported as broken. */
class HarnessError extends Error {
  override readonly name = 'HarnessError';
}

/** No verdict for a cause that is not the target's (throttled, machine too busy): reported as broken, never as failed. */
class NoVerdictError extends Error {
  override readonly name = 'NoVerdict';
}

/** The run's configuration, profile, redactor and expectations: the same for every suite file of a run. */
function readRunContext() {
  const cfg = readRunConfig();
  const paths = reportPaths(cfg.reportsDir);
  const loaded = loadProfile(cfg.profilePath, process.env, { schemaPassedSha256: cfg.profileSha256, baseUrl: cfg.targetUrl });
  const redact = makeRedactor(merchantSecrets(loaded));
  const today = dayOf(cfg.startedAt ?? new Date().toISOString());
  const expectations = cfg.expectationsPath ? loadExpectations(cfg.expectationsPath, { isClause: hasClause }) : undefined;
  return { cfg, paths, loaded, redact, active: activeEntries(expectations, today), disputed: activeDisputes(expectations, today) };
}

let shared: { raw: string | undefined; context: ReturnType<typeof readRunContext> } | undefined;

/**
 * Read and checked once per worker, not once per suite file (a worker runs about fourteen of them, each
 * loading and validating the profile again). Read again if the run's configuration is another one.
 */
export function runContext(): ReturnType<typeof readRunContext> {
  const raw = process.env[RUN_CONFIG_ENV];
  if (shared?.raw !== raw || shared === undefined) shared = { raw, context: readRunContext() };
  return shared.context;
}

/** Turns a suite definition into vitest tests, with Allure labels and a stored result per check. */
export function registerSuite(suite: SuiteDef): void {
  const { cfg, paths, loaded, redact, active, disputed } = runContext();
  const checks = selectChecks(suite, cfg.suites, cfg.clauses);
  const fromEnvironment = environmentTarget(cfg, loaded.profile.baseUrl);
  let session: Session | undefined;
  let receiver: Receiver | undefined;

  beforeAll(async () => {
    const wh = loaded.profile.webhooks;
    receiver =
      cfg.webhooks !== 'off' && wh
        ? await startReceiver({
            host: wh.receiver?.host ?? '127.0.0.1',
            port: wh.receiver?.port ?? 0,
            publicUrl: wh.receiver?.publicUrl,
            ...publicUrlThroughTunnel(),
            merchants: Object.values(loaded.merchants).flatMap((m) => (typeof m === 'object' ? [m] : [])),
            ackTimeoutMs: wh.ackTimeoutMs,
          })
        : undefined;
    // The embedded reference's late timers are our machine's lost time.
    watchStallFile(inject('mpsiTargetLagFile'));
    session = openSession({
      loaded,
      baseUrl: inject('mpsiBaseUrl'),
      poolPort: inject('mpsiPoolPort'),
      // Concurrent checks share the receiver: each wait is narrated under the check that is waiting (its recorder's).
      receiver: receiver && narrateReceiver(receiver, () => currentRecorder()?.checkId ?? suite.name),
    });
  });
  afterAll(async () => {
    // seq numbers every delivery, also those the receiver's memory bound has forgotten since.
    const received = receiver?.deliveries().at(-1)?.seq ?? 0;
    if (received > 0) writeSuiteWebhooks(paths.traffic, suite.name, received);
    await session?.close();
  });

  const concurrent = runsConcurrently(suite, loaded.profile.webhooks?.timeScale ?? 1);
  (concurrent ? describe.concurrent : describe)(suite.name, () => {
    for (const check of checks) {
      it(check.title, async (ctx) => {
        const meta = ctx.task.meta as Record<string, unknown>;
        meta.mpsiCheckId = check.id;
        const seed = inject('mpsiSeed');
        const target = session!.target;
        const result = await runCheck(check, target, { seed, numRuns: cfg.numRuns, webhooks: cfg.webhooks });
        const repros = buildRepros(result, target.baseUrl, loaded, redact, { kitVersion: kitInfo().version, profile: loaded.profile.name });
        const reproNames = writeRepros(paths.repro, repros);
        const { sent, ...kept } = result;
        const stored = {
          ...kept,
          suite: suite.name,
          target: maskUrl(target.baseUrl),
          profile: loaded.profile.name,
          exchanges: result.exchanges.map(storeExchange),
          traffic: checkTraffic(sent),
          ...(reproNames.length > 0
            ? { repro: reproNames, reproSecretEnvs: Object.fromEntries(repros.map((r) => [r.name, r.secretEnvs])) }
            : {}),
        };
        writeResult(join(cfg.reportsDir, 'results'), stored, redact);
        const throttled = result.exchanges.reduce((n, ex) => n + (ex.throttled?.answers ?? 0), 0);
        if (throttled > 0)
          emitProgress({
            kind: 'throttled',
            check: check.id,
            answers: throttled,
            waitMs: result.exchanges.reduce((n, ex) => n + (ex.throttled?.waitMs ?? 0), 0),
          });
        const x = expectationFor(result, active);
        const outcome = outcomeOf(result, x, disputed);
        meta.mpsiOutcome = outcome;
        await annotate({
          suite,
          check,
          result,
          exchanges: stored.exchanges,
          target: target.baseUrl,
          profile: loaded.profile.name,
          redact,
          repros,
          x,
          outcome,
          runSeed: seed,
          reportUrl: cfg.reportUrl,
          cfg: { ...cfg, seed },
          fromEnvironment,
        });
        const comments = x.entries.map((e) => e.comment).join('; ');
        if (result.status === 'skipped')
          ctx.skip(redact(`${result.reason ?? 'precondition'}${x.expectedSkip ? ` (expected: ${comments})` : ''}`));
        if (x.expectedFail) {
          await ctx.annotate(redact(`expected failure (known deviation: ${comments})\n${formatResultFailure(result)}`), 'expected-failure');
          return;
        }
        if (x.unexpectedPass) await ctx.annotate(`unexpected pass: the expectations file says "${comments}"`, 'unexpected-pass');
        if (result.status !== 'passed' && result.status !== 'skipped') {
          const covering = disputed.filter((e) => result.findings.some((f) => disputeFor(result, f.clause, [e])));
          const dispute = covering.map((e) => `${e.comment} (${e.link})`).join('; ');
          meta.mpsiHeadline = redact(failureHeadline(result, dispute || undefined));
        }
        if (result.status === 'broken') throw new HarnessError(redact(formatResultFailure(result)));
        if (result.status === 'inconclusive') throw new NoVerdictError(redact(formatResultFailure(result)));
        const disputes = disputed.filter((e) => result.findings.some((f) => disputeFor(result, f.clause, [e])));
        // A disputed failure stays a failure for vitest and JUnit (nothing disputed reads as passed), with the dispute first.
        const dispute = disputes.length ? `DISPUTED by the vendor: ${disputes.map((e) => `${e.comment} (${e.link})`).join('; ')}\n` : '';
        if (result.status !== 'passed') throw new ConformanceFailure(redact(`${dispute}${formatResultFailure(result)}`));
      });
    }
  });
}

function outcomeOf(r: CheckResult, x: CheckExpectation, disputed: ExpectationEntry[]): Outcome {
  if (r.status === 'broken') return 'broken';
  if (r.status === 'inconclusive') return 'inconclusive';
  if (r.status === 'failed' && r.findings.length > 0 && r.findings.every((f) => disputeFor(r, f.clause, disputed))) return 'disputed';
  if (r.status === 'failed') return x.expectedFail ? 'expected-fail' : 'failed';
  if (r.status === 'skipped') return x.expectedSkip ? 'expected-skip' : 'skipped';
  return x.unexpectedPass ? 'unexpected-pass' : 'passed';
}

interface AnnotateInput {
  suite: SuiteDef;
  check: CheckDef;
  result: CheckResult;
  exchanges: StoredExchange[];
  target: string;
  profile: string;
  redact: Redactor;
  repros: ReproFile[];
  x: CheckExpectation;
  outcome: Outcome;
  runSeed: number;
  reportUrl?: string;
  cfg: RunConfig;
  /** The address the profile took from the environment, for the replay's --target (replay.ts environmentTarget). */
  fromEnvironment?: string;
}

async function annotate(a: AnnotateInput): Promise<void> {
  const { suite, check, result, redact } = a;
  const main = clause(check.clauses[0]!);
  await allure.epic(suite.area);
  await allure.feature(suite.name);
  await allure.story(main.section);
  await allure.label('resource', suite.resource);
  await allure.label('area', suite.area);
  await allure.label('level', check.level);
  for (const id of check.clauses) await allure.label('clause', id);
  // What the check is credited with: the clauses its assertions exercised, not those it names.
  for (const id of result.exercised) await allure.label('exercised', id);
  await allure.label('checkId', check.id);
  await allure.label('outcome', a.outcome);
  if (a.x.entries.length > 0) await allure.label('expectation', a.outcome);
  await allure.severity(SEVERITY[check.level]);
  for (const id of check.clauses) await allure.link(clauseHref(id, a.reportUrl), `${id}: ${clause(id).text}`, 'clause');
  // A finding can be against another clause than the check's own (a global invariant): link that one too.
  const failedClauses = [...new Set(result.findings.map((f) => f.clause))].filter(hasClause);
  for (const id of failedClauses) {
    await allure.label('failedClause', id);
    if (!check.clauses.includes(id)) await allure.link(clauseHref(id, a.reportUrl), `${id} (failed here): ${clause(id).text}`, 'clause');
  }
  for (const r of a.repros) await allure.link(reproHref(r.name, a.reportUrl), `reproduction script ${r.name}`, 'repro');
  const deviation = a.x.entries.length > 0 ? `\n\nKnown deviation (${a.outcome}): ${a.x.entries.map((e) => e.comment).join('; ')}` : '';
  await allure.description(
    redact(
      `Enforces ${check.clauses.map((id) => `${id} (${clause(id).level})`).join(', ')}.\n\n` +
        `${main.text}\n\nSection: ${main.section}\n\nCheck id: ${check.id}. Replay its suite (from any ` +
        `folder): \`${replayLine(replayOf(a.cfg, undefined, { suite: suite.name }, a.fromEnvironment))}\`.${deviation}`,
    ),
  );
  // Seed and target change from run to run (the embedded reference's port): kept out of the history id.
  await allure.parameter('seed', String(a.runSeed), { excluded: true });
  await allure.parameter('target', maskUrl(a.target), { excluded: true });
  await allure.parameter('profile', a.profile);
  for (const [topic, reading] of Object.entries(result.readings)) await allure.parameter(`reading: ${topic}`, redact(reading));
  if (result.status === 'skipped' && result.reason) await allure.parameter('skipped because', redact(result.reason));
  // The clause text travels with the single-file report: a reader needs no other file to see what was checked.
  const clauseText = check.clauses
    .map((id) => {
      const c = clause(id);
      return `${c.id} — ${c.level}, binds the ${c.party}\n${c.section}\n${c.text}`;
    })
    .join('\n\n');
  await allure.attachment('clauses', `${clauseText}\n\nParaphrased from INTERFACE.md, which is the authority.`, 'text/plain');

  const failing = new Set(result.findings.map((f) => f.exchangeId).filter(Boolean));
  const shown = a.exchanges.filter((ex, i) => failing.has(ex.id) || i >= a.exchanges.length - STEPS_SHOWN);
  for (const ex of shown) {
    const findings = result.findings.filter((f) => f.exchangeId === ex.id);
    const answer = ex.response ? `HTTP ${ex.response.status}` : `no response (${ex.error?.kind ?? 'error'})`;
    const name = redact(
      `${ex.id} ${ex.label} → ${answer}; signature ` +
        `${ex.signature === undefined ? 'not checked' : (ex.signature as { ok: boolean }).ok ? 'ok' : 'INVALID'}`,
    );
    try {
      await allure.step(name, async (step) => {
        await step.parameter('signature', signatureText(ex.signature));
        // The text itself is written from the stored result once the run is over (exchange-text.ts).
        await allure.attachment('request and response', exchangeMark(ex.id), 'text/plain');
        const repro = a.repros.find((r) => r.exchangeId === ex.id);
        if (repro) await allure.attachment(`repro ${repro.name}`, repro.text, 'text/plain');
        if (findings.length > 0) {
          throw new ConformanceFailure(redact(findings.map((f) => `[${f.code}] ${f.clause}: ${f.title}`).join('\n')));
        }
      });
    } catch {
      // The step is marked failed with the finding; the check's own verdict is thrown by the test.
    }
  }
}
