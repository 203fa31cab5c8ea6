/**
 * `init`: probes a sandbox and drafts its profile. Discovery runs in phases, each bounded by the
 * Prober's budget; when the budget is spent, what is left becomes a TODO and the draft is still written.
 */
import type { Profile, QueryParams } from '../profile/types.js';
import { QUERY_KIND_OF, queryParamsFor } from '../profile/query-params.js';
import { learnOtherCards } from './cards.js';
import { startReceiver } from '../webhooks/receiver.js';
import { relayPublicUrlFor } from '../webhooks/relay.js';
import type { Receiver } from '../webhooks/types.js';
import { learnCard, learnRefunds } from './card-refund.js';
import {
  checkoutBody,
  classifyMethods,
  learnCheckoutFields,
  learnCheckoutShape,
  learnInternalNames,
  type CheckoutShape,
  type MethodFinding,
} from './checkout.js';
import { Evidence } from './evidence.js';
import { amount, getPath, variable } from './fields.js';
import { centsNumberOf, centsOf } from '../facts/money.js';
import { bisectLimits, COARSE_RATIO, channelsTodo, FINE_RATIO, Inconclusive } from './limits.js';
import { discoverPaths } from './paths.js';
import { learnPayouts } from './payouts.js';
import { confirmWalk, tierTexts, walkTiers } from './price-points.js';
import { ENDPOINT_CANDIDATES, DOCUMENT_PATHS, UNKNOWN_MERCHANT_ID, UNKNOWN_METHOD } from './candidates.js';

const ENDPOINT_NAMES = { ...DOCUMENT_PATHS, ...ENDPOINT_CANDIDATES };
import { BudgetSpent, describe, Prober, postFresh, type Throttling } from './prober.js';
import { chargedOtherThan } from './checkout.js';
import { addAbsentPartTodos, addStandingTodos } from './todos.js';
import { learnWebhooks, measureAckLimit } from './webhooks.js';
import { draft, type DraftOptions, type State } from './draft.js';
import type { Network } from '../http/network.js';
import { answersTodo, applyTold, Vendor } from './told.js';
import { confirmTold, toldWalk } from './told-tiers.js';
import { toldJudge } from './told-judge.js';
import { dropUnservedPaths } from './served.js';
import { decidePricePoint, pricePointRule } from '../profile/price-points.js';
import { isTemplated, type Found } from './paths.js';
import { METHOD_CANDIDATES } from './candidates.js';
import { candidateMethods } from './checkout.js';

export interface InitOptions extends DraftOptions {
  secret: string;
  /** TLS options (the draft's http.tls, resolved) and the environment's proxies: every probe goes over them. */
  network?: Network;
  budget: number;
  timeLimitMs: number;
  deadlineMs?: number;
  progress: (line: string) => void;
  /** What the vendor told (--hint, --hints, --openapi): tried first, and written where no probe learnt otherwise. */
  vendor?: Vendor;
}

export interface InitResult {
  profile: Profile;
  evidence: Evidence;
  probes: number;
  ms: number;
  /** Why discovery stopped early, when it did. */
  stopped?: string;
  /** Set when the target throttled init (a gateway's 429 / 503 + Retry-After): what proposes http.rateLimit. */
  throttling?: Throttling;
  /** The exchanges, reduced (see Prober.log): for a bug report. */
  exchanges: Prober['log'];
}

/** Host names and addresses that say "not production": sandbox-like words, loopback and private networks. */
const SANDBOX_HOST = new RegExp(
  [
    'sandbox|test|staging|stage|(^|[.-])dev([.-]|$)|uat|(^|[.-])qa([.-]|$)',
    String.raw`^localhost$|^127\.|^10\.|^192\.168\.|^172\.(1[6-9]|2\d|3[01])\.|^\[::1\]$`,
    String.raw`\.(local|localhost|test|invalid|example|internal)$`,
  ].join('|'),
  'i',
);

/**
 * Refuses what is declared or looks like production: init creates orders. A host that does not look
 * like a sandbox needs the user to say it is one (--environment sandbox).
 */
export function productionReason(opts: { secret: string; environment?: string; baseUrl: string }): string | undefined {
  if (opts.environment === 'production') return 'the target is declared production (--environment production)';
  if (/(^|_)live(_|$)|^live/i.test(opts.secret)) return 'the secret key looks like a production (live) key';
  if (opts.environment === undefined) {
    let host = '';
    try {
      host = new URL(opts.baseUrl).hostname;
    } catch {
      return 'the target URL cannot be read';
    }
    if (!SANDBOX_HOST.test(host))
      return (
        `the host ${host} does not look like a sandbox (no sandbox, test or staging in its ` +
        `name, not a local address); if it is a sandbox, say so with --environment sandbox`
      );
  }
  return undefined;
}

/**
 * The endpoints whose templated path is probed: their phases fill it with the numbers of their record (harness/profile/
 * endpoint-path.ts pathFor), or the prober does with the merchant's number of the record a creation's body carries.
 */
const FILLED: ReadonlySet<string> = new Set(['refundCreate', 'refundQuery', 'payoutQuery', 'payoutCancel', 'cardPayment', 'payoutCreate']);

export async function runInit(opts: InitOptions): Promise<InitResult> {
  const started = Date.now();
  const ev = new Evidence(opts.progress);
  const p = new Prober({
    baseUrl: opts.baseUrl.replace(/\/+$/, ''),
    merchantId: opts.merchantId,
    secret: opts.secret,
    budget: opts.budget,
    timeLimitMs: opts.timeLimitMs,
    deadlineMs: opts.deadlineMs ?? 10_000,
    progress: opts.progress,
    ...(opts.network ? { network: opts.network } : {}),
  });
  // With --tunnel, the receiver's public URL through the tunnel (harness/webhooks/relay.ts), as a run's receivers get.
  const throughTunnel = relayPublicUrlFor();
  const receiver: Receiver = await startReceiver({
    host: '127.0.0.1',
    port: 0,
    publicUrl: opts.publicUrl,
    ...(throughTunnel ? { publicUrlFor: throughTunnel } : {}),
    merchants: [{ id: opts.merchantId, secret: opts.secret }],
    ackTimeoutMs: 5000,
  });
  if (throughTunnel) opts.progress(`webhooks: the receiver's public URL is ${receiver.url} (through --tunnel)`);
  const st: State = { paths: {}, limits: {}, tiers: {} };
  let stopped: string | undefined;
  const vendor = opts.vendor ?? new Vendor();
  ev.holdWhere((path) => answersTodo(vendor, path));
  const toldPaths = Object.fromEntries(
    Object.keys(ENDPOINT_NAMES).flatMap((n) => {
      const v = vendor.at(`endpoints.${n}`);
      return typeof v === 'string' ? [[n, v]] : [];
    }),
  ) as Partial<Record<keyof Found, string>>;
  const methodNames = candidateMethods(vendor.methodNames());
  const payoutNames = [...new Set([...vendor.payoutMethodNames(), ...METHOD_CANDIDATES])];
  try {
    await credentials(p, ev, st);
    await discoverPaths(p, ev, st.paths, toldPaths, (n) => vendor.refute(`endpoints.${n}`));
    sendToldQueryParams(p, vendor, st.paths, opts.merchantId);
    // The phases below send to fixed paths, but for a refund's creation and the lookups and cancel, which fill a templated
    // path (the resource's number in it) with the numbers of the record they are about, and a card payment's or payout's
    // creation, whose path the prober fills with the merchant's number the body carries (prober.ts); another templated path
    // is written as told, not probed.
    const paths: Found = Object.fromEntries(Object.entries(st.paths).filter(([k, v]) => !isTemplated(v) || FILLED.has(k)));
    if (!paths.checkout)
      throw new Error(`the checkout path ${'/api/v1/payments/checkout'} did not answer: is ${opts.baseUrl} the service's base URL?`);
    const toldExtras = vendor.at('checkout.extras');
    st.shape = await learnCheckoutShape(
      p,
      ev,
      paths.checkout,
      receiver.url,
      undefined,
      toldExtras && typeof toldExtras === 'object' && !Array.isArray(toldExtras) ? (toldExtras as Record<string, unknown>) : {},
    );
    seedToldExtras(st.shape, vendor);
    st.methods = [];
    await classifyMethods(p, ev, st.shape, st.methods, methodNames);
    reportMethods(ev, st.methods);
    methodsTodos(ev, st.methods);
    const plain = st.methods.find((m) => m.cls === 'accepted' && m.accepted && !m.pricePoint);
    const rounded = st.methods.find((m) => m.cls === 'accepted' && m.accepted && m.pricePoint);
    if (plain && paths.paymentQuery) st.fields = await learnCheckoutFields(p, ev, paths.paymentQuery, plain, rounded);
    if (plain) st.internal = await learnInternalNames(p, ev, st.shape, plain.method, paths.paymentQuery);
    await paymentLimits(p, ev, st);
    await pricePoints(p, ev, st, vendor);
    if (paths.cardPayment) {
      const accepted = (st.methods ?? []).filter((m) => m.cls === 'accepted' && !m.pricePoint).map((m) => m.method);
      st.card = await learnCard(
        p,
        ev,
        paths.cardPayment,
        accepted.includes('CARD') ? ['CARD', ...accepted.filter((m) => m !== 'CARD')] : accepted,
        st.fields?.orderNo,
        receiver.url,
        cardAmounts(st),
      );
    }
    if (st.card && paths.cardPayment)
      st.otherCards = await learnOtherCards(p, ev, paths.cardPayment, st.card, st.card.successStatus, receiver.url);
    if (st.card && paths.refundCreate) {
      const card = st.card;
      const cardPath = paths.cardPayment!;
      const pay = async (cents: bigint) => {
        const { answer: a, no } = await postFresh(p, cardPath, 'o', (n) => card.body(n, cents, receiver.url));
        if (a.code !== 0) return undefined;
        const orderNo = a.data ? getPath(a.data, card.data.orderNo) : undefined;
        return { no, ...(typeof orderNo === 'string' ? { orderNo } : {}) };
      };
      const queryName = toldString(vendor, 'refunds.queryBy.serviceNo');
      st.refunds = await learnRefunds(
        p,
        ev,
        { create: paths.refundCreate, query: paths.refundQuery, ...(queryName ? { queryName } : {}) },
        card,
        pay,
        receiver.url,
      );
    }
    if (!st.card && paths.refundCreate)
      ev.todo(
        'refunds',
        `the refund request, its answer's fields and each method's support: init pays the payment it refunds by card, ` +
          'and no card payment charged (see cardPayment)',
      );
    const payoutQueryName = toldString(vendor, 'payouts.queryBy.serviceNo');
    if (paths.payoutCreate)
      st.payouts = await learnPayouts(
        p,
        ev,
        {
          create: paths.payoutCreate,
          query: paths.payoutQuery,
          cancel: paths.payoutCancel,
          ...(payoutQueryName ? { queryName: payoutQueryName } : {}),
        },
        receiver.url,
        withPlacedMethods(payoutNames, st.methods),
        vendor.payoutMethodNames()[0],
      );
    if (st.card && paths.cardPayment) {
      const left = opts.timeLimitMs - p.elapsedMs();
      st.webhooks = await learnWebhooks(p, ev, receiver, st.card, paths.cardPayment, Math.max(1000, Math.min(20_000, left - 2000)));
      // Other ports than the run's receiver: only where the target reaches this machine directly.
      // Each step of that measure waits for a retry (about 15 s × the scale): worth it on a fast clock only;
      // on a real one the draft writes the document's 5 s (× the scale) and the TODO says so.
      const direct = !opts.publicUrl && !throughTunnel;
      if (st.webhooks.arrives && st.webhooks.timeScale !== undefined && st.webhooks.timeScale <= 0.1 && direct) {
        const measured = await measureAckLimit(
          p,
          ev,
          st.card,
          paths.cardPayment,
          { id: opts.merchantId, secret: opts.secret },
          st.webhooks.timeScale,
          () => opts.timeLimitMs - p.elapsedMs(),
        );
        if (measured) {
          const { ackTimeoutMs, ...bracket } = measured;
          st.webhooks.ackTimeoutMs = ackTimeoutMs;
          st.webhooks.ackBracket = bracket;
        }
      }
    } else
      ev.todo(
        'webhooks',
        'whether webhooks arrive: init needs a card payment that charges at once to trigger one without a sandbox control',
      );
  } catch (err) {
    if (!(err instanceof BudgetSpent)) throw err;
    stopped = err.message;
    ev.todo(
      '(budget)',
      `init stopped early (${stopped}): every field not listed as learnt was not probed; ` +
        `complete it by hand, or run init again with a larger --budget or --time-limit`,
    );
    opts.progress(`init stopped early: ${stopped}; what is left is a TODO`);
  } finally {
    await receiver.close();
    await p.close();
  }
  if (p.throttling) {
    const t = p.throttling;
    st.rateLimit = t.proposed;
    ev.learnt(
      'http.rateLimit',
      t.proposed,
      `the target throttled init from request ${t.onsetAfter} on: HTTP 429/503 (a gateway's answer, not the service's) ` +
        `when ${t.onsetRate} ` +
        `requests had been sent within one second, the ${t.onsetRate - 1} before it let through; ${t.answers} throttled answer(s) ` +
        `waited out and resent, ${(t.waitMs / 1000).toFixed(1)} s lost. ` +
        'The kit paces itself under this rate; lower it if the vendor states less',
    );
  }
  if (p.unverified > 0)
    ev.todo(
      '(signatures)',
      `${p.unverified} of ${p.sent} answers carried a signature that did not verify with this merchant's ` +
        `key: the target may sign with another key, or not sign; the conformance run will say which`,
    );
  if (!(st.methods ?? []).some((m) => m.cls === 'accepted')) {
    // A profile names at least one checkout method; without one there is nothing valid to write.
    throw new Error(
      stopped
        ? `init stopped (${stopped}) before it learnt a single accepted payment method: nothing is written; raise --budget or --time-limit`
        : 'the target accepted no payment method init knows of at checkout: ' +
            'nothing is written; write the profile by hand (methods.checkout)',
    );
  }
  const profile = draft(opts, st, ev);
  // The paths init's own search found (not the document's, not the vendor's): each must be proved by a record served.
  const searched = new Set((Object.keys(st.paths) as (keyof Found)[]).filter((n) => toldPaths[n] !== st.paths[n]));
  dropUnservedPaths(profile, st, searched, ev);
  addAbsentPartTodos(ev, profile, st);
  addStandingTodos(ev, profile);
  applyTold(profile as unknown as Record<string, unknown>, vendor, ev, toldJudge(st, vendor));
  afterTold(profile, st, vendor);
  return { profile, evidence: ev, probes: p.sent, ms: Date.now() - started, stopped, exchanges: p.log, throttling: p.throttling };
}

/**
 * The fields the vendor says a query needs beside its lookup number (queryParams: a store id, a date range): init's own
 * lookups carry them, as the kit's do, so a record it made is found where the target refuses a query without them.
 */
export function sendToldQueryParams(p: Prober, vendor: Vendor, paths: Partial<Record<string, string>>, merchantId: string): void {
  const told = vendor.at('queryParams');
  if (!told || typeof told !== 'object' || Array.isArray(told)) return;
  const all = Object.values(paths).filter((v): v is string => typeof v === 'string');
  for (const [endpoint, kind] of Object.entries(QUERY_KIND_OF)) {
    const path = paths[endpoint];
    if (!path) continue;
    let fields: Record<string, unknown>;
    try {
      fields = queryParamsFor({ queryParams: told as QueryParams }, kind, merchantId);
    } catch {
      continue;
    }
    p.addQueryFields(path, fields, all);
  }
}

/** A string the vendor told at `path`, if any. */
function toldString(vendor: Vendor, path: string): string | undefined {
  const v = vendor.at(path);
  return typeof v === 'string' && v !== '' ? v : undefined;
}

/**
 * The payout candidates and then each method the checkout placed as one of the target's (accepted, not enabled, without a
 * channel) that they do not name: a service names a method alike wherever it takes it, so a wallet it renamed at checkout
 * (TWINT for PayPal) is tried as a payout method too.
 */
export function withPlacedMethods(names: readonly string[], placed: readonly MethodFinding[] = []): string[] {
  const known = placed.filter((m) => m.cls === 'accepted' || m.cls === 'notEnabled' || m.cls === 'noChannel').map((m) => m.method);
  return [...new Set([...names, ...known])];
}

/**
 * The fields the vendor says a method requires (checkout.extrasByMethod): sent with its first checkout, so a method that
 * refuses a checkout without them (as "not enabled", as much as "required") is paid as the vendor documents it.
 */
export function seedToldExtras(shape: CheckoutShape, vendor: Vendor): void {
  const told = vendor.at('checkout.extrasByMethod');
  if (!told || typeof told !== 'object') return;
  for (const [m, e] of Object.entries(told as Record<string, unknown>))
    if (e && typeof e === 'object' && !Array.isArray(e))
      shape.byMethod[m] = JSON.parse(
        JSON.stringify(e)
          .split(JSON.stringify(variable('notifyUrl')))
          .join(JSON.stringify(shape.notifyUrl)),
      );
}

/**
 * What follows from a told value that replaced init's own: an acknowledgement limit init wrote as the document's 5 s
 * times its measured scale follows the vendor's scale; an amount init listed as unroundable that the vendor's tiers round
 * is no longer one (the loader refuses a rule that rounds an amount listed unroundable); a refunds part the vendor's facts
 * began (init made no refund to see its record) takes the request fields init learnt.
 */
export function afterTold(profile: Profile, st: State, vendor: Vendor): void {
  // A refunds part of the vendor's facts (its record's field names, where no refund of this merchant could be made to show
  // them) takes what the probes learnt of the request: its fields and the card's support, where the vendor said nothing.
  const rf = st.refunds;
  if (profile.refunds && rf && !profile.refunds.template && Object.keys(rf.template).length) {
    profile.refunds.template = rf.template;
    if (st.card && rf.cardSupport && profile.refunds.support?.[st.card.method] === undefined)
      profile.refunds.support = { ...profile.refunds.support, [st.card.method]: rf.cardSupport };
  }
  const wh = profile.webhooks;
  if (wh && st.webhooks?.ackTimeoutMs === undefined && vendor.at('webhooks.ackTimeoutMs') === undefined)
    wh.ackTimeoutMs = Math.max(1, Math.round(5000 * wh.timeScale));
  const pp = profile.pricePoints;
  // The shared rule the vendor states (its rounding) is the vendor's whole: a distance or tie the draft took from the walk
  // of a method the vendor gives a rule of its own, which no method the shared rule speaks for showed, is none of it (a
  // tie beside "up" would not even load).
  if (pp && vendor.at('pricePoints.rounding') !== undefined)
    for (const k of ['maxDistance', 'tie'] as const) {
      if (vendor.at(`pricePoints.${k}`) !== undefined || pp[k] === undefined) continue;
      const shared = Object.entries(st.tiers).filter(([m]) => vendor.at(`pricePoints.ruleByMethod.${m}`) === undefined);
      if (shared.every(([, w]) => w[k] === undefined)) delete pp[k];
    }
  if (pp && Array.isArray(pp.unroundable)) {
    const methods = profile.methods.pricePoint ?? [];
    pp.unroundable = pp.unroundable.filter((a) =>
      (methods.length ? methods : [undefined]).every((m) => decidePricePoint(centsNumberOf(a), pricePointRule(pp, m)).kind === 'refused'),
    );
  }
}

async function credentials(p: Prober, ev: Evidence, st: State): Promise<void> {
  p.phase('credentials');
  const a = await p.post('/api/v1/payments/query', { merchant_order_no: p.newNo('o') });
  if (a.http === 401 || a.http === 403)
    throw new Error(`the target refused the credentials (${describe(a)}): check --merchant and the secret in --secret-env`);
  if (a.error) throw new Error(`the target did not answer: ${a.error}`);
  const u = await p.post(
    '/api/v1/payments/query',
    { merchant_order_no: p.newNo('o') },
    { id: UNKNOWN_MERCHANT_ID, secret: 'init-not-a-key' },
  );
  st.unknownIdOk = u.http === 401 && u.key === 'merchantNotFound';
  if (st.unknownIdOk) ev.learnt('merchants.unknownId', UNKNOWN_MERCHANT_ID, describe(u));
  else ev.todo('merchants.unknownId', `an id the target does not know (${UNKNOWN_MERCHANT_ID} was answered ${describe(u)})`);
}

function reportMethods(ev: Evidence, ms: MethodFinding[]): void {
  const of = (c: string) => ms.filter((m) => m.cls === c);
  ev.learnt(
    'methods.checkout',
    of('accepted').map((m) => m.method),
    of('accepted')
      .map((m) => `${m.method}: ${m.evidence.split('; ').pop()}`)
      .join('; '),
  );
  const pp = ms.filter((m) => m.pricePoint).map((m) => m.method);
  if (pp.length)
    ev.learnt(
      'methods.pricePoint',
      pp,
      `charged another amount than the one asked: ${ms
        .filter((m) => m.pricePoint)
        .map((m) => `${m.method}: ${m.evidence}`)
        .join('; ')}`,
    );
  for (const [cls, path] of [
    ['notEnabled', 'methods.notEnabled'],
    ['noChannel', 'methods.noChannel'],
    ['unknown', 'methods.unknown'],
  ] as const) {
    const m = of(cls).find((x) => x.method === UNKNOWN_METHOD) ?? of(cls)[0];
    if (m)
      ev.learnt(
        path,
        m.method,
        `${m.evidence}${
          of(cls).length > 1
            ? ` (also: ${of(cls)
                .slice(1)
                .map((x) => x.method)
                .join(', ')})`
            : ''
        }`,
      );
  }
}

/**
 * What the answers cannot settle about the methods: whether the vendor lists the primary merchant's methods (and
 * which: a method enabled with every channel down answers like one no channel serves), and the channels of a method
 * the target knows but this merchant has not enabled (another merchant's, probed only as that merchant).
 */
export function methodsTodos(ev: Evidence, ms: MethodFinding[]): void {
  const named = (c: string) => ms.filter((m) => m.cls === c && m.method !== UNKNOWN_METHOD).map((m) => m.method);
  ev.todo(
    'merchants.primary.paymentMethods',
    `the primary merchant's own method list, only if the vendor documents one: it accepted ${named('accepted').join(', ') || 'none'}` +
      `${named('noChannel').length ? `; ${named('noChannel').join(', ')} enabled with no channel available` : ''}` +
      `${named('notEnabled').length ? `; ${named('notEnabled').join(', ')} not enabled for it` : ''}`,
  );
  // No answer lists a target's methods: one it names as none of init's candidates (TWINT for a wallet) is only in the
  // vendor's documentation. The names tried close the TODO, so that what it leaves open is plain.
  const tried = ms.filter((m) => m.method !== UNKNOWN_METHOD).map((m) => m.method);
  ev.todo(
    'methods.checkout (other names)',
    "payment methods the target names otherwise than every name init tried, if it has any: from the vendor's documentation, " +
      'each in methods.checkout with its range (limits.payments.<name>), the fields it requires (checkout.extrasByMethod.<name>) ' +
      `and its refund support (names tried: ${tried.join(', ')})`,
  );
  for (const m of named('notEnabled'))
    ev.todo(
      `limits.payments.${m}`,
      `${m} is known to the target but not enabled for the primary merchant (${ms.find((x) => x.method === m)!.evidence}): ` +
        'its limits, if another merchant has it, from the vendor (or run init as that merchant)',
    );
}

/** An amount each method's card payment can be: 10.00 where its limits hold it, else the amount its checkout accepted. */
function cardAmounts(st: State): Record<string, bigint> {
  const out: Record<string, bigint> = {};
  for (const m of st.methods ?? []) {
    if (!m.accepted) continue;
    const lim = st.limits[m.method];
    const holds = (c: bigint) => (lim?.channels ?? (lim ? [lim] : [])).some((r) => centsOf(r.min) <= c && c <= centsOf(r.max));
    out[m.method] = holds(1000n) ? 1000n : m.accepted.cents;
  }
  return out;
}

async function paymentLimits(p: Prober, ev: Evidence, st: State): Promise<void> {
  const shape = st.shape!;
  ev.todo(
    '(limits)',
    "confirm the limits below against the vendor's channel table: init probed amounts from 0.01 up, each at most " +
      `${Math.round((COARSE_RATIO - 1) * 100)} % above the last (${Math.round((FINE_RATIO - 1) * 100)} % near the ranges it found), ` +
      'and bisected every change to the cent; an accepted range narrower than that spacing, between two refused probes, would not be seen',
  );
  for (const m of st.methods ?? []) {
    if (m.cls !== 'accepted' || m.pricePoint) continue;
    if (!m.accepted) {
      ev.todo(`limits.payments.${m.method}`, `${m.method} refused every probe amount for its range: write its limits`);
      continue;
    }
    p.phase(`checkout: ${m.method} limits by bisection`);
    try {
      const b = await bisectLimits(
        {
          send: (c, no) => p.post(shape.path, checkoutBody(shape, m.method, c, no)),
          newNo: () => p.newNo('o'),
          inRange: (a) => (a.code === 0 ? true : a.code === 2006 ? false : undefined),
          isDuplicate: (a) => a.code !== 0 && /duplicate/i.test(a.key ?? ''),
        },
        m.accepted.cents,
        m.accepted.no,
      );
      st.limits[m.method] = b.limits;
      ev.learnt(
        `limits.payments.${m.method}`,
        b.limits,
        `the 2006 boundary, ${b.probes} probes${b.reusedNumber ? ' reusing one order number (nothing created)' : ''}; ` +
          `${b.resolution}; at the edges: ${b.edges}` +
          (b.limits.channels ? '; as channels: the ranges accepted (a range served by overlapping channels answers alike)' : ''),
      );
      if (!b.limits.channels) channelsTodo(ev, `limits.payments.${m.method}`, b);
    } catch (err) {
      if (!(err instanceof Inconclusive)) throw err;
      ev.todo(`limits.payments.${m.method}`, `the method's limits (bisection stopped: ${err.message})`);
    }
  }
}

/**
 * Checkouts one price-point walk may spend. Measured on the walk alone (test-double targets, the reference's tiers): rounding
 * up, 22; nearest within 0.50 (the alt reading), 691 uncapped; Google Pay's own tiers within 0.11, 2,632 uncapped.
 */
const WALK_PROBES = 400;

/**
 * What a checkout of `method` charges at an amount (undefined: refused), each under a new number, and another where the
 * target answers systemBusy: a number the sandbox fails by design would read as a tier's refusal.
 */
function checkoutCharge(p: Prober, shape: CheckoutShape, method: string): (cents: bigint) => Promise<bigint | undefined> {
  return async (c) => {
    const { answer: a } = await postFresh(p, shape.path, 'o', (no) => checkoutBody(shape, method, c, no));
    if (a.code !== 0 || !a.data) return undefined;
    return chargedOtherThan(a.data, c) ?? c;
  };
}

async function pricePoints(p: Prober, ev: Evidence, st: State, vendor: Vendor): Promise<void> {
  const shape = st.shape!;
  for (const m of st.methods ?? []) {
    if (!m.pricePoint) continue;
    p.phase(`checkout: ${m.method} price points`);
    const charge = checkoutCharge(p, shape, m.method);
    const told = toldWalk(vendor, m.method);
    if (told) {
      const c = await confirmTold(told, charge);
      const list = tierTexts(told.tiers).join(', ');
      if (c.confirmed) {
        st.tiers[m.method] = c.confirmed;
        ev.learnt(
          `pricePoints (${m.method})`,
          { tiers: tierTexts(told.tiers), rounding: told.rounding },
          `the vendor's list (${vendor.sourceOf('pricePoints')}), confirmed: ${c.asked} checkouts at the amounts that tell ` +
            'rules apart (each tier, a cent either side, the distance limits, the refused amounts) were charged as it says',
        );
        continue;
      }
      ev.todo(
        `pricePoints (${m.method}, as told)`,
        `the vendor's tiers ${list} (${vendor.sourceOf('pricePoints')}) disagree with the target's charges at ` +
          `${c.disagree.map(([x, r]) => `${amount(x).value}→${r === undefined ? 'refused' : amount(r).value}`).join(', ')}: ` +
          'init walked the tiers itself',
      );
      vendor.refute('pricePoints');
    }
    const earlier = Object.entries(st.tiers)[0];
    if (earlier) {
      const c = await confirmWalk(earlier[1], charge);
      if (c.disagree.length === 0) {
        st.tiers[m.method] = earlier[1];
        ev.learnt(
          `pricePoints (${m.method})`,
          `as ${earlier[0]}`,
          `${c.asked} checkouts at the amounts that tell rules apart (each tier, a cent either ` +
            `side, the distance limits, the refused amounts) were charged as ${earlier[0]}'s rule says`,
        );
        continue;
      }
    }
    // The checkout probe's rounded answer: a tier the walk must reach even where the tiers are far apart.
    const seen: [bigint, bigint][] = m.accepted
      ? [[m.accepted.cents, chargedOtherThan(m.accepted.data, m.accepted.cents) ?? m.accepted.cents]]
      : [];
    // A walk that meets refusals between tiers steps by the widest distance accepted: where that is a few cents, walking
    // to 3× each tier costs thousands of checkouts. Capped, so the rest of init keeps its budget; the list is then a TODO.
    const w = await walkTiers(charge, 10_000_000n, 40, seen, WALK_PROBES);
    st.tiers[m.method] = w;
    const shown = w.samples.map(([x, c]) => `${amount(x).value}→${c === undefined ? 'refused' : amount(c).value}`).join(', ');
    ev.learnt(
      `pricePoints (${m.method})`,
      {
        tiers: tierTexts(w.tiers),
        rounding: w.rounding,
        ...(w.maxDistance !== undefined ? { maxDistance: amount(w.maxDistance).value } : {}),
        ...(w.tie ? { tie: w.tie } : {}),
      },
      `${w.samples.length} checkouts, asked→charged: ${shown}`,
    );
  }
  await toldPricePointMethods(p, ev, st, vendor);
}

/**
 * A method refused for its amount at every probe may charge price points none of the probes hit (tiers far apart, a
 * short distance): where the vendor gives its own tiers, checkouts at the amounts that tell rules apart say whether it
 * charges them. Confirmed, it is a price-point method with those tiers; otherwise its TODOs stay.
 */
export async function toldPricePointMethods(p: Prober, ev: Evidence, st: State, vendor: Vendor): Promise<void> {
  const shape = st.shape!;
  for (const m of st.methods ?? []) {
    if (m.cls !== 'accepted' || m.accepted || m.pricePoint) continue;
    const told = vendor.at(`pricePoints.tiersByMethod.${m.method}`) === undefined ? undefined : toldWalk(vendor, m.method);
    if (!told) continue;
    p.phase(`checkout: ${m.method} at the vendor's tiers`);
    const charge = checkoutCharge(p, shape, m.method);
    const c = await confirmTold(told, charge);
    if (!c.confirmed) continue;
    m.pricePoint = true;
    st.tiers[m.method] = c.confirmed;
    ev.settle((t) => t.path === `methods.pricePoint (${m.method})` || t.path === `pricePoints (${m.method})`);
    ev.relearn(
      'methods.pricePoint',
      (st.methods ?? []).filter((x) => x.pricePoint).map((x) => x.method),
      `${m.method}: every amount init probed was refused for its amount, and ${c.asked} checkouts at the vendor's tiers ` +
        '(each tier, a cent either side, the distance limits) were charged as they say',
    );
    ev.learnt(
      `pricePoints (${m.method})`,
      { tiers: tierTexts(told.tiers), rounding: told.rounding },
      `the vendor's list (${vendor.sourceOf(`pricePoints.tiersByMethod.${m.method}`)}), confirmed by ${c.asked} checkouts`,
    );
  }
}
