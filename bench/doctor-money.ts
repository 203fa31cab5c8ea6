/**
 * What the profile doctor costs a sandbox: its requests, and the money it moves and gives back, as its report's
 * account says (harness/doctor/ledger.ts), on fixtures/profiles/reference.json (or the profile named) against the
 * embedded reference: payouts made and what became of each (given back, spent, held); payments paid and what the
 * doctor refunded of them; its refunds, fees and chargebacks; what it moved per merchant, balance and currency.
 *
 *   npx tsx bench/doctor-money.ts [profile.json]
 */
import { fileURLToPath } from 'node:url';
import { runDoctor } from '../harness/doctor/run.js';
import { sumsText } from '../harness/doctor/ledger.js';
import type { MovedPayout } from '../harness/doctor/model.js';
import { loadProfile } from '../harness/profile/load.js';
import { log, writeReport } from './support/report.js';

const file = process.argv[2] ?? fileURLToPath(new URL('../fixtures/profiles/reference.json', import.meta.url));
const loaded = loadProfile(file);
const p = loaded.profile;

const r = await runDoctor({ loaded, baseUrl: p.baseUrl });
const moved = r.moved ?? { payments: [], payouts: [], refunds: [], chargebacks: [], balances: [] };
/** Count and sums by currency of the payouts that ended so. */
const ended = (end: MovedPayout['end']) => {
  const these = moved.payouts.filter((x) => x.end === end);
  const by: Record<string, number> = {};
  for (const x of these) if (x.amount && x.currency) by[x.currency] = (by[x.currency] ?? 0) + Number(x.amount);
  return { count: these.length, amounts: by };
};
const figures = {
  profile: file,
  requests: r.requests,
  exitCode: r.exitCode,
  wrong: r.items.filter((i) => i.status === 'wrong').map((i) => i.path),
  payoutsMade: moved.payouts.length,
  payoutsGivenBack: ended('given back'),
  payoutsSpent: ended('spent'),
  payoutsHeld: ended('held'),
  paymentsPaid: { count: moved.payments.length, amounts: sumsText(moved.payments) },
  refunds: {
    count: moved.refunds.length,
    amounts: sumsText(moved.refunds),
    givenBack: moved.refunds.filter((x) => x.end === 'given back').length,
  },
  fees: {
    payments: sumsText(moved.payments.map((x) => ({ amount: x.fee, currency: x.currency }))),
    refundsKept: sumsText(moved.refunds.filter((x) => x.end !== 'given back').map((x) => ({ amount: x.fee, currency: x.currency }))),
    payoutsKept: sumsText(moved.payouts.filter((x) => x.end !== 'given back').map((x) => ({ amount: x.fee, currency: x.currency }))),
  },
  chargebacks: moved.chargebacks.length,
  balances: moved.balances.map(
    (l) =>
      `${l.merchant} ${l.balance} ${l.currency} ${l.balance === 'not stated' ? '' : l.moved}` +
      `${l.unknown.length ? ` (${l.unknown.length} not counted)` : ''}`,
  ),
  budget: r.budget,
  paymentsRefunded: {
    inFull: moved.payments.filter((x) => x.amount !== undefined && Number(x.refunded) >= Number(x.amount)).length,
    inPart: moved.payments.filter((x) => Number(x.refunded) > 0 && (x.amount === undefined || Number(x.refunded) < Number(x.amount)))
      .length,
  },
};
log(JSON.stringify(figures, null, 2));
log(`wrote ${writeReport('doctor-money', figures)}`);
