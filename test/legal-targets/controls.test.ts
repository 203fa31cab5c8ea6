/**
 * Sandbox controls of shapes the reference's own are not ("a sandbox failure switch that takes two values
 * (operation and key) or matches a refund by its refund number"), as genomes: the kit with the true profile proves
 * every transient-failure row (passed, not skipped), the doctor calls nothing WRONG, a changed switch value is WRONG
 * naming it, and the faults of the transient-failure clauses are still killed by their own clause.
 */
import { describe, expect, it } from 'vitest';
import { REFERENCE_GENES, type SandboxGene, type TargetGenome } from '../../fixtures/arbitraries/genome.js';
import { runDoctor } from '../../harness/doctor/run.js';
import { Evidence } from '../../harness/init/evidence.js';
import { addStandingTodos } from '../../harness/init/todos.js';
import { armVariables } from '../../harness/profile/arm-failure.js';
import { parseProfile } from '../../harness/profile/load.js';
import { fillTemplate } from '../../harness/profile/template.js';
import { runKillMatrix } from '../../harness/proof/kill-matrix.js';
import { startEmbeddedReference } from '../../harness/run/embedded.js';
import { runInProcess } from '../../harness/run/inprocess.js';
import { loadSuites } from '../../harness/run/suites.js';
import { faultCatalogue } from '../../reference/index.js';
import { doctorOnChange, oneFactChanges } from './changes.js';
import { loadTrueProfile, trueProfile } from './genome.js';
import { doctorWrong } from './properties.js';

/** A profile template's variable, "${name}" (harness/profile/template.ts). */
const v = (name: string) => `\${${name}}`;
const genome = (sandbox: SandboxGene): TargetGenome => ({ readings: [], target: { ...REFERENCE_GENES, sandbox } });

/** A switch of two values (operation, error) in one field of its own, refunds matched by their number; other paths and outcomes. */
const TWO_VALUES = genome({
  prefix: '/test/v1',
  leaves: 'other',
  orderField: 'trade_no',
  refundField: 'refund_id',
  payoutField: 'merchant_payout_no',
  outcomeField: 'result',
  outcomes: 1,
  armSwitch: { form: 'two-values', index: 0 },
  refundSubject: 'merchantRefundNo',
  subjectField: 'reference',
});
/**
 * A switch of one value that matches a refund by its number in merchant_refund_no, beside other request and path readings;
 * the payment and refund controls name their record by its merchant number.
 */
const REFUND_NUMBER: TargetGenome = {
  readings: ['other-endpoint-paths', 'other-request-field-names'],
  target: {
    ...REFERENCE_GENES,
    sandbox: {
      prefix: '/api/v1/sandbox',
      leaves: 'reference',
      orderField: 'out_trade_no',
      refundField: 'merchant_refund_no',
      payoutField: 'payout_id',
      outcomeField: 'action',
      outcomes: 3,
      armSwitch: { form: 'one-value', index: 2 },
      refundSubject: 'merchantRefundNo',
      subjectField: null,
    },
  },
};

/**
 * A switch that fails the arming merchant's next 2 requests of an operation whatever their number (the profile says
 * so: scope operation, count 2), whose controls answer in the vendor's own names.
 */
const MERCHANT_OPERATION = genome({
  ...TWO_VALUES.target!.sandbox!,
  armReach: 'merchant-operation',
  armCount: 2,
  declareScope: true,
  vendorAnswers: true,
});
/** A switch that fails the next 3 requests of an operation from any merchant; the profile says its count, not its scope. */
const ANY_MERCHANT: TargetGenome = {
  ...REFUND_NUMBER,
  target: { ...REFUND_NUMBER.target!, sandbox: { ...REFUND_NUMBER.target!.sandbox!, armReach: 'operation', armCount: 3 } },
};

const TRANSIENT_CLAUSES = ['err.pay.query-failed', 'query.transient', 'err.pay.creation-failed', 'err.ref.system-busy', 'err.ref.failed'];

describe('the true profile of a target with its own failure switch', () => {
  it('says the two forms (several values; refunds by their number) and loads', () => {
    const two = trueProfile(TWO_VALUES).sandbox!.armFailure!;
    expect(two).toEqual({
      path: '/test/v1/faults',
      template: { operation: v('operation'), error: v('error'), reference: v('subject') },
      refundSubject: 'merchantRefundNo',
      failures: {
        queryFailed: { operation: 'query', error: '500' },
        orderCreationFailed: { operation: 'create', error: 'busy' },
        refundSystemBusy: { operation: 'refund', error: 'busy' },
        refundFailed: { operation: 'refund', error: 'failed' },
      },
    });
    expect(trueProfile(REFUND_NUMBER).sandbox!.armFailure!.template).toEqual({
      error_code: v('failure'),
      merchant_order_no: v('merchantOrderNo'),
      merchant_refund_no: v('merchantRefundNo'),
    });
    for (const g of [TWO_VALUES, REFUND_NUMBER, MERCHANT_OPERATION, ANY_MERCHANT]) expect(() => loadTrueProfile(g)).not.toThrow();
    // Version 4: the switch's scope and count where the genome's switch reaches beyond its number (version 5 with the
    // reference's own facts: a merchant's own payout range, a fee's minimum).
    expect(trueProfile(MERCHANT_OPERATION)).toMatchObject({ profileVersion: 5, sandbox: { armFailure: { scope: 'operation', count: 2 } } });
    expect(trueProfile(ANY_MERCHANT).sandbox!.armFailure).toMatchObject({ count: 3 });
    expect(trueProfile(ANY_MERCHANT).sandbox!.armFailure!.scope).toBeUndefined();
  });

  it('refuses the several-values form in a version-2 profile, and a template variable no failure gives', () => {
    const p = trueProfile(TWO_VALUES);
    const v2 = structuredClone(p);
    v2.profileVersion = 2;
    for (const k of ['name', 'login'] as const) delete v2.merchants.primary[k];
    delete v2.merchants.second!.payoutBalances;
    delete v2.merchants.frozen!.payoutBalances;
    delete v2.cardPayment!.declines;
    delete v2.refunds!.createdStatus;
    delete v2.pricePoints?.ruleByMethod;
    expect(() => parseProfile(JSON.stringify(v2), 'v2.json')).toThrow(/failures\.queryFailed: several values .*version 3/);
    const typo = structuredClone(p);
    typo.sandbox!.armFailure!.template = { ...typo.sandbox!.armFailure!.template, error: v('eror') };
    expect(() => parseProfile(JSON.stringify(typo), 'typo.json')).toThrow(/armFailure\.template: \$\{eror\} is not a variable/);
    const noNumber = structuredClone(p);
    noNumber.sandbox!.armFailure!.template = { operation: v('operation'), error: v('error'), order: v('merchantOrderNo') };
    expect(() => parseProfile(JSON.stringify(noNumber), 'no-number.json')).toThrow(/refundSubject: .*neither/);
    const shadow = structuredClone(p);
    shadow.sandbox!.armFailure!.failures.queryFailed = { operation: 'query', subject: '500' };
    expect(() => parseProfile(JSON.stringify(shadow), 'shadow.json')).toThrow(/queryFailed\.subject: is a variable the kit provides/);
  });
});

describe('the switch template variables (harness/profile/arm-failure.ts)', () => {
  it("fills one kind's values, leaves out a key only another kind gives, and picks the subject by refundSubject", () => {
    const arm = {
      path: '/faults',
      template: { op: v('operation'), err: v('error'), detail: v('detail'), ref: v('subject'), order: v('merchantOrderNo') },
      refundSubject: 'merchantRefundNo' as const,
      failures: { queryFailed: { operation: 'query', error: '500' }, refundFailed: { operation: 'refund', error: 'failed', detail: 'x' } },
    };
    const nums = { merchantOrderNo: 'O1', merchantRefundNo: 'R1' };
    expect(fillTemplate(arm.template, armVariables(arm, 'queryFailed', nums))).toEqual({ op: 'query', err: '500', ref: 'O1', order: 'O1' });
    expect(fillTemplate(arm.template, armVariables(arm, 'refundFailed', nums))).toEqual({
      op: 'refund',
      err: 'failed',
      detail: 'x',
      ref: 'R1',
      order: 'O1',
    });
    expect(armVariables({ ...arm, refundSubject: 'merchantOrderNo' }, 'refundFailed', nums)['subject']).toBe('O1');
  });
});

describe('the doctor on what the switch matches a refund by', () => {
  it('names sandbox.armFailure.refundSubject when the profile says the other number', async () => {
    const c = oneFactChanges(trueProfile(TWO_VALUES)).find((x) => x.field === 'sandbox.armFailure.refundSubject');
    expect(c?.to).toBe('merchantOrderNo');
    expect(await doctorOnChange(TWO_VALUES, c!)).toEqual([]);
    // Nothing to tell apart where the template sends both numbers: no such change is drawn.
    expect(oneFactChanges(trueProfile(REFUND_NUMBER)).some((x) => x.field === 'sandbox.armFailure.refundSubject')).toBe(false);
  }, 300_000);
});

describe('init on such a target', () => {
  it('asks for the sandbox controls as a TODO that says how to write both switch forms (init learns no control)', () => {
    const ev = new Evidence(() => {});
    addStandingTodos(ev, trueProfile(TWO_VALUES));
    const what = ev.todos.find((t) => t.path === 'sandbox')?.what ?? '';
    expect(what).toMatch(/an object whose keys are template variables/);
    expect(what).toMatch(/"refundSubject": "merchantRefundNo"/);
    expect(what).toContain(v('merchantRefundNo'));
  });
});

describe.each([
  ['a switch of two values, refunds by number in a field of its own', TWO_VALUES],
  ['a switch of one value, refunds by number in merchant_refund_no, other paths and request names', REFUND_NUMBER],
  ["a switch of the merchant's next 2 requests of an operation, controls answering in the vendor's names", MERCHANT_OPERATION],
  ["a switch of any merchant's next 3 requests of an operation, the profile silent on its scope", ANY_MERCHANT],
])('%s', (_, g) => {
  it('passes every transient-failure check and every check that drives a control, with no false verdict', async () => {
    const loaded = loadTrueProfile(g);
    const ref = await startEmbeddedReference(loaded.profile);
    try {
      const suites = await loadSuites();
      const res = await runInProcess({ loaded, baseUrl: ref.url, suites, settings: { seed: 1, numRuns: 3, webhooks: 'quick' } });
      const failed = res.filter((r) => r.result.status === 'failed' || r.result.status === 'broken');
      expect(failed.map((r) => `${r.result.checkId}: ${r.result.reason ?? r.result.findings.map((f) => f.code).join(', ')}`)).toEqual([]);
      const transient = res.filter((r) => r.suite === 'transient-failures');
      expect(transient.length).toBeGreaterThanOrEqual(5);
      expect(transient.map((r) => `${r.result.checkId}: ${r.result.status}`)).toEqual(transient.map((r) => `${r.result.checkId}: passed`));
    } finally {
      await ref.close();
    }
  }, 300_000);

  it('the doctor: nothing WRONG, each failure verified; a changed switch value is WRONG naming it', async () => {
    const { wrong } = await doctorWrong(g);
    expect(wrong).toEqual([]);
    const ref = await startEmbeddedReference(trueProfile(g));
    try {
      const report = await runDoctor({ loaded: loadTrueProfile(g), baseUrl: ref.url, webhooks: false });
      const armed = report.items.filter((i) => i.path.startsWith('sandbox.armFailure'));
      expect(armed.map((i) => `${i.path}: ${i.status}`)).toEqual(
        ['queryFailed', 'orderCreationFailed', 'refundSystemBusy', 'refundFailed'].map((k) => `sandbox.armFailure.failures.${k}: verified`),
      );
    } finally {
      await ref.close();
    }
    const changes = oneFactChanges(trueProfile(g)).filter((c) => c.field.startsWith('sandbox.armFailure.failures.'));
    expect(changes.map((c) => c.field)).toEqual([
      'sandbox.armFailure.failures.queryFailed',
      'sandbox.armFailure.failures.orderCreationFailed',
      'sandbox.armFailure.failures.refundSystemBusy',
      'sandbox.armFailure.failures.refundFailed',
    ]);
    for (const c of [changes[0]!, changes[3]!]) expect(await doctorOnChange(g, c)).toEqual([]);
  }, 300_000);

  it('kills the faults of the transient-failure clauses by their own clause, the doctor on', async () => {
    // The faults of magic-value triggers need a profile that declares them: test/legal-targets/triggers.test.ts.
    const faults = faultCatalogue.filter((f) => TRANSIENT_CLAUSES.includes(f.clause) && !f.name.startsWith('magic-'));
    expect(faults.length).toBeGreaterThanOrEqual(5);
    const rows = await runKillMatrix({ loaded: loadTrueProfile(g), suites: await loadSuites(), seed: 1, numRuns: 3, faults, parallel: 2 });
    expect(rows.map((r) => `${r.name}: ${r.verdict} (doctor exit ${r.doctor?.exitCode})`)).toEqual(
      faults.map((f) => `${f.name}: killed (doctor exit 0)`),
    );
  }, 300_000);
});
