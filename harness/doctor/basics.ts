/**
 * The envelope at baseUrl, each merchant's credentials, the unknown id, and the query endpoints:
 * everything a signed query can show, so a production profile gets these too.
 */
import { randomBytes } from 'node:crypto';
import type { Exchange } from '../http/exchange.js';
import { lookupFor, PAYOUT_NUMBERS, queryBody, queryPayment, queryPayout, queryRefund, REFUND_NUMBERS } from '../ops.js';
import { matchesTemplate } from '../profile/endpoint-path.js';
import type { MerchantRef } from '../profile/types.js';
import { endpointPaths, type EndpointName, type MerchantRole } from '../target.js';
import { add, doubt, type DoctorContext } from './context.js';
import { answerForm, answerOf, describeAnswer, unknownPath, type Answer } from './model.js';
import type { Reserialisation } from '../merchant/audit/families.js';
import { acceptedRewritten, keyRightTargetWrong } from './reserialised.js';
import { checkQueryParams } from './query-params.js';

const DOCUMENT_QUERY_PATH = '/api/v1/payments/query';
const LIVE_KEY = /^(sk|rk)_live_/;

function secretPath(ctx: DoctorContext, role: MerchantRole): string {
  const ref = ctx.loaded.profile.merchants[role] as MerchantRef | undefined;
  return ref?.secretEnv !== undefined ? `merchants.${role}.secretEnv` : `merchants.${role}.secret`;
}

/** What a 403 to a correctly built request says about the key, in the user's words. */
function keyProblem(ctx: DoctorContext, role: MerchantRole): { answered: string; fix: string } {
  const ref = ctx.loaded.profile.merchants[role] as MerchantRef | undefined;
  const key = ctx.loaded.merchants[role]?.secret ?? '';
  const where = ref?.secretEnv !== undefined ? `the key in $${ref.secretEnv}` : `merchants.${role}.secret`;
  const live = LIVE_KEY.test(key) && ctx.loaded.profile.environment === 'sandbox';
  return {
    answered:
      `${where} is not this merchant's key` +
      `${live ? ' (it looks like a production key; a sandbox has its own test key)' : ''}: the target refused the signature`,
    fix:
      `put ${role}'s ${ctx.loaded.profile.environment} API secret key (not the login ` +
      `password${live ? ', not the production key' : ''}) in ${secretPath(ctx, role)}`,
  };
}

/** Asks the payment query endpoint about a number nobody used, as one merchant. */
async function probeMerchant(ctx: DoctorContext, role: MerchantRole): Promise<{ a: Answer; ex: Exchange }> {
  const ex = await queryPayment(ctx.t, { merchant_order_no: ctx.t.newNo('order') }, { as: role, label: `doctor: credentials of ${role}` });
  return { a: answerOf(ex), ex };
}

/** Returns false when nothing else is worth asking (no envelope at baseUrl, or the primary's credentials are wrong). */
export async function checkBasics(ctx: DoctorContext): Promise<boolean> {
  ctx.progress('envelope at baseUrl, merchants and credentials');
  const p = ctx.loaded.profile;
  const queryPath = ctx.t.path('paymentQuery');
  const pathField =
    p.endpoints.paymentQuery !== undefined && p.endpoints.paymentQuery !== DOCUMENT_QUERY_PATH ? 'endpoints.paymentQuery' : 'baseUrl';
  const primary = await probeMerchant(ctx, 'primary');
  const network = primary.ex.error?.network;
  if (network) {
    // The network refused the connection (TLS, proxy): the field to fix is that one, not baseUrl (harness/http/network.ts).
    add(ctx, 'wrong', network.field, 'the kit connects to the target (TLS, proxy)', {
      expected: 'a connection',
      answered: network.what,
      fix: network.fix,
      ex: [primary.ex],
      noAnswerIsWrong: true,
    });
    return false;
  }
  if (primary.a.error) {
    add(ctx, 'wrong', 'baseUrl', 'the target answers at baseUrl', {
      expected: 'an answer',
      answered: describeAnswer(primary.a),
      fix: 'set baseUrl (or --target) to the address the target listens on',
      ex: [primary.ex],
      noAnswerIsWrong: true,
    });
    return false;
  }
  if (unknownPath(primary.a) && (await unversioned(ctx, queryPath))) return false;
  if (unknownPath(primary.a)) {
    add(ctx, 'wrong', pathField, `the payment query answers with the interface's envelope at baseUrl + ${queryPath}`, {
      expected: 'a JSON envelope {code, msg}',
      answered: describeAnswer(primary.a),
      fix:
        pathField === 'baseUrl'
          ? "baseUrl must end where /api/v1/… begins (e.g. include the vendor's path prefix)"
          : 'set endpoints.paymentQuery to the path the vendor documents',
      ex: [primary.ex],
    });
    return false;
  }
  add(ctx, 'verified', 'baseUrl', "the target answers with the interface's envelope at baseUrl", {
    answered: describeAnswer(primary.a),
    ex: [primary.ex],
  });
  const rewritten = primary.a.envelope && primary.a.http === 403 ? await acceptedRewritten(ctx, 'primary', primary.ex) : undefined;
  if (rewritten) {
    // The key is right and the target verifies over its own re-serialisation: every request the doctor signs over the
    // bytes it sends is refused alike, so nothing else can be asked; the checks meet the same refusals.
    keyRightTargetWrong(ctx, 'primary', primary.ex, rewritten);
    await otherMerchants(ctx, rewritten.differs);
    add(ctx, 'not-verifiable', 'top level', 'every other assumption', {
      answered:
        'not asked: the target refuses every request signed over the bytes sent (see baseUrl, auth.sign.raw-body), ' +
        'and every other answer depends on one being accepted',
    });
    return false;
  }
  if (!judgeCredentials(ctx, 'primary', primary.a, primary.ex)) {
    // Each merchant's credentials stand alone: every wrong one is said at once.
    await otherMerchants(ctx);
    return false;
  }
  // A target may answer a path it does not have with an envelope too: learn that answer's form
  // (not in production, where a signed request to a path that is not a query is never sent).
  if (ctx.production) {
    add(ctx, 'verified', 'endpoints.paymentQuery', `the payment query answers at ${queryPath}`, {
      answered: describeAnswer(primary.a),
      ex: [primary.ex],
    });
    return finishBasics(ctx, primary.ex);
  }
  const probe = await ctx.t.post(
    `${queryPath.replace(/\/[^/]*\/[^/]*$/, '')}/mpsi-doctor/no-such-path`,
    {},
    { label: 'doctor: a path the target does not have' },
  );
  const form = answerForm(probe);
  if (form !== undefined && answerOf(probe).http === 200) ctx.learnUnknownPath(form);
  if (form !== undefined && form === answerForm(primary.ex) && (await unversioned(ctx, queryPath, form))) return false;
  if (form !== undefined && form === answerForm(primary.ex)) {
    add(ctx, 'wrong', pathField, `the payment query answers at baseUrl + ${queryPath}`, {
      expected: 'an answer of the payment query',
      answered: `${describeAnswer(primary.a)}, as to a path it does not have`,
      fix:
        pathField === 'baseUrl' ? 'baseUrl must end where /api/v1/… begins' : 'set endpoints.paymentQuery to the path the vendor documents',
      ex: [primary.ex, probe],
    });
    return false;
  }
  add(ctx, 'verified', 'endpoints.paymentQuery', `the payment query answers at ${queryPath}`, {
    answered: describeAnswer(primary.a),
    ex: [primary.ex],
  });
  return finishBasics(ctx, primary.ex);
}

/**
 * The document fixes /api/v1/ in the query's path: when the target has no such path but answers the
 * same path without the version, the target breaks ep.versioned-path — a doubt, not the profile's
 * baseUrl. Nothing else can be asked (every path of the profile has the version).
 */
async function unversioned(ctx: DoctorContext, queryPath: string, unknownForm?: string): Promise<boolean> {
  if (!queryPath.includes('/v1/')) return false;
  const path = queryPath.replace('/v1/', '/');
  const body = queryBody(ctx.t, 'payment', { merchant_order_no: ctx.t.newNo('order') });
  const ex = await ctx.t.post(path, body, { label: 'doctor: the payment query without /v1/' });
  const a = answerOf(ex);
  if (unknownPath(a) || !a.envelope || (unknownForm !== undefined && answerForm(ex) === unknownForm)) return false;
  doubt(ctx, 'baseUrl', `the payment query answers at baseUrl + ${queryPath}`, ['ep.versioned-path'], {
    expected: 'an answer of the payment query',
    answered: `no such path; ${path} answers ${describeAnswer(a)}: the target serves the API without /v1/`,
    fix: 'baseUrl must end where /api/v1/… begins',
    ex: [ex],
  });
  add(ctx, 'not-verifiable', 'top level', 'every other assumption', {
    answered: 'not asked: every path the profile gives carries /api/v1/, which the target does not serve',
  });
  return true;
}

/** `rewritten`: the primary's bytes were refused and a re-written body accepted; a refused merchant is tried that way first. */
async function otherMerchants(ctx: DoctorContext, rewritten?: Reserialisation): Promise<void> {
  const others = (['second', 'frozen', 'lowBalance'] as const).filter((r) => ctx.loaded.merchants[r] !== undefined);
  const probes = await Promise.all(
    others.map(async (r) => {
      const probe = await probeMerchant(ctx, r);
      const w = probe.a.envelope && probe.a.http === 403 ? await acceptedRewritten(ctx, r, probe.ex, rewritten) : undefined;
      return { ...probe, w };
    }),
  );
  for (const [i, r] of others.entries()) {
    const { a, ex, w } = probes[i]!;
    if (w) keyRightTargetWrong(ctx, r, ex, w);
    else judgeCredentials(ctx, r, a, ex);
  }
}

async function finishBasics(ctx: DoctorContext, primaryQuery?: Exchange): Promise<boolean> {
  await otherMerchants(ctx);
  await checkUnknownId(ctx);
  checkProductionKeys(ctx);
  const seen = await checkQueryEndpoints(ctx);
  await checkQueryParams(ctx, { ...seen, ...(primaryQuery ? { payment: primaryQuery } : {}) });
  return true;
}

function judgeCredentials(ctx: DoctorContext, role: MerchantRole, a: Answer, ex: Exchange): boolean {
  const m = ctx.loaded.merchants[role]!;
  const what = `merchants.${role}: id ${m.id} and its key sign requests the target accepts`;
  if (a.envelope && a.http === 401 && a.key === 'merchantNotFound') {
    add(ctx, 'wrong', `merchants.${role}.id`, what, {
      authAnswered: true,
      expected: 'a signed answer (e.g. order not found)',
      answered: `${describeAnswer(a)}: merchants.${role}.id is not a merchant id the target knows`,
      fix: `put the merchant id the vendor assigned to ${role} (X-MerchantID, not a name or login) in merchants.${role}.id`,
      ex: [ex],
    });
    return false;
  }
  if (a.envelope && a.http === 403) {
    const k = keyProblem(ctx, role);
    add(ctx, 'wrong', secretPath(ctx, role), what, {
      authAnswered: true,
      expected: 'a signed answer (e.g. order not found)',
      answered: `${describeAnswer(a)}: ${k.answered}`,
      fix: k.fix,
      ex: [ex],
    });
    return false;
  }
  if (!a.envelope || a.http === 401 || a.http === 500) {
    add(ctx, 'not-verifiable', `merchants.${role}`, what, {
      expected: 'a signed answer (e.g. order not found)',
      answered: describeAnswer(a),
      ex: [ex],
    });
    return false;
  }
  add(ctx, 'verified', `merchants.${role}`, what, { answered: describeAnswer(a), ex: [ex] });
  return true;
}

async function checkUnknownId(ctx: DoctorContext): Promise<void> {
  const id = ctx.loaded.merchants.unknownId;
  const ask = (mid: string, label: string) =>
    queryPayment(
      ctx.t,
      { merchant_order_no: ctx.t.newNo('order') },
      { as: { id: mid, secret: randomBytes(16).toString('hex') }, noVerify: true, label },
    );
  const ex = await ask(id, 'doctor: the unknown merchant id');
  const a = answerOf(ex);
  const what = `merchants.unknownId (${id}) is an id the target does not know`;
  const notFound = (x: Answer) => x.envelope && x.http === 401 && x.key === 'merchantNotFound';
  if (notFound(a)) return void add(ctx, 'verified', 'merchants.unknownId', what, { answered: describeAnswer(a), ex: [ex] });
  // The document fixes the answer to an unknown merchant (HTTP 401 merchantNotFound): an id no target
  // has tells whether the profile's id is known to the target or the target answers unknown ids otherwise.
  const control = await ask(`MPSI-DOCTOR-${randomBytes(6).toString('hex').toUpperCase()}`, 'doctor: an id no merchant has');
  const c = answerOf(control);
  if (notFound(c) && a.envelope && (a.http === 403 || a.code === 0)) {
    add(ctx, 'wrong', 'merchants.unknownId', what, {
      authAnswered: true,
      expected: 'HTTP 401 merchantNotFound',
      answered:
        `${describeAnswer(a)}, while an id no merchant has gets ${describeAnswer(c)}: the ` +
        `target knows this id (it ${a.code === 0 ? 'answered' : 'checked the signature'})`,
      fix: 'choose an id no merchant of the target has (e.g. M999999)',
      ex: [ex, control],
    });
  } else if (notFound(c))
    add(ctx, 'not-verifiable', 'merchants.unknownId', what, {
      expected: 'HTTP 401 merchantNotFound',
      answered: describeAnswer(a),
      ex: [ex, control],
    });
  else
    doubt(ctx, 'merchants.unknownId', what, ['auth.unknown-merchant', 'err.auth.merchant-not-found'], {
      authAnswered: true,
      expected: 'HTTP 401 merchantNotFound',
      answered: `${describeAnswer(a)}; an id no merchant has gets ${describeAnswer(c)} too`,
      fix: 'choose an id no merchant of the target has',
      ex: [ex, control],
    });
}

/** A sandbox cannot tell a production key from any other wrong key; the run's auth.env-keys check sends it. */
function checkProductionKeys(ctx: DoctorContext): void {
  for (const role of ['primary', 'second', 'frozen', 'lowBalance'] as const) {
    const ref = ctx.loaded.profile.merchants[role] as MerchantRef | undefined;
    if (ref?.productionSecret === undefined && ref?.productionSecretEnv === undefined) continue;
    const field = ref.productionSecret !== undefined ? 'productionSecret' : 'productionSecretEnv';
    add(ctx, 'not-verifiable', `merchants.${role}.${field}`, `${role}'s production key`, {
      answered:
        'no request: a sandbox refuses every key but its own alike, so it cannot ' +
        'confirm that this one is the production key (the auth.env-keys check sends it)',
    });
  }
}

// A number nobody used, by the one the path carries where it carries one (harness/profile/endpoint-path.ts).
const QUERY_ENDPOINTS: { name: EndpointName; send: (ctx: DoctorContext) => Promise<Exchange> }[] = [
  {
    name: 'refundQuery',
    send: (ctx) => {
      const no = ctx.t.newNo('refund');
      const by = lookupFor(ctx.t, 'refundQuery', REFUND_NUMBERS, { serviceNo: no, merchantNo: no }, 'merchantNo');
      return queryRefund(ctx.t, by, { label: 'doctor: refund query path' });
    },
  },
  {
    name: 'payoutQuery',
    send: (ctx) => {
      const no = ctx.t.newNo('payout');
      const by = lookupFor(ctx.t, 'payoutQuery', PAYOUT_NUMBERS, { serviceNo: no, merchantNo: no }, 'merchantNo');
      return queryPayout(ctx.t, by, { label: 'doctor: payout query path' });
    },
  },
];

/** A query for a number nobody used: an envelope (not found) shows the path exists. */
async function checkQueryEndpoints(ctx: DoctorContext): Promise<Partial<Record<'refund' | 'payout', Exchange>>> {
  const p = ctx.loaded.profile;
  const declared = QUERY_ENDPOINTS.filter((q) => p.endpoints[q.name] !== undefined && (q.name === 'refundQuery' ? p.refunds : p.payouts));
  const seen: Partial<Record<'refund' | 'payout', Exchange>> = {};
  await Promise.all(
    declared.map(async (q) => {
      const ex = await q.send(ctx);
      const a = answerOf(ex);
      pathItem(ctx, q.name, a, ex);
      seen[q.name === 'refundQuery' ? 'refund' : 'payout'] = ex;
    }),
  );
  return seen;
}

/**
 * The profile's path a request went to, named WRONG when the answer is the one the target gives to a path it does not
 * have, whichever probe sent it (run.ts calls it on every such answer): a probe that meant to read a refusal as a fact
 * (not enabled, not cancellable, an armed failure) gets no fact from it (refused, add) and the path is still named.
 */
export function nameUnknownPath(ctx: DoctorContext, ex: Exchange): void {
  if (!ex.request.url.startsWith(ctx.t.baseUrl)) return;
  const path = ex.request.url.slice(ctx.t.baseUrl.length).split('?')[0];
  const a = answerOf(ex);
  // A templated path ({payout_no}, …) is the request's when the request's path fills it.
  for (const name of Object.keys(endpointPaths(ctx.loaded.profile)) as EndpointName[])
    if (ctx.t.has(name) && matchesTemplate(ctx.t.pathTemplate(name)!, path ?? '')) {
      pathItem(ctx, name, a, ex);
      return;
    }
  for (const [name, c] of Object.entries(ctx.loaded.profile.sandbox ?? {}))
    if (c && typeof c === 'object' && (c as { path?: unknown }).path === path) {
      pathItem(ctx, `sandbox.${name}`, a, ex);
      return;
    }
}

/** An endpoint path: an envelope (success or refusal) means it exists; anything else names the path. */
export function pathItem(ctx: DoctorContext, name: EndpointName | `sandbox.${string}`, a: Answer, ex: Exchange): void {
  const field = name.startsWith('sandbox.') ? `${name}.path` : `endpoints.${name}`;
  const path = name.startsWith('sandbox.') ? ex.request.url.slice(ctx.t.baseUrl.length) : ctx.t.pathTemplate(name as EndpointName);
  if (a.error) add(ctx, 'not-verifiable', field, `${path} answers`, { answered: describeAnswer(a), ex: [ex] });
  else if (unknownPath(a))
    add(ctx, 'wrong', field, `${path} answers with the interface's envelope`, {
      expected: 'a JSON envelope {code, msg}',
      answered: `${describeAnswer(a)}: the target has no such path`,
      fix: `set ${field} to the path the vendor documents`,
      ex: [ex],
    });
  else add(ctx, 'verified', field, `${path} answers with the interface's envelope`, { answered: describeAnswer(a), ex: [ex] });
}
