/**
 * A path init found by its answer to an empty request is an endpoint only once a record the probes created was served
 * through it. The empty request's answer cannot tell the endpoint from a templated route that read the path's last
 * word as a resource's number: "no such payout" from /payouts/{payout_no}/cancel for /payouts/cancel, a payout created
 * by /payouts/{merchant_payout_no} for /payouts/create. Until a record proves it, the path is a TODO giving both
 * readings, and a section learnt only through it goes with it.
 */
import type { Profile } from '../profile/types.js';
import { DOCUMENT_PATHS } from './candidates.js';
import type { State } from './draft.js';
import type { Evidence } from './evidence.js';
import type { Found } from './paths.js';

type Name = keyof Found;

/** Per endpoint, what shows a record init created was served through it (undefined: nothing did). */
function servedBy(st: State): Partial<Record<Name, string | undefined>> {
  return {
    cardPayment: st.card ? `a ${st.card.method} card payment was charged there and its number read` : undefined,
    refundCreate: st.refunds?.served,
    refundQuery: st.refunds?.queryBy ? 'the refund init created was found there' : undefined,
    payoutCreate:
      st.payouts?.served.create ?? (st.payouts?.queryBy ? 'a payout created there was found by the merchant number sent' : undefined),
    payoutQuery: st.payouts?.queryBy ? 'the payout init created was found there' : undefined,
    payoutCancel: st.payouts?.served.cancel,
  };
}

/** The templated route that could have answered in its place, for the TODO's second reading. */
function otherReading(name: Name, path: string): string {
  const parent = path.replace(/\/[^/]+$/, '');
  const last = path.split('/').pop();
  const numbered: Partial<Record<Name, string>> = {
    payoutCreate: `${parent}/{merchant_payout_no}`,
    payoutQuery: `${parent}/{payout_no}`,
    payoutCancel: `${parent}/{payout_no}/${last}`,
    refundCreate: `${parent.replace(/\/refunds?$/, '/payments')}/{order_no}/refunds`,
    refundQuery: `${parent}/{refund_no}`,
    cardPayment: `${parent}/{merchant_order_no}`,
  };
  return `a route carrying a number in its path (such as ${numbered[name] ?? `${parent}/{…}`}) read "${last}" as that number`;
}

/**
 * Takes out of the draft each endpoint init found by an empty request's answer (not the document's, not the vendor's)
 * that no record it created was served through, as a TODO with both readings; the payouts or refunds section learnt
 * through an unproved creation path goes too. `searched`: the endpoints found by init's own search.
 */
export function dropUnservedPaths(profile: Profile, st: State, searched: ReadonlySet<Name>, ev: Evidence): void {
  const served = servedBy(st);
  for (const name of Object.keys(profile.endpoints) as Name[]) {
    if (name in DOCUMENT_PATHS || !searched.has(name)) continue;
    const path = profile.endpoints[name];
    if (path === undefined || served[name] !== undefined) continue;
    const answered = ev.values.find((v) => v.path === `endpoints.${name}`)?.evidence ?? 'an empty signed request there was answered';
    delete profile.endpoints[name];
    ev.unlearn(`endpoints.${name}`);
    ev.todo(
      `endpoints.${name}`,
      `${path} answered unlike an unknown path (${answered}), but no record init created was served through it, so it ` +
        `is not written: either ${path} is the endpoint, or ${otherReading(name, path)}; write the path from the vendor's documentation`,
    );
    if (name === 'payoutCreate' && profile.payouts) {
      delete profile.payouts;
      if (profile.limits?.payouts) delete profile.limits.payouts;
      if (profile.limits && Object.keys(profile.limits).length === 0) delete profile.limits;
      ev.todo(
        'payouts',
        `the payouts section: init learnt it through ${path}, which no payout it created proved (see endpoints.payoutCreate)`,
      );
    }
    if (name === 'refundCreate' && profile.refunds) {
      delete profile.refunds;
      ev.todo(
        'refunds',
        `the refunds section: init learnt it through ${path}, which no refund it created proved (see endpoints.refundCreate)`,
      );
    }
  }
}
