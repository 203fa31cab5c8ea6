/**
 * A sandbox's controls as a vendor documents them: operations under a `sandbox` tag (or the `x-mpsi-sandbox-controls`
 * `describe` writes, read in facts.ts), each known by its summary's words, its body read into a profile control: the
 * record's number by the field's description (the platform's number or the merchant's own), the outcome field by its
 * two values (an enum said "`X` succeeds, `Y` fails", or `oneOf` consts each described), the failures a switch arms from
 * the table in its description (one column: one value each; several: a value per field). A control any field of which
 * cannot be placed is not told.
 */
import { codeSpans, column, plain, readMarkdown } from './markdown.js';
import { type DocOperation, isSandboxOperation, requestSchemaOf } from './match.js';
import { flat, propsOf, type S } from './shapes.js';

type Tell = (path: string, value: unknown, pointer: string) => void;
const v = (name: string) => `\${${name}}`;

/** The control an operation's words name. */
function controlOf(o: DocOperation): string | undefined {
  const w = `${String(o.op['summary'] ?? '')} ${String(o.op['operationId'] ?? '')}`.replace(/([a-z])([A-Z])/g, '$1 $2').toLowerCase();
  if (/failure|fault|simulate .*fail|arm/.test(w)) return 'armFailure';
  if (/chargeback|dispute/.test(w)) return 'chargeback';
  if (/expire/.test(w)) return 'expireCheckout';
  if (/refund/.test(w) && /settle|complete|finish/.test(w)) return 'settleRefund';
  if (/payout/.test(w) && /settle|complete|finish/.test(w)) return 'settlePayout';
  if (/3-?d|card/.test(w) && /complete|confirm/.test(w)) return 'completeCard';
  if (/checkout|pay/.test(w) && /complete|pay/.test(w)) return 'completeCheckout';
  return undefined;
}

/** The variable a number field of a control stands for, from its description. */
function numberOf(name: string, s: S): string | undefined {
  const d = `${String(s['description'] ?? '')}`.toLowerCase();
  const mine = /\byour\b|merchant's/.test(d);
  const theirs = /assigned by|platform|service's/.test(d);
  if (mine === theirs) return undefined;
  if (/refund/.test(d) || /refund/.test(name)) return mine ? 'merchantRefundNo' : 'refundNo';
  if (/payout/.test(d) || /payout/.test(name)) return mine ? 'merchantPayoutNo' : 'payoutNo';
  if (/order|payment/.test(d)) return mine ? 'merchantOrderNo' : 'orderNo';
  return undefined;
}

/** The outcome field's two values: an enum whose description says which succeeds, or consts each described. */
function outcomesOf(s: S): { success: string; failed: string } | undefined {
  const consts = ((s['oneOf'] ?? s['anyOf']) as S[] | undefined)?.map(flat);
  if (consts?.length === 2) {
    const ok = consts.find((c) => /succe/i.test(String(c['description'] ?? '')))?.['const'];
    const ko = consts.find((c) => /fail/i.test(String(c['description'] ?? '')))?.['const'];
    if (typeof ok === 'string' && typeof ko === 'string') return { success: ok, failed: ko };
  }
  const d = String(s['description'] ?? '');
  const ok = /`([^`]+)`\s+succeeds/.exec(d)?.[1];
  const ko = /`([^`]+)`\s+fails/.exec(d)?.[1];
  return ok && ko && Array.isArray(s['enum']) && s['enum'].includes(ok) && s['enum'].includes(ko) ? { success: ok, failed: ko } : undefined;
}

const FAILURE_WORDS: [RegExp, string][] = [
  [/payment query|query fails|queryfailed/i, 'queryFailed'],
  [/order creation|creation fails|payment creation/i, 'orderCreationFailed'],
  [/refund.*(busy|systembusy)/i, 'refundSystemBusy'],
  [/refund.*(fail)/i, 'refundFailed'],
];

/** The failures a switch arms, from the table of its description: kind → value (one field) or field → value. */
function failuresOf(description: string, fields: string[]): S | undefined {
  for (const t of readMarkdown(description).tables) {
    const first = column(t, /failure|what/i);
    const cols = fields.map((f) => t.header.findIndex((h) => plain(h) === f));
    if (first < 0 || cols.some((c) => c < 0)) continue;
    const out: S = {};
    for (const row of t.rows) {
      const kind = FAILURE_WORDS.find(([re]) => re.test(plain(row[first] ?? '')))?.[1];
      const values = cols.map((c) => codeSpans(row[c] ?? '')[0]);
      if (!kind || values.some((x) => x === undefined)) return undefined;
      out[kind] = fields.length === 1 ? values[0] : Object.fromEntries(fields.map((f, i) => [f, values[i]]));
    }
    return Object.keys(out).length ? out : undefined;
  }
  return undefined;
}

/** One control from its operation; undefined when a field cannot be placed. */
function readControl(name: string, o: DocOperation): S | undefined {
  const req = requestSchemaOf(o);
  const props = propsOf(req);
  const required = new Set((flat(req)['required'] as string[] | undefined) ?? Object.keys(props));
  const template: S = {};
  const control: S = { path: o.path };
  const failureFields: string[] = [];
  const description = String(o.op['description'] ?? '');
  for (const [k, s] of Object.entries(props)) {
    if (!required.has(k)) continue;
    const d = String(s['description'] ?? '');
    const outcomes = name === 'armFailure' ? undefined : outcomesOf(s);
    if (outcomes) {
      template[k] = v('outcome');
      control['outcomes'] = outcomes;
    } else if (/which failure/i.test(d)) failureFields.push(k);
    else if (/armed for/i.test(d)) {
      template[k] = v('subject');
      if (/refund failure,? your refund number/i.test(d)) control['refundSubject'] = 'merchantRefundNo';
    } else if (/status reason|reason recorded/i.test(d) && name === 'settlePayout') {
      template[k] = v('reason');
      const ex = Array.isArray(s['examples']) ? s['examples'][0] : s['example'];
      if (typeof ex === 'string') control['reason'] = ex;
    } else {
      const n = numberOf(k, s);
      if (!n) return undefined;
      template[k] = v(n);
    }
  }
  if (name === 'armFailure') {
    if (failureFields.length === 0) return undefined;
    const failures = failuresOf(description, failureFields);
    if (!failures) return undefined;
    for (const f of failureFields) template[f] = failureFields.length === 1 ? v('failure') : v(f);
    control['failures'] = failures;
    if (/matched by the refund number/i.test(description)) control['refundSubject'] = 'merchantRefundNo';
    const count = /fails the next (\d+) matching requests/i.exec(description)?.[1];
    if (count) control['count'] = Number(count);
    if (/hits only requests about the number/i.test(description)) control['scope'] = 'subject';
    else if (/next requests of that operation/i.test(description)) control['scope'] = 'operation';
    else if (/any of the arming merchant's requests/i.test(description)) control['scope'] = 'merchant';
    else if (/request of any merchant/i.test(description)) control['scope'] = 'target';
  } else if (failureFields.length) return undefined;
  const needsOutcome = ['completeCheckout', 'settleRefund', 'settlePayout', 'completeCard'].includes(name);
  if (needsOutcome !== (control['outcomes'] !== undefined)) return undefined;
  control['template'] = template;
  return control;
}

/** Each sandbox control a vendor's description documents under its sandbox tag. */
export function vendorControls(ops: DocOperation[], tell: Tell): void {
  const seen = new Set<string>();
  for (const o of ops) {
    if (!isSandboxOperation(o.op) || o.op['x-mpsi-sandbox-controls'] || o.method !== 'post' || o.unknownParams.length) continue;
    const name = controlOf(o);
    if (!name || seen.has(name)) continue;
    const control = readControl(name, o);
    if (!control) continue;
    seen.add(name);
    tell(`sandbox.${name}`, control, `${o.pointer}/requestBody/content/application~1json/schema`);
  }
}
