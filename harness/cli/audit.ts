/**
 * `serve --audit`: the reference sandbox for a merchant's own integration tests, watched. Every
 * request it answers is diagnosed against the clauses that bind the client; on exit (Ctrl-C,
 * SIGTERM) and every --audit-interval seconds the client conformance report is written.
 */
import { resolve } from 'node:path';
import { MERCHANTS } from '../../reference/fixtures.js';
import { parseServeArgs, processIO, type ServeIO } from '../../reference/serve.js';
import { startReference } from '../../reference/index.js';
import { ClientAudit } from '../merchant/audit/audit.js';
import { auditKeys, auditOperations } from '../merchant/audit/keys.js';
import { writeMerchantHtml, writeMerchantReport } from '../merchant/report.js';
import { loadProfile } from '../profile/load.js';
import { makeRedactor } from '../kit/redact.js';
import { REFERENCE_PROFILE } from '../run/config.js';
import { flagsHelp, intFlag, parseFlags, UsageError, type FlagTable, type ParsedFlags } from './args.js';

/** Share of eligible answers --tamper-responses alters unless --tamper-rate says otherwise. */
export const TAMPER_RATE = 0.25;
/** Share of payment queries and creates --rough answers with a transient failure unless --rough-rate says otherwise. */
const ROUGH_RATE = 0.2;
/** Readings --rough selects unless --readings names a set. */
const ROUGH_READINGS = ['uuid-service-numbers', 'non-utc-offset-times'] as const;

/** The audit's own flags; every other flag of `serve --audit` is serve's, parsed by serve. */
export const AUDIT_FLAGS = {
  audit: { kind: 'bool', help: 'audit the clients that call the sandbox (this mode)' },
  reports: {
    kind: 'value',
    arg: 'DIR',
    help:
      'where the client report goes (default ./reports/client-audit):\ncertificate.md/.json, ' +
      'junit.xml, allure-results/, allure-report/index.html',
  },
  'audit-interval': { kind: 'value', arg: 'S', help: 'also write the report every S seconds while serving' },
  'no-html': { kind: 'bool', help: 'skip the single-file HTML page at exit (allure-report/index.html)' },
  'tamper-responses': {
    kind: 'bool',
    help: [
      'answer some successful creates and queries with another service number and',
      'status, under a signature that does not verify: first the answers whose numbers',
      "a client sends back (each merchant's first answer telling it a new service number",
      "always, then at least the rate's share of those), then the others at the rate. A",
      'client that then sends that number (queries it, refunds that order) trusted an',
      'untrustworthy response (auth.response.verify); the report counts the altered',
      'answers a later request concerned (the chance to act on them). Without it, or if',
      'no later request concerned an altered answer, that clause is skipped',
    ].join('\n'),
  },
  'tamper-rate': { kind: 'value', arg: 'R', help: `share of those answers altered, 0 < R <= 1 (default ${TAMPER_RATE})` },
  rough: {
    kind: 'bool',
    help: [
      'transient answers the document allows, at a seeded rate: 500 queryFailed on a payment',
      'query, 422 systemBusy on a payment create (half the time after the order was',
      'recorded); judged: the query tried again (client.query.retry, should), and after a',
      'busy create a query by your own number before a new one (idem.create-once)',
      'Every webhook is sent twice (the copy built at its own sending time, so it shows the',
      'status of that moment) and a share held back so later ones overtake it; service',
      'numbers are UUIDs and times carry +05:30 (unless --readings names a set). Judged:',
      'each webhook your receiver answered acknowledged with success, copies included',
      '(merchant.ack.success-body, webhook.dup.may-repeat)',
    ].join('\n'),
  },
  'rough-rate': {
    kind: 'value',
    arg: 'R',
    help: `share of those requests answered so and webhooks held, 0 < R <= 1 (default ${ROUGH_RATE})`,
  },
  seed: { kind: 'value', arg: 'N', help: 'seeds --tamper-responses and --rough (default: random, printed at start)' },
} as const satisfies FlagTable;

export const AUDIT_HELP = `mpsi-conformance serve --audit [--reports DIR] [--audit-interval S] [serve options]

Serves the reference sandbox (as \`serve\`) for your integration's own tests and audits what your
client does: every request is diagnosed against the clauses that bind the client — a refused
signature is explained in the document's troubleshooting order (wrong merchant id, production key,
CR LF, the body alone signed, body re-serialised, re-ordered or trimmed after signing, milliseconds or formatted timestamp, empty nonce,
upper-case hex, Base64, MD5; a signature nothing reproduces is reported as not verifying, without
blaming a rule), and Content-Type, camelCase fields, amounts that are not decimal strings (a JSON
number, "1,249.50", "25,00", "1.2e3", "+25") or have three decimals, one number for a payment and
a refund, parallel creates (two creates with one number in flight at once), a create retried
without a query in between, nonces outside 16-32 characters (should) are reported. The sandbox
answers exactly as the interface says: diagnoses go to the log and the report, never into msg.

${flagsHelp(AUDIT_FLAGS)}  --port, --host, --time-scale, --fault   as for serve

On Ctrl-C or SIGTERM the report is written and the exit code is 0 (no must-level mistake),
1 (a must-level mistake; the report names clause, request and diagnosis) or 2 (nothing was
observed, or the sandbox could not start).
`;

/** The audit's own flags (and their values) apart from serve's, which serve parses. */
function splitArgs(argv: string[]): { own: string[]; serve: string[] } {
  const mine = new Set<number>();
  argv.forEach((a, i) => {
    if (a === '-h' || a === '--help') mine.add(i);
    if (!a.startsWith('--')) return;
    const [name, inline] = a.slice(2).split(/=(.*)/s, 2) as [string, string | undefined];
    const def = (AUDIT_FLAGS as FlagTable)[name];
    if (def === undefined) return;
    mine.add(i);
    if (def.kind !== 'bool' && inline === undefined) mine.add(i + 1);
  });
  return {
    own: argv.filter((_a, i) => mine.has(i)).map((a) => (a === '-h' ? '--help' : a)),
    serve: argv.filter((_a, i) => !mine.has(i)),
  };
}

/** What the flags ask for, each checked: the sandbox's options and the audit's. */
interface AuditRequest {
  serve: ReturnType<typeof parseServeArgs>['opts'];
  intervalS?: number;
  seed: number;
  tamperResponses?: { seed: number; rate: number };
  rough?: { seed: number; rate: number };
  reports: string;
  html: boolean;
}

export async function auditMain(argv: string[], io: ServeIO = processIO): Promise<number> {
  const args = splitArgs(argv);
  const { flags } = parseFlags(args.own, AUDIT_FLAGS);
  if (flags.help) {
    io.out(AUDIT_HELP);
    return 0;
  }
  let serveArgs: ReturnType<typeof parseServeArgs>;
  try {
    serveArgs = parseServeArgs(args.serve);
  } catch (e) {
    throw new UsageError(`serve --audit: ${(e as Error).message}`);
  }
  if (serveArgs.listFaults) throw new UsageError('serve --audit: --list-faults does not start a sandbox; run it without --audit');
  return executeAudit(auditRequestOf(flags, serveArgs.opts), io);
}

function auditRequestOf(flags: ParsedFlags<typeof AUDIT_FLAGS>, serve: AuditRequest['serve']): AuditRequest {
  const intervalS = intFlag(flags['audit-interval'], 'audit-interval', 1, 86_400);
  const seed = intFlag(flags.seed, 'seed', 0, 2 ** 31 - 1) ?? Math.floor(Math.random() * 2 ** 31);
  const rateFlag = (name: 'tamper-rate' | 'rough-rate', needs: 'tamper-responses' | 'rough', fallback: number): number => {
    const text = flags[name];
    if (text === undefined) return fallback;
    if (!flags[needs]) throw new UsageError(`serve --audit: --${name} needs --${needs}`);
    const n = Number(text);
    if (typeof text !== 'string' || !/^(0(\.\d+)?|1(\.0+)?)$/.test(text) || n <= 0)
      throw new UsageError(`serve --audit: --${name} must be a number above 0 and at most 1, got ${JSON.stringify(text)}`);
    return n;
  };
  const rate = rateFlag('tamper-rate', 'tamper-responses', TAMPER_RATE);
  const roughRate = rateFlag('rough-rate', 'rough', ROUGH_RATE);
  const rough = flags.rough ? { seed, rate: roughRate } : undefined;
  return {
    // Playing rough includes the other answers a client must survive: service numbers of another shape, times at a non-UTC offset.
    serve: rough && serve.readings === undefined ? { ...serve, readings: [...ROUGH_READINGS] } : serve,
    ...(intervalS !== undefined ? { intervalS } : {}),
    seed,
    ...(flags['tamper-responses'] ? { tamperResponses: { seed, rate } } : {}),
    ...(rough ? { rough } : {}),
    reports: resolve(flags.reports ?? 'reports/client-audit'),
    html: !flags['no-html'],
  };
}

async function executeAudit(request: AuditRequest, io: ServeIO): Promise<number> {
  const { reports, seed, rough, tamperResponses } = request;
  const loaded = loadProfile(REFERENCE_PROFILE);
  const keys = auditKeys(loaded);
  const redact = makeRedactor(keys.flatMap((k) => [k.test, k.production ?? '']));
  const audit = new ClientAudit(keys, auditOperations(loaded), (line) => io.err(redact(line)));
  const startedAt = new Date().toISOString();
  const started = performance.now();
  const write = () =>
    writeMerchantReport(
      reports,
      {
        kind: 'client-audit',
        title: 'Client conformance report (audit of a sandbox session)',
        subject: `the clients that called the sandbox: ${audit.count} request${audit.count === 1 ? '' : 's'}`,
        startedAt,
        durationMs: performance.now() - started,
        notes: ['what the client did against the clauses that bind it; the sandbox answered every request as the interface says'],
      },
      audit.results(),
      redact,
    );

  const running = await startReference({
    ...request.serve,
    log: io.out,
    onExchange: (x) => audit.record(x),
    onDelivery: (d) => audit.recordDelivery(d),
    tamperResponses,
    rough,
  });
  io.out(`MPSI reference sandbox listening on ${running.url} (auditing clients; report: ${reports})`);
  if (rough) {
    io.out(
      `playing rough (seed ${seed}): about ${Math.round(rough.rate * 100)}% of payment queries answered 500 queryFailed and of ` +
        `payment creates 422 systemBusy, once each; every webhook sent twice, about ${Math.round(rough.rate * 100)}% held back`,
    );
    const readings = request.serve.readings;
    io.out(`readings: ${Array.isArray(readings) ? readings.join(', ') : String(readings)}`);
  }
  if (tamperResponses)
    io.out(
      `tampering with each merchant's first answer telling it a new service number, then about ` +
        `${Math.round(tamperResponses.rate * 100)}% of successful answers carrying a service number, those telling a new ` +
        `one first (seed ${seed}; --seed ${seed} repeats the choice)`,
    );
  io.out(`merchants: ${MERCHANTS.map((m) => (m.frozen ? `${m.id} (frozen)` : m.id)).join(', ')}`);
  const timer = request.intervalS ? setInterval(() => write(), request.intervalS * 1000) : undefined;
  await io.untilStopped();
  if (timer) clearInterval(timer);
  await running.close();
  const { verdict, paths } = write();
  const html = request.html ? await writeMerchantHtml(reports, `MPSI client audit — ${verdict.verdict}`) : {};
  if (html.problem) io.err(html.problem);
  io.out(`client audit: ${audit.summary()}; verdict ${verdict.verdict} (exit ${verdict.exitCode})`);
  if (tamperResponses) {
    const { altered, chance } = audit.tampered;
    io.out(
      `tampered answers: ${altered} altered, ${chance} of them followed by a request about the same order ` + '(the chance to act on them)',
    );
  }
  for (const r of verdict.reasons) io.out(`  ${r}`);
  io.out(`certificate: ${paths.certificateMd}${html.file ? `, ${html.file}` : ''}`);
  return audit.count === 0 ? 2 : verdict.exitCode;
}
