import { existsSync, writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { intFlag, parseArgs, UsageError } from './args.js';
import { parseProfile, ProfileError } from '../profile/load.js';
import { productionReason, runInit } from '../init/run.js';
import { todoMarkdown } from '../init/todos.js';
import { ENV_NAME_RE } from '../profile/schema.js';
import { makeRedactor } from '../redact.js';

export const INIT_HELP = `mpsi-conformance init --target URL --merchant ID --secret-env VAR [options]

Drafts a target profile by probing a SANDBOX with signed requests: endpoint paths, payment and payout
methods, channel limits (to the cent), price points and rounding, answer fields, internal field names,
whether webhooks arrive. It creates orders (numbered init-<run>-…), so it refuses a production target.
Writes FILE (strict JSON, valid against the profile schema) and FILE.todo.md: what init could not
learn (other merchants, sandbox controls, test cards, balances) and the evidence for what it did.

  --target URL        base URL of the sandbox
  --merchant ID       the merchant id to sign with (X-MerchantID)
  --secret-env VAR    environment variable holding that merchant's sandbox secret key (never a flag)
  --out FILE          where to write the profile (default: profile.draft.json; an existing file is not overwritten without --force)
  --budget N          most requests to send (default 3000); when spent, what is left is a TODO
  --time-limit S      most seconds to probe (default 300)
  --environment E     sandbox or production (refused: init moves money); without it, a host that does not
                      look like a sandbox (sandbox/test/staging in its name, or a local address) is refused
  --public-url URL    URL the target must call for webhooks when it cannot reach this machine
  --force             overwrite --out

Exit codes: 0 a draft was written, 2 nothing was written (bad flags, production target, refused credentials).
`;

export async function initMain(argv: string[]): Promise<number> {
  const { flags, rest } = parseArgs(argv, {
    target: 'value', merchant: 'value', 'secret-env': 'value', out: 'value', budget: 'value', 'time-limit': 'value', environment: 'value', 'public-url': 'value', force: 'bool', help: 'bool',
  });
  if (flags.help) {
    process.stdout.write(INIT_HELP);
    return 0;
  }
  if (rest.length > 0) throw new UsageError(`unexpected argument ${JSON.stringify(rest[0])}`);
  const missing = ['target', 'merchant', 'secret-env'].filter((f) => flags[f] === undefined);
  if (missing.length) throw new UsageError(`init needs ${missing.map((m) => `--${m}`).join(', ')}`);
  const target = String(flags.target);
  if (!/^https?:\/\/[^/]+/.test(target)) throw new UsageError(`--target must be an http(s) URL, got ${JSON.stringify(target.slice(0, 100))}`);
  const secretEnv = String(flags['secret-env']);
  if (!ENV_NAME_RE.test(secretEnv)) throw new UsageError(`--secret-env must name an environment variable (letters, digits, _), got ${JSON.stringify(secretEnv.slice(0, 60))}`);
  const secret = process.env[secretEnv];
  if (!secret) throw new UsageError(`the environment variable ${secretEnv} (--secret-env) is not set or empty`);
  const environment = flags.environment === undefined ? undefined : String(flags.environment);
  if (environment !== undefined && environment !== 'sandbox' && environment !== 'production') throw new UsageError(`--environment must be sandbox or production, got ${JSON.stringify(environment)}`);
  const refused = productionReason({ secret, environment, baseUrl: target });
  if (refused) throw new UsageError(`init refuses this target: ${refused}. init creates orders and moves sandbox money; run it against a sandbox with a test key, or write a production profile by hand (doctor and run --safe check it without moving money)`);
  const budget = intFlag(flags.budget, 'budget', 20, 100_000) ?? 3000;
  const timeLimitS = intFlag(flags['time-limit'], 'time-limit', 5, 3600) ?? 300;
  const out = resolve(String(flags.out ?? 'profile.draft.json'));
  if (existsSync(out) && !flags.force) throw new UsageError(`${out} exists; pass --force to overwrite it, or another --out`);
  const redact = makeRedactor([secret]);
  const progress = (line: string) => process.stdout.write(`${redact(line)}\n`);
  progress(`init: probing ${target} as merchant ${String(flags.merchant)} (budget ${budget} requests, ${timeLimitS} s); orders are numbered init-…`);
  let result: Awaited<ReturnType<typeof runInit>>;
  try {
    result = await runInit({ baseUrl: target, merchantId: String(flags.merchant), secret, secretEnv, budget, timeLimitMs: timeLimitS * 1000, publicUrl: flags['public-url'] as string | undefined, progress });
  } catch (err) {
    throw new UsageError(`init could not draft a profile: ${redact((err as Error).message)}`);
  }
  const text = `${JSON.stringify(result.profile, null, 2)}\n`;
  try {
    parseProfile(text, out, process.env);
  } catch (err) {
    if (err instanceof ProfileError) throw new UsageError(`the draft does not validate (a bug in init, please report): ${err.problems.join('; ')}`);
    throw err;
  }
  writeFileSync(out, text);
  writeFileSync(`${out}.todo.md`, redact(todoMarkdown(out, result.evidence.todos, result.evidence.values)));
  progress('');
  progress(`init: ${result.evidence.values.length} values learnt, ${result.evidence.todos.length} TODOs, ${result.probes} requests in ${(result.ms / 1000).toFixed(1)} s${result.stopped ? ` (stopped early: ${result.stopped})` : ''}`);
  progress(`wrote ${out}`);
  progress(`wrote ${out}.todo.md — complete the TODOs it lists, then: mpsi-conformance run --profile ${out}`);
  return 0;
}
