/**
 * The `Target` suites see: the profile's facts, the signing session and its client, the webhook receiver, and the
 * endpoint paths (the profile's, the document's two where it is silent). Suites never read env vars, URLs or files:
 * everything they know of the service under test comes through here.
 */
import type { ClauseId } from './clauses/registry.js';
import { randomBytes } from 'node:crypto';
import type { Client, RawRequest } from './client.js';
import type { Exchange } from './exchange.js';
import type { LoadedProfile, ResolvedMerchant } from './profile/load.js';
import type { Profile } from './profile/types.js';
import { sign, type SignOptions } from './signing.js';
import { recordExchange, recordExercised, recordFinding } from './check/context.js';
import { responseInvariants } from './check/invariants.js';
import { NoVerdict, PreconditionSkip } from './check/failure.js';
import { fillTemplate } from './template.js';
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
  /** Path of an endpoint the profile declares; skips the check (precondition) when it does not. */
  path(endpoint: EndpointName): string;
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
  /** Prefix of every number this run creates, printed so a run's orders can be found on the target. */
  readonly runPrefix: string;
}

export interface TargetOptions {
  loaded: LoadedProfile;
  baseUrl: string;
  client: Client;
  receiver?: Receiver;
}

export function createTarget(opts: TargetOptions): Target {
  const { loaded, client } = opts;
  const profile = loaded.profile;
  const baseUrl = opts.baseUrl.replace(/\/+$/, '');
  // Merchant numbers must be new on a target that keeps state across runs: time + randomness.
  const runPrefix = `K${Date.now().toString(36).toUpperCase()}${randomBytes(3).toString('hex').toUpperCase()}`;
  let counter = 0;
  const paths = endpointPaths(profile);

  function merchant(role: MerchantRole): ResolvedMerchant {
    const m = loaded.merchants[role];
    if (!m) throw new PreconditionSkip(`the profile declares no ${role} merchant (merchants.${role})`, { declare: [`merchants.${role}`] });
    return m;
  }

  function ownMerchant(id: string): ResolvedMerchant | undefined {
    for (const m of Object.values(loaded.merchants)) if (typeof m === 'object' && m.id === id) return m;
    return undefined;
  }

  function path(endpoint: EndpointName): string {
    const p = paths[endpoint];
    if (!p)
      throw new PreconditionSkip(`the profile declares no ${endpoint} endpoint (endpoints.${endpoint})`, {
        declare: [`endpoints.${endpoint}`],
      });
    return p;
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
    const ex = await client.send(req, { verifyWith, resign: buildHeaders });
    recordExchange(ex);
    // The gateway kept refusing until the deadline: the service never answered, so there is nothing to judge.
    if (ex.error?.kind === 'throttled') throw new NoVerdict('throttled', `${ex.label}: ${ex.error.message}`);
    const examined = new Set<ClauseId>();
    for (const finding of responseInvariants(ex, { verifySignature: verifyWith !== undefined, examined })) recordFinding(finding);
    recordExercised(...examined);
    return ex;
  }

  return {
    name: profile.name,
    baseUrl,
    profile,
    merchants: loaded.merchants,
    runPrefix,
    path,
    has: (e) => Boolean(paths[e]),
    merchant,
    post,
    newNo(kind) {
      counter += 1;
      const tag = kind === 'order' ? 'O' : kind === 'refund' ? 'R' : 'P';
      return `${runPrefix}${tag}${String(counter).padStart(6, '0')}`;
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
  };
}
