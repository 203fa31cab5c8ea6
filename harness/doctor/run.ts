/**
 * Runs the doctor: verifies, against the target, each assumption the profile makes about what
 * INTERFACE.md leaves open, through the harness's own session (the same signing and client as the
 * checks). Bounded: a request budget, each request bounded by the profile's deadline, and phases
 * that stop early when the basics (envelope, primary credentials) are wrong. A production profile
 * gets queries and authentication probes only, behind the parity guard that refuses anything else.
 */
import type { Client } from '../http/client.js';
import type { Exchange } from '../http/exchange.js';
import { throttleOnset, type ThrottleOnset, type WireAttempt } from '../http/throttle.js';
import { PreconditionSkip } from '../check/failure.js';
import { fillWithAny } from '../profile/endpoint-path.js';
import { loggingClient, type LoggedRequest } from '../parity/safe.js';
import type { LoadedProfile } from '../profile/load.js';
import { startEmbeddedReference } from '../run/embedded.js';
import { openRunReceiver } from '../run/open-receiver.js';
import { openSession } from '../run/session.js';
import { maskUrl } from '../report/mask.js';
import type { EndpointName } from '../target.js';
import { checkBasics, nameUnknownPath } from './basics.js';
import { checkCards, checkRefunds, checkRefundSupport } from './cards.js';
import { add, doubt, type DoctorContext } from './context.js';
import { armSubjects, checkArmedFailures, checkControls, type ArmSubjects } from './controls.js';
import { checkTriggers } from './triggers.js';
import { checkAutoSettle } from './auto-settle.js';
import {
  answerForm,
  answerOf,
  envelopeFlaws,
  describeAnswer,
  doctorExchange,
  markUnknownPath,
  unknownPath,
  type DoctorReport,
  type ItemStatus,
} from './model.js';
import { checkInternalNames } from './internal-names.js';
import { Ledger } from './ledger.js';
import { Budget, currentKind } from './budget.js';
import { kind, kindOf } from './kinds.js';
import { requestPathOf } from '../ops.js';
import { checkPayments } from './payments.js';
import { checkPayouts } from './payouts.js';
import { checkUnused, notProbed, settleUnused } from './unused.js';
import { checkWebhooks } from './webhooks.js';
import { checkV3Facts } from './v3-facts.js';
import { randomBytes } from 'node:crypto';
import { storeExchange } from '../run/results.js';
import { tracePhase } from '../http/trace.js';

export interface DoctorOptions {
  loaded: LoadedProfile;
  /** The target's base URL, or "embedded": a reference started for the doctor (with `faults`). */
  baseUrl: string;
  /** Faults of the embedded reference: the doctor meets the target the checks meet. */
  faults?: string[];
  /** With baseUrl "embedded": the URL of a reference already started (the CLI run's own, harness/run/host.ts). */
  embeddedUrl?: string;
  /** Open the profile's webhook receiver (default true). */
  webhooks?: boolean;
  onProgress?: (phase: string) => void;
  /** Move no money whatever the environment (parity --safe): as for a production profile. */
  safe?: boolean;
  /** At most this many requests (default 400); past it, what is left is not verifiable. */
  maxRequests?: number;
  /** No request starts after this many ms (default 60 s plus webhooks.deliveryWaitMs); what is left is not verifiable. */
  maxMs?: number;
  /**
   * A selected check depends on the target's webhook clock (default true: the doctor alone judges the whole profile):
   * the doctor measures the ratio (harness/doctor/webhooks.ts). False when no selected check waits on a webhook.
   */
  webhookClock?: boolean;
  /** Sees every exchange the doctor makes (bench/doctor-money.ts measures what it moves). */
  onExchange?: (ex: Exchange) => void;
  /** Seeds the sample of a long list (harness/doctor/budget.ts `sampleOf`): the same seed probes the same entries. */
  seed?: number;
}

class BudgetSpent extends PreconditionSkip {}

export async function runDoctor(o: DoctorOptions): Promise<DoctorReport> {
  const started = performance.now();
  const startedAt = new Date().toISOString();
  const production = o.loaded.profile.environment === 'production' || o.safe === true;
  const max = o.maxRequests ?? 400;
  const maxMs = o.maxMs ?? 60_000 + (o.loaded.profile.webhooks?.deliveryWaitMs ?? 0);
  let count = 0;
  const budget = new Budget(max);
  let unknownForm: string | undefined;
  let ledger: Ledger | undefined;
  const flawsSeen = new Set<string>();
  // Throttling: every attempt as the gateway met it (when it went on the wire), and what the throttled answers cost.
  const attempts: WireAttempt[] = [];
  let throttled: { answers: number; waitMs: number } | undefined;
  let reference: Awaited<ReturnType<typeof startEmbeddedReference>> | undefined;
  let baseUrl = o.baseUrl;
  if (baseUrl === 'embedded' && o.embeddedUrl !== undefined) baseUrl = o.embeddedUrl;
  else if (baseUrl === 'embedded') {
    reference = await startEmbeddedReference(o.loaded.profile, o.faults ?? []);
    baseUrl = reference.url;
  }
  const log: LoggedRequest[] = [];
  const receiver = o.webhooks === false || production ? undefined : await openRunReceiver(o.loaded, 'quick');
  const counting = (inner: Client): Client => ({
    send(req, opts) {
      if (count >= max) throw new BudgetSpent(`the doctor's request budget (${max}) is spent`);
      if (performance.now() - started > maxMs)
        throw new BudgetSpent(`the doctor's time budget (${Math.round(maxMs / 1000)} s) is spent: the target answers slowly`);
      // Breadth first: a kind's depth is paid only from what the other kinds' first probes leave (budget.ts).
      const op = opts?.request?.operation;
      budget.take(currentKind(), count, op === 'payout.cancel' || op === 'sandbox');
      count += 1;
      const onAttempt = (a: WireAttempt) => {
        attempts.push(a);
        opts?.onAttempt?.(a);
      };
      return inner.send(req, { ...opts, onAttempt }).then((ex) => {
        o.onExchange?.(ex);
        if (opts?.request) ledger?.sent(ex, opts.request.merchant, opts.request.operation);
        if (ex.throttled) {
          throttled ??= { answers: 0, waitMs: 0 };
          throttled.answers += ex.throttled.answers;
          throttled.waitMs += ex.throttled.waitMs;
        }
        if (unknownForm !== undefined && answerForm(ex) === unknownForm) {
          markUnknownPath(ex);
          // Only a form that names the request's own path tells this path from any other refusal of the same words.
          if (unknownForm.includes('<path>')) nameUnknownPath(ctx, ex);
        }
        // A sandbox control's answer is the vendor's, outside the document: no rule of the interface judges it.
        for (const f of opts?.request?.operation === 'sandbox' ? [] : envelopeFlaws(ex)) {
          if (flawsSeen.has(f.clause)) continue;
          flawsSeen.add(f.clause);
          doubt(ctx, 'baseUrl', "the target answers with the interface's envelope", [f.clause], {
            answered: `${f.what} (read leniently by the doctor)`,
            fix: 'baseUrl points at another service than the profile describes',
            ex: [ex],
            // An authentication error's envelope is the document's too: its flaw is evidence like any other answer's.
            authAnswered: true,
          });
        }
        return ex;
      });
    },
    close: () => inner.close(),
    openSection: (spec, holds) => inner.openSection(spec, holds),
  });
  const session = openSession({
    loaded: o.loaded,
    baseUrl,
    receiver,
    // The doctor sends alone (a run's checks wait for it): the whole of the profile's rate is its own.
    rateShares: 1,
    // The production guard judges the bytes about to be sent, whatever a probe meant to do.
    wrapClient: (c) => counting(production ? loggingClient(c, { side: 'a', loaded: o.loaded, baseUrl, safe: true, log }) : c),
  });
  ledger = new Ledger(o.loaded.profile, session.target.runPrefix, (url) => requestPathOf(session.target, url));
  const ctx: DoctorContext = {
    ledger,
    budget,
    seed: o.seed ?? 0,
    t: session.target,
    loaded: o.loaded,
    production,
    items: [],
    exchanges: [],
    sent: () => count,
    webhookClock: o.webhookClock ?? true,
    learnUnknownPath: (form) => {
      unknownForm = form;
    },
    progress: (phase) => {
      tracePhase(phase);
      o.onProgress?.(phase);
    },
  };
  try {
    await phases(ctx);
  } catch (err) {
    if (!(err instanceof PreconditionSkip)) throw err;
    add(ctx, 'not-verifiable', 'top level', 'the remaining assumptions', { answered: err.message });
  } finally {
    await session.close();
    await reference?.close();
  }
  const onset = throttleOnset(attempts);
  if (throttled && onset) adviseRateLimit(ctx, { ...throttled, ...onset });
  sortItems(ctx);
  const counts: Record<ItemStatus, number> = { verified: 0, wrong: 0, 'not-verifiable': 0, warning: 0, doubt: 0 };
  for (const i of ctx.items) counts[i.status] += 1;
  const used = new Set(ctx.items.flatMap((i) => i.exchanges ?? []));
  const doubted = new Set(ctx.items.filter((i) => i.status === 'doubt').flatMap((i) => i.exchanges ?? []));
  return {
    format: 'mpsi-conformance-doctor/1',
    profile: {
      name: o.loaded.profile.name,
      file: o.loaded.path.split('/').pop() ?? o.loaded.path,
      environment: o.loaded.profile.environment,
    },
    target: o.baseUrl === 'embedded' ? `embedded reference at ${baseUrl}` : maskUrl(baseUrl),
    movesNoMoney: production,
    ...(production ? {} : { moved: ledger.moved() }),
    numbersStartWith: session.target.runPrefix,
    startedAt,
    durationMs: Math.round(performance.now() - started),
    requests: count,
    budget: budget.summary(),
    exitCode: counts.wrong > 0 ? 2 : 0,
    counts,
    items: ctx.items,
    exchanges: ctx.exchanges.filter((e) => used.has(e.id)).map((e: Exchange) => doctorExchange(e, baseUrl)),
    ...(throttled && onset ? { proposedRate: onset.proposed } : {}),
    ...(doubted.size ? { evidence: ctx.exchanges.filter((e) => doubted.has(e.id)).map(storeExchange) } : {}),
  };
}

/**
 * The target throttled the doctor: a gateway answered HTTP 429 (or 503 with Retry-After) instead of the service.
 * Never a verdict; the doctor says so and proposes `http.rateLimit`: the requests the gateway let through in the
 * second before a throttled one, counted when they went on the wire (harness/http/throttle.ts `throttleOnset`).
 */
function adviseRateLimit(ctx: DoctorContext, t: { answers: number; waitMs: number } & ThrottleOnset): void {
  const declared = ctx.loaded.profile.http?.rateLimit;
  const proposed = t.proposed;
  const lost = `${t.answers} throttled answer(s) waited out and resent, ${(t.waitMs / 1000).toFixed(1)} s lost`;
  add(
    ctx,
    'warning',
    'http.rateLimit',
    declared === undefined ? 'the target takes requests as fast as the kit sends them' : `${declared} requests a second go through`,
    {
      answered:
        `throttled from request ${t.onsetAfter} on, when ${t.onsetRate} requests had gone on the wire within one second ` +
        `(HTTP 429/503, a gateway's answer, never judged); ${lost}`,
      fix:
        declared === undefined || declared > proposed
          ? `declare "http": { "rateLimit": ${proposed} } (or the rate the vendor states, if lower): ` +
            'the kit then paces itself under it from the first request'
          : `the kit stayed under the declared ${declared} requests a second and was still throttled: ` +
            "the gateway's limit is lower, or shared with other clients; lower http.rateLimit",
    },
  );
}

/** Probes run concurrently; the report lists items in the profile's own order of sections (stable within one). */
const SECTION_ORDER = [
  'baseUrl',
  'environment',
  'http',
  'merchants',
  'endpoints',
  'methods',
  'limits',
  'pricePoints',
  'checkout',
  'paymentRecord',
  'cardPayment',
  'refunds',
  'payouts',
  'sandbox',
  'webhooks',
  'internalFieldNames',
  'top level',
];
function sortItems(ctx: DoctorContext): void {
  const rank = (path: string) => {
    const i = SECTION_ORDER.indexOf(path.split(/[.[]/, 1)[0]!);
    return i < 0 ? SECTION_ORDER.length : i;
  };
  const indexed = ctx.items.map((item, i) => ({ item, i }));
  indexed.sort((a, b) => rank(a.item.path) - rank(b.item.path) || a.i - b.i);
  ctx.items.splice(0, ctx.items.length, ...indexed.map((x) => x.item));
}

async function phases(ctx: DoctorContext): Promise<void> {
  const unused = checkUnused(ctx);
  if (!(await checkBasics(ctx))) {
    const credentialsJudged = ctx.items.some((i) => i.path.startsWith('merchants.'));
    if (!ctx.items.some((i) => i.path === 'top level'))
      add(
        ctx,
        'not-verifiable',
        'top level',
        credentialsJudged ? "every assumption but the merchants' credentials" : 'every other assumption',
        {
          answered:
            "not asked: the envelope at baseUrl or the primary merchant's " +
            'credentials are wrong (above), and every other answer depends on them',
        },
      );
    return;
  }
  if (ctx.production) {
    await createPathsByAuth(ctx);
    add(ctx, 'not-verifiable', 'environment', 'methods, limits, data paths, cards, sandbox controls, webhooks', {
      answered:
        'not asked: a production profile (or a --safe run) gets a doctor ' +
        'that moves no money (signed queries and authentication probes only)',
    });
    return;
  }
  // The kinds of the later stages are set aside for before the first stage spends (breadth first: budget.ts); those a
  // stage did not enter are let go when it ends.
  const later = laterKinds(ctx);
  ctx.budget?.expect(later);
  const [, cards] = await Promise.all([
    kind(ctx, 'methods', () => checkPayments(ctx)),
    kindOf(ctx, 'cardPayment', () => checkCards(ctx), {}),
    kind(ctx, 'payouts', () => checkPayouts(ctx)),
  ]);
  const [subjects] = await Promise.all([
    kindOf<ArmSubjects>(ctx, 'sandbox.armFailure', () => armSubjects(ctx), new Map()),
    kind(ctx, 'refunds', () => checkRefunds(ctx, cards.paid)),
    kind(ctx, 'refunds.support', () => checkRefundSupport(ctx)),
    checkControls(ctx, cards),
    kind(ctx, 'webhooks', () => checkWebhooks(ctx)),
    kind(ctx, 'facts', () => checkV3Facts(ctx)),
    kind(ctx, 'internalFieldNames', () => checkInternalNames(ctx)),
    kind(ctx, 'sandbox.triggers', () => checkTriggers(ctx)),
    kind(ctx, 'sandbox.autoSettle', () => checkAutoSettle(ctx)),
  ]);
  for (const k of later) if (k !== ARMED) ctx.budget?.close(k);
  // Armed failures are one-shot per merchant: nothing else may run beside them.
  await kind(ctx, ARMED, () => checkArmedFailures(ctx, subjects));
  ctx.budget?.close(ARMED);
  notProbed(ctx);
  settleUnused(ctx, unused);
}

const ARMED = 'sandbox.armFailure.failures';

/**
 * The kinds of fact the stages after the first probe (each sandbox control its own; the payout settle, probed late in
 * the first stage, too): set aside from the start.
 */
function laterKinds(ctx: DoctorContext): string[] {
  const controls = (['completeCheckout', 'expireCheckout', 'chargeback', 'completeCard', 'settlePayout'] as const).filter(
    (c) => ctx.loaded.profile.sandbox?.[c] !== undefined,
  );
  return [
    'sandbox.armFailure',
    'refunds',
    'refunds.support',
    ...controls.map((c) => `sandbox.${c}`),
    'webhooks',
    'facts',
    'internalFieldNames',
    ...(ctx.loaded.profile.sandbox?.triggers ? ['sandbox.triggers'] : []),
    ...(ctx.loaded.profile.sandbox?.autoSettle ? ['sandbox.autoSettle'] : []),
    ARMED,
  ];
}

const CREATE_ENDPOINTS: EndpointName[] = ['checkout', 'cardPayment', 'refundCreate', 'payoutCreate', 'payoutCancel'];

/**
 * Production: a create endpoint is asked only with a request that fails authentication by
 * construction (an unknown merchant). No envelope names the path as wrong; an envelope shows the
 * target answered, though a target that authenticates before routing would answer so on any path.
 */
async function createPathsByAuth(ctx: DoctorContext): Promise<void> {
  ctx.progress('endpoint paths (authentication probes)');
  const id = ctx.loaded.merchants.unknownId;
  for (const name of CREATE_ENDPOINTS) {
    if (!ctx.loaded.profile.endpoints[name] && name !== 'checkout') continue;
    // A templated path is filled with numbers nobody used: the probe is refused before any record is looked up.
    const path = fillWithAny(ctx.t.pathTemplate(name)!, (n) =>
      ctx.t.newNo(n.includes('refund') ? 'refund' : n.includes('payout') ? 'payout' : 'order'),
    );
    const ex = await ctx.t.post(
      path,
      {},
      { as: { id, secret: randomBytes(16).toString('hex') }, noVerify: true, label: `doctor: ${name} path (unknown merchant)` },
    );
    const a = answerOf(ex);
    if (unknownPath(a))
      add(ctx, 'wrong', `endpoints.${name}`, `${path} answers with the interface's envelope`, {
        expected: 'a JSON envelope {code, msg}',
        answered: `${describeAnswer(a)}: the target has no such path`,
        fix: `set endpoints.${name} to the path the vendor documents`,
        ex: [ex],
      });
    else
      add(ctx, 'not-verifiable', `endpoints.${name}`, `${path} exists`, {
        answered: `${describeAnswer(a)} to an unknown merchant: the target answered, but may authenticate before it routes`,
        ex: [ex],
      });
  }
}
