/**
 * Runs the same checks, with the same seeds and so the same generated inputs, against two targets
 * at once, and compares each pair of outcomes. Each check runs on both sides together, so both
 * see the same wall-clock timing (webhook waits, retries).
 */
import { faultCatalogue, type RunningReference } from '../../reference/index.js';
import { startEmbeddedReference } from '../run/embedded.js';
import type { CheckDef, SuiteDef } from '../check/define.js';
import { runCheck, type CheckResult, type RunSettings } from '../check/run.js';
import type { Client } from '../http/client.js';
import type { Exchange } from '../http/exchange.js';
import type { LoadedProfile } from '../profile/load.js';
import { endpointPaths } from '../target.js';
import { openRunReceiver } from '../run/open-receiver.js';
import { openSession, type Session } from '../run/session.js';
import { chargeUnjudged, clauseRows, compareCheck, figures, type CheckComparison, type ClauseRow, type ParityFigures } from './compare.js';
import { applyDeclared, type DeclaredEntry } from './declared.js';
import { normaliseSide, type SideContext } from './normalise.js';
import { loggingClient, withCheckScope, type CheckScope, type LoggedRequest } from './safe.js';

export interface SideSpec {
  loaded: LoadedProfile;
  /** Base URL of the target, or "embedded": a reference started for this run. */
  baseUrl: string;
  /** Faults of an embedded reference. */
  faults?: string[];
  /**
   * Wraps this side's client inside parity's own logging (tests: delays that change the order in which the requests
   * of parallel lanes reach the target, to prove that a verdict does not depend on it).
   */
  wrapClient?: (client: Client) => Client;
}

export interface ParityOptions {
  a: SideSpec;
  b: SideSpec;
  suites: SuiteDef[];
  filter?: (suite: SuiteDef, check: CheckDef) => boolean;
  settings: RunSettings;
  safe: boolean;
  declared: readonly DeclaredEntry[];
  /** Checks in flight at once (each on both sides). */
  concurrency?: number;
  /** Extra runs of a pair that differed, to tell a reliable difference from an unstable one (default 2). */
  confirmRuns?: number;
  onProgress?: (done: number, total: number, different: number) => void;
}

export interface SideInfo {
  profile: string;
  environment: string;
  /** "embedded" or the base URL (the report masks it). */
  target: string;
  faults: string[];
  /** Records on an embedded reference after the run (proof that a safe run created none). */
  recordsAfter?: { payments: number; refunds: number; payouts: number };
}

export interface ParityResult {
  seed: number;
  numRuns: number;
  webhooks: RunSettings['webhooks'];
  safe: boolean;
  a: SideInfo;
  b: SideInfo;
  comparisons: CheckComparison[];
  rows: ClauseRow[];
  figures: ParityFigures;
  /** Every request each side's client was asked to send, in order, with what the safe guard did. */
  requests: LoggedRequest[];
  /** Both sides' exchanges of the checks that differ, for the side-by-side view. */
  evidence: Map<string, { a: Exchange[]; b: Exchange[] }>;
  durationMs: number;
}

interface OpenSide {
  session: Session;
  context: SideContext;
  reference?: RunningReference;
  info: SideInfo;
}

async function openSide(which: 'a' | 'b', spec: SideSpec, o: ParityOptions, log: LoggedRequest[]): Promise<OpenSide> {
  let reference: RunningReference | undefined;
  let baseUrl = spec.baseUrl;
  if (baseUrl === 'embedded') {
    reference = await startEmbeddedReference(spec.loaded.profile, spec.faults);
    baseUrl = reference.url;
  }
  const receiver = await openRunReceiver(spec.loaded, o.settings.webhooks);
  const session = openSession({
    loaded: spec.loaded,
    baseUrl,
    receiver,
    wrapClient: (c) =>
      loggingClient(spec.wrapClient ? spec.wrapClient(c) : c, { side: which, loaded: spec.loaded, baseUrl, safe: o.safe, log }),
  });
  const merchantIds: Record<string, string> = {};
  for (const [role, m] of Object.entries(spec.loaded.merchants)) merchantIds[typeof m === 'object' ? m.id : m] = role;
  const endpoints: Record<string, string> = {};
  for (const [name, path] of Object.entries(endpointPaths(spec.loaded.profile))) if (path) endpoints[path] = name;
  return {
    session,
    reference,
    context: { baseUrl, receiverUrl: receiver?.url, runPrefix: session.target.runPrefix, merchantIds, endpoints },
    info: {
      profile: spec.loaded.profile.name,
      environment: spec.loaded.profile.environment,
      target: spec.baseUrl,
      faults: spec.faults ?? [],
    },
  };
}

async function closeSide(s: OpenSide | undefined): Promise<void> {
  if (!s) return;
  await s.session.close();
  if (s.reference) {
    s.info.recordsAfter = s.reference.counts();
    await s.reference.close();
  }
}

export function knownFault(name: string): boolean {
  return faultCatalogue.some((f) => f.name === name);
}

/** A safe-mode refusal surfaces as a precondition skip; its reason is the refusal itself. */
function tidy(r: CheckResult): CheckResult {
  return r.reason?.startsWith('precondition: safe mode:') ? { ...r, reason: r.reason.slice('precondition: '.length) } : r;
}

export async function runParity(o: ParityOptions): Promise<ParityResult> {
  const started = performance.now();
  const requests: LoggedRequest[] = [];
  const queue: CheckDef[] = [];
  const exclusive: CheckDef[] = [];
  // Stateful sequences share merchant balances (the low-balance merchant's few dollars) with every
  // other check: run beside others, their outcome would depend on which other checks happen to run
  // at the same moment on each side. They run last, one at a time.
  for (const suite of o.suites)
    for (const check of suite.checks) if (!o.filter || o.filter(suite, check)) (suite.area === 'stateful' ? exclusive : queue).push(check);
  const total = queue.length + exclusive.length;
  let a: OpenSide | undefined;
  let b: OpenSide | undefined;
  const comparisons: CheckComparison[] = [];
  const evidence = new Map<string, { a: Exchange[]; b: Exchange[] }>();
  try {
    a = await openSide('a', o.a, o, requests);
    b = await openSide('b', o.b, o, requests);
    const sa = a;
    const sb = b;
    let next = 0;
    let different = 0;
    const worker = async (list: CheckDef[]): Promise<void> => {
      while (next < list.length) {
        const check = list[next++]!;
        const pair = async (): Promise<{ c: CheckComparison; exA: Exchange[]; exB: Exchange[] }> => {
          const scopeA: CheckScope = { checkId: check.id, exchanges: [] };
          const scopeB: CheckScope = { checkId: check.id, exchanges: [] };
          const [ra, rb] = await Promise.all([
            withCheckScope(scopeA, () => runCheck(check, sa.session.target, o.settings)),
            withCheckScope(scopeB, () => runCheck(check, sb.session.target, o.settings)),
          ]);
          // Every request's exchange (the check's record keeps only its last ones), then the webhook deliveries.
          const exA = [...scopeA.exchanges, ...ra.exchanges.filter((x) => x.id.startsWith('wh-'))];
          const exB = [...scopeB.exchanges, ...rb.exchanges.filter((x) => x.id.startsWith('wh-'))];
          const c = compareCheck(
            { result: tidy(ra), ...normaliseSide(exA, ra.readings, sa.context) },
            { result: tidy(rb), ...normaliseSide(exB, rb.readings, sb.context) },
          );
          return { c, exA, exB };
        };
        const first = await pair();
        let c = first.c;
        for (let run = 2; c.verdict === 'different' && run <= 1 + (o.confirmRuns ?? 2); run++) {
          const again = await pair();
          if (again.c.verdict !== 'different') {
            c = { ...again.c, unstable: { runs: run, differentRuns: run - 1, differences: first.c.differences } };
          }
        }
        if (c.verdict === 'different') {
          evidence.set(c.checkId, { a: first.exA, b: first.exB });
          different += 1;
        }
        comparisons.push(c);
        o.onProgress?.(comparisons.length, total, different);
      }
    };
    await Promise.all(Array.from({ length: Math.max(1, o.concurrency ?? 8) }, () => worker(queue)));
    next = 0;
    await worker(exclusive);
  } finally {
    await Promise.all([closeSide(a), closeSide(b)]);
  }
  comparisons.sort((x, y) => (x.checkId < y.checkId ? -1 : x.checkId > y.checkId ? 1 : 0));
  chargeUnjudged(comparisons);
  // Declared entries name clauses: applied once every difference has its final clause.
  for (const c of comparisons) applyDeclared(c.differences, o.declared);
  const rows = clauseRows(comparisons);
  return {
    seed: o.settings.seed,
    numRuns: o.settings.numRuns,
    webhooks: o.settings.webhooks,
    safe: o.safe,
    a: a!.info,
    b: b!.info,
    comparisons,
    rows,
    figures: figures(rows, comparisons),
    requests,
    evidence,
    durationMs: performance.now() - started,
  };
}
