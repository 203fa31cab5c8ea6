/** The doctor's outputs: terminal lines, doctor.json and doctor.md (all redacted by the caller's redactor). */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Redactor } from '../kit/redact.js';
import { mdCell } from '../report/markdown.js';
import { centsOf } from '../facts/money.js';
import { sumsText } from './ledger.js';
import type { DoctorItem, DoctorReport, MoneyMoved, MovedPayout } from './model.js';

const MARK: Record<DoctorItem['status'], string> = { verified: '✓', wrong: '✗', 'not-verifiable': '?', warning: '!', doubt: '~' };
const WORD: Record<DoctorItem['status'], string> = {
  verified: 'verified',
  wrong: 'WRONG',
  'not-verifiable': 'not verifiable',
  warning: 'warning',
  doubt: 'DOUBT',
};

export function itemLine(i: DoctorItem): string {
  const parts = [
    `${MARK[i.status]} ${i.path} — ${WORD[i.status]}: ${i.assumption}${i.clauses?.length ? ` [${i.clauses.join(', ')}]` : ''}`,
  ];
  if (i.status !== 'verified' && i.expected !== undefined) parts.push(`expected ${i.expected}`);
  if (i.answered !== undefined) parts.push(`${i.status === 'not-verifiable' || i.status === 'warning' ? '' : 'target: '}${i.answered}`);
  if (i.fix !== undefined && i.status !== 'verified') parts.push(`fix: ${i.fix}`);
  return parts.join('; ');
}

export function summaryLine(r: DoctorReport): string {
  const c = r.counts;
  return (
    `doctor: ${c.verified} verified, ${c.wrong} wrong, ${c['not-verifiable']} not verifiable, ${c.doubt} doubt` +
    `${c.doubt === 1 ? '' : 's'}, ${c.warning} warning${c.warning === 1 ? '' : 's'} — ${r.requests} request` +
    `${r.requests === 1 ? '' : 's'} in ${(r.durationMs / 1000).toFixed(1)} s` +
    `${
      r.movesNoMoney
        ? ' (production or --safe: queries and authentication probes only)'
        : r.items.some((i) => /^(methods|limits|cardPayment|refunds|payouts|sandbox)\b/.test(i.path))
          ? `; the numbers it created start with ${r.numbersStartWith}`
          : ''
    }`
  );
}

/** Every item (verbose) or only those that are not verified, then the summary. */
export function terminalText(r: DoctorReport, verbose: boolean): string {
  const lines = r.items.filter((i) => verbose || i.status !== 'verified').map((i) => `  ${itemLine(i)}`);
  lines.push(summaryLine(r));
  const moved = movedLine(r);
  if (moved) lines.push(moved);
  if (r.exitCode === 2) {
    const wrong = r.items.filter((i) => i.status === 'wrong').map((i) => i.path);
    lines.push(`doctor: the profile is wrong about this target — fix ${[...new Set(wrong)].join(', ')} (no check ran)`);
  } else if (r.counts.doubt > 0) {
    lines.push(
      `doctor: ${r.counts.doubt} doubt${r.counts.doubt === 1 ? '' : 's'}: the target answered against the profile ` +
        `where the document fixes the answer — in a run each fails its clause with that answer, the doubt beside it`,
    );
  }
  return `${lines.join('\n')}\n`;
}

/** The payouts' ends, counted: "9 given back, 1 spent, 0 held". */
function payoutEnds(m: MoneyMoved): string {
  const n = (end: MovedPayout['end']) => m.payouts.filter((x) => x.end === end).length;
  return `${n('given back')} given back, ${n('spent')} spent, ${n('held')} held`;
}

function refundedText(m: MoneyMoved): string {
  const full = m.payments.filter((x) => x.amount !== undefined && centsOf(x.refunded) >= centsOf(x.amount)).length;
  const part = m.payments.filter((x) => centsOf(x.refunded) > 0n).length - full;
  return `${full} refunded in full, ${part} in part, ${m.payments.length - full - part} not refunded`;
}

/** Whether the doctor moved anything. */
function movedAny(m: MoneyMoved | undefined): m is MoneyMoved {
  return m !== undefined && (m.payments.length > 0 || m.payouts.length > 0 || m.refunds.length > 0);
}

/** "3 refund(s) (12.00 USD, fees 0.90 USD; 1 given back)". */
function refundsText(m: MoneyMoved): string {
  const back = m.refunds.filter((x) => x.end === 'given back').length;
  return `${m.refunds.length} refund(s) (${sumsText(m.refunds)}, fees kept ${feesText(m.refunds)}; ${back} given back)`;
}

/** The fees of the records not given back, summed by currency; those that cannot be computed counted apart. */
function feesText(xs: readonly { fee?: string; currency?: string; amount?: string; end?: string }[]): string {
  return sumsText(xs.filter((x) => x.amount !== undefined && x.end !== 'given back').map((x) => ({ amount: x.fee, currency: x.currency })));
}

/** "M100001 payout USD -12.34, M100001 refund USD -5.30" (and what could not be counted). */
function balancesText(m: MoneyMoved): string {
  const lines = m.balances.filter((l) => l.balance !== 'not stated' && (l.moved !== '0.00' || l.unknown.length > 0));
  const uncounted = m.balances.reduce((n, l) => n + l.unknown.length, 0);
  const text = lines.map((l) => `${l.merchant} ${l.balance} ${l.moved} ${l.currency}`).join(', ') || 'none moved';
  return `${text}${uncounted ? `; ${uncounted} movement(s) not counted (see doctor.md)` : ''}`;
}

/** One line for the terminal: what the doctor moved, when it moved anything. */
export function movedLine(r: DoctorReport): string | undefined {
  const m = r.moved;
  if (!movedAny(m)) return undefined;
  return (
    `doctor: moved money — ${m.payments.length} payment(s) paid (${sumsText(m.payments)}; ${refundedText(m)}), ` +
    `${m.payouts.length} payout(s) made (${sumsText(m.payouts)}; ${payoutEnds(m)}), ${refundsText(m)}, ` +
    `${m.chargebacks.length} chargeback(s); balances: ${balancesText(m)}` +
    `${m.unanswered?.length ? `; ${m.unanswered.length} creation(s) got no answer and may have moved money` : ''}` +
    `; each is listed in doctor.md`
  );
}

/** doctor.md's account of the money the doctor moved: every payment, refund, payout, fee and chargeback, and the sums. */
function movedSection(r: DoctorReport): string[] {
  const m = r.moved;
  if (!movedAny(m)) return [];
  const L = ['', '## Money the doctor moved', ''];
  L.push(
    `**Payments paid: ${m.payments.length}** (${sumsText(m.payments)}, fees ${feesText(m.payments)}): ${refundedText(m)}. ` +
      "The doctor pays with the vendor's test cards and sandbox controls, and refunds only where a probe needs a refund: a " +
      "refund takes its amount and fee from the merchant's balance, which a payment credits only where " +
      '`balances.paymentsCredit` says so.',
    '',
    `**Refunds made: ${m.refunds.length}** (${sumsText(m.refunds)}, fees kept ${feesText(m.refunds)}): ` +
      `${m.refunds.filter((x) => x.end === 'given back').length} given back (settled as failed).`,
    '',
    `**Payouts made: ${m.payouts.length}** (${sumsText(m.payouts)}, fees kept ${feesText(m.payouts)}): ${payoutEnds(m)}. A payout ` +
      'is given back by a cancel or a settlement as failed before the checks start; one settled as success is spent (the ' +
      'only proof of that outcome); one held is said in a warning above, with why it could not be given back.',
    '',
    `**Chargebacks: ${m.chargebacks.length}** (${sumsText(m.chargebacks)}): what a chargeback takes from a balance is not ` +
      'stated by the profile, so it is listed and never summed.',
    '',
    "| what | merchant | merchant's number | service's number | amount | fee | what became of it |",
    '|---|---|---|---|---|---|---|',
  );
  const amount = (x: { amount?: string; currency?: string }) => (x.amount ? `${x.amount} ${x.currency}` : 'not read');
  const fee = (x: { fee?: string; amount?: string }) => (x.amount === undefined ? '' : (x.fee ?? 'cannot be computed'));
  for (const x of m.payments)
    L.push(
      `| payment (${x.paidBy}) | ${mdCell(x.merchant)} | ${mdCell(x.merchantOrderNo)} | ${mdCell(x.orderNo ?? '')} | ` +
        `${mdCell(amount(x))} | ${mdCell(fee(x))} | ${centsOf(x.refunded) > 0n ? `refunded ${x.refunded}` : 'not refunded'} |`,
    );
  for (const x of m.refunds)
    L.push(
      `| refund of ${mdCell(x.of)} | ${mdCell(x.merchant)} | ${mdCell(x.merchantRefundNo ?? '')} | ${mdCell(x.refundNo ?? '')} | ` +
        `${mdCell(amount(x))} | ${mdCell(fee(x))} | ${x.end} |`,
    );
  for (const x of m.payouts)
    L.push(
      `| payout | ${mdCell(x.merchant)} | ${mdCell(x.merchantPayoutNo)} | ${mdCell(x.payoutNo ?? '')} | ` +
        `${mdCell(amount(x))} | ${mdCell(fee(x))} | ${x.end} |`,
    );
  for (const x of m.chargebacks)
    L.push(
      `| chargeback | ${mdCell(x.merchant)} | ${mdCell(x.merchantOrderNo)} | ${mdCell(x.orderNo ?? '')} | ` +
        `${mdCell(amount(x))} | | debit not stated |`,
    );
  for (const x of m.unanswered ?? [])
    L.push(
      `| ${x.operation}, no answer | ${mdCell(x.merchant)} | ${mdCell(x.merchantNo ?? '')} | | ${mdCell(amount(x))} | | ` +
        'may have been made: not counted |',
    );
  L.push('', 'What these moved, per merchant, balance and currency (negative: taken from the balance):', '');
  L.push('| merchant | balance | currency | moved | not counted |', '|---|---|---|---|---|');
  for (const l of m.balances)
    L.push(
      `| ${mdCell(l.merchant)} | ${l.balance} | ${mdCell(l.currency)} | ${l.balance === 'not stated' ? '' : l.moved} | ` +
        `${mdCell(l.unknown.join('; '))} |`,
    );
  return L;
}

export function renderDoctorMarkdown(r: DoctorReport): string {
  const L: string[] = ['# MPSI profile doctor', ''];
  L.push(
    `Profile **${mdCell(r.profile.name)}** (${r.profile.environment}, file ` +
      `${mdCell(r.profile.file)}) against ${mdCell(r.target)}, ${r.startedAt}.`,
    '',
  );
  L.push(
    'Each line is an assumption of the profile about something INTERFACE.md leaves open, checked against the target. None ' +
      "is a conformance verdict: a wrong line means the profile (or the target's setup) must be fixed before the checks " +
      'can judge anything. A doubt is an answer against the profile where the document fixes the answer: either the profile ' +
      'or the target is wrong, the checks run and judge the target, and the certificate shows the doubt beside its clauses. ' +
      "A doubt whose fix says no profile explains the answer is the target's failure alone.",
    '',
  );
  L.push(
    `**${r.exitCode === 0 ? 'Profile verified' : 'Profile WRONG'}**: ${r.counts.verified} verified, ${r.counts.wrong} wrong, ` +
      `${r.counts['not-verifiable']} not verifiable, ${r.counts.doubt} doubts, ${r.counts.warning} warnings; ${r.requests} requests ` +
      `in ${(r.durationMs / 1000).toFixed(1)} s${r.movesNoMoney ? ' (production: queries and authentication probes only)' : ''}.`,
    '',
  );
  L.push('| | profile path | assumption | expected | target answered | fix | exchanges |', '|---|---|---|---|---|---|---|');
  const order: DoctorItem['status'][] = ['wrong', 'doubt', 'not-verifiable', 'warning', 'verified'];
  for (const s of order) {
    for (const i of r.items.filter((x) => x.status === s)) {
      L.push(
        `| ${MARK[i.status]} ${WORD[i.status]} | \`${mdCell(i.path)}\` | ${mdCell(i.assumption)}` +
          `${i.clauses?.length ? ` (${i.clauses.map((c) => `\`${c}\``).join(', ')})` : ''} | ${mdCell(i.expected ?? '')}` +
          ` | ${mdCell(i.answered ?? '')} | ${mdCell(i.fix ?? '')} | ${(i.exchanges ?? []).join(', ')} |`,
      );
    }
  }
  L.push(...movedSection(r));
  const shown = new Set(r.items.filter((i) => i.status !== 'verified').flatMap((i) => i.exchanges ?? []));
  if (shown.size > 0) {
    L.push('', '## Exchanges behind the lines that are not verified', '');
    for (const e of r.exchanges.filter((x) => shown.has(x.id))) {
      L.push(
        `### ${e.id} — ${mdCell(e.label)}`,
        '',
        '```',
        `${e.request}`,
        e.requestBody,
        `← ${e.response}`,
        e.responseBody ?? '',
        '```',
        '',
      );
    }
  }
  return `${L.join('\n')}\n`;
}

export function writeDoctorReport(dir: string, r: DoctorReport, redact: Redactor, name = 'doctor'): { json: string; md: string } {
  mkdirSync(dir, { recursive: true });
  const json = join(dir, `${name}.json`);
  const md = join(dir, `${name}.md`);
  writeFileSync(json, redact(`${JSON.stringify(r, null, 2)}\n`));
  writeFileSync(md, redact(renderDoctorMarkdown(r)));
  return { json, md };
}
