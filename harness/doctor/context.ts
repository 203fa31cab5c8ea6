/**
 * The doctor's working state: the target it asks through (the harness's own session, so requests
 * are signed and sent exactly as checks send them), the items found, and the exchanges behind them.
 */
import { lengthFieldsNamed, type UnsaidLength, unsaidLengthRefusal } from '../profile/lengths.js';
import { splitMsg } from '../http/envelope.js';
import type { Exchange } from '../http/exchange.js';
import type { Budget } from './budget.js';
import type { Ledger } from './ledger.js';
import type { LoadedProfile } from '../profile/load.js';
import type { MerchantRole, Target } from '../target.js';
import { describeAnswer, isPathField, likeUnknownPath, unknownPath, type Answer, type DoctorItem, type ItemStatus } from './model.js';

export interface DoctorContext {
  t: Target;
  loaded: LoadedProfile;
  /** A production profile: only queries and authentication probes are sent. */
  production: boolean;
  items: DoctorItem[];
  exchanges: Exchange[];
  /** From now on, an answer of this form marks its path as unknown to the target (answerForm). */
  learnUnknownPath(form: string): void;
  /** Requests sent so far. */
  sent(): number;
  /** A selected check depends on the target's webhook clock (webhooks.timeScale): the doctor measures it. */
  webhookClock: boolean;
  progress(phase: string): void;
  /** The money the doctor moves, and what it gives back: its report says it whole. */
  ledger: Ledger;
  /** The request budget, spent breadth first (budget.ts); absent in a context made for a unit test. */
  budget?: Budget;
  /** Seeds the sample of a long list (budget.ts `sampleOf`). */
  seed?: number;
}

/** Adds an item; returns it so a caller can attach more exchanges. */
export function add(
  ctx: DoctorContext,
  status: ItemStatus,
  path: string,
  assumption: string,
  more: {
    expected?: string;
    answered?: string;
    fix?: string;
    ex?: (Exchange | undefined)[];
    noAnswerIsWrong?: boolean;
    clauses?: string[];
    decides?: string[];
    /** The item is about authentication itself (credentials, the unknown id): an HTTP 401 or 403 is its evidence. */
    authAnswered?: boolean;
  } = {},
): DoctorItem {
  // A request that got no answer in time (deadline, reset) shows nothing about the profile: not verifiable.
  const silent = (more.ex ?? []).find((e) => e !== undefined && !e.response);
  if ((status === 'wrong' || status === 'doubt') && silent && !more.noAnswerIsWrong) {
    status = 'not-verifiable';
    more = {
      ...more,
      fix: undefined,
      answered: `no answer (${silent.error?.kind ?? 'error'}: ${silent.error?.message ?? ''}); ${more.answered ?? ''}`,
    };
  }
  // An authentication refusal (HTTP 401 or 403) of a request signed with credentials the basics verified shows nothing of
  // the fact its probe meant: the request was refused before it was read (a target that verifies over its own
  // re-serialisation refuses some bodies and not others, and a refused checkout read as "method not enabled").
  const authRefused = (more.ex ?? []).find((e) => e?.response && (e.response.status === 401 || e.response.status === 403));
  if ((status === 'wrong' || status === 'doubt') && authRefused && !more.authAnswered) {
    status = 'not-verifiable';
    more = {
      ...more,
      expected: undefined,
      fix: undefined,
      answered: `${more.answered ?? ''} (HTTP ${authRefused.response!.status}: the request was refused by authentication, not read)`,
    };
  }
  // Evidence from a path the target does not have shows nothing about any other fact (a refusal there is no refusal of
  // the method, payout or control the probe meant): the path is named by its own item (run.ts), this one is not judged.
  const pathless = (more.ex ?? []).find((e) => e !== undefined && likeUnknownPath(e));
  if (status !== 'not-verifiable' && status !== 'warning' && pathless && !isPathField(path)) {
    status = 'not-verifiable';
    more = {
      ...more,
      expected: undefined,
      fix: undefined,
      answered: `${more.answered ?? ''} (the answer the target gives to a path it does not have: ${pathless.request.method} ${
        new URL(pathless.request.url).pathname
      }; see that path's own line)`,
    };
  }
  // A refusal an unsaid length may explain (harness/profile/lengths.ts) shows nothing of the fact the probe meant: the
  // target may only have found a value the kit chose too long. An unknown is never a verdict; the length is named.
  const long = status === 'wrong' || status === 'doubt' ? lengthExplained(more.ex ?? []) : [];
  if (long.length > 0 && !path.startsWith('lengths')) {
    status = 'not-verifiable';
    more = {
      ...more,
      expected: undefined,
      fix: undefined,
      answered:
        `${more.answered ?? ''} (a refusal a length the profile leaves unsaid may explain: say ${lengthFieldsNamed(long).join(', ')}` +
        ' to verify it)',
    };
  }
  // One line per wrong path, whichever probe met it first (run.ts names a path on any probe's "no such path").
  const same = status === 'wrong' && isPathField(path) ? ctx.items.find((i) => i.status === 'wrong' && i.path === path) : undefined;
  if (same) {
    for (const e of more.ex ?? []) if (e && !ctx.exchanges.includes(e)) ctx.exchanges.push(e);
    return same;
  }
  const ids = (more.ex ?? []).flatMap((e) => (e ? [e.id] : []));
  for (const e of more.ex ?? []) if (e && !ctx.exchanges.includes(e)) ctx.exchanges.push(e);
  const item: DoctorItem = {
    path,
    assumption,
    status,
    ...(more.expected !== undefined ? { expected: more.expected } : {}),
    ...(more.answered !== undefined ? { answered: more.answered } : {}),
    ...(more.fix !== undefined ? { fix: more.fix } : {}),
    ...(ids.length ? { exchanges: ids } : {}),
    ...(status === 'doubt' && more.clauses?.length ? { clauses: more.clauses } : {}),
    ...(status === 'not-verifiable' && more.decides?.length ? { decides: more.decides } : {}),
  };
  ctx.items.push(item);
  return item;
}

/** The unsaid lengths that may explain a refusal among the exchanges (none: no refusal is explained so). */
function lengthExplained(exchanges: readonly (Exchange | undefined)[]): UnsaidLength[] {
  for (const e of exchanges) {
    const body = e?.response?.json as { msg?: unknown } | undefined;
    if (!e?.unsaidLengths || !body || typeof body.msg !== 'string') continue;
    const found = unsaidLengthRefusal(e.unsaidLengths, splitMsg(body.msg).key, body.msg);
    if (found.length > 0) return found;
  }
  return [];
}

/**
 * The target let through (or answered otherwise) what the document fixes, given the profile's fact:
 * a doubt, never a profile error. `clauses` are those the answer breaks if the profile is right;
 * `fix` what to change if the profile is what is wrong.
 */
export function doubt(
  ctx: DoctorContext,
  path: string,
  assumption: string,
  clauses: string[],
  more: { expected?: string; answered?: string; fix: string; ex?: (Exchange | undefined)[]; authAnswered?: boolean },
): DoctorItem {
  return add(ctx, 'doubt', path, assumption, {
    ...more,
    clauses,
    fix:
      `if the profile is right, this is the target's failure (${clauses.join(', ')}` +
      `: a run fails it with this answer); if not, ${more.fix}`,
  });
}

/**
 * The target answered what no legal profile explains (a full refund "exceeds the amount", a request signed over its bytes
 * refused while the same request re-written by a serialiser is accepted): the doctor blames the profile only when some
 * legal profile explains the answer, so this is a finding against the target, handed to the run's verdict as a doubt's is
 * (harness/doctor/evidence.ts), and its fix proposes no change to the profile. `why` says why no profile explains it.
 */
export function unexplained(
  ctx: DoctorContext,
  path: string,
  assumption: string,
  clauses: string[],
  more: { expected?: string; answered?: string; why: string; ex?: (Exchange | undefined)[]; authAnswered?: boolean },
): DoctorItem {
  const { why, ...rest } = more;
  return add(ctx, 'doubt', path, assumption, {
    ...rest,
    clauses,
    fix:
      `no profile explains this answer (${why}): it is the target's failure (${clauses.join(', ')}` +
      ': a run fails it with this answer); the profile needs no change',
  });
}

/**
 * A record just made, looked up by one of the profile's query fields (`refunds.queryBy.serviceNo`, …): found is the
 * field verified; "not found" means the target searched by the field and missed what it has, a doubt on `clauses`;
 * any other answer, the field is wrong.
 */
export function lookupItem(
  ctx: DoctorContext,
  item: { path: string; assumption: string; record: string; clauses: string[] },
  outcome: 'found' | 'not-found' | 'other',
  answered: string,
  ex: Exchange | undefined,
): DoctorItem {
  if (outcome === 'found') return add(ctx, 'verified', item.path, item.assumption, { answered, ex: [ex] });
  const more = {
    expected: `the ${item.record} (code 0)`,
    answered,
    fix: `set ${item.path} to the request field the vendor documents`,
    ex: [ex],
  };
  return outcome === 'not-found'
    ? doubt(ctx, item.path, item.assumption, item.clauses, more)
    : add(ctx, 'wrong', item.path, item.assumption, more);
}

/** The merchant roles that may create payments and payouts (the frozen one may not). */
export function actingRoles(ctx: DoctorContext): MerchantRole[] {
  return (['primary', 'second', 'lowBalance'] as const).filter((r) => ctx.loaded.merchants[r] !== undefined);
}

/**
 * Chains of probes that run side by side while their items read in a fixed order (a report must not depend on which
 * answer came first): each chain adds to a context of its own, and `flush` appends their items to `ctx` in the chains'
 * order. Behind a 100 ms round trip, chains that ran one after another held the doctor for seconds.
 */
export function sideBySide(
  ctx: DoctorContext,
  chains: readonly ((own: DoctorContext) => Promise<void>)[],
): { tasks: (() => Promise<void>)[]; flush(): void } {
  const owns = chains.map(() => ownContext(ctx));
  return {
    tasks: chains.map((chain, i) => () => chain(owns[i]!)),
    flush() {
      flushInto(ctx, owns);
    },
  };
}

/** A context sharing everything with `ctx` but its items: a chain run beside others adds to it, `flushInto` joins them. */
export function ownContext(ctx: DoctorContext): DoctorContext {
  return { ...ctx, items: [] };
}

/** Appends the contexts' items to `ctx` in the contexts' order, one line per wrong path as `add` keeps it. */
export function flushInto(ctx: DoctorContext, owns: readonly DoctorContext[]): void {
  const wrongPath = (i: DoctorItem) => i.status === 'wrong' && isPathField(i.path);
  for (const own of owns)
    for (const item of own.items.splice(0))
      if (!(wrongPath(item) && ctx.items.some((i) => wrongPath(i) && i.path === item.path))) ctx.items.push(item);
}

/** Runs tasks with at most n in flight; results in order. */
export async function pool<T>(tasks: (() => Promise<T>)[], n: number): Promise<T[]> {
  const out: T[] = new Array(tasks.length);
  let next = 0;
  const worker = async () => {
    while (next < tasks.length) {
      const i = next++;
      out[i] = await tasks[i]!();
    }
  };
  await Promise.all(Array.from({ length: Math.min(n, tasks.length) }, worker));
  return out;
}

/**
 * A probe that got no answer, or the answer the target gives to a path it does not have, shows nothing
 * about its own claim: it is listed as not verifiable (the path itself is an item of its own).
 * Returns true when the caller should stop judging this probe.
 */
export function unanswered(ctx: DoctorContext, path: string, claim: string, a: Answer, ex: Exchange): boolean {
  if (!a.error && !unknownPath(a)) return false;
  add(ctx, 'not-verifiable', path, claim, {
    answered: a.error ? describeAnswer(a) : `${describeAnswer(a)}: the endpoint's path is wrong (see its own line)`,
    ex: [ex],
  });
  return true;
}
