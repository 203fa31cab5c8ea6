/**
 * Loading a target profile: read, parse (strict JSON, with line:column on syntax errors),
 * validate against fixtures/profiles/profile.schema.json, check a few things a schema cannot
 * express, and resolve merchant secrets (literal or from the environment).
 *
 * Every problem found is reported at once, one line each, in a ProfileError. No message ever
 * contains a secret value.
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import type { Profile, MerchantRef } from './types.js';
import { decidePricePoint, describeRule, pricePointRule } from './price-points.js';
import { centsNumberOf, centsOf, isAmountValue, isShownValue, valueOfCents } from '../facts/money.js';
import { consistencyProblems } from './consistency.js';
import { ENV_NAME_RE, dotted, echo, isSensitivePath, profilePropertyNames, schemaProblems } from './schema.js';
import { lineColumn, scanJson } from './json-scan.js';
import { dirname } from 'node:path';
import { resolveTls, type TlsOptions, type TlsProfile } from '../http/network.js';
import { type EndpointKey, FILLABLE, pathTemplateProblems, placeholdersIn } from './endpoint-path.js';

export interface ResolvedMerchant {
  id: string;
  /** The secret key, resolved from the environment when the profile names a variable. */
  secret: string;
  /** The merchant's production key (productionSecret / productionSecretEnv), for a sandbox's auth.env-keys check. */
  productionSecret?: string;
}

/**
 * Every secret a loaded profile holds (test and production keys, and since version 4 the TLS client key, PKCS#12 file
 * and passphrase of http.tls): what a redactor must hide.
 */
export function merchantSecrets(loaded: Pick<LoadedProfile, 'merchants'> & { tlsSecrets?: string[] }): string[] {
  return [
    ...Object.values(loaded.merchants).flatMap((m) =>
      typeof m === 'object' ? [m.secret, ...(m.productionSecret ? [m.productionSecret] : [])] : [],
    ),
    ...(loaded.tlsSecrets ?? []),
  ];
}

export interface LoadedProfile {
  /** The profile as written (a top-level "$schema" key removed); literal secrets included: use redactProfile before showing it. */
  profile: Profile;
  /** Absolute path of the file for loadProfile; the source name for parseProfile. */
  path: string;
  /** SHA-256 (hex) of the file's text (loadProfile only): lets the vitest processes skip the schema the CLI already ran. */
  sha256?: string;
  merchants: {
    primary: ResolvedMerchant;
    second?: ResolvedMerchant;
    frozen?: ResolvedMerchant;
    lowBalance?: ResolvedMerchant;
    unknownId: string;
  };
  /** http.tls resolved (version 4): the files read, for every connection to the target (harness/http/network.ts). */
  tls?: TlsOptions;
  /** The key material and passphrase among them, for the redactor (merchantSecrets). */
  tlsSecrets?: string[];
}

/** A profile that cannot be used. `message` is `problems` joined by newlines. */
export class ProfileError extends Error {
  override readonly name = 'ProfileError';
  readonly problems: string[];
  /** The file or source name the problems are about. */
  readonly source: string;

  constructor(problems: string[], source: string) {
    super(problems.join('\n'));
    this.problems = problems;
    this.source = source;
  }
}

const MERCHANT_ROLES = ['primary', 'second', 'frozen', 'lowBalance'] as const;
type MerchantRole = (typeof MERCHANT_ROLES)[number];

export interface LoadOptions {
  /**
   * The SHA-256 (hex) of profile bytes that already passed the JSON Schema in this run (the CLI's
   * load, RunConfig.profileSha256). When the file still has exactly these bytes the schema is not
   * compiled again (about 0.1–0.3 s of CPU in each vitest process); every other check still runs.
   */
  schemaPassedSha256?: string;
  /**
   * The base URL given on the command line (`--target`): where the profile's baseUrl names environment variables
   * (`"${BASE_URL}"`), this one stands in for it, so they need not be set.
   */
  baseUrl?: string;
}

/** SHA-256 (hex) of a profile file's text, as loadProfile reads it. */
export function profileSha256(text: string): string {
  return createHash('sha256').update(text, 'utf8').digest('hex');
}

/** Reads and loads a profile file. Synchronous. */
export function loadProfile(path: string, env: NodeJS.ProcessEnv = process.env, options: LoadOptions = {}): LoadedProfile {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') throw new ProfileError([`profile file not found: ${path}`], path);
    if (code === 'EISDIR') throw new ProfileError([`profile path is a directory, not a file: ${path}`], path);
    throw new ProfileError([`cannot read profile file ${path}: ${code ?? 'read error'}`], path);
  }
  const sha256 = profileSha256(text);
  const loaded = parseProfile(text, path, env, {
    skipSchema: options.schemaPassedSha256 === sha256,
    ...(options.baseUrl !== undefined ? { baseUrl: options.baseUrl } : {}),
  });
  return { ...loaded, path: resolve(path), sha256 };
}

/** Parses and loads a profile from text; `sourceName` is used in messages and as `path`. */
export function parseProfile(
  text: string,
  sourceName: string,
  env: NodeJS.ProcessEnv = process.env,
  internal: { skipSchema?: boolean; baseUrl?: string } = {},
): LoadedProfile {
  const body = text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;

  const scan = scanJson(body);
  if (scan.syntaxError) {
    const { line, column } = lineColumn(body, scan.syntaxError.offset);
    throw new ProfileError([`${sourceName}:${line}:${column}: invalid JSON: ${scan.syntaxError.message}`], sourceName);
  }
  const value: unknown = JSON.parse(body);
  const secrets = collectSecrets(value, env);

  const problems: string[] = [];
  // "${BASE_URL}": resolved before the schema sees the address (one profile file for every instance of a sandbox).
  if (isObject(value)) problems.push(...resolveBaseUrl(value, env, internal.baseUrl));
  for (const d of scan.duplicates) {
    const { line, column } = lineColumn(body, d.offset);
    const key = d.path[0] === 'merchants' && !profilePropertyNames().has(d.key) ? '(name not shown)' : `"${d.key.slice(0, 60)}"`;
    const at = d.path.length === 0 ? 'at top level' : `in ${dotted(d.path)}`;
    problems.push(`duplicate field ${key} ${at} (${sourceName}:${line}:${column}); JSON keeps only the last one`);
  }
  if (!internal.skipSchema) problems.push(...schemaProblems(value, secrets));
  problems.push(...semanticProblems(value, secrets));
  problems.push(...consistencyProblems(value, secrets));

  const merchants = resolveMerchants(value, env, problems);
  // The files http.tls names, read only once the profile is otherwise sound (a schema problem there is said already).
  const tls = problems.length === 0 ? resolveTls(tlsSection(value), env, dirname(resolve(sourceName))) : undefined;
  if (tls) problems.push(...tls.problems);
  if (problems.length > 0 || merchants === undefined) {
    throw new ProfileError(
      scrub(problems.length > 0 ? problems : ['merchants: invalid'], [...secrets, ...(tls?.secrets ?? [])]),
      sourceName,
    );
  }

  const profile = { ...(value as Record<string, unknown>) };
  delete profile['$schema'];
  return {
    profile: profile as unknown as Profile,
    path: sourceName,
    merchants,
    ...(tls?.options ? { tls: tls.options, tlsSecrets: tls.secrets } : {}),
  };
}

/** A deep copy with every `secret` field (and http.tls's literal `passphrase`), at any depth, replaced by "***". */
export function redactProfile(profile: Profile): Profile {
  const walk = (v: unknown): unknown => {
    if (Array.isArray(v)) return v.map(walk);
    if (v !== null && typeof v === 'object') {
      const out: Record<string, unknown> = {};
      for (const [k, sub] of Object.entries(v))
        out[k] = k === 'secret' || k === 'productionSecret' || k === 'passphrase' ? '***' : walk(sub);
      return out;
    }
    return v;
  };
  return walk(profile) as Profile;
}

// ---------------------------------------------------------------------------------------------
// Secrets

function tlsSection(value: unknown): TlsProfile | undefined {
  if (!isObject(value) || !isObject(value['http']) || !isObject(value['http']['tls'])) return undefined;
  return value['http']['tls'] as TlsProfile;
}

/** Fields of http.tls whose variables hold a secret (a private key, a PKCS#12 file, a passphrase). */
const TLS_SECRET_ENVS = new Set(['keyEnv', 'pfxEnv', 'passphraseEnv']);

function isObject(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

/** Fields under `merchants` whose values are not secret (everything else there is treated as one). */
// A name and a login identify, they do not authenticate: shown as written (a password never belongs in a profile).
const MERCHANT_PLAIN_FIELDS = new Set([
  'id',
  'unknownId',
  'secretEnv',
  'productionSecretEnv',
  'payoutBalance',
  'refundBalance',
  'name',
  'login',
]);
/** Lists (and the balance map) under a merchant whose items are method names or amounts, not secrets. */
const MERCHANT_PLAIN_LISTS = new Set(['paymentMethods', 'payoutMethods', 'payoutBalances']);

/**
 * Strings that must never appear in messages: every string under `merchants` except ids,
 * variable names and balances (a secret may sit in a misspelt field there), the values of
 * secret-looking fields anywhere else, and the values of the variables secretEnv names.
 */
function collectSecrets(value: unknown, env: NodeJS.ProcessEnv): string[] {
  const out = new Set<string>();
  const walk = (v: unknown, segs: string[]) => {
    if (typeof v === 'string') {
      const last = segs[segs.length - 1] ?? '';
      const inPlainList = segs.length >= 2 && MERCHANT_PLAIN_LISTS.has(segs[segs.length - 2]!);
      // A merchant's own facts (merchants.<role>.facts: fees, limits, methods) are method-level facts, not secrets: a
      // fee's "0.5" must not hide every 0.5 of a message.
      const inFacts = segs[0] === 'merchants' && segs[2] === 'facts';
      if (v.length > 0 && isSensitivePath(segs) && !MERCHANT_PLAIN_FIELDS.has(last) && !inPlainList && !inFacts) out.add(v);
      // The value of every variable a secretEnv names is a secret too.
      const named =
        ((last === 'secretEnv' || last === 'productionSecretEnv') && segs[0] === 'merchants') ||
        (TLS_SECRET_ENVS.has(last) && segs[0] === 'http' && segs[1] === 'tls');
      const fromEnv = named && ENV_NAME_RE.test(v) ? env[v] : undefined;
      if (fromEnv) out.add(fromEnv);
      return;
    }
    if (Array.isArray(v)) {
      for (let i = 0; i < v.length; i++) walk(v[i], [...segs, String(i)]);
    } else if (isObject(v)) for (const [k, x] of Object.entries(v)) walk(x, [...segs, k]);
  };
  walk(value, []);
  return [...out];
}

/** Belt and braces: remove any known secret (6 characters or more) from the final lines. */
function scrub(lines: string[], secrets: readonly string[]): string[] {
  const long = secrets.filter((s) => s.length >= 6).sort((a, b) => b.length - a.length);
  return lines.map((l) => long.reduce((acc, s) => acc.split(s).join('***'), l));
}

function resolveMerchants(value: unknown, env: NodeJS.ProcessEnv, problems: string[]): LoadedProfile['merchants'] | undefined {
  if (!isObject(value) || !isObject(value['merchants'])) return undefined;
  const m = value['merchants'];
  const resolved: Partial<Record<MerchantRole, ResolvedMerchant>> = {};
  for (const role of MERCHANT_ROLES) {
    const ref = m[role];
    if (!isObject(ref)) continue;
    const r = resolveRef(ref as MerchantRef, role, env, problems);
    if (r) resolved[role] = r;
  }
  const unknownId = m['unknownId'];
  if (!resolved.primary || typeof unknownId !== 'string') return undefined;
  const out: LoadedProfile['merchants'] = { primary: resolved.primary, unknownId };
  if (resolved.second) out.second = resolved.second;
  if (resolved.frozen) out.frozen = resolved.frozen;
  if (resolved.lowBalance) out.lowBalance = resolved.lowBalance;
  return out;
}

/** Shape problems are the schema's to report; this only resolves refs that are well formed. */
function resolveRef(ref: MerchantRef, role: MerchantRole, env: NodeJS.ProcessEnv, problems: string[]): ResolvedMerchant | undefined {
  const r = resolveTestKey(ref, role, env, problems);
  if (r === undefined) return undefined;
  const { productionSecret, productionSecretEnv } = ref;
  if (typeof productionSecret === 'string' && productionSecret !== '') return { ...r, productionSecret };
  if (typeof productionSecretEnv === 'string' && ENV_NAME_RE.test(productionSecretEnv)) {
    const fromEnv = env[productionSecretEnv];
    if (fromEnv === undefined || fromEnv === '') {
      const name = looksLikeVariableName(productionSecretEnv)
        ? productionSecretEnv
        : `named in merchants.${role}.productionSecretEnv (name not shown: it looks like a key, not a variable name)`;
      problems.push(
        `merchants.${role}.productionSecretEnv: environment variable ${name} is not set${fromEnv === '' ? ' (it is empty)' : ''}`,
      );
      return undefined;
    }
    return { ...r, productionSecret: fromEnv };
  }
  return r;
}

function resolveTestKey(ref: MerchantRef, role: MerchantRole, env: NodeJS.ProcessEnv, problems: string[]): ResolvedMerchant | undefined {
  const { id, secret, secretEnv } = ref;
  if (typeof id !== 'string' || id === '') return undefined;
  const hasSecret = secret !== undefined;
  const hasEnv = secretEnv !== undefined;
  if (hasSecret === hasEnv) return undefined;
  if (hasSecret) return typeof secret === 'string' && secret !== '' ? { id, secret } : undefined;
  if (typeof secretEnv !== 'string' || !ENV_NAME_RE.test(secretEnv)) return undefined;
  const fromEnv = env[secretEnv];
  if (fromEnv === undefined || fromEnv === '') {
    const name = looksLikeVariableName(secretEnv)
      ? secretEnv
      : `named in merchants.${role}.secretEnv (name not shown: it looks like a key, not a variable name)`;
    problems.push(`merchants.${role}.secretEnv: environment variable ${name} is not set${fromEnv === '' ? ' (it is empty)' : ''}`);
    return undefined;
  }
  return { id, secret: fromEnv };
}

/**
 * Variable names are words joined by "_" (MPSI_PRIMARY_SECRET). A long run without "_" is more
 * likely a key pasted into secretEnv by mistake, and is then not echoed.
 */
function looksLikeVariableName(name: string): boolean {
  return name.split('_').every((part) => part.length <= 16);
}

// ---------------------------------------------------------------------------------------------
// Environment variables in baseUrl

const ENV_REF = /\$\{([^{}]*)\}/g;

/**
 * Replaces each `${NAME}` in a string baseUrl with the variable's value, in place; the command line's base URL
 * (`--target`), when given, stands in for the whole field instead. A variable unset or empty, or a name that is no
 * variable name, is a problem naming it.
 */
function resolveBaseUrl(value: Record<string, unknown>, env: NodeJS.ProcessEnv, given: string | undefined): string[] {
  const raw = value['baseUrl'];
  if (typeof raw !== 'string' || !raw.includes('${')) return [];
  if (given !== undefined) {
    value['baseUrl'] = given.replace(/\/+$/, '');
    return [];
  }
  const problems: string[] = [];
  const resolved = raw.replace(ENV_REF, (whole, name: string) => {
    if (!ENV_NAME_RE.test(name)) {
      problems.push(`baseUrl: \${${name.slice(0, 40)}} is not an environment variable name (letters, digits and "_")`);
      return whole;
    }
    const v = env[name];
    if (v === undefined || v === '') {
      problems.push(
        `baseUrl: environment variable ${name} is not set${v === '' ? ' (it is empty)' : ''}: set it, or give the address with --target`,
      );
      return whole;
    }
    return v;
  });
  // Unresolved, the field is already a problem: the schema is not also told about the "${…}".
  value['baseUrl'] = problems.length === 0 ? resolved.replace(/\/+$/, '') : 'http://unresolved.invalid';
  return problems;
}

// ---------------------------------------------------------------------------------------------
// Checks a schema cannot express

function semanticProblems(value: unknown, secrets: readonly string[]): string[] {
  const out: string[] = [];
  if (!isObject(value)) return out;

  const limits = value['limits'];
  if (isObject(limits)) {
    for (const kind of ['payments', 'payouts'] as const) {
      const table = limits[kind];
      if (!isObject(table)) continue;
      for (const [method, range] of Object.entries(table)) {
        if (!isObject(range)) continue;
        const { min, max } = range;
        if (isShownValue(min) && isShownValue(max) && centsOf(min) > centsOf(max)) {
          out.push(`${dotted(['limits', kind, method])}: min (${min}) must not be greater than max (${max})`);
        }
        const byCurrency = range['byCurrency'];
        if (isObject(byCurrency))
          for (const [currency, r] of Object.entries(byCurrency)) {
            if (!isObject(r)) continue;
            if (isShownValue(r['min']) && isShownValue(r['max']) && centsOf(r['min']) > centsOf(r['max']))
              out.push(
                `${dotted(['limits', kind, method, 'byCurrency', currency])}: min (${r['min']}) must not be greater than max (${r['max']})`,
              );
          }
      }
    }
  }

  if (value['embedded'] !== undefined && value['baseUrl'] !== 'embedded') {
    out.push('embedded: only a profile whose baseUrl is "embedded" may say how the kit starts its reference; remove it for a real target');
  }

  const pp = value['pricePoints'];
  if (isObject(pp) && Array.isArray(pp['tiers'])) {
    const tiers = pp['tiers'];
    for (let i = 1; i < tiers.length; i++) {
      const a = tiers[i - 1];
      const b = tiers[i];
      if (isShownValue(a) && isShownValue(b) && centsOf(a) >= centsOf(b)) {
        out.push(`pricePoints.tiers[${i}]: tiers must be in ascending order (${b} follows ${a})`);
      }
    }
    out.push(...unroundableProblems(value['pricePoints'] as Profile['pricePoints'], value['methods']));
  }

  out.push(...endpointTemplateProblems(value));

  const methods = value['methods'];
  if (isObject(methods) && Array.isArray(methods['checkout'])) {
    const checkout = methods['checkout'];
    for (const key of ['unknown', 'notEnabled'] as const) {
      const m = methods[key];
      if (typeof m === 'string' && checkout.includes(m)) {
        const shown = echo(m, ['methods', key], secrets) ?? 'it';
        out.push(`methods.${key}: must not be one of methods.checkout (${shown} is listed there)`);
      }
    }
  }
  return out;
}

/**
 * Placeholders in `endpoints.*` (version 4, harness/profile/endpoint-path.ts): each a number the endpoint's request has; a path
 * that carries one in a profile of an older version is refused, as every version-4 field is.
 */
function endpointTemplateProblems(value: Record<string, unknown>): string[] {
  const endpoints = value['endpoints'];
  if (!isObject(endpoints)) return [];
  const out: string[] = [];
  const version = value['profileVersion'];
  for (const [name, path] of Object.entries(endpoints)) {
    if (typeof path !== 'string' || !(name in FILLABLE)) continue;
    out.push(...pathTemplateProblems(name as EndpointKey, path));
    if (placeholdersIn(path).length > 0 && (version === 1 || version === 2 || version === 3))
      out.push(
        `endpoints.${name}: a path with placeholders is a profile format version 4 feature, but the profile says ` +
          `"profileVersion": ${String(version)} (set it to 4)`,
      );
  }
  return out;
}

/** An `unroundable` example that the declared rule rounds contradicts the profile itself. */
function unroundableProblems(pp: Profile['pricePoints'], methods: unknown): string[] {
  if (
    !pp ||
    !Array.isArray(pp.unroundable) ||
    !Array.isArray(pp.tiers) ||
    !pp.tiers.every((t) => isShownValue(t)) ||
    (pp.maxDistance !== undefined && !isAmountValue(pp.maxDistance)) ||
    !Object.values(pp.tiersByMethod ?? {}).every((ts) => Array.isArray(ts) && ts.every((t) => isAmountValue(t)))
  )
    return [];
  const declared =
    isObject(methods) && Array.isArray(methods['pricePoint'])
      ? (methods['pricePoint'] as unknown[]).filter((m): m is string => typeof m === 'string')
      : [];
  const names = [...new Set([undefined, ...declared, ...Object.keys(pp.tiersByMethod ?? {})])];
  const out: string[] = [];
  pp.unroundable.forEach((v, i) => {
    if (!isAmountValue(v)) return;
    const c = centsNumberOf(v);
    for (const method of names) {
      const rule = pricePointRule(pp, method);
      const d = decidePricePoint(c, rule);
      if (d.kind !== 'rounded') continue;
      const tier = valueOfCents(d.tier);
      out.push(
        `pricePoints.unroundable[${i}]: ${v} is rounded to the price point ${tier} by the declared rule (` +
          `${describeRule(rule)}${method ? `, tiers of ${method}` : ''}); list only amounts the rule refuses`,
      );
      return;
    }
  });
  return out;
}
