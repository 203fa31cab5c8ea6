import { existsSync, writeFileSync } from 'node:fs';
import type { Profile } from '../profile/types.js';
import type { Evidence, Todo } from '../init/evidence.js';
import { kitCommand, kitVersion, reportTo } from '../kit/invocation.js';
import { dirname, relative, resolve } from 'node:path';
import { flagsHelp, intFlag, parseFlags, UsageError, type FlagTable, type ParsedFlags } from './args.js';
import { makeNetwork, resolveTls, type TlsOptions, type TlsProfile } from '../http/network.js';
import { parseProfile, ProfileError } from '../profile/load.js';
import { productionReason, runInit } from '../init/run.js';
import { todoMarkdown } from '../init/todos.js';
import { ENV_NAME_RE } from '../profile/schema.js';
import { TUNNEL_FLAG, withTunnel } from './tunnel.js';
import { makeRedactor } from '../kit/redact.js';
import { getAt, parseHint, readHintsFile, Vendor } from '../init/told.js';
import { isAtOrUnder, profileSegments } from '../init/told-schema.js';
import { factsOfDescription } from '../openapi/facts.js';
import { readOpenApi } from '../openapi/read.js';

/** The facts of an API description (a URL is read as it is given; a file path from here). */
async function describedFacts(source: string, target: string): Promise<ReturnType<typeof factsOfDescription>> {
  const where = /^https?:\/\//.test(source) ? source : resolve(source);
  const { doc, warnings } = await readOpenApi(where);
  for (const w of warnings) process.stdout.write(`init: the API description: ${w}\n`);
  // Paths under a server carrying the target's own base path are written relative to it, as the profile's are.
  const facts = factsOfDescription(doc, source, target);
  process.stdout.write(
    `init: the API description ${source}: ${facts.told.length} facts, ${facts.methods.length} method names, ` +
      `${facts.contradictions.length} contradiction(s) of the interface\n`,
  );
  return facts;
}

/** Secrets a hints file may carry (another merchant's key): redacted from every line init prints or writes but the profile. */
function toldSecrets(vendor: Vendor): string[] {
  return vendor.told
    .filter((t) => /(^|\.)(secret|productionSecret)$/.test(t.path) && typeof t.value === 'string')
    .map((t) => String(t.value));
}

/**
 * A fact told by the vendor that does not fit the draft (a method's extras for a method only another merchant has, which
 * the draft does not declare) is taken out leaf by leaf, each as a TODO quoting the problem: the rest of its section stays.
 */
export function dropToldMisfits(draft: Profile, ev: Evidence, source: string, env: NodeJS.ProcessEnv): void {
  for (let round = 0; round < 5 && ev.told.length > 0; round++) {
    let problems: string[] = [];
    try {
      parseProfile(JSON.stringify(draft), source, env);
      return;
    } catch (err) {
      if (!(err instanceof ProfileError)) throw err;
      problems = err.problems;
    }
    let dropped = false;
    for (const problem of problems) {
      const at = /^([A-Za-z_$][\w$]*(?:\.[\w$-]+)*)/.exec(problem)?.[1];
      if (!at) continue;
      for (const t of [...ev.told]) {
        if (!(t.path === at || t.path.startsWith(`${at}.`) || at.startsWith(`${t.path}.`))) continue;
        deleteAt(draft as unknown as Record<string, unknown>, t.path);
        ev.told.splice(ev.told.indexOf(t), 1);
        ev.todo(t.path, `the vendor says ${JSON.stringify(t.value)} (${t.source}), but it does not fit the draft (${problem}): left out`);
        dropped = true;
      }
    }
    if (!dropped) return;
  }
}

function deleteAt(o: Record<string, unknown>, path: string): void {
  const keys = profileSegments(path);
  const parents: Record<string, unknown>[] = [o];
  for (const k of keys.slice(0, -1)) {
    const next = parents.at(-1)?.[k];
    if (!next || typeof next !== 'object') return;
    parents.push(next as Record<string, unknown>);
  }
  delete parents.at(-1)![keys.at(-1)!];
  // Objects left empty by the removal go too (an empty extrasByMethod says nothing).
  for (let i = parents.length - 1; i > 0; i--) if (Object.keys(parents[i]!).length === 0) delete parents[i - 1]![keys[i - 1]!];
}

/**
 * A fact told by the vendor may be one only profile format version 4 says (a templated path, a fee), or version 5 (a
 * merchant's own facts, a currency set, a fee's minimum): the draft is then of that version. Otherwise it stays at the
 * version init writes, so a draft without such facts loads in an older kit too.
 */
export function settleVersion(draft: Profile, source: string, env: NodeJS.ProcessEnv): void {
  try {
    parseProfile(JSON.stringify(draft), source, env);
  } catch (err) {
    if (!(err instanceof ProfileError)) return;
    // The newest version a told fact needs (version 5: a merchant's own facts, a currency set, a fee's bounds).
    if (err.problems.some((p) => /profile format version 5 field/.test(p))) draft.profileVersion = 5;
    else if (err.problems.some((p) => /profile format version 4 field/.test(p))) draft.profileVersion = 4;
  }
}

export const INIT_FLAGS = {
  target: { kind: 'value', arg: 'URL', help: 'base URL of the sandbox' },
  merchant: { kind: 'value', arg: 'ID', help: 'the merchant id to sign with (X-MerchantID)' },
  'secret-env': { kind: 'value', arg: 'VAR', help: "environment variable holding that merchant's sandbox secret key (never a flag)" },
  out: {
    kind: 'value',
    arg: 'FILE',
    help: 'where to write the profile (default: profile.draft.json; an existing file is not overwritten without --force)',
  },
  budget: { kind: 'value', arg: 'N', help: 'most requests to send (default 3000); when spent, what is left is a TODO' },
  'time-limit': { kind: 'value', arg: 'S', help: 'most seconds to probe (default 300)' },
  environment: {
    kind: 'value',
    arg: 'E',
    help: [
      'sandbox or production (refused: init moves money); without it, a host that does not',
      'look like a sandbox (sandbox/test/staging in its name, or a local address) is refused',
    ].join('\n'),
  },
  'public-url': { kind: 'value', arg: 'URL', help: 'URL the target must call for webhooks when it cannot reach this machine' },
  tunnel: TUNNEL_FLAG,
  ca: { kind: 'value', arg: 'FILE', help: "PEM file of the CA that signed the sandbox's certificate (written as http.tls.ca)" },
  cert: { kind: 'value', arg: 'FILE', help: 'PEM client certificate for mutual TLS, with --key (http.tls.cert)' },
  key: { kind: 'value', arg: 'FILE', help: 'PEM private key of --cert (http.tls.key; its content is never shown)' },
  pfx: { kind: 'value', arg: 'FILE', help: 'PKCS#12 file with the client certificate and key, instead of --cert/--key' },
  'passphrase-env': { kind: 'value', arg: 'VAR', help: 'environment variable holding the passphrase of --key or --pfx' },
  servername: { kind: 'value', arg: 'NAME', help: "the host name the sandbox's certificate names, when not the URL's" },
  hint: {
    kind: 'repeat',
    arg: 'PATH=VALUE',
    help: [
      "a fact from the vendor's documentation, as a profile path and its value (repeatable), e.g.",
      '--hint endpoints.cardPayment=/v2/charges/card-present --hint \'methods.checkout=["CARD","SEPA_DEBIT"]\'',
      '(a value that reads as JSON is JSON, else text). Paths and method names told are tried first;',
      'every fact told that no probe learnt is written as told, listed apart in FILE.todo.md to confirm',
    ].join('\n'),
  },
  openapi: {
    kind: 'value',
    arg: 'FILE|URL',
    help: [
      "the vendor's API description (OpenAPI 3.0 or 3.1, JSON or YAML): its operations matched to the interface's give",
      'paths, request fields and nesting, record fields, method names (tried first), limits and price points where',
      'it states them; each is proved by a probe where one can, the rest written with its JSON pointer in FILE.todo.md;',
      'what contradicts the interface (camelCase fields, a JSON number amount) is reported and not used',
    ].join('\n'),
  },
  hints: {
    kind: 'value',
    arg: 'FILE',
    help: "the same from a JSON file in the profile's shape (any part of a profile); a --hint wins over it",
  },
  force: { kind: 'bool', help: 'overwrite --out' },
} as const satisfies FlagTable;

export const INIT_HELP = `mpsi-conformance init --target URL --merchant ID --secret-env VAR [options]

Drafts a target profile by probing a SANDBOX with signed requests: endpoint paths, payment and payout
methods, channel limits (to the cent), price points and rounding, answer fields, internal field names,
whether webhooks arrive. It creates orders (numbered i<run><kind><n>), so it refuses a production target.
Writes FILE (strict JSON, valid against the profile schema) and FILE.todo.md: what init could not
learn (other merchants, sandbox controls, test cards, balances) and the evidence for what it did.

${flagsHelp(INIT_FLAGS)}
Exit codes: 0 a draft was written (a part it cannot draft valid is left out as a TODO with the reason;
one it drafted alone is also reported in FILE.init-report.json, a bug of init), 2 nothing was written
(bad flags, production target, refused credentials, unreachable target).
`;

/**
 * The TLS flags as the draft's http.tls (paths relative to the draft's folder, so the profile works wherever the pair
 * is moved together) and resolved for init's own probes; a file that cannot be read stops init before any request.
 */
function tlsOf(flags: ParsedFlags<typeof INIT_FLAGS>, out: string): { profile?: TlsProfile; options?: TlsOptions; secrets: string[] } {
  const rel = (f: string | undefined) => (f === undefined ? undefined : relative(dirname(out), resolve(f)) || '.');
  const profile: TlsProfile = {};
  const set = (k: keyof TlsProfile, v: string | undefined) => {
    if (v !== undefined) profile[k] = v;
  };
  set('ca', rel(flags.ca));
  set('cert', rel(flags.cert));
  set('key', rel(flags.key));
  set('pfx', rel(flags.pfx));
  set('passphraseEnv', flags['passphrase-env']);
  set('servername', flags.servername);
  if (Object.keys(profile).length === 0) return { secrets: [] };
  if ((flags.cert === undefined) !== (flags.key === undefined)) throw new UsageError('--cert and --key go together');
  if (flags.pfx !== undefined && flags.cert !== undefined) throw new UsageError('--pfx replaces --cert and --key: give one or the other');
  const r = resolveTls(profile, process.env, dirname(out));
  if (r.problems.length) throw new UsageError(`the TLS files cannot be used: ${r.problems.join('; ').replace(/http\.tls\./g, '--')}`);
  return { profile, ...(r.options ? { options: r.options } : {}), secrets: r.secrets };
}

export async function initMain(argv: string[]): Promise<number> {
  const { flags, rest } = parseFlags(argv, INIT_FLAGS);
  if (flags.help) {
    process.stdout.write(INIT_HELP);
    return 0;
  }
  if (rest.length > 0) throw new UsageError(`unexpected argument ${JSON.stringify(rest[0])}`);
  const missing = (['target', 'merchant', 'secret-env'] as const).filter((f) => flags[f] === undefined);
  if (missing.length) throw new UsageError(`init needs ${missing.map((m) => `--${m}`).join(', ')}`);
  const target = String(flags.target);
  if (!/^https?:\/\/[^/]+/.test(target))
    throw new UsageError(`--target must be an http(s) URL, got ${JSON.stringify(target.slice(0, 100))}`);
  const secretEnv = String(flags['secret-env']);
  if (!ENV_NAME_RE.test(secretEnv))
    throw new UsageError(
      `--secret-env must name an environment variable (letters, digits, _), got ${JSON.stringify(secretEnv.slice(0, 60))}`,
    );
  const secret = process.env[secretEnv];
  if (!secret) throw new UsageError(`the environment variable ${secretEnv} (--secret-env) is not set or empty`);
  const environment = flags.environment === undefined ? undefined : String(flags.environment);
  if (environment !== undefined && environment !== 'sandbox' && environment !== 'production')
    throw new UsageError(`--environment must be sandbox or production, got ${JSON.stringify(environment)}`);
  const refused = productionReason({ secret, environment, baseUrl: target });
  if (refused)
    throw new UsageError(
      `init refuses this target: ${refused}. init creates orders and moves sandbox money; run it against a sandbox ` +
        `with a test key, or write a production profile by hand (doctor and run --safe check it without moving money)`,
    );
  const budget = intFlag(flags.budget, 'budget', 20, 100_000) ?? 3000;
  const timeLimitS = intFlag(flags['time-limit'], 'time-limit', 5, 3600) ?? 300;
  const out = resolve(String(flags.out ?? 'profile.draft.json'));
  if (existsSync(out) && !flags.force) throw new UsageError(`${out} exists; pass --force to overwrite it, or another --out`);
  const described = flags.openapi !== undefined ? await describedFacts(String(flags.openapi), target) : undefined;
  const told = [
    ...(described?.told ?? []),
    ...(flags.hints !== undefined ? readHintsFile(String(flags.hints)) : []),
    ...(flags.hint ?? []).map(parseHint),
  ];
  const vendor = new Vendor(told, described ?? {});
  const tls = tlsOf(flags, out);
  const redact = makeRedactor([secret, ...tls.secrets, ...toldSecrets(vendor)]);
  const progress = (line: string) => process.stdout.write(`${redact(line)}\n`);
  progress(
    `init: probing ${target} as merchant ${String(flags.merchant)} (budget ` +
      `${budget} requests, ${timeLimitS} s); orders are numbered i<run><kind><n>`,
  );
  let result: Awaited<ReturnType<typeof runInit>>;
  try {
    result = await withTunnel(flags.tunnel, process.stderr, () =>
      runInit({
        baseUrl: target,
        merchantId: String(flags.merchant),
        secret,
        secretEnv,
        budget,
        timeLimitMs: timeLimitS * 1000,
        publicUrl: flags['public-url'],
        ...(tls.profile ? { tls: tls.profile } : {}),
        network: makeNetwork(tls.options),
        progress,
        vendor,
      }),
    );
  } catch (err) {
    if (err instanceof UsageError) throw err;
    throw new UsageError(`init could not draft a profile: ${redact((err as Error).message)}`);
  }
  // A key the draft's TODOs ask the user to put in a variable (a merchant the vendor's documentation named) is not yet
  // set: the draft is valid once it is, so it is validated as if it were.
  const asked = result.evidence.todos.flatMap((t) =>
    /^merchants\.\w+\.secretEnv$/.test(t.path) ? [String(getAt(result.profile, t.path))] : [],
  );
  const env = { ...Object.fromEntries(asked.map((v) => [v, 'set-by-the-user'])), ...process.env, [secretEnv]: secret };
  settleVersion(result.profile, out, env);
  dropToldMisfits(result.profile, result.evidence, out, env);
  const { profile, dropped: droppedParts, invalid } = validParts(result.profile, out, env, vendor.told);
  for (const d of droppedParts) result.evidence.todo(d.path, d.what);
  // A part the vendor's facts went into is the vendor's to settle (a TODO with the reason); only a part init drafted
  // alone that does not validate is init's fault, and reported as such.
  const dropped = droppedParts.filter((d) => !d.told);
  const written = result.evidence.told;
  for (let i = written.length - 1; i >= 0; i--) if (droppedParts.some((d) => isAtOrUnder(written[i]!.path, d.path))) written.splice(i, 1);
  const text = `${JSON.stringify(profile, null, 2)}\n`;
  writeFileSync(out, text);
  // The tunnel's public URL lasts as long as its program: the next commands start their own, the way init did.
  const tunnel = flags.tunnel !== undefined ? ['--tunnel', String(flags.tunnel)] : [];
  const doctor = kitCommand(['doctor', '--profile', out, ...tunnel]);
  const run = kitCommand(['run', '--profile', out, ...tunnel]);
  writeFileSync(
    `${out}.todo.md`,
    redact(todoMarkdown(out, result.evidence.todos, result.evidence.values, { doctor, run }, result.evidence.told)),
  );
  progress('');
  progress(
    `init: ${result.evidence.values.length} values learnt, ${result.evidence.todos.length} TODOs, ${result.probes}` +
      ` requests in ${(result.ms / 1000).toFixed(1)} s${result.stopped ? ` (stopped early: ${result.stopped})` : ''}`,
  );
  progress(`wrote ${out}`);
  if (dropped.length > 0 || invalid.length > 0) {
    // A draft init could not make valid is init's fault: the evidence goes to a file the user can send.
    const bug = `${out}.init-report.json`;
    const report = {
      kit: 'mpsi-conformance',
      version: kitVersion(),
      command: 'init',
      problems: [...dropped.map((d) => d.problem), ...invalid],
      draft: result.profile,
      learnt: result.evidence.values,
      todos: result.evidence.todos,
      exchanges: result.exchanges,
    };
    writeFileSync(bug, `${redact(JSON.stringify(report, null, 2))}\n`);
    progress(
      `init drafted ${dropped.length + invalid.length} part(s) that did not validate (a ` +
        `bug in init): ${dropped.length ? `left out as TODOs (${dropped.map((d) => d.path).join(', ')})` : ''}` +
        `${invalid.length ? ` still invalid: ${invalid.join('; ')}` : ''}`,
    );
    progress(
      `please report it: send ${bug} (the answers init saw, its draft and the kit version; the secret is redacted) to ${reportTo()}`,
    );
  }
  progress(`wrote ${out}.todo.md — complete the TODOs it lists, then: ${doctor}`);
  progress(`and then: ${run}`);
  return 0;
}

/** Top-level profile fields the schema requires: a problem there drops the field below them instead. */
const REQUIRED = new Set(['name', 'baseUrl', 'environment', 'merchants', 'endpoints', 'methods']);

/**
 * The draft with every part that does not validate left out, each as a TODO quoting the problem.
 * A problem under a required field drops the field below it (methods.pricePoint); what still does not
 * validate after that (a required field itself) is returned in `invalid`, and the draft is written anyway.
 */
export function validParts(
  draft: Profile,
  source: string,
  env: NodeJS.ProcessEnv,
  told: readonly { path: string; source: string; value?: unknown }[] = [],
): { profile: Profile; dropped: (Todo & { problem: string; told: boolean })[]; invalid: string[] } {
  const profile = structuredClone(draft) as unknown as Record<string, Record<string, unknown>>;
  const dropped: (Todo & { problem: string; told: boolean })[] = [];
  for (let round = 0; round < 20; round++) {
    let problems: string[];
    try {
      parseProfile(JSON.stringify(profile), source, env);
      return { profile: profile as unknown as Profile, dropped, invalid: [] };
    } catch (err) {
      if (!(err instanceof ProfileError)) throw err;
      problems = err.problems;
    }
    let progressed = false;
    for (const problem of problems) {
      const segs = (/^([A-Za-z_$][\w$]*(?:\.[\w$-]+)*)/.exec(problem)?.[1] ?? '').split('.').filter(Boolean);
      const top = segs[0];
      if (!top || !(top in profile)) continue;
      const path = REQUIRED.has(top) ? segs.slice(0, 2) : [top];
      if (path.length < 2 && REQUIRED.has(top)) continue;
      if (path[0] === 'merchants' && path[1] === 'primary') continue;
      const parent = path.length === 1 ? profile : profile[path[0]!];
      if (!parent || !(path[path.length - 1]! in parent)) continue;
      delete (parent as Record<string, unknown>)[path[path.length - 1]!];
      const part = path.join('.');
      const under = told.filter((t) => isAtOrUnder(t.path, part));
      const sources = [...new Set(under.map((t) => t.source))];
      // Each value told is quoted whole, so that leaving the part out loses none of what the vendor said.
      const said = under.filter((t) => 'value' in t).map((t) => `${t.path} = ${JSON.stringify(t.value)}`);
      dropped.push({
        path: part,
        what: sources.length
          ? `the vendor's facts for this part (${sources.slice(0, 3).join(', ')}${sources.length > 3 ? ', …' : ''}) and init's probes ` +
            `do not make a valid part (${problem}), so it is left out: write it from the vendor's documentation` +
            (said.length ? `; the vendor says ${said.join(', ')}` : '')
          : `init's draft of this part did not validate (${problem}), so it is left out: write it by hand (see the evidence below)`,
        problem,
        told: sources.length > 0,
      });
      progressed = true;
    }
    if (!progressed) return { profile: profile as unknown as Profile, dropped, invalid: problems };
  }
  return { profile: profile as unknown as Profile, dropped, invalid: ['init gave up making the draft valid'] };
}
