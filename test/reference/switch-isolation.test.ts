/**
 * No armed failure is ever taken by another check's request (harness/http/exclusive.ts, harness/ops.ts
 * `underArmedFailure`). The reference's failure switch reaches as far as a service written apart from the kit may make
 * it (reference/sandbox-shape.ts `armReach`, `armCount`): the arming merchant's next request of an operation whatever
 * its number, the next few of them, the next few of any merchant. Checks drawn by fast-check (armed failures and plain
 * requests of both merchants, from two workers of one run-wide pool, each started after a drawn delay) run at once
 * against it with the profile saying that scope: every armed check meets its own failure, and no plain request is
 * refused. With the profile claiming a narrower scope than the switch's (`subject`), the same schedule shows the steal
 * the sections prevent: the property can fail.
 */
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newRecorder, withRecorder } from '../../harness/check/context.js';
import { runCheck } from '../../harness/check/run.js';
import { createClient } from '../../harness/http/client.js';
import type { Exchange } from '../../harness/http/exchange.js';
import { GatedPacer } from '../../harness/http/gated-pacer.js';
import {
  type ArmableFailure,
  checkout,
  createCheckout,
  createPaidOrder,
  createRefund,
  queryPayment,
  underArmedFailure,
  usd,
} from '../../harness/ops.js';
import { type LoadedProfile, loadProfile } from '../../harness/profile/load.js';
import type { Profile } from '../../harness/profile/types.js';
import { connectPool, startPoolServer } from '../../harness/run/pool.js';
import { createTarget, type MerchantRole, type Target } from '../../harness/target.js';
import { Pacer } from '../../harness/http/throttle.js';
import { startReference } from '../../reference/index.js';
import type { ArmReach } from '../../reference/sandbox-shape.js';
import naming from '../../suites/naming.js';
import transientFailures from '../../suites/transient-failures.js';

type Scope = NonNullable<NonNullable<NonNullable<Profile['sandbox']>['armFailure']>['scope']>;

/** A service's switch, and the scope and count its profile says. */
interface Config {
  name: string;
  reach: ArmReach;
  count: number;
  scope?: Scope;
}

const CONFIGS: Config[] = [
  { name: "the merchant's next request of an operation", reach: 'merchant-operation', count: 1, scope: 'operation' },
  { name: "the merchant's next 3 requests of an operation", reach: 'merchant-operation', count: 3, scope: 'operation' },
  { name: 'the next 2 requests of an operation, any merchant (profile silent on scope)', reach: 'operation', count: 2 },
];

const KEYS: Record<'queryFailed' | 'orderCreationFailed' | 'refundSystemBusy', string> = {
  queryFailed: 'queryFailed',
  orderCreationFailed: 'systemBusy',
  refundSystemBusy: 'systemBusy',
};

type Plan =
  | { kind: 'armed'; failure: keyof typeof KEYS; worker: 0 | 1; delayMs: number }
  | { kind: 'plain'; op: 'checkout' | 'query'; as: MerchantRole; worker: 0 | 1; delayMs: number; repeat: number };

const plan: fc.Arbitrary<Plan> = fc.oneof(
  fc.record({
    kind: fc.constant('armed' as const),
    failure: fc.constantFrom<keyof typeof KEYS>('queryFailed', 'orderCreationFailed', 'refundSystemBusy'),
    worker: fc.constantFrom<0 | 1>(0, 1),
    delayMs: fc.integer({ min: 0, max: 15 }),
  }),
  fc.record({
    kind: fc.constant('plain' as const),
    op: fc.constantFrom<'checkout' | 'query'>('checkout', 'query'),
    as: fc.constantFrom<MerchantRole>('primary', 'second'),
    worker: fc.constantFrom<0 | 1>(0, 1),
    delayMs: fc.integer({ min: 0, max: 15 }),
    repeat: fc.integer({ min: 1, max: 4 }),
  }),
);
const schedule = fc.array(plan, { minLength: 2, maxLength: 7 }).filter((ps) => ps.some((p) => p.kind === 'armed'));

function codeKey(ex: Exchange): string {
  const j = ex.response?.json as { code?: unknown; msg?: unknown } | undefined;
  return `${String(j?.code)} ${String(j?.msg ?? '')
    .split('|')
    .pop()}`;
}

/** One drawn check: what its requests were answered. */
interface Outcome {
  plan: Plan;
  answers: string[];
  error?: string;
}

async function runPlan(t: Target, p: Plan, n: number): Promise<Outcome> {
  return withRecorder(newRecorder(['err.pay.query-failed'], Date.now() + n), async () => {
    await new Promise((r) => setTimeout(r, p.delayMs));
    const answers: string[] = [];
    try {
      if (p.kind === 'plain') {
        for (let i = 0; i < p.repeat; i++) {
          if (p.op === 'checkout') answers.push(codeKey(await checkout(t, {}, { as: p.as })));
          else {
            const o = await createCheckout(t, 'query.returns-record', {}, p.as);
            answers.push(codeKey(await queryPayment(t, { merchant_order_no: o.merchantOrderNo }, { as: p.as })));
          }
        }
        return { plan: p, answers };
      }
      await armed(t, p.failure, answers);
      return { plan: p, answers };
    } catch (e) {
      return { plan: p, answers, error: (e as Error).message };
    }
  });
}

/** Arms `failure` (as the primary merchant) and tries the request it was armed for, as transient-failures does. */
async function armed(t: Target, failure: ArmableFailure, answers: string[]): Promise<void> {
  if (failure === 'queryFailed') {
    const o = await createCheckout(t, 'err.pay.query-failed');
    const q = () => queryPayment(t, { merchant_order_no: o.merchantOrderNo });
    await underArmedFailure(t, failure, 'err.pay.query-failed', { ...o, again: q }, async () => {
      answers.push(codeKey(await q()));
    });
  } else if (failure === 'orderCreationFailed') {
    const merchantOrderNo = t.newNo('order');
    const again = () => checkout(t, {});
    await underArmedFailure(t, failure, 'err.pay.creation-failed', { merchantOrderNo, again }, async () => {
      answers.push(codeKey(await checkout(t, { merchantOrderNo })));
    });
  } else {
    const paid = await createPaidOrder(t, 'err.ref.system-busy');
    const refundNo = t.newNo('refund');
    const amount = usd('1.00');
    const again = () => createRefund(t, { order: paid, amount });
    const run = { merchantOrderNo: paid.merchantOrderNo, merchantRefundNo: refundNo, again };
    await underArmedFailure(t, failure, 'err.ref.system-busy', run, async () => {
      answers.push(codeKey(await createRefund(t, { refundNo, order: paid, amount })));
    });
  }
}

/** Two workers of one run-wide pool against one reference whose switch is `c`'s, the profile saying `scope`. */
async function setUp(c: Config, scope: Scope | undefined) {
  const ref = await startReference({ target: { sandbox: { armReach: c.reach, armCount: c.count } } });
  const pool = await startPoolServer({ concurrency: 8 });
  const base = loadProfile('fixtures/profiles/reference.json');
  const profile = structuredClone(base.profile);
  const arm = profile.sandbox!.armFailure!;
  if (scope) arm.scope = scope;
  arm.count = c.count;
  const loaded: LoadedProfile = { ...base, profile };
  const workers = [0, 1].map(() => {
    const pacer = connectPool(pool.port, new GatedPacer(new Pacer()));
    const client = createClient({ deadlineMs: 5_000, maxResponseBytes: 1_000_000, pacer });
    return { pacer, client, target: createTarget({ loaded, baseUrl: ref.url, client }) };
  });
  return {
    workers,
    async close() {
      for (const w of workers) {
        await w.client.close();
        w.pacer.close();
      }
      await pool.close();
      await ref.close();
    },
  };
}

async function runSchedule(targets: Target[], plans: Plan[]): Promise<Outcome[]> {
  return Promise.all(plans.map((p, i) => runPlan(targets[p.worker]!, p, i)));
}

/** What went wrong in a schedule: a plain request refused, an armed check that did not meet its own failure. */
function problems(outcomes: Outcome[]): string[] {
  const out: string[] = [];
  for (const o of outcomes) {
    if (o.error) out.push(`${JSON.stringify(o.plan)}: ${o.error}`);
    if (o.plan.kind === 'plain') {
      for (const a of o.answers) if (!a.startsWith('0 ')) out.push(`${JSON.stringify(o.plan)} refused: ${a}`);
    } else {
      const want = KEYS[o.plan.failure];
      if (o.answers[0] === undefined || !o.answers[0].endsWith(` ${want}`))
        out.push(`${JSON.stringify(o.plan)} did not meet its own failure: ${o.answers[0]}`);
    }
  }
  return out;
}

for (const c of CONFIGS) {
  describe(`a failure switch reaching ${c.name}`, () => {
    let env: Awaited<ReturnType<typeof setUp>>;
    beforeAll(async () => {
      env = await setUp(c, c.scope);
    });
    afterAll(() => env?.close());

    it('lets no armed failure be taken by another check, whatever the schedule', async () => {
      const targets = env.workers.map((w) => w.target);
      await fc.assert(
        fc.asyncProperty(schedule, async (plans) => {
          const found = problems(await runSchedule(targets, plans));
          expect(found).toEqual([]);
        }),
        { numRuns: 12, seed: 35 },
      );
    }, 120_000);
  });
}

describe('readings beside armed failures', () => {
  let env: Awaited<ReturnType<typeof setUp>>;
  beforeAll(async () => {
    env = await setUp(CONFIGS[0]!, CONFIGS[0]!.scope);
  });
  afterAll(() => env?.close());

  it("records a reading only from the check's own answers: none from a failure another check armed", async () => {
    const [a, b] = env.workers.map((w) => w.target) as [Target, Target];
    const settings = { seed: 35, numRuns: 5, webhooks: 'off' as const };
    // The naming check reads whether a checkout without notify_url is refused: a stolen systemBusy would read "required".
    const optional = naming.checks.find((c) => c.title.startsWith('refuses a checkout with notify_url or return_url'))!;
    const alone = (await runCheck(optional, b, settings)).readings;
    expect(Object.keys(alone).length).toBeGreaterThan(0);
    const results = await Promise.all([
      ...transientFailures.checks.map((c) => runCheck(c, a, settings)),
      ...Array.from({ length: 4 }, () => runCheck(optional, b, settings)),
      ...transientFailures.checks.map((c) => runCheck(c, b, settings)),
    ]);
    const transient = results.filter((r) => r.checkId.startsWith('transient-failures/'));
    expect(transient.map((r) => `${r.checkId} ${r.status}`)).toEqual(transient.map((r) => `${r.checkId} passed`));
    // Each the same as the check's readings alone, with nothing armed.
    expect(results.filter((r) => r.checkId === optional.id).map((r) => r.readings)).toEqual(Array(4).fill(alone));
  }, 60_000);
});

describe('the same switch with a profile that says a narrower scope than it has', () => {
  let env: Awaited<ReturnType<typeof setUp>>;
  beforeAll(async () => {
    env = await setUp(CONFIGS[0]!, 'subject');
  });
  afterAll(() => env?.close());

  it("lets another check's checkout take the armed failure: what the sections prevent", async () => {
    const [a, b] = env.workers.map((w) => w.target) as [Target, Target];
    // The other check's checkout goes while the failure is armed and not yet met.
    let other: string | undefined;
    await withRecorder(newRecorder(['err.pay.creation-failed'], Date.now()), () =>
      underArmedFailure(
        a,
        'orderCreationFailed',
        'err.pay.creation-failed',
        { merchantOrderNo: a.newNo('order'), again: () => checkout(a, {}) },
        async () => {
          other = codeKey(await withRecorder(newRecorder([], Date.now()), () => checkout(b, {})));
        },
      ).catch(() => undefined),
    );
    expect(other).toBe('422 systemBusy');
  });
});
