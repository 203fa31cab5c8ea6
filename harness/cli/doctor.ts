import { resolve } from 'node:path';
import { runDoctor } from '../doctor/run.js';
import { terminalText, writeDoctorReport } from '../doctor/render.js';
import type { DoctorReport } from '../doctor/model.js';
import { loadProfile, merchantSecrets, ProfileError, type LoadedProfile } from '../profile/load.js';
import { makeRedactor } from '../kit/redact.js';
import { REFERENCE_PROFILE } from '../run/config.js';
import { maskUrl } from '../report/mask.js';
import type { RunMeta } from '../report/run-meta.js';
import { flagsHelp, parseFlags, UsageError, type FlagTable } from './args.js';
import { TUNNEL_FLAG, withTunnel } from './tunnel.js';

export const DOCTOR_FLAGS = {
  profile: { kind: 'value', arg: 'FILE', help: 'target profile (default: fixtures/profiles/reference.json, the embedded reference)' },
  target: {
    kind: 'value',
    arg: 'URL',
    help: "base URL of the target (overrides the profile's baseUrl, and any environment variable it names)",
  },
  reports: { kind: 'value', arg: 'DIR', help: 'where doctor.json and doctor.md go (default ./reports)' },
  quiet: { kind: 'bool', help: 'print only the lines that are not verified' },
  tunnel: TUNNEL_FLAG,
} as const satisfies FlagTable;

export const DOCTOR_HELP = `mpsi-conformance doctor [--profile FILE] [--target URL] [--reports DIR] [--tunnel CMD]

Verifies, against the target, each assumption of the profile about what INTERFACE.md leaves open —
never a conformance rule: the envelope at baseUrl; each merchant's id and key (a wrong secret, a
production key in a sandbox, a wrong id are said so by name); that unknownId is unknown; each endpoint
path; each payment and payout method for each merchant said to have it, inside its declared limits
(the bounds accepted, one cent outside refused); the price-point tiers; every data path in a real
answer (checkout.data, paymentRecord, cardPayment.data, refunds.data, payouts.data) and the query
fields; pendingStatus; each test card's kind of outcome (charged / refused / pending); each sandbox
control on a fresh record; that webhooks reach the receiver (publicUrl too) within deliveryWaitMs.
Entries no check reads are warnings. Each line: verified / WRONG / not verifiable, the profile's JSON
path, what was expected and what the target answered; doctor.json and doctor.md (with the exchanges,
redacted) go to the reports directory. Payouts the doctor makes are released again (cancelled or
settled as failed) where the profile gives a way — except one of the smallest amount of the primary,
settled as success to verify that outcome of sandbox.settlePayout.

A production profile ("environment": "production") gets a doctor that moves no money: signed queries
and requests that fail authentication by construction only (the parity --safe guard).

The doctor is also the first phase of every run and parity (skip it with --no-doctor).

${flagsHelp(DOCTOR_FLAGS)}
Exit codes: 0 every assumption verified or not verifiable (warnings allowed), 2 at least one is wrong
(or the doctor could not run: bad flags, bad profile) — the message names the field to fix.
`;

/** Every secret the profile holds (keys, production keys), for the redactor. */
export function redactorFor(loaded: LoadedProfile[]): (s: string) => string {
  return makeRedactor(loaded.flatMap((l) => merchantSecrets(l)));
}

export interface DoctorPhaseOptions {
  loaded: LoadedProfile;
  /** "embedded" or the target URL. */
  baseUrl: string;
  reportsDir: string;
  /** File name stem (doctor → doctor.json, doctor.md). */
  name?: string;
  verbose: boolean;
  /** Move no money whatever the environment (parity --safe). */
  safe?: boolean;
  /** Verify webhook delivery (default true; a run with --webhooks off has no receiver). */
  webhooks?: boolean;
  /** A selected check depends on the target's webhook clock: measure it (default true). */
  webhookClock?: boolean;
  /** Prefix of progress lines (e.g. "side A"). */
  tag?: string;
  /** Faults of the embedded reference: the doctor meets the same target as the checks. */
  faults?: string[];
  /** With baseUrl "embedded": the run's reference, already started (harness/run/host.ts). */
  embeddedUrl?: string;
  out?: NodeJS.WritableStream;
  err?: NodeJS.WritableStream;
}

/** Runs the doctor, prints its lines, writes doctor.json/.md; returns the report. */
export async function doctorPhase(o: DoctorPhaseOptions): Promise<DoctorReport> {
  const out = o.out ?? process.stdout;
  const err = o.err ?? process.stderr;
  const redact = redactorFor([o.loaded]);
  const tag = o.tag ? ` (${o.tag})` : '';
  err.write(
    `doctor${tag}: verifying profile ${o.loaded.profile.name} against ` +
      `${o.baseUrl === 'embedded' ? 'the embedded reference' : maskUrl(o.baseUrl)}\n`,
  );
  const report = await runDoctor({
    loaded: o.loaded,
    baseUrl: o.baseUrl,
    webhooks: o.webhooks,
    ...(o.webhookClock !== undefined ? { webhookClock: o.webhookClock } : {}),
    safe: o.safe,
    faults: o.faults,
    ...(o.embeddedUrl !== undefined ? { embeddedUrl: o.embeddedUrl } : {}),
    onProgress: (phase) => err.write(`doctor${tag}: ${phase}…\n`),
  });
  const files = writeDoctorReport(o.reportsDir, report, redact, o.name ?? 'doctor');
  out.write(redact(terminalText(report, o.verbose).replace(/^doctor:/gm, `doctor${tag}:`)));
  out.write(`doctor${tag}: report ${files.md} (+ .json)\n`);
  return report;
}

/** What the run's certificate says of the doctor. */
export function doctorMeta(r: DoctorReport | undefined, file = 'doctor.md'): NonNullable<RunMeta['doctor']> {
  if (!r) return { ran: false };
  const doubts = r.items
    .filter((i) => i.status === 'doubt')
    .map((i) => ({ path: i.path, assumption: i.assumption, clauses: i.clauses ?? [], answered: i.answered ?? '', fix: i.fix ?? '' }));
  const unverified = r.items
    .filter((i) => i.status === 'not-verifiable' && i.decides?.length)
    .map((i) => ({ path: i.path, answered: i.answered ?? '', findingCodes: i.decides ?? [] }));
  return {
    ran: true,
    verified: r.counts.verified,
    wrong: r.counts.wrong,
    notVerifiable: r.counts['not-verifiable'],
    warnings: r.counts.warning,
    requests: r.requests,
    durationMs: r.durationMs,
    report: file,
    ...(doubts.length ? { doubts } : {}),
    ...(unverified.length ? { unverified } : {}),
  };
}

export async function doctorMain(argv: string[]): Promise<number> {
  const { flags, rest } = parseFlags(argv, DOCTOR_FLAGS);
  if (flags.help) {
    process.stdout.write(DOCTOR_HELP);
    return 0;
  }
  if (rest.length > 0) throw new UsageError(`unexpected argument ${JSON.stringify(rest[0])}`);
  let loaded: LoadedProfile;
  try {
    const given = flags.target === undefined ? {} : { baseUrl: flags.target };
    loaded = loadProfile(flags.profile === undefined ? REFERENCE_PROFILE : resolve(flags.profile), process.env, given);
  } catch (err) {
    if (err instanceof ProfileError) {
      process.stderr.write(`mpsi-conformance: doctor: the profile cannot be loaded:\n  ${err.message.split('\n').join('\n  ')}\n`);
      return 2;
    }
    throw err;
  }
  let baseUrl = loaded.profile.baseUrl;
  if (flags.target !== undefined) {
    const u = flags.target;
    if (!/^https?:\/\/[^/]+/.test(u)) throw new UsageError(`--target must be an http(s) URL, got ${JSON.stringify(maskUrl(u))}`);
    baseUrl = u.replace(/\/+$/, '');
  }
  const report = await withTunnel(flags.tunnel, process.stderr, () =>
    doctorPhase({
      loaded,
      baseUrl,
      reportsDir: resolve(flags.reports ?? 'reports'),
      verbose: flags.quiet !== true,
    }),
  );
  return report.exitCode;
}
