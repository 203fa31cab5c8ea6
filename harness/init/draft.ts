/** The draft profile from what init learnt: only learnt values; what is missing stays out (see todos.ts). */
import type { TlsProfile } from '../http/network.js';
import type { Profile } from '../profile/types.js';
import { extrasTemplate } from './checkout.js';
import type { Evidence } from './evidence.js';
import { amount } from './fields.js';
import { predict, tierTexts } from './price-points.js';
import { UNKNOWN_MERCHANT_ID, UNKNOWN_METHOD } from './candidates.js';
import type { ChannelLimits } from '../profile/types.js';
import type { OtherCards } from './cards.js';
import type { CardResult, RefundResult } from './card-refund.js';
import type { CheckoutFields, CheckoutShape, MethodFinding } from './checkout.js';
import type { Found } from './paths.js';
import type { PayoutResult } from './payouts.js';
import type { Walked } from './price-points.js';
import type { WebhookResult } from './webhooks.js';

/** What the draft says of the run itself, besides what was learnt: the options init was given. */
export interface DraftOptions {
  baseUrl: string;
  merchantId: string;
  secretEnv: string;
  /** URL the target must call for webhooks when it cannot reach 127.0.0.1 (tunnel). */
  publicUrl?: string;
  /** The TLS files init connected with (--ca, --cert, …), paths relative to the draft's folder: its http.tls (version 4). */
  tls?: TlsProfile;
}

/** What discovery learnt, phase by phase (run.ts fills it; the draft is written from it). */
export interface State {
  paths: Found;
  unknownIdOk?: boolean;
  shape?: CheckoutShape;
  methods?: MethodFinding[];
  fields?: CheckoutFields;
  internal?: Record<string, string>;
  limits: Record<string, ChannelLimits>;
  tiers: Record<string, Walked>;
  card?: CardResult;
  otherCards?: OtherCards;
  refunds?: RefundResult;
  payouts?: PayoutResult;
  webhooks?: WebhookResult;
  /** Requests per second the target let through before it throttled (Prober.throttling), proposed as http.rateLimit. */
  rateLimit?: number;
}

export function draft(opts: DraftOptions, st: State, ev: Evidence): Profile {
  const host = (() => {
    try {
      return new URL(opts.baseUrl).host;
    } catch {
      return 'target';
    }
  })();
  const accepted = (st.methods ?? []).filter((m) => m.cls === 'accepted');
  // Checks use the first method by default: a plain method with known limits, not a price-point one.
  const checkout = [
    ...accepted.filter((m) => !m.pricePoint && st.limits[m.method]),
    ...accepted.filter((m) => !(!m.pricePoint && st.limits[m.method])),
  ].map((m) => m.method);
  const first = (cls: string) =>
    cls === 'unknown' && st.methods?.some((m) => m.method === UNKNOWN_METHOD && m.cls === 'unknown')
      ? UNKNOWN_METHOD
      : (st.methods ?? []).find((m) => m.cls === cls)?.method;
  const profile: Profile = {
    profileVersion: 4,
    name: `${host} (drafted by init)`,
    description: `Drafted by mpsi-conformance init on ${new Date().toISOString()}; see the .todo.md file beside it for what to complete.`,
    baseUrl: opts.baseUrl.replace(/\/+$/, ''),
    environment: 'sandbox',
    merchants: {
      primary: { id: opts.merchantId, secretEnv: opts.secretEnv },
      unknownId: st.unknownIdOk ? UNKNOWN_MERCHANT_ID : 'TODO-unknown-merchant',
    },
    http: {
      deadlineMs: 10000,
      maxResponseBytes: 1048576,
      concurrency: 8,
      ...(st.rateLimit ? { rateLimit: st.rateLimit } : {}),
      ...(opts.tls ? { tls: opts.tls } : {}),
    },
    endpoints: { ...st.paths },
    methods: { checkout, unknown: first('unknown') ?? 'INIT_NO_SUCH_METHOD_ZZ' },
  };
  if (st.internal && Object.keys(st.internal).length) profile.internalFieldNames = st.internal;
  if (st.card) profile.methods.card = st.card.method;
  if (first('notEnabled')) profile.methods.notEnabled = first('notEnabled');
  if (first('noChannel')) profile.methods.noChannel = first('noChannel');
  const pp = accepted.filter((m) => m.pricePoint).map((m) => m.method);
  if (pp.length) profile.methods.pricePoint = pp;
  const payLimits = Object.fromEntries(Object.entries(st.limits));
  const payoutLimits = st.payouts?.limits ?? {};
  if (Object.keys(payLimits).length || Object.keys(payoutLimits).length) {
    profile.limits = {};
    if (Object.keys(payLimits).length) profile.limits.payments = payLimits;
    if (Object.keys(payoutLimits).length) profile.limits.payouts = payoutLimits;
  }
  const walks = Object.entries(st.tiers);
  // A tier list is a fact only where the walk proves it whole: some tier found, and no stretch where, with refusals
  // between tiers, the search doubled its step (a tier's window of accepted amounts could lie between two probes: measured
  // over generated targets, such walks miss tiers). The vendor's list (--hint, --hints, --openapi) then fills it.
  const unproven = walks.filter(([, w]) => w.tiers.length === 0 || (w.maxDistance !== undefined && w.coarseFrom !== undefined));
  if (unproven.length)
    ev.todo(
      'pricePoints',
      `the price points of ${unproven.map(([m]) => m).join(', ')}, from the vendor: ` +
        unproven
          .map(([m, w]) =>
            w.tiers.length === 0
              ? `${m}: no amount probed was charged a price point`
              : `${m}: tiers ${tierTexts(w.tiers).join(', ')} found, ${w.rounding}` +
                `${w.maxDistance !== undefined ? ` within ${amount(w.maxDistance).value}` : ''}; above ` +
                `${amount(w.coarseFrom!).value} the search doubled its step, so a tier there could lie between two probes`,
          )
          .join('; '),
    );
  else if (walks.length) {
    const [, w0] = walks[0]!;
    const tiers = tierTexts(w0.tiers);
    const byMethod = Object.fromEntries(
      walks.filter(([, w]) => JSON.stringify(tierTexts(w.tiers)) !== JSON.stringify(tiers)).map(([m, w]) => [m, tierTexts(w.tiers)]),
    );
    // One list for every price-point method: an amount one method refused may be another's tier (100.00), so
    // an amount is kept only where each method refused it or refused an amount below it beyond its top tier.
    const refusedBy = (w: Walked, c: bigint) =>
      w.samples.some(([x, r]) => r === undefined && (x === c || (x <= c && predict(w, c) === undefined)));
    const unroundable = [
      ...new Set(
        walks
          .flatMap(([, w]) => w.unroundable)
          .filter((c) => walks.every(([, w]) => refusedBy(w, c)))
          .sort((x, y) => (x < y ? -1 : 1))
          .map((c) => amount(c).value),
      ),
    ];
    profile.pricePoints = { tiers, rounding: w0.rounding, unroundable };
    if (w0.maxDistance !== undefined) profile.pricePoints.maxDistance = amount(w0.maxDistance).value;
    if (w0.tie) profile.pricePoints.tie = w0.tie;
    if (Object.keys(byMethod).length) profile.pricePoints.tiersByMethod = byMethod;
    // A method rounding otherwise than the first says its own rule (rounding, distance and tie replace the shared ones together).
    const ruleOf = (w: Walked) => ({
      rounding: w.rounding,
      ...(w.maxDistance !== undefined ? { maxDistance: amount(w.maxDistance).value } : {}),
      ...(w.tie ? { tie: w.tie } : {}),
    });
    const ruleByMethod = Object.fromEntries(
      walks.filter(([, w]) => JSON.stringify(ruleOf(w)) !== JSON.stringify(ruleOf(w0))).map(([m, w]) => [m, ruleOf(w)]),
    );
    if (Object.keys(ruleByMethod).length) profile.pricePoints.ruleByMethod = ruleByMethod;
    const untied = walks.filter(([, w]) => w.rounding === 'nearest' && w.tie === undefined).map(([m]) => m);
    if (untied.length)
      ev.todo(
        'pricePoints.tie',
        `which tier ${untied.join(', ')} rounds an amount midway between two tiers to: no two of its tiers found lie an ` +
          'even number of cents apart within its distance, so no amount asked was a midpoint',
      );
    if (unroundable.length === 0)
      ev.todo('pricePoints.unroundable', 'amounts the target refuses to round (none was refused below the probe cap)');
  }
  if (st.shape && st.fields?.orderNo) {
    profile.checkout = {
      extras: extrasTemplate(st.shape.extras, st.shape.notifyUrl),
      data: { orderNo: st.fields.orderNo, ...(st.fields.status ? { status: st.fields.status } : {}) },
    };
    if (Object.keys(profile.checkout.extras!).length === 0) delete profile.checkout.extras;
    // A method this merchant has not enabled is not declared by the draft, so its fields cannot be written (the loader
    // refuses extras of an undeclared method): they are a TODO, with what the target asked for.
    const declared = new Set([...checkout, ...(st.card ? [st.card.method] : [])]);
    for (const [m, e] of Object.entries(st.shape.byMethod))
      if (!declared.has(m))
        ev.todo(
          `checkout.extrasByMethod.${m}`,
          `${m} is not enabled for this merchant, so the draft does not declare it; if another merchant has it, its checkout ` +
            `also needs ${JSON.stringify(extrasTemplate(e, st.shape.notifyUrl))} (the target asked for these fields)`,
        );
    const byMethod = Object.entries(st.shape.byMethod).filter(([m]) => declared.has(m));
    if (byMethod.length)
      profile.checkout.extrasByMethod = Object.fromEntries(byMethod.map(([m, e]) => [m, extrasTemplate(e, st.shape!.notifyUrl)]));
    if (st.fields.pendingStatus) profile.checkout.pendingStatus = st.fields.pendingStatus;
  }
  // The section needs the order number's path (checkout.data.orderNo); without it what init learnt of the rest is
  // quoted, so that leaving the section out loses none of it.
  if (st.shape && !profile.checkout) {
    const learnt = {
      extras: extrasTemplate(st.shape.extras, st.shape.notifyUrl),
      ...(Object.keys(st.shape.byMethod).length
        ? {
            extrasByMethod: Object.fromEntries(
              Object.entries(st.shape.byMethod).map(([m, e]) => [m, extrasTemplate(e, st.shape!.notifyUrl)]),
            ),
          }
        : {}),
      ...(st.fields?.status ? { data: { status: st.fields.status } } : {}),
      ...(st.fields?.pendingStatus ? { pendingStatus: st.fields.pendingStatus } : {}),
    };
    ev.todo(
      'checkout',
      "the checkout section, left out with its order number's path (see checkout.data.orderNo: a payment query answered no " +
        `order init made, as when the query needs a parameter besides the number, see queryParams); init learnt ${JSON.stringify(learnt)}`,
    );
  }
  const r = st.fields?.record;
  if (r?.orderNo && r.merchantOrderNo && r.status && r.transAmount) {
    profile.paymentRecord = {
      orderNo: r.orderNo,
      merchantOrderNo: r.merchantOrderNo,
      status: r.status,
      transAmount: r.transAmount,
      ...(r.requestedAmount ? { requestedAmount: r.requestedAmount } : {}),
    };
  }
  if (st.card) {
    profile.cardPayment = { template: st.card.template, cards: { success: st.card.card, ...st.otherCards?.cards }, data: st.card.data };
    if (st.otherCards?.declines.length) profile.cardPayment.declines = st.otherCards.declines;
    // Said only where it is not a new checkout's status (the profile's default for it).
    const pending = st.otherCards?.pendingStatus;
    if (pending !== undefined && pending !== profile.checkout?.pendingStatus) profile.cardPayment.pendingStatus = pending;
  }
  const rf = st.refunds;
  if (rf?.data.refundNo && rf.data.status && rf.queryBy && st.card) {
    profile.refunds = {
      template: rf.template,
      support: rf.cardSupport ? { [st.card.method]: rf.cardSupport } : {},
      ...(rf.createdStatus ? { createdStatus: { [st.card.method]: rf.createdStatus } } : {}),
      queryBy: rf.queryBy,
      data: { refundNo: rf.data.refundNo, status: rf.data.status, ...(rf.data.amount ? { amount: rf.data.amount } : {}) },
    };
  }
  const po = st.payouts;
  if (po?.data.payoutNo && po.data.status && po.queryBy && Object.keys(po.methods).length) {
    profile.payouts = {
      template: po.template,
      methods: po.methods,
      queryBy: po.queryBy,
      cancelBy: po.cancelBy ?? po.queryBy,
      data: { payoutNo: po.data.payoutNo, status: po.data.status },
    };
    if (po.notForPayouts) profile.payouts.notForPayouts = po.notForPayouts;
    if (!po.cancelBy)
      ev.todo(
        'payouts.cancelBy',
        "written as payouts.queryBy (no payout could be cancelled by its service number to check): write the cancel request's field names",
      );
  }
  // Payout limits belong to the methods of a payouts section (the loader refuses them without one): with the section left
  // out, they wait for it in a TODO that gives what init measured.
  if (!profile.payouts && profile.limits?.payouts) {
    ev.todo(
      'limits.payouts',
      `the payout limits, with the payouts section (left out: see payouts); init measured ${JSON.stringify(profile.limits.payouts)}`,
    );
    delete profile.limits.payouts;
    if (Object.keys(profile.limits).length === 0) delete profile.limits;
  }
  // A section init probed but could not complete is left out whole: say so, whatever else was learnt of it.
  if (!profile.refunds && st.paths.refundCreate)
    ev.todo(
      'refunds',
      'the refunds section: init did not learn enough of it to write it (see the refund lines above and the TODOs for refunds.*)',
    );
  if (!profile.payouts && st.paths.payoutCreate)
    ev.todo(
      'payouts',
      'the payouts section: init did not learn enough of it to write it (see the payout lines above and the TODOs for payouts.*)',
    );
  const wh = st.webhooks;
  // Without a measured clock ratio every figure of the section would be a guess (a real-time 1 on a fast sandbox makes
  // every webhook check wait 200 times too long, or judge its waits wrong): it is left out whole and asked for.
  if (wh?.arrives && wh.timeScale === undefined)
    ev.todo(
      'webhooks',
      "the webhooks section: webhooks arrive, but init could not measure the target's clock ratio (see webhooks.timeScale); " +
        "write timeScale, ackTimeoutMs (the document's 5 s times the scale), deliveryWaitMs and tolerance",
    );
  if (wh?.arrives && wh.timeScale !== undefined) {
    const scale = wh.timeScale;
    profile.webhooks = {
      receiver: { host: '127.0.0.1', port: 0, ...(opts.publicUrl ? { publicUrl: opts.publicUrl } : {}) },
      timeScale: scale,
      ackTimeoutMs: wh.ackTimeoutMs ?? Math.max(1, Math.round(5000 * scale)),
      deliveryWaitMs: Math.max(3000, 10 * (wh.latencyMs ?? 0)),
      tolerance: 0.25,
    };
  }
  return profile;
}
