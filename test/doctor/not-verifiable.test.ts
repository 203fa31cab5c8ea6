/**
 * A doctor item that cannot isolate its fact is not verifiable, never WRONG: the channel ranges a vendor documents for a
 * method whose every channel is down (the reference's VENMO) cannot be shown by any payment of it. The doctor calls
 * nothing WRONG, proposes no fix that contradicts another declared fact (listing the no-channel method among the
 * checkout methods), and the checks with that true profile pass.
 */
import { describe, expect, it } from 'vitest';
import { runDoctor } from '../../harness/doctor/run.js';
import { loadProfile } from '../../harness/profile/load.js';
import { conformantRun } from '../../harness/proof/run.js';
import { loadSuites } from '../../harness/run/suites.js';
import { profileWith, type Json } from './support.js';

/** The reference's no-channel method (reference/methods.ts NO_CHANNEL_METHODS), listed for the primary with its ranges. */
function noChannelWithRanges(p: Json): void {
  p.merchants.primary.paymentMethods = [...p.methods.checkout, p.methods.noChannel];
  p.limits.payments[p.methods.noChannel] = {
    min: '1.00',
    max: '500.00',
    channels: [
      { min: '1.00', max: '100.00' },
      { min: '200.00', max: '500.00' },
    ],
  };
}

describe('doctor: a fact no probe isolates is not verifiable', () => {
  it(`lists the ranges of a method whose every channel is down as not verifiable, not WRONG, \
and proposes no fix that contradicts methods.noChannel`, async () => {
    const loaded = loadProfile(profileWith(noChannelWithRanges));
    const method = loaded.profile.methods.noChannel!;
    const r = await runDoctor({ loaded, baseUrl: 'embedded', webhooks: false });
    expect(r.items.filter((i) => i.status === 'wrong')).toEqual([]);
    expect(r.exitCode).toBe(0);
    const ranges = r.items.filter((i) => i.path.startsWith(`limits.payments.${method}`) && i.status !== 'warning');
    expect(ranges.map((i) => `${i.path} ${i.status}`)).toEqual([`limits.payments.${method} not-verifiable`]);
    expect(ranges[0]!.answered).toMatch(/every channel down \(methods\.noChannel\)/);
    // Enabled for the primary with every channel down: its own line is verified by "no payment channel available".
    expect(r.items.find((i) => i.path === `merchants.primary.paymentMethods[${loaded.profile.methods.checkout.length}]`)?.status).toBe(
      'verified',
    );
    for (const i of r.items) expect(`${i.path}: ${i.fix ?? ''}`).not.toMatch(new RegExp(`add ${method} to methods\\.checkout`));
    const warning = r.items.find((i) => i.status === 'warning' && i.path === `limits.payments.${method}`);
    expect(warning?.fix).toMatch(/keep it as documentation/);
  }, 60_000);

  it('proposes no fix that adds the method not enabled for the primary to methods.checkout', async () => {
    const r = await runDoctor({
      loaded: loadProfile(profileWith((p) => (p.limits.payments[p.methods.notEnabled] = { min: '1.00', max: '10.00' }))),
      baseUrl: 'embedded',
      webhooks: false,
    });
    const warning = r.items.find((i) => i.status === 'warning' && i.path === 'limits.payments.KLARNA');
    expect(warning?.answered).toMatch(/methods\.notEnabled/);
    expect(warning?.fix).not.toMatch(/methods\.checkout/);
  }, 60_000);

  it(`judges a range only by a refusal that names the amount: a method the target does not enable (3003) is WRONG in the \
second merchant's list, its ranges not verifiable`, async () => {
    const r = await runDoctor({
      loaded: loadProfile(
        profileWith((p) => {
          p.merchants.second.paymentMethods = [...p.methods.checkout, p.methods.notEnabled];
          p.limits.payments[p.methods.notEnabled] = { min: '1.00', max: '10.00' };
        }),
      ),
      baseUrl: 'embedded',
      webhooks: false,
    });
    const wrong = r.items.filter((i) => i.status === 'wrong').map((i) => i.path);
    expect(wrong).toEqual(['merchants.second.paymentMethods[5]']);
    const ranges = r.items.filter((i) => i.path.startsWith('limits.payments.KLARNA.'));
    expect(ranges.length).toBeGreaterThan(0);
    for (const i of ranges) {
      expect(i.status).toBe('not-verifiable');
      expect(i.answered).toMatch(/does not name the amount/);
    }
  }, 60_000);

  it('runs CONFORMANT with that true profile: the checks fail nothing on the reference (quick)', async () => {
    const loaded = loadProfile(profileWith(noChannelWithRanges));
    const run = await conformantRun(loaded, await loadSuites(), 4242, 5, 'quick');
    expect(run.failed).toEqual([]);
    expect(run.passed).toBeGreaterThan(150);
  }, 600_000);
});
