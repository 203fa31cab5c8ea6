/**
 * A path init's search found is written only once a record the probes created was served through it
 * (harness/init/served.ts): "no such payout" from /payouts/{payout_no}/cancel answers /payouts/cancel too, and a payout
 * created by /payouts/{merchant_payout_no} answers /payouts/create; without such a record the path is a TODO with both
 * readings, never a value.
 */
import { describe, expect, it } from 'vitest';
import type { State } from '../../harness/init/draft.js';
import { Evidence } from '../../harness/init/evidence.js';
import type { PayoutResult } from '../../harness/init/payouts.js';
import { dropUnservedPaths } from '../../harness/init/served.js';
import type { Profile } from '../../harness/profile/types.js';

function payouts(served: PayoutResult['served'], found: boolean): PayoutResult {
  return {
    template: { payment_method: 'BANK_TRANSFER' },
    methods: { BANK_TRANSFER: { cancel: false } },
    limits: {},
    data: { payoutNo: 'payout_no', status: 'status' },
    ...(found ? { queryBy: { serviceNo: 'payout_no', merchantNo: 'merchant_payout_no' } } : {}),
    served,
  };
}

function draftWith(endpoints: Profile['endpoints']): Profile {
  return {
    profileVersion: 4,
    name: 'd',
    baseUrl: 'http://127.0.0.1:1',
    environment: 'sandbox',
    merchants: { primary: { id: 'M1', secretEnv: 'S' }, unknownId: 'ZZ' },
    endpoints,
    methods: { checkout: ['CARD'], unknown: 'ZZ' },
    payouts: {
      template: {},
      methods: { BANK_TRANSFER: { cancel: false } },
      queryBy: { serviceNo: 'payout_no', merchantNo: 'merchant_payout_no' },
      cancelBy: { serviceNo: 'payout_no', merchantNo: 'merchant_payout_no' },
      data: { payoutNo: 'payout_no', status: 'status' },
    },
  } as Profile;
}

const searched = new Set(['payoutCreate', 'payoutQuery', 'payoutCancel'] as const);

describe('a path found by an empty request', () => {
  it('is not written when no record init created was served through it: a TODO gives both readings', () => {
    const ev = new Evidence(() => {});
    ev.learnt('endpoints.payoutCancel', '/api/v1/payouts/cancel', 'this one got code 422 notFound, unlike an unknown path');
    const profile = draftWith({
      checkout: '/api/v1/payments/checkout',
      payoutCreate: '/api/v1/payouts/create',
      payoutQuery: '/api/v1/payouts/query',
      payoutCancel: '/api/v1/payouts/cancel',
    });
    const st: State = { paths: {}, limits: {}, tiers: {}, payouts: payouts({ create: 'echoed' }, true) };
    dropUnservedPaths(profile, st, searched, ev);
    expect(profile.endpoints).toEqual({
      checkout: '/api/v1/payments/checkout',
      payoutCreate: '/api/v1/payouts/create',
      payoutQuery: '/api/v1/payouts/query',
    });
    const todo = ev.todos.find((t) => t.path === 'endpoints.payoutCancel')?.what;
    expect(todo).toMatch(
      /either \/api\/v1\/payouts\/cancel is the endpoint, or .*\/api\/v1\/payouts\/\{payout_no\}\/cancel\) read "cancel"/,
    );
    expect(ev.values.map((v) => v.path)).not.toContain('endpoints.payoutCancel');
  });

  it('takes the payouts section with an unproved creation path: a payout created there was never found by the number sent', () => {
    const ev = new Evidence(() => {});
    const profile = draftWith({ checkout: '/api/v1/payments/checkout', payoutCreate: '/api/v1/payouts/create' });
    profile.limits = { payouts: { BANK_TRANSFER: { min: '1.00', max: '9.00' } } };
    const st: State = { paths: {}, limits: {}, tiers: {}, payouts: payouts({}, false) };
    dropUnservedPaths(profile, st, searched, ev);
    expect(profile.endpoints.payoutCreate).toBeUndefined();
    expect(profile.payouts).toBeUndefined();
    expect(profile.limits).toBeUndefined();
    expect(ev.todos.find((t) => t.path === 'endpoints.payoutCreate')?.what).toMatch(/\/api\/v1\/payouts\/\{merchant_payout_no\}/);
    expect(ev.todos.map((t) => t.path)).toContain('payouts');
  });

  it('takes the refunds section with a creation path no refund of the payment init made was answered through', () => {
    const ev = new Evidence(() => {});
    const profile = draftWith({ checkout: '/api/v1/payments/checkout', refundCreate: '/api/v1/refunds/create' });
    profile.refunds = {
      template: {},
      support: {},
      queryBy: { serviceNo: 'refund_no', merchantNo: 'merchant_refund_no' },
      data: { refundNo: 'refund_no', status: 'status' },
    };
    const st: State = { paths: {}, limits: {}, tiers: {}, refunds: { template: {}, data: {} } };
    dropUnservedPaths(profile, st, new Set(['refundCreate']), ev);
    expect(profile.endpoints.refundCreate).toBeUndefined();
    expect(profile.refunds).toBeUndefined();
    expect(ev.todos.map((t) => t.path)).toEqual(['endpoints.refundCreate', 'refunds']);
    // Answered about the payment (its channel takes no refunds): served.
    const kept = draftWith({ checkout: '/api/v1/payments/checkout', refundCreate: '/api/v1/refunds/create' });
    const served: State = { ...st, refunds: { template: {}, data: {}, served: 'answered code 422 notSupported' } };
    dropUnservedPaths(kept, served, new Set(['refundCreate']), new Evidence(() => {}));
    expect(kept.endpoints.refundCreate).toBe('/api/v1/refunds/create');
  });

  it("is written when a record was served through it, and the vendor's or the document's paths are not questioned", () => {
    const ev = new Evidence(() => {});
    const endpoints = {
      checkout: '/api/v1/payments/checkout',
      payoutCreate: '/api/v1/payouts/create',
      payoutQuery: '/api/v1/payouts/query',
      payoutCancel: '/v2/payouts/{payout_no}/cancel',
    };
    const profile = draftWith({ ...endpoints });
    const st: State = { paths: {}, limits: {}, tiers: {}, payouts: payouts({ create: 'echoed' }, true) };
    // The cancel path was told: not among the ones init's search found.
    dropUnservedPaths(profile, st, new Set(['payoutCreate', 'payoutQuery']), ev);
    expect(profile.endpoints).toEqual(endpoints);
    expect(ev.todos).toEqual([]);
  });
});
