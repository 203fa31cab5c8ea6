/**
 * The `Target` suites see: the profile's facts, the signing session and its client, the webhook receiver, and the
 * endpoint paths (the profile's, the document's two where it is silent). Suites never read env vars, URLs or files:
 * everything they know of the service under test comes through here.
 */
import { MagicValues } from './profile/triggers.js';
import type { ClauseId } from './clauses/registry.js';
import { randomBytes } from 'node:crypto';
import type { Client, RawRequest } from './http/client.js';
import type { Exchange } from './http/exchange.js';
import type { LoadedProfile, ResolvedMerchant } from './profile/load.js';
import type { Profile } from './profile/types.js';
import { sign, type SignOptions } from './http/signing.js';
import { asHolder, currentHolds, recordExchange, recordExercised, recordFinding } from './check/context.js';
import { EXCLUSIVE_HOLD_MS, EXCLUSIVE_WAIT_MS, type Operation, operationClassifier, type SectionSpec } from './http/exclusive.js';
import { responseInvariants } from './check/invariants.js';
import { NoVerdict, PreconditionSkip } from './check/failure.js';
import { fillTemplate } from './profile/template.js';
import { fitNumber, unsaidLengthsOf } from './profile/lengths.js';
import { carriedBy, fillPath, type PathNumbers } from './profile/endpoint-path.js';
import type { Receiver } from './webhooks/types.js';

export type MerchantRole = 'primary' | 'second' | 'frozen' | 'lowBalance';
export type EndpointName = keyof Profile['endpoints'];

/** The two paths INTERFACE.md gives; every other endpoint's path comes from the profile. */
const DOCUMENT_PATHS: Partial<Record<EndpointName, string>> = {
  paymentQuery: '/api/v1/payments/query',
  checkout: '/api/v1/payments/checkout',
};

/** A target's endpoint paths: the profile's, with the document's two where the profile is silent. */
export function endpointPaths(profile: Profile): Partial<Record<EndpointName, string>> {
  const out: Partial<Record<EndpointName, string>> = { ...DOCUMENT_PATHS };
  for (const [name, p] of Object.entries(profile.endpoints) as [EndpointName, string | undefined][]) if (p !== undefined) out[name] = p;
  return out;
}

export interface PostOptions {
  /** Who signs: a fixture role (default primary) or explicit credentials (e.g. a wrong secret). */
  as?: MerchantRole | ResolvedMerchant;
  label?: string;
  /** Header edits after signing: a string replaces, null removes. */
  headers?: Record<string, string | null>;
  /** Bytes to send instead of the signed ones (signature still over `body`): models a body altered after signing. */
  sendBody?: Buffer;
  signOptions?: SignOptions;
  /** Replace the computed X-Sign (e.g. upper-case hex, Base64). */
  signTransform?: (hexSign: string, stringToSignInput: { merchantId: string; timestamp: string; nonce: string; body: Buffer }) => string;
  acceptLanguage?: string;
  contentType?: string | null;
  declaredContentLength?: number;
  /** Skip response-signature verification (requests made as an unknown merchant). */
  noVerify?: boolean;
}

/** What suites see of a target: profile choices, fixture merchants, and a signed POST. */
export interface Target {
  readonly name: string;
  readonly baseUrl: string;
  readonly profile: Profile;
  readonly merchants: LoadedProfile['merchants'];
  /**
   * Path of an endpoint the profile declares, its placeholders ({payout_no}, …: harness/profile/endpoint-path.ts) filled with
   * `numbers`, URL-encoded; skips the check (precondition) when the profile declares none, or when the path carries a
   * number this request does not have.
   */
  path(endpoint: EndpointName, numbers?: PathNumbers): string;
  /** The declared path as written, placeholders unfilled (undefined when none is declared). */
  pathTemplate(endpoint: EndpointName): string | undefined;
  /** Skips the check (precondition) when the profile declares no such endpoint. */
  require(endpoint: EndpointName): void;
  has(endpoint: EndpointName): boolean;
  merchant(role: MerchantRole): ResolvedMerchant;
  /** Serialises objects with JSON.stringify; strings and Buffers are sent as given. */
  post(path: string, body: unknown, opts?: PostOptions): Promise<Exchange>;
  /** A number never used before on this target (run prefix + counter). */
  newNo(kind: 'order' | 'refund' | 'payout'): string;
  /** The URL webhooks should be sent to, when a receiver runs. */
  notifyUrl(): string;
  /** The webhook receiver of this run; skips the check (precondition) when webhooks are off. */
  receiver(): Receiver;
  /** Fills a profile template with variables. */
  fill(template: Record<string, unknown>, vars: Record<string, unknown>): Record<string, unknown>;
  /**
   * Runs `fn` inside an exclusive section (harness/http/exclusive.ts): while it runs, no other request the section covers is
   * sent, by any check of the run or the doctor; `fn`'s own requests go. Scope `subject`: `fn` just runs.
   */
  exclusive<T>(section: SectionSpec, fn: () => Promise<T>): Promise<T>;
  /** What a request to `path` is (from the profile's endpoints and sandbox controls). */
  operationOf(path: string): Operation;
  /** Prefix of every number this run creates, printed so a run's orders can be found on the target. */
  readonly runPrefix: string;
}

export interface TargetOptions {
  loaded: LoadedProfile;
  baseUrl: string;
  client: Client;
  receiver?: Receiver;
}

/**
 * The length fields each kind of merchant number must fit (harness/profile/lengths.ts): payment and refund numbers share
 * the merchant's numbering ("Unique per merchant, shared with refund numbers"), and the checks send one as the other.
 */
const NUMBER_FIELDS = {
  order: ['merchantOrderNo', 'merchantRefundNo'],
  refund: ['merchantOrderNo', 'merchantRefundNo'],
  payout: ['merchantPayoutNo'],
} as const;

export function createTarget(opts: TargetOptions): Target {
  const { loaded, client } = opts;
  const profile = loaded.profile;
  const baseUrl = opts.baseUrl.replace(/\/+$/, '');
  // Merchant numbers must be new on a target that keeps state across runs: time + randomness. None starts or ends as a
  // number a declared failure trigger fails (harness/profile/triggers.ts): a check that means to trigger one adds it.
  const magic = new MagicValues(profile);
  const stamp = `${Date.now().toString(36).toUpperCase()}${randomBytes(3).toString('hex').toUpperCase()}`;
  // A magic prefix rules a lead out; a magic suffix only some counters (newNo steps past them).
  const leads = [...'KQZXJABCDEFGHILMNOPRSTUVWY'].map((lead) => `${lead}${stamp}`);
  const runPrefix = leads.find((r) => !magic.numberStart(r)) ?? `K${stamp}`;
  let counter = 0;
  const paths = endpointPaths(profile);
  const operationOf = operationClassifier(
    paths,
    Object.values(profile.sandbox ?? {}).flatMap((c) => (c && typeof c === 'object' && 'path' in c ? [String(c.path)] : [])),
  );

  function merchant(role: MerchantRole): ResolvedMerchant {
    const m = loaded.merchants[role];
    if (!m) throw new PreconditionSkip(`the profile declares no ${role} merchant (merchants.${role})`, { declare: [`merchants.${role}`] });
    return m;
  }

  function ownMerchant(id: string): ResolvedMerchant | undefined {
    for (const m of Object.values(loaded.merchants)) if (typeof m === 'object' && m.id === id) return m;
    return undefined;
  }

  function declared(endpoint: EndpointName): string {
    const p = paths[endpoint];
    if (!p)
      throw new PreconditionSkip(`the profile declares no ${endpoint} endpoint (endpoints.${endpoint})`, {
        declare: [`endpoints.${endpoint}`],
      });
    return p;
  }

  function path(endpoint: EndpointName, numbers: PathNumbers = {}): string {
    const p = declared(endpoint);
    if (carriedBy(p).size === 0) return p;
    const filled = fillPath(p, numbers);
    if ('path' in filled) return filled.path;
    // Not a gap of the profile: this request (a lookup by the other number, an empty or typed number) has no value for it.
    throw new PreconditionSkip(
      `endpoints.${endpoint} carries ${filled.missing.map((n) => `{${n}}`).join(', ')} in its path, ` +
        'and this request has no such number (as a non-empty string) to put there',
    );
  }

  async function post(p: string, body: unknown, o: PostOptions = {}): Promise<Exchange> {
    const creds = typeof o.as === 'object' ? o.as : merchant(o.as ?? 'primary');
    const signed = Buffer.isBuffer(body) ? body : Buffer.from(typeof body === 'string' ? body : JSON.stringify(body), 'utf8');
    // Built again for a resend after a throttled answer: a new timestamp and nonce unless the check fixed them.
    const buildHeaders = (): Record<string, string> => {
      const sig = sign({ merchantId: creds.id, secret: creds.secret }, signed, o.signOptions);
      if (o.signTransform)
        sig['X-Sign'] = o.signTransform(sig['X-Sign'], {
          merchantId: creds.id,
          timestamp: sig['X-Timestamp'],
          nonce: sig['X-Nonce'],
          body: signed,
        });
      const headers: Record<string, string> = sig; // sign() returns a new object each call
      if (o.contentType !== null) headers['Content-Type'] = o.contentType ?? 'application/json';
      if (o.acceptLanguage) headers['Accept-Language'] = o.acceptLanguage;
      if (o.headers) {
        for (const k of Object.keys(o.headers)) {
          const v = o.headers[k];
          if (v === null) delete headers[k];
          else headers[k] = v!;
        }
      }
      return headers;
    };
    const headers = buildHeaders();
    const req: RawRequest = {
      label: o.label ?? `POST ${p}`,
      url: baseUrl + p,
      method: 'POST',
      headers,
      body: o.sendBody ?? signed,
      declaredContentLength: o.declaredContentLength,
    };
    // The service signs with the merchant's own secret, whatever secret the request was signed with.
    const own = ownMerchant(creds.id);
    const verifyWith = o.noVerify || !own ? undefined : { merchantId: own.id, secret: own.secret };
    const request = { merchant: creds.id, operation: operationOf(p), holds: currentHolds() };
    const ex = await client.send(req, { verifyWith, resign: buildHeaders, request });
    // The strings it carried whose accepted length is unsaid: a refusal naming one is no verdict (harness/check/expect.ts).
    const unsaid = unsaidLengthsOf(profile, req.body);
    if (unsaid.length > 0) ex.unsaidLengths = unsaid;
    recordExchange(ex);
    // The gateway kept refusing until the deadline: the service never answered, so there is nothing to judge.
    if (ex.error?.kind === 'throttled') throw new NoVerdict('throttled', `${ex.label}: ${ex.error.message}`);
    // A sandbox control is the vendor's, outside the document: the interface's rules judge only the interface's
    // exchanges (its answer is judged for what the profile says of it: expectControlDone).
    if (request.operation === 'sandbox') return ex;
    const examined = new Set<ClauseId>();
    for (const finding of responseInvariants(ex, { verifySignature: verifyWith !== undefined, examined })) recordFinding(finding);
    recordExercised(...examined);
    return ex;
  }

  async function exclusive<T>(spec: SectionSpec, fn: () => Promise<T>): Promise<T> {
    if (spec.scope === 'subject') return fn();
    const what = `the exclusive section "${spec.label ?? spec.operation}" (scope ${spec.scope})`;
    const opening = client.openSection(spec, currentHolds());
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<undefined>((resolve) => {
      timer = setTimeout(() => resolve(undefined), EXCLUSIVE_WAIT_MS);
    });
    const section = await Promise.race([opening, late]);
    clearTimeout(timer);
    if (section === undefined) {
      void opening.then((s) => s.close());
      throw new Error(`${what} could not be opened within ${EXCLUSIVE_WAIT_MS / 1000} s: other checks held what it covers`);
    }
    const over = new Promise<never>((_, reject) => {
      timer = setTimeout(
        () => reject(new Error(`${what} was held longer than ${EXCLUSIVE_HOLD_MS / 1000} s: closed, and this check not judged`)),
        EXCLUSIVE_HOLD_MS,
      );
    });
    try {
      return await Promise.race([asHolder(section.id, fn), over]);
    } finally {
      clearTimeout(timer);
      section.close();
    }
  }

  return {
    name: profile.name,
    baseUrl,
    profile,
    merchants: loaded.merchants,
    runPrefix,
    path,
    pathTemplate: (e) => paths[e],
    require: (e) => {
      declared(e);
    },
    has: (e) => Boolean(paths[e]),
    merchant,
    post,
    newNo(kind) {
      const tag = kind === 'order' ? 'O' : kind === 'refund' ? 'R' : 'P';
      // Within the number's said length (lengths.maxLength): the prefix gives way, the counter stays whole.
      const next = () => {
        counter += 1;
        return fitNumber(profile, NUMBER_FIELDS[kind], runPrefix, `${tag}${String(counter).padStart(6, '0')}`);
      };
      let no = next();
      // A declared suffix rules out some counters: at most a thousand steps past them, never a loop without end.
      for (let tries = 0; magic.number(no) && tries < 1000; tries++) no = next();
      return no;
    },
    notifyUrl() {
      if (!opts.receiver)
        throw new PreconditionSkip(
          'no webhook receiver runs in this run (webhooks off, or the profile declares no webhooks section)',
          profile.webhooks ? {} : { declare: ['webhooks'] },
        );
      return opts.receiver.url;
    },
    receiver() {
      if (!opts.receiver)
        throw new PreconditionSkip(
          'no webhook receiver runs in this run (webhooks off, or the profile declares no webhooks section)',
          profile.webhooks ? {} : { declare: ['webhooks'] },
        );
      return opts.receiver;
    },
    fill: (template, vars) => fillTemplate(template, vars),
    exclusive,
    operationOf,
  };
}
