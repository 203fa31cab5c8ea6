/**
 * internalFieldNames: the one answer that proves an internal name is the one INTERFACE.md fixes, a 400
 * `invalidRequest` whose text "names the field by the server's internal name". Each declared name is asked for by a
 * request with that field of the wrong type (a checkout, or a payment query for `order_no`).
 */
import type { Exchange } from '../http/exchange.js';
import { INTERNAL_NAME_FIELDS, QUERY_INTERNAL_NAME_FIELDS } from '../init/candidates.js';
import { checkoutBody, queryPayment } from '../ops.js';
import { dotted } from '../profile/schema.js';
import { add, doubt, pool, unanswered, type DoctorContext } from './context.js';
import { answerOf, describeAnswer } from './model.js';

/** The request fields a checkout carries (dotted), which a wrong-typed value in the checkout makes the target name: init's list. */
const CHECKOUT_FIELDS: ReadonlySet<string> = new Set(INTERNAL_NAME_FIELDS);

/** The JSON paths whose internal name some request of the doctor makes the target name. */
export function internalNameProbeable(key: string): boolean {
  return CHECKOUT_FIELDS.has(key) || (QUERY_INTERNAL_NAME_FIELDS as readonly string[]).includes(key);
}

function withWrongType(body: Record<string, unknown>, key: string): Record<string, unknown> {
  const out = structuredClone(body);
  const keys = key.split('.');
  let cur = out;
  for (const k of keys.slice(0, -1)) {
    if (typeof cur[k] !== 'object' || cur[k] === null) cur[k] = {};
    cur = cur[k] as Record<string, unknown>;
  }
  // A boolean is the wrong type for every field the interface has (strings, objects, integers).
  cur[keys[keys.length - 1]!] = true;
  return out;
}

/** Whether `msg` names `name` as a whole word (`OrderNo` is not named by `MerchantOrderNo`). */
export function namesField(msg: string, name: string): boolean {
  const escaped = name.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  return new RegExp(`(^|[^A-Za-z0-9_.])${escaped}($|[^A-Za-z0-9_])`).test(msg);
}

async function send(ctx: DoctorContext, key: string): Promise<Exchange> {
  const label = `doctor: ${key} of the wrong type, named by its internal name`;
  if (key === 'order_no') return queryPayment(ctx.t, { order_no: true }, { label });
  return ctx.t.post(ctx.t.path('checkout'), withWrongType(checkoutBody(ctx.t), key), { label });
}

export async function checkInternalNames(ctx: DoctorContext): Promise<void> {
  const names = ctx.loaded.profile.internalFieldNames ?? {};
  const tasks = Object.entries(names).map(([key, name]) => async () => {
    const path = dotted(['internalFieldNames', key]);
    const claim = `the target names ${key} ${name} in an invalidRequest message`;
    if (!internalNameProbeable(key)) {
      add(ctx, 'not-verifiable', path, claim, {
        answered: 'not asked: no request of the doctor is refused for this field alone (only a checkout field or order_no is)',
      });
      return;
    }
    const ex = await send(ctx, key);
    const a = answerOf(ex);
    if (unanswered(ctx, path, claim, a, ex)) return;
    const json = ex.response?.json as { msg?: unknown } | undefined;
    const msg = typeof json?.msg === 'string' ? json.msg : '';
    if (!(a.envelope && a.code === 400 && a.key === 'invalidRequest')) {
      add(ctx, 'not-verifiable', path, claim, {
        answered: `${describeAnswer(a)}: not the invalidRequest whose text names the field (the checks judge the refusal)`,
        ex: [ex],
      });
      return;
    }
    if (namesField(msg, name)) add(ctx, 'verified', path, claim, { answered: JSON.stringify(msg), ex: [ex] });
    // The document fixes that the text names the field by its internal name: a text without the declared name is the
    // profile's wrong name, or the target naming the field otherwise (its failure).
    else
      doubt(ctx, path, claim, ['err.req.internal-field-name'], {
        expected: `a message naming ${name}`,
        answered: JSON.stringify(msg),
        fix: `set ${path} to the name the vendor documents (the message above may show it)`,
        ex: [ex],
      });
  });
  await pool(tasks, 4);
}
