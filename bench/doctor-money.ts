/**
 * What the profile doctor costs a sandbox: its requests, and the money it moves and gives back, read from its own
 * exchanges on fixtures/profiles/reference.json (or the profile named) against the embedded reference. A payout counts
 * as moved when its creation is accepted, and as given back when a cancel of it or a settlement as failed is accepted;
 * a settlement as success spends it. A payment counts as moved when it is paid (a card payment accepted as SUCCESS, a
 * checkout completed as SUCCESS).
 *
 *   npx tsx bench/doctor-money.ts [profile.json]
 */
import { fileURLToPath } from 'node:url';
import { runDoctor } from '../harness/doctor/run.js';
import type { Exchange } from '../harness/exchange.js';
import { loadProfile } from '../harness/profile/load.js';
import { log, writeReport } from './support/report.js';

const file = process.argv[2] ?? fileURLToPath(new URL('../fixtures/profiles/reference.json', import.meta.url));
const loaded = loadProfile(file);
const p = loaded.profile;

type Json = Record<string, unknown>;
const cents = (v: unknown): number => (typeof v === 'string' ? Math.round(Number(v) * 100) : 0);

interface Held {
  cents: number;
  currency: string;
  state: 'held' | 'given back' | 'spent';
}
/** Payouts by both their numbers. */
const payouts = new Map<string, Held>();
const all: Held[] = [];
let paidCents = 0;
let payments = 0;
const seen = (ex: Exchange): void => {
  let req: Json = {};
  try {
    req = JSON.parse(ex.request.body.toString('utf8')) as Json;
  } catch {
    // not JSON: no money in it
  }
  const res = (ex.response?.json ?? {}) as Json;
  if (res['code'] !== 0) return;
  const data = (res['data'] ?? {}) as Json;
  const path = new URL(ex.request.url).pathname;
  const held = () =>
    Object.values(req)
      .map((v) => (typeof v === 'string' ? payouts.get(v) : undefined))
      .find((h) => h);
  if (path === p.endpoints.payoutCreate) {
    const amount = (req['trans_amount'] ?? {}) as Json;
    const h: Held = { cents: cents(amount['value']), currency: String(amount['currency'] ?? 'USD'), state: 'held' };
    all.push(h);
    payouts.set(String(req['merchant_payout_no']), h);
    if (typeof data['payout_no'] === 'string') payouts.set(data['payout_no'], h);
  } else if (path === p.endpoints.payoutCancel) {
    const h = held();
    if (h) h.state = 'given back';
  } else if (path === p.sandbox?.settlePayout?.path) {
    const h = held();
    if (h) h.state = req['outcome'] === p.sandbox.settlePayout.outcomes.failed ? 'given back' : 'spent';
  } else if (path === p.endpoints.cardPayment && data['status'] === 'SUCCESS') {
    payments++;
    paidCents += cents(((req['trans_amount'] ?? {}) as Json)['value']);
  } else if (path === p.sandbox?.completeCheckout?.path && req['outcome'] === p.sandbox.completeCheckout.outcomes.success) {
    payments++;
  }
};
const r = await runDoctor({ loaded, baseUrl: p.baseUrl, onExchange: seen });
const sum = (state: Held['state']) => {
  const these = all.filter((h) => h.state === state);
  const by: Record<string, number> = {};
  for (const h of these) by[h.currency] = (by[h.currency] ?? 0) + h.cents / 100;
  return { count: these.length, amounts: by };
};
const figures = {
  profile: file,
  requests: r.requests,
  exitCode: r.exitCode,
  wrong: r.items.filter((i) => i.status === 'wrong').map((i) => i.path),
  payoutsMade: all.length,
  payoutsGivenBack: sum('given back'),
  payoutsSpent: sum('spent'),
  payoutsHeld: sum('held'),
  paymentsPaid: { count: payments, cardUsd: paidCents / 100 },
};
log(JSON.stringify(figures, null, 2));
log(`wrote ${writeReport('doctor-money', figures)}`);
