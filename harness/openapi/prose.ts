/**
 * What a vendor's description says in words (Markdown in `description`s: the document's info, its tags, its operations,
 * a field's own) of the facts no schema keyword holds: amount limits per method and channel (and currency), fees (with
 * their floor and cap), price points, the sandbox's test merchants and their balances, test cards, the sandbox's failure
 * triggers, refund support and created status per method, the refund fee and failing reason, the payment method not for
 * payouts, payout methods' cancel and currencies, a payee's fields per payout method, the webhook acknowledgement limit
 * and clock ratio. Each table is recognised by its header's words; a row whose cells
 * cannot be read whole is left out (the fact is then a TODO), never guessed.
 */
import { blank, codeSpans, column, type MdTable, plain, readMarkdown } from './markdown.js';
import type { S } from './shapes.js';

export type Tell = (path: string, value: unknown, pointer: string) => void;

/** A Markdown text of the description and the pointer of the field it was read from. */
export interface Prose {
  text: string;
  pointer: string;
  /** What the text is about, from where it sits (a tag's or an operation's name): "payments", "refunds", "payouts". */
  about?: string;
}

const AMOUNT = /^\d{1,3}(?:,?\d{3})*(?:\.\d{1,2})?$/;
/** "1,215.93" → "1215.93"; undefined unless the cell is one decimal amount (a currency code may follow). */
function amountIn(cell: string): string | undefined {
  const m = /^\s*([\d,]+(?:\.\d{1,2})?)\s*(?:USD)?\s*$/.exec(plain(cell));
  return m && AMOUNT.test(m[1]!) ? m[1]!.replace(/,/g, '') : undefined;
}

const METHOD = /^[A-Z][A-Z0-9_]*$/;
/** The method a row names ("*" for "all other methods"). */
function methodIn(cell: string): string | undefined {
  const p = plain(cell);
  if (/^(\*|all other( methods)?|any other( method)?|every other( method)?|others?)$/i.test(p)) return '*';
  return METHOD.test(p) ? p : undefined;
}

/** Which kind of money a table is about: its heading's words, else where it sits. */
function kindOf(t: MdTable, about?: string): 'payments' | 'refunds' | 'payouts' | undefined {
  const h = t.heading.toLowerCase();
  if (/payout|disburse/.test(h)) return 'payouts';
  if (/refund/.test(h)) return 'refunds';
  if (/payment|checkout|charge/.test(h)) return 'payments';
  return about === 'payments' || about === 'refunds' || about === 'payouts' ? about : undefined;
}

function limits(t: MdTable, kind: 'payments' | 'payouts', at: string, tell: Tell): void {
  const [m, lo, hi, cur, ch] = [column(t, /method/i), column(t, /^min/i), column(t, /^max/i), column(t, /currenc/i), column(t, /channel/i)];
  const by = new Map<string, Map<string, { min: string; max: string; name?: string }[]>>();
  for (const row of t.rows) {
    const method = methodIn(row[m] ?? '');
    const min = amountIn(row[lo] ?? '');
    const max = amountIn(row[hi] ?? '');
    const currency = cur >= 0 ? plain(row[cur] ?? '').toUpperCase() : 'USD';
    if (!method || method === '*' || !min || !max || !/^[A-Z]{3}$/.test(currency)) return; // a row not read whole: none is told
    // A channel named in its column keeps its name (a number there only counts the channels).
    const name = ch >= 0 && !blank(row[ch]) && !/^\d+$/.test(plain(row[ch]!)) ? plain(row[ch]!) : undefined;
    const ofMethod = by.get(method) ?? new Map<string, { min: string; max: string; name?: string }[]>();
    ofMethod.set(currency, [...(ofMethod.get(currency) ?? []), { min, max, ...(name ? { name } : {}) }]);
    by.set(method, ofMethod);
  }
  const cents = (v: string) => Math.round(Number(v) * 100);
  const limitOf = (rs: { min: string; max: string; name?: string }[]) => {
    const sorted = [...rs].sort((a, b) => cents(a.min) - cents(b.min));
    const max = sorted.reduce((a, r) => (cents(r.max) > cents(a) ? r.max : a), sorted[0]!.max);
    return { min: sorted[0]!.min, max, ...(sorted.length > 1 ? { channels: sorted } : {}) };
  };
  for (const [method, byCurrency] of by) {
    const usd = byCurrency.get('USD');
    if (!usd) continue;
    tell(`limits.${kind}.${method}`, limitOf(usd), at);
    if (kind === 'payouts')
      for (const [c, rs] of byCurrency) if (c !== 'USD') tell(`limits.payouts.${method}.byCurrency.${c}`, limitOf(rs), at);
  }
}

const PERCENT = /^(\d+(?:\.\d+)?)\s*%$/;
const FIXED = /^(\d+(?:\.\d{1,2})?)\s*([A-Z]{3})?$/;

/**
 * One fee from its cells: percent ("2.9 %"), fixed ("0.30 USD"), rounding, and the least and most it comes to (a floor
 * and a cap, "0.25 USD", in the fee's currency); undefined when a cell does not read.
 */
function feeOf(
  percentCell: string | undefined,
  fixedCell: string | undefined,
  roundingCell: string | undefined,
  floorCell?: string,
  capCell?: string,
): S | undefined {
  const out: S = {};
  if (!blank(percentCell)) {
    const m = PERCENT.exec(plain(percentCell!));
    if (!m) return undefined;
    out['percent'] = m[1];
  }
  if (!blank(fixedCell)) {
    const m = FIXED.exec(plain(fixedCell!));
    if (!m) return undefined;
    out['fixed'] = m[1];
    if (m[2] && m[2] !== 'USD') out['currency'] = m[2];
  }
  if (!blank(roundingCell)) {
    const r = plain(roundingCell!);
    if (!['up', 'down', 'halfUp'].includes(r)) return undefined;
    out['rounding'] = r;
  }
  for (const [key, cell] of [
    ['min', floorCell],
    ['max', capCell],
  ] as const) {
    if (blank(cell)) continue;
    const m = FIXED.exec(plain(cell!));
    // A bound in another currency than the fee's is no bound this profile can state.
    if (!m || (m[2] ?? 'USD') !== (out['currency'] ?? 'USD')) return undefined;
    out[key] = m[1];
  }
  return out;
}

function fees(t: MdTable, kind: 'payments' | 'refunds' | 'payouts', at: string, tell: Tell): void {
  const [m, pc, fx, r] = [column(t, /method/i), column(t, /percent/i), column(t, /fixed/i), column(t, /round/i)];
  const [floor, cap] = [column(t, /floor|at least/i), column(t, /\bcap\b|at most/i)];
  const out: [string, S][] = [];
  for (const row of t.rows) {
    const method = methodIn(row[m] ?? '');
    const cell = (i: number) => (i >= 0 ? row[i] : undefined);
    const fee = feeOf(row[pc], row[fx], cell(r), cell(floor), cell(cap));
    if (!method || !fee) return;
    out.push([method, fee]);
  }
  for (const [method, fee] of out) tell(`fees.${kind}.${method}`, fee, at);
}

/** A fee written in a list item: "`CARD`: percent 2.9 %; fixed 0.30 USD; rounding halfUp[; floor 0.25 USD][; cap 5 USD]". */
function feeItem(text: string): [string, S] | undefined {
  const m = /^(.+?):\s*percent\s+([^;]+);\s*fixed\s+([^;]+);\s*rounding\s+([^;]+?)(?:;\s*floor\s+([^;]+?))?(?:;\s*cap\s+([^;]+?))?$/.exec(
    text,
  );
  if (!m) return undefined;
  const method = methodIn(m[1]!);
  const fee = feeOf(m[2], m[3], m[4], m[5], m[6]);
  return method && fee ? [method, fee] : undefined;
}

const ROUNDING = ['up', 'down', 'nearest'];

function pricePoints(t: MdTable, at: string, tell: Tell): void {
  const [m, tiers, r, d, tie] = [
    column(t, /method/i),
    column(t, /price point|tier/i),
    column(t, /round/i),
    column(t, /distance/i),
    column(t, /tie/i),
  ];
  const rows: { method: string; tiers: string[]; rule: S }[] = [];
  for (const row of t.rows) {
    const method = methodIn(row[m] ?? '');
    const list = plain(row[tiers] ?? '')
      .split(/\s*,\s*/)
      .filter(Boolean);
    const rounding = plain(row[r] ?? '');
    if (!method || method === '*' || list.length === 0 || !list.every((x) => /^\d+\.\d{2}$/.test(x)) || !ROUNDING.includes(rounding))
      return;
    const rule: S = { rounding };
    if (d >= 0 && !blank(row[d]) && !/^any$/i.test(plain(row[d]!))) {
      const v = amountIn(row[d]!);
      if (!v) return;
      rule['maxDistance'] = v;
    }
    if (rounding === 'nearest' && tie >= 0 && !blank(row[tie])) {
      const v = plain(row[tie]!);
      if (v !== 'up' && v !== 'down') return;
      rule['tie'] = v;
    }
    rows.push({ method, tiers: list, rule });
  }
  if (rows.length === 0) return;
  const first = rows[0]!;
  tell(
    'methods.pricePoint',
    rows.map((x) => x.method),
    at,
  );
  tell('pricePoints.tiers', first.tiers, at);
  for (const [k, v] of Object.entries(first.rule)) tell(`pricePoints.${k}`, v, at);
  for (const x of rows.slice(1)) {
    if (JSON.stringify(x.tiers) !== JSON.stringify(first.tiers)) tell(`pricePoints.tiersByMethod.${x.method}`, x.tiers, at);
    if (JSON.stringify(x.rule) !== JSON.stringify(first.rule)) tell(`pricePoints.ruleByMethod.${x.method}`, x.rule, at);
  }
  if (rows.some((x) => JSON.stringify(x.tiers) !== JSON.stringify(first.tiers)))
    tell(`pricePoints.tiersByMethod.${first.method}`, first.tiers, at);
}

/** The role a test merchant's purpose names. */
function roleOf(purpose: string): 'primary' | 'second' | 'frozen' | 'lowBalance' | undefined {
  const p = purpose.toLowerCase();
  if (/frozen|disabled|suspended/.test(p)) return 'frozen';
  if (/low balance|insufficient/.test(p)) return 'lowBalance';
  if (/second|another|other active/.test(p)) return 'second';
  if (/main|primary|your own|default/.test(p)) return 'primary';
  return undefined;
}

/** "100000.00 USD, 1215.93 EUR" → { USD: "100000.00", EUR: "1215.93" }. */
function balancesIn(cell: string): Record<string, string> | undefined {
  const out: Record<string, string> = {};
  // "2,500.00 USD, 3.00 EUR": a list's comma is followed by a space, a thousands separator is not.
  for (const part of plain(cell).split(/\s*[,;]\s+(?=\d)/)) {
    const m = /^([\d,]+\.\d{2})\s*([A-Z]{3})$/.exec(part.trim());
    if (!m) return undefined;
    out[m[2]!] = m[1]!.replace(/,/g, '');
  }
  return out;
}

const FAILURE_KINDS = ['queryFailed', 'orderCreationFailed', 'refundSystemBusy', 'refundFailed'];

/** One row of a failure-trigger table (Failure | Trigger | Value | Where | Requests); undefined when it does not read. */
function triggerOf(way: string, value: string | undefined, where: string | undefined, requests: string): S | undefined {
  const count = /^first (\d+)$/i.exec(requests)?.[1];
  if (!count && !/^(every|all|—|-|)$/i.test(requests)) return undefined;
  const counted = (t: S): S => (count ? { ...t, count: Number(count) } : t);
  if (way === 'control') return value === undefined ? { way } : undefined;
  if (value === undefined) return undefined;
  if (['amount', 'amountEnding', 'card', 'reason'].includes(way)) return where === undefined ? counted({ way, value }) : undefined;
  if (way === 'numberPrefix' || way === 'numberSuffix')
    return where === 'merchantOrderNo' || where === 'merchantRefundNo' ? counted({ way, number: where, value }) : undefined;
  if (way === 'email') return counted({ way, value, ...(where !== undefined ? { field: where } : {}) });
  if (way === 'header') return where !== undefined ? counted({ way, name: where, value }) : undefined;
  return undefined;
}

/** The ways the sandbox causes each failure, from a table of magic values; a row that does not read tells nothing. */
function triggers(t: MdTable, at: string, tell: Tell): void {
  const [f, w, v, where, n] = [
    column(t, /^failure$/i),
    column(t, /^trigger$/i),
    column(t, /^value$/i),
    column(t, /^where$/i),
    column(t, /^requests$/i),
  ];
  const cell = (row: string[], i: number) => (i < 0 || blank(row[i]) ? undefined : plain(row[i]!));
  const out: Record<string, S[]> = {};
  for (const row of t.rows) {
    const kind = cell(row, f);
    const trigger = triggerOf(cell(row, w) ?? '', cell(row, v), cell(row, where), cell(row, n) ?? '');
    if (!kind || !FAILURE_KINDS.includes(kind) || !trigger) return;
    const list = out[kind] ?? [];
    list.push(trigger);
    out[kind] = list;
  }
  for (const [kind, ts] of Object.entries(out)) tell(`sandbox.triggers.${kind}`, ts, at);
}

function merchants(t: MdTable, at: string, tell: Tell): void {
  const col = {
    id: column(t, /merchant id|^id$/i),
    purpose: column(t, /purpose|role|use/i),
    name: column(t, /^name$/i),
    login: column(t, /login/i),
    pay: column(t, /payment methods/i),
    payout: column(t, /payout methods/i),
    balance: column(t, /payout balance/i),
    refund: column(t, /refund balance/i),
  };
  for (const row of t.rows) {
    const role = roleOf(row[col.purpose] ?? '');
    if (!role) continue;
    const base = `merchants.${role}`;
    const id = codeSpans(row[col.id] ?? '')[0];
    // The primary merchant's id is the one init was given (--merchant).
    if (role !== 'primary') {
      if (!id) continue;
      tell(`${base}.id`, id, at);
    }
    if (col.name >= 0 && !blank(row[col.name])) tell(`${base}.name`, plain(row[col.name]!), at);
    if (col.login >= 0 && !blank(row[col.login])) tell(`${base}.login`, codeSpans(row[col.login]!)[0] ?? plain(row[col.login]!), at);
    const list = (i: number) => (i >= 0 && !blank(row[i]) ? codeSpans(row[i]!) : undefined);
    const pay = list(col.pay);
    if (pay?.length) tell(`${base}.paymentMethods`, pay, at);
    const payout = list(col.payout);
    if (payout?.length) tell(`${base}.payoutMethods`, payout, at);
    if (col.balance >= 0 && !blank(row[col.balance])) {
      const b = balancesIn(row[col.balance]!);
      if (b) {
        // The low-balance merchant's USD payout balance is its shorthand field (payoutBalance).
        const { USD, ...others } = b;
        if (role === 'lowBalance' && USD !== undefined) tell(`${base}.payoutBalance`, USD, at);
        const rest = role === 'lowBalance' ? others : b;
        if (Object.keys(rest).length) tell(`${base}.payoutBalances`, rest, at);
      }
    }
    if (role === 'lowBalance' && col.refund >= 0 && !blank(row[col.refund])) {
      const v = amountIn(row[col.refund]!);
      if (v) tell(`${base}.refundBalance`, v, at);
    }
  }
}

/** The test card a behaviour names, in the profile's words. */
function cardRole(words: string): 'success' | 'decline' | 'risk' | 'invalid' | 'noChannel' | 'pending' | undefined {
  const w = words.toLowerCase();
  if (/3-?d ?s|pending|stays|challenge/.test(w)) return 'pending';
  if (/no (payment )?channel/.test(w)) return 'noChannel';
  if (/risk|fraud/.test(w)) return 'risk';
  if (/invalid|luhn/.test(w)) return 'invalid';
  if (/declin/.test(w)) return 'decline';
  if (/succe|approv|authori[sz]ed/.test(w)) return 'success';
  return undefined;
}

function cards(rows: [string, string][], card: S, at: string, tell: Tell): void {
  const declines: S[] = [];
  const seen = new Set<string>();
  for (const [numberCell, words] of rows) {
    const number = codeSpans(numberCell)[0] ?? plain(numberCell);
    const role = cardRole(words);
    if (!/^\d{12,19}$/.test(number) || !role) continue;
    const c = { card_number: number, ...card };
    if (role === 'decline' && seen.has('decline')) declines.push(c);
    else if (!seen.has(role)) {
      seen.add(role);
      tell(`cardPayment.cards.${role}`, c, at);
    }
    if (role === 'pending') {
      const status = codeSpans(words).find((x) => METHOD.test(x));
      if (status) tell('cardPayment.pendingStatus', status, at);
    }
  }
  if (declines.length) tell('cardPayment.declines', declines, at);
}

const SUPPORT: [RegExp, string][] = [
  [/^(not supported|none|no)$/i, 'none'],
  [/^(full only|full refunds only|full)$/i, 'full'],
  [/^(full and partial|partial|yes)$/i, 'partial'],
];

function refunds(t: MdTable, roles: Map<string, string>, at: string, tell: Tell): void {
  const [m, s, st, who] = [column(t, /method/i), column(t, /^refunds?$|support/i), column(t, /status/i), column(t, /merchant/i)];
  for (const row of t.rows) {
    const method = methodIn(row[m] ?? '');
    const support = SUPPORT.find(([re]) => re.test(plain(row[s] ?? '')))?.[1];
    if (!method || method === '*' || !support) continue;
    // A row of one merchant (its id, as the test merchants' table names it): that merchant's own support.
    const merchant = who >= 0 && !/^(all|any|every)/i.test(plain(row[who] ?? '')) ? plain(row[who] ?? '') : undefined;
    if (merchant !== undefined) {
      const role = /your own/i.test(merchant) ? 'primary' : roles.get(merchant);
      if (role === 'primary' || role === 'second' || role === 'lowBalance')
        tell(`refunds.supportByMerchant.${role}.${method}`, support, at);
      continue;
    }
    tell(`refunds.support.${method}`, support, at);
    const status = st >= 0 ? codeSpans(row[st] ?? '')[0] : undefined;
    if (status === 'PENDING' || status === 'SUCCESS') tell(`refunds.createdStatus.${method}`, status, at);
  }
}

function payoutMethods(t: MdTable, at: string, tell: Tell): void {
  const [m, c, cur] = [column(t, /method/i), column(t, /cancel/i), column(t, /currenc/i)];
  for (const row of t.rows) {
    const method = methodIn(row[m] ?? '');
    const cancel = /^(yes|no)$/i.exec(plain(row[c] ?? ''))?.[1]?.toLowerCase();
    if (!method || method === '*' || !cancel) continue;
    tell(`payouts.methods.${method}.cancel`, cancel === 'yes', at);
    if (cur >= 0 && !blank(row[cur])) tell(`payouts.methods.${method}.usdOnly`, /^usd only$/i.test(plain(row[cur]!)), at);
  }
}

/** Every fact the description's Markdown states; `card` gives a test card the fields its number goes with. */
export function proseFacts(texts: Prose[], card: S, tell: Tell): void {
  // The test merchants' ids and roles first: another table (refunds per merchant) names a merchant by its id.
  const roles = new Map<string, string>();
  for (const { text } of texts)
    for (const t of readMarkdown(text).tables)
      if (column(t, /merchant id/i) >= 0 && column(t, /purpose|role/i) >= 0)
        merchants(t, '', (path, value) => {
          const role = /^merchants\.(\w+)\.id$/.exec(path)?.[1];
          if (role && typeof value === 'string') roles.set(value, role);
        });
  for (const { text, pointer, about } of texts) {
    const md = readMarkdown(text);
    for (const t of md.tables) {
      const has = (re: RegExp) => column(t, re) >= 0;
      const kind = kindOf(t, about);
      if (has(/method/i) && has(/^min/i) && has(/^max/i) && (kind === 'payments' || kind === 'payouts')) limits(t, kind, pointer, tell);
      else if (has(/method/i) && (has(/percent/i) || has(/fixed/i)) && kind) fees(t, kind, pointer, tell);
      else if (has(/method/i) && has(/price point|tier/i)) pricePoints(t, pointer, tell);
      else if (has(/^failure$/i) && has(/^trigger$/i) && has(/^value$/i)) triggers(t, pointer, tell);
      else if (has(/merchant id/i) && has(/purpose|role/i)) merchants(t, pointer, tell);
      else if (has(/card/i) && has(/behaviou?r|scenario|result|outcome/i))
        cards(
          t.rows.map((r) => [r[column(t, /card/i)] ?? '', r[column(t, /behaviou?r|scenario|result|outcome/i)] ?? ''] as [string, string]),
          card,
          pointer,
          tell,
        );
      else if (has(/method/i) && has(/^refunds?$|refund support/i)) refunds(t, roles, pointer, tell);
      else if (has(/method/i) && has(/cancel/i)) payoutMethods(t, pointer, tell);
    }
    // Lists: fees ("`CARD`: percent 2.9 %; fixed —; rounding —") and test cards ("`4242…`: Payment succeeds").
    const feeRows = new Map<string, [string, S][]>();
    const cardRows: [string, string][] = [];
    for (const item of md.items) {
      const fee = feeItem(item.text);
      const kind = kindOf({ heading: item.heading, header: [], rows: [] }, about);
      if (fee && kind) feeRows.set(kind, [...(feeRows.get(kind) ?? []), fee]);
      else if (/card/i.test(item.heading)) {
        const m = /^`(\d{12,19})`\s*:\s*(.+)$/.exec(item.text);
        if (m) cardRows.push([`\`${m[1]}\``, m[2]!]);
      }
    }
    for (const [kind, rows] of feeRows) for (const [m, f] of rows) tell(`fees.${kind}.${m}`, f, pointer);
    if (cardRows.length) cards(cardRows, card, pointer, tell);
    sentences(md.paragraphs.join('\n'), pointer, tell);
  }
}

/** Facts said in a sentence: the primary's payout balance, the refund fee and failing reason, webhook timing. */
function sentences(text: string, at: string, tell: Tell): void {
  const balance = /main test account's payout balance is ([\d,]+\.\d{2}) USD/i.exec(text)?.[1];
  if (balance) tell('payouts.balances.primary', balance.replace(/,/g, ''), at);
  const notForPayouts = /`([A-Z][A-Z0-9_]*)` is a payment method only: it cannot be used for payouts/.exec(text)?.[1];
  if (notForPayouts) tell('payouts.notForPayouts', notForPayouts, at);
  const fee = /refund fee of `?(\d+\.\d{2})`? USD/i.exec(text)?.[1];
  if (fee) tell('refunds.fee', fee, at);
  const reason = /refund whose reason is `([^`]+)` fails/i.exec(text)?.[1];
  if (reason) tell('refunds.failingReason', reason, at);
  const credits =
    /a successful payment credits its amount[^.]*? to your ((?:payout|refund) balance(?: and (?:payout|refund) balance)?)/i.exec(text)?.[1];
  if (credits)
    tell(
      'balances.paymentsCredit',
      [...credits.matchAll(/(payout|refund) balance/g)].map((m) => m[1]),
      at,
    );
  if (/proceeds wait as a pending balance until you release them/i.test(text)) tell('balances.proceeds', { after: 'control' }, at);
  const proceedsMs = /proceeds become available (\d+) ?ms after/i.exec(text)?.[1];
  if (proceedsMs) tell('balances.proceeds', { after: Number(proceedsMs) }, at);
  const chargeback = /a chargeback takes the payment's amount(?: and a fee of (\d+\.\d{2}) USD)? from your (payout|refund) balance/i.exec(
    text,
  );
  if (chargeback) tell('balances.chargeback', { from: chargeback[2], ...(chargeback[1] ? { fee: { fixed: chargeback[1] } } : {}) }, at);
  for (const [kind, re] of [
    ['payouts', /a payout left open ends as (SUCCESS|FAILED) by itself (\d+) ?ms after its creation/i],
    ['refunds', /a PENDING refund ends as (SUCCESS|FAILED) by itself (\d+) ?ms after its creation/i],
  ] as const) {
    const m = re.exec(text);
    if (m) tell(`sandbox.autoSettle.${kind}`, { afterMs: Number(m[2]), status: m[1] }, at);
  }
  const expires = /an unpaid checkout expires by itself (\d+) ?ms after its creation/i.exec(text)?.[1];
  if (expires) tell('sandbox.autoSettle.checkouts', { afterMs: Number(expires) }, at);
  if (/a payout's fee is taken from the payout balance/i.test(text)) tell('balances.payoutFee', 'payoutBalance', at);
  if (/a payout's fee is not taken from the payout balance/i.test(text)) tell('balances.payoutFee', 'elsewhere', at);
  const ack = /acknowledge within (\d+) ?ms/i.exec(text)?.[1];
  if (ack) tell('webhooks.ackTimeoutMs', Number(ack), at);
  const scale = /clock runs at (0?\.\d+|\d+(?:\.\d+)?) of real time/i.exec(text)?.[1];
  if (scale) tell('webhooks.timeScale', Number(scale), at);
}

/** A payee's fields per payout method, from a table in the payee field's description: method → field names. */
export function payeeFieldsTable(text: string): Record<string, string[]> {
  const out: Record<string, string[]> = {};
  for (const t of readMarkdown(text).tables) {
    const [m, f] = [column(t, /method/i), column(t, /field/i)];
    if (m < 0 || f < 0) continue;
    for (const row of t.rows) {
      const method = methodIn(row[m] ?? '');
      if (method && method !== '*') out[method] = codeSpans(row[f] ?? '');
    }
  }
  return out;
}
