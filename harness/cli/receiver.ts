/**
 * `receiver`: certifies a merchant's webhook endpoint. The kit plays the service, posts signed
 * webhooks (and forged ones) and judges the replies clause by clause.
 */
import { readFileSync } from 'node:fs';
import { connect } from 'node:net';
import { resolve } from 'node:path';
import { runReceiver } from '../merchant/receiver/run.js';
import { writeMerchantHtml, writeMerchantReport } from '../merchant/report.js';
import { makeRedactor } from '../kit/redact.js';
import { maskUrl } from '../report/mask.js';
import { flagsHelp, intFlag, parseFlags, UsageError, type FlagTable } from './args.js';
import { firstLine } from '../kit/text.js';

export const RECEIVER_FLAGS = {
  url: { kind: 'value', arg: 'URL', help: "the receiver's endpoint (the notify_url the merchant sends)" },
  merchant: { kind: 'value', arg: 'ID', help: 'the merchant id the receiver answers for (X-MerchantID)' },
  'secret-env': {
    kind: 'value',
    arg: 'VAR',
    help: "environment variable holding the merchant's secret key (never a flag: it would\nend up in shell history and CI logs)",
  },
  'inspect-url': {
    kind: 'value',
    arg: 'URL',
    help: [
      'optional inspection hook: GET answers a JSON array of {event, order_no, status}',
      'the receiver acted on, in the order it acted on them ("queried": true on a status',
      'taken after querying the order); lets the kit check that duplicates are processed',
      'once and that a stale status arriving after a newer one does not become the',
      'order\'s status unqueried (without it those checks are reported "skipped:',
      'precondition", never passed)',
    ].join('\n'),
  },
  config: {
    kind: 'value',
    arg: 'FILE',
    help: 'JSON file with the same settings: {"url", "merchant", "secretEnv", "inspectUrl",\n"seed", "reports"}; flags win over it',
  },
  reports: {
    kind: 'value',
    arg: 'DIR',
    help: 'where the reports go (default ./reports/receiver): certificate.md/.json,\njunit.xml, allure-results/, allure-report/index.html',
  },
  seed: { kind: 'value', arg: 'N', help: 'fast-check seed (printed by every run; replays it)' },
  check: { kind: 'multi', arg: 'TEXT', help: 'only checks whose id or clause contains TEXT (repeatable)' },
  'no-html': { kind: 'bool', help: 'skip the single-file HTML page (allure-report/index.html)' },
} as const satisfies FlagTable;

export const RECEIVER_HELP = `mpsi-conformance receiver --url URL --merchant ID --secret-env VAR [options]

Certifies a merchant's webhook receiver: the kit plays the service and posts webhooks to URL —
every event kind and status the document names (property-generated bodies), duplicates, out-of-order
deliveries, and forged webhooks that must be refused (another key, body altered after signing, CR LF
string to sign, another X-MerchantID, missing or empty headers, upper-case hex, bodies that are not
JSON, each followed by a genuine webhook that must still be acknowledged). Only the reply body counts,
read to its end: exactly "success" (7 bytes, nothing after it) within 5 seconds acknowledges.

${flagsHelp(RECEIVER_FLAGS)}
Exit codes: 0 conformant, 1 a must-level clause failed (the certificate names it), 2 the run could
not be made (bad flags, secret not set, endpoint unreachable: connection refused or unroutable).
A receiver that accepts the connection and then resets or closes it, answers bytes that are not
HTTP, or is still sending its reply at the deadline (5 s and a 1 s grace) fails, with a certificate.
`;

interface Settings {
  url?: string;
  merchant?: string;
  secretEnv?: string;
  inspectUrl?: string;
  seed?: number;
  reports?: string;
}

function readConfig(path: string): Settings {
  let parsed: unknown;
  try {
    parsed = JSON.parse(readFileSync(path, 'utf8'));
  } catch (e) {
    throw new UsageError(`--config ${path}: ${firstLine(e)}`);
  }
  if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed)) throw new UsageError(`--config ${path}: not a JSON object`);
  const known = ['url', 'merchant', 'secretEnv', 'inspectUrl', 'seed', 'reports', '$schema', 'description'];
  for (const [k, v] of Object.entries(parsed)) {
    if (!known.includes(k))
      throw new UsageError(`--config ${path}: unknown setting ${JSON.stringify(k)} (known: ${known.slice(0, 6).join(', ')})`);
    if (k === 'seed' ? !Number.isInteger(v) : typeof v !== 'string')
      throw new UsageError(`--config ${path}: ${k} must be ${k === 'seed' ? 'a whole number' : 'a string'}`);
  }
  return parsed as Settings;
}

function httpUrl(v: string, flag: string): string {
  let u: URL;
  try {
    u = new URL(v);
  } catch {
    throw new UsageError(`${flag} is not a URL: ${JSON.stringify(maskUrl(v))}`);
  }
  if (u.protocol !== 'http:' && u.protocol !== 'https:') throw new UsageError(`${flag} must be an http(s) URL, got ${u.protocol}`);
  return v;
}

/**
 * The connection errors that mean nobody could be reached: refused, unroutable, a name that does not
 * resolve, no answer to the handshake. A connection accepted and then reset or closed is reachable:
 * what the receiver does with it is judged by the checks, with a certificate.
 */
const UNREACHABLE = new Set([
  'ECONNREFUSED',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENETDOWN',
  'EHOSTDOWN',
  'EADDRNOTAVAIL',
  'ENOTFOUND',
  'EAI_AGAIN',
  'ETIMEDOUT',
]);

/** Why the receiver cannot be reached, or undefined when a connection could be made (whatever came after). */
export function unreachableReason(code: string | undefined): string | undefined {
  return code !== undefined && UNREACHABLE.has(code) ? code : undefined;
}

/** A receiver nobody listens at is a run that could not be made, not a verdict. */
function reachable(url: string): Promise<string | undefined> {
  const u = new URL(url);
  return new Promise((done) => {
    const s = connect({
      host: u.hostname.replace(/^\[|\]$/g, ''),
      port: Number(u.port || (u.protocol === 'https:' ? 443 : 80)),
      timeout: 5000,
    });
    s.once('connect', () => {
      s.destroy();
      done(undefined);
    });
    s.once('timeout', () => {
      s.destroy();
      done('connect timed out');
    });
    // A reset can reach the socket before its connect event (the handshake completed, then the receiver reset it): reachable.
    s.once('error', (e: NodeJS.ErrnoException) => done(unreachableReason(e.code) ?? (e.code ? undefined : e.message)));
  });
}

export async function receiverMain(argv: string[], env: NodeJS.ProcessEnv = process.env): Promise<number> {
  const { flags, rest } = parseFlags(argv, RECEIVER_FLAGS);
  if (flags.help) {
    process.stdout.write(RECEIVER_HELP);
    return 0;
  }
  if (rest.length) throw new UsageError(`unexpected argument ${JSON.stringify(rest[0])}`);
  const cfg: Settings = flags.config ? readConfig(String(flags.config)) : {};
  const url = httpUrl(String(flags.url ?? cfg.url ?? ''), '--url');
  const merchant = String(flags.merchant ?? cfg.merchant ?? '');
  if (!merchant) throw new UsageError('--merchant ID is required');
  const secretEnv = String(flags['secret-env'] ?? cfg.secretEnv ?? '');
  if (!secretEnv) throw new UsageError('--secret-env VAR is required (the name of the variable holding the secret key)');
  const secret = env[secretEnv];
  if (!secret) throw new UsageError(`environment variable ${secretEnv} is not set or empty`);
  const inspectRaw = flags['inspect-url'] ?? cfg.inspectUrl;
  const inspectUrl = inspectRaw === undefined ? undefined : httpUrl(String(inspectRaw), '--inspect-url');
  const seed = intFlag(flags.seed, 'seed', -(2 ** 31), 2 ** 31 - 1) ?? cfg.seed ?? Math.floor(Math.random() * 2 ** 31);
  const reports = resolve(String(flags.reports ?? cfg.reports ?? 'reports/receiver'));
  const only = flags.check ?? [];
  const redact = makeRedactor([secret]);

  const why = await reachable(url);
  if (why) throw new UsageError(`the receiver at ${maskUrl(url)} is unreachable (${why})`);
  const replay = [
    'mpsi-conformance receiver',
    `--url ${maskUrl(url)}`,
    `--merchant ${merchant}`,
    `--secret-env ${secretEnv}`,
    ...(inspectUrl ? [`--inspect-url ${maskUrl(inspectUrl)}`] : []),
    `--seed ${seed}`,
    `--reports ${reports}`,
    ...only.map((c) => `--check ${c}`),
  ].join(' ');
  process.stdout.write(
    redact(`mpsi-conformance receiver: ${maskUrl(url)} as merchant ${merchant}, seed ${seed} — replay with --seed ${seed}\n`),
  );
  const started = performance.now();
  const startedAt = new Date().toISOString();
  const results = await runReceiver({ url, merchantId: merchant, secret, seed, inspectUrl, only });
  const { verdict, paths } = writeMerchantReport(
    reports,
    {
      kind: 'receiver',
      title: 'Webhook receiver certificate',
      subject: `${maskUrl(url)}, merchant ${merchant}`,
      seed,
      replay,
      startedAt,
      durationMs: performance.now() - started,
    },
    results,
    redact,
  );
  const html = flags['no-html'] ? {} : await writeMerchantHtml(reports, `MPSI webhook receiver — ${merchant} — ${verdict.verdict}`);
  if (html.problem) process.stderr.write(`mpsi-conformance: ${html.problem}\n`);
  const lines = results.map(
    (r) =>
      `${r.status.padEnd(7)} ${r.checkId}` +
      `${r.findings.length ? ` — ${r.findings.map((f) => `${f.clause}: ${f.title}`).join('; ')}` : r.reason ? ` — ${r.reason}` : ''}`,
  );
  lines.push(
    '',
    `verdict: ${verdict.verdict} (exit ${verdict.exitCode})`,
    ...verdict.reasons,
    ...verdict.warnings.map((w) => `warning: ${w}`),
    `certificate: ${paths.certificateMd}`,
    `JUnit:       ${paths.junit}`,
    `Allure:      ${html.file ?? paths.allureResults}`,
  );
  process.stdout.write(redact(`${lines.join('\n')}\n`));
  return verdict.exitCode;
}
