/**
 * Behind a 100 ms round trip the doctor's price-point tiers of one method, then of the next, and each ranged
 * method's limits in turn, held it for seconds. Those chains now run side by side: each method's
 * first probe goes out before another method's chain is done, whatever the machine's speed. Their items still read in
 * the methods' order, so a report does not depend on which answer came first.
 */
import { describe, expect, it } from 'vitest';
import { runDoctor } from '../../harness/doctor/run.js';
import type { DoctorReport } from '../../harness/doctor/model.js';
import { loadProfile } from '../../harness/profile/load.js';
import { REFERENCE_PROFILE } from './support.js';

/** The exchange ids (sent in order: harness/http/client.ts numbers a request when it is sent) of the probes whose label matches. */
function sentIds(r: DoctorReport, label: RegExp): number[] {
  return r.exchanges.filter((e) => label.test(e.label)).map((e) => Number(e.id.replace(/^x-/, '')));
}

describe('doctor: independent chains of probes side by side', () => {
  it('probes the price-point methods and the ranged methods’ limits side by side, its items in the methods’ order', async () => {
    const r = await runDoctor({ loaded: loadProfile(REFERENCE_PROFILE), baseUrl: 'embedded' });
    expect(r.exitCode).toBe(0);
    const apple = sentIds(r, /^doctor: APPLE_PAY (accepts the tier|refuses)/);
    const google = sentIds(r, /^doctor: GOOGLE_PAY (accepts the tier|refuses)/);
    expect(apple.length).toBeGreaterThan(3);
    expect(google.length).toBeGreaterThan(3);
    // One after another, every GOOGLE_PAY probe would follow the last APPLE_PAY one.
    expect(Math.min(...google)).toBeLessThan(Math.max(...apple));
    const card = sentIds(r, /^doctor: CARD (accepts|refuses) .*(minimum|maximum)/);
    const paypal = sentIds(r, /^doctor: PAYPAL (accepts|refuses) .*(minimum|maximum)/);
    expect(card.length).toBeGreaterThan(1);
    // A method's own probes go out together now (the next case), so a short chain may be all sent before the next starts.
    expect(Math.min(...paypal)).toBeLessThan(Math.max(...apple));
    // The items: every APPLE_PAY tier before any GOOGLE_PAY one, as the profile lists the methods.
    const tiers = r.items.filter((i) => /^pricePoints\./.test(i.path)).map((i) => i.assumption.split(' ')[0]);
    expect(tiers.lastIndexOf('APPLE_PAY')).toBeLessThan(tiers.indexOf('GOOGLE_PAY'));
  });

  it('probes one method’s tiers side by side, each tier’s record after its own checkout, its items in the tiers’ order', async () => {
    const r = await runDoctor({ loaded: loadProfile(REFERENCE_PROFILE), baseUrl: 'embedded' });
    expect(r.exitCode).toBe(0);
    const tiers = sentIds(r, /^doctor: APPLE_PAY accepts the tier/);
    const records = sentIds(r, /^doctor: the record of a APPLE_PAY payment of the tier/);
    expect(tiers.length).toBeGreaterThan(3);
    expect(records).toHaveLength(tiers.length);
    // One after another, each tier's checkout followed the previous tier's record.
    expect([...tiers].sort((a, b) => a - b)[1]).toBeLessThan(Math.min(...records));
    const said = r.items.filter((i) => /^APPLE_PAY accepts the tier/.test(i.assumption)).map((i) => i.path.replace(/^.*\[(\d+)\]$/, '$1'));
    expect(said).toEqual(said.map((_, k) => String(k)));
  });
});
