import { afterAll, beforeAll, describe, inject, it } from 'vitest';
import * as allure from 'allure-js-commons';
import { join } from 'node:path';
import type { SuiteDef, CheckDef } from '../check/define.js';
import { runCheck, type CheckResult } from '../check/run.js';
import { clause } from '../clauses/registry.js';
import { readRunConfig } from '../run/config.js';
import { loadProfile } from '../profile/load.js';
import { openSession, type Session } from '../run/session.js';
import { startReceiver } from '../webhooks/receiver.js';
import { makeRedactor } from '../redact.js';
import { storeExchange, writeResult } from '../run/results.js';
import { describeExchange } from '../describe.js';
import { formatResultFailure } from './format.js';

const SEVERITY = { must: 'critical', should: 'normal' } as const;

export function selectChecks(suite: SuiteDef, suites: string[], clauses: string[]): CheckDef[] {
  if (suites.length > 0 && !suites.includes(suite.name)) return [];
  if (clauses.length === 0) return suite.checks;
  return suite.checks.filter((c) => c.clauses.some((id) => clauses.some((want) => id === want || id.startsWith(`${want}.`))));
}

/** Turns a suite definition into vitest tests, with Allure labels and a stored result per check. */
export function registerSuite(suite: SuiteDef): void {
  const cfg = readRunConfig();
  const loaded = loadProfile(cfg.profilePath);
  const redact = makeRedactor(
    Object.values(loaded.merchants).flatMap((m) => (typeof m === 'object' ? [m.secret] : [])),
  );
  const checks = selectChecks(suite, cfg.suites, cfg.clauses);
  let session: Session | undefined;

  beforeAll(async () => {
    const wh = loaded.profile.webhooks;
    const receiver =
      cfg.webhooks !== 'off' && wh
        ? await startReceiver({
            host: wh.receiver?.host ?? '127.0.0.1',
            port: wh.receiver?.port ?? 0,
            publicUrl: wh.receiver?.publicUrl,
            merchants: Object.values(loaded.merchants).flatMap((m) => (typeof m === 'object' ? [m] : [])),
            ackTimeoutMs: wh.ackTimeoutMs,
          })
        : undefined;
    session = openSession({ loaded, baseUrl: inject('mpsiBaseUrl'), receiver });
  });
  afterAll(async () => {
    await session?.close();
  });

  describe(suite.name, () => {
    for (const check of checks) {
      it(check.title, async (ctx) => {
        const seed = inject('mpsiSeed');
        const result = await runCheck(check, session!.target, { seed, numRuns: cfg.numRuns, webhooks: cfg.webhooks });
        await annotate(suite, check, result, session!.target.baseUrl, loaded.profile.name, redact);
        writeResult(
          join(cfg.reportsDir, 'results'),
          {
            ...result,
            suite: suite.name,
            target: session!.target.baseUrl,
            profile: loaded.profile.name,
            exchanges: result.exchanges.map(storeExchange),
          },
          redact,
        );
        if (result.status === 'skipped') ctx.skip(result.reason);
        if (result.status !== 'passed') throw new Error(redact(formatResultFailure(result)));
      });
    }
  });
}

async function annotate(
  suite: SuiteDef,
  check: CheckDef,
  result: CheckResult,
  target: string,
  profile: string,
  redact: (s: string) => string,
): Promise<void> {
  const main = clause(check.clauses[0]!);
  await allure.epic(suite.area);
  await allure.feature(suite.name);
  await allure.story(main.section);
  await allure.label('resource', suite.resource);
  await allure.label('area', suite.area);
  await allure.label('level', check.level);
  for (const id of check.clauses) await allure.label('clause', id);
  await allure.severity(SEVERITY[check.level]);
  await allure.link(`interface://${encodeURIComponent(main.section)}#${main.id}`, `${main.id}: ${main.text}`);
  await allure.description(`Enforces ${check.clauses.join(', ')} (${check.level}).\n\n${main.text}\n\nSection: ${main.section}`);
  await allure.parameter('seed', String(result.seed));
  await allure.parameter('target', target);
  await allure.parameter('profile', profile);
  for (const [topic, reading] of Object.entries(result.readings)) await allure.parameter(`reading: ${topic}`, reading);
  for (const ex of result.exchanges.slice(-12)) {
    await allure.step(`${ex.id} ${ex.label}`, async () => {
      await allure.attachment('exchange', redact(describeExchange(ex)), 'text/plain');
      await allure.attachment('exchange.json', redact(JSON.stringify(storeExchange(ex), null, 2)), 'application/json');
    });
  }
}
