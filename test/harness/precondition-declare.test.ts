/** Every precondition skip says what to add to the profile to un-skip it (PreconditionSkip.declare). */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { PreconditionSkip } from '../../harness/check/failure.js';
import { runCheck } from '../../harness/check/run.js';
import type { Target } from '../../harness/target.js';
import type { Certificate } from '../../harness/report/certificate.js';
import { declareHints } from '../../harness/report/declare-hints.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

describe('precondition skips name what to declare', () => {
  it('a skip with declare ends its reason with the hint and carries the paths', async () => {
    const r = await runCheck(
      {
        id: 's/x',
        title: 'x',
        clauses: ['state.no-webhook.expiry-chargeback'],
        level: 'must',
        run: async () => {
          throw new PreconditionSkip('the profile declares no sandbox control sandbox.chargeback', { declare: ['sandbox.chargeback'] });
        },
      },
      {} as Target,
      { seed: 1, numRuns: 1, webhooks: 'off' },
    );
    expect(r.status).toBe('skipped');
    expect(r.reason).toBe(
      'precondition: the profile declares no sandbox control sandbox.chargeback — declare sandbox.chargeback in the profile to run it',
    );
    expect(r.declare).toEqual(['sandbox.chargeback']);
    const two = await runCheck(
      {
        id: 's/y',
        title: 'y',
        clauses: ['state.no-webhook.expiry-chargeback'],
        level: 'must',
        run: async () => {
          throw new PreconditionSkip('no card payment', { declare: ['cardPayment', 'endpoints.cardPayment'] });
        },
      },
      {} as Target,
      { seed: 1, numRuns: 1, webhooks: 'off' },
    );
    expect(two.reason).toBe('precondition: no card payment — declare cardPayment and endpoints.cardPayment in the profile to run it');
  });

  it('groups the skipped clauses by what to declare (or, for a skip no profile entry lifts, by its reason)', () => {
    const clause = (id: string, basis: string, declare?: string[]) => ({
      id,
      status: 'skipped-precondition',
      basis,
      ...(declare ? { declare } : {}),
    });
    const c = {
      clauses: [
        clause('a.one', 'precondition: no chargeback control — declare sandbox.chargeback in the profile to run it', [
          'sandbox.chargeback',
        ]),
        { id: 'a.two', status: 'passed', basis: 'ok' },
        // The paths are read from the data, never from the text: this basis names no path at all.
        clause('a.three', 'precondition: no chargeback control', ['sandbox.chargeback']),
        clause('a.four', 'precondition: webhooks mode is not full (run with --webhooks full to run it)'),
      ],
    } as unknown as Certificate;
    expect(declareHints(c)).toEqual([
      { hint: 'declare sandbox.chargeback in the profile to run it', clauses: ['a.one', 'a.three'] },
      { hint: 'webhooks mode is not full (run with --webhooks full to run it)', clauses: ['a.four'] },
    ]);
  });

  /**
   * Skips no profile entry can lift: a run flag, the target's own behaviour, or the profile's declared
   * values leaving no room (their reason names the entries). Each is listed by the start of its reason.
   */
  const NOT_DECLARABLE = [
    /^no webhook receiver runs in this run/, // --webhooks off (declare is given when the profile has no webhooks section)
    /^webhooks mode is not full/,
    /^the target is a production environment: its keys are the production keys/,
    /^no declared method leaves a new refund PENDING/,
    /^the \S+ channel range \S+ holds no amount/,
    /^no payout method allows an amount above the low-balance merchant's balance/,
    /^the target created the \S+ refund as/,
    /^the profile declares none of the operations this sequence drives/,
    /^the \S+ (payout )?limits leave room for one amount only/,
    /^the \S+ maximum does not reach above/,
    // A path that carries a number: this request (a lookup by the other number) has none to put there.
    /^endpoints\.\$\{endpoint\} carries /,
    // Time the vendor keeps: the payout ended by itself before the control reached it.
    /^the payout may have ended \$\{ended\} by itself/,
    // The same for a refund, and a checkout that may have expired before the control completing it reached it.
    /^the refund may have ended \$\{ended\} by itself/,
    /^the checkout may have expired by itself/,
    // A declared fact leaves the check nothing to send.
    /^the low-balance merchant's \$\{card\} payments take no refunds/,
    // A balance payments credit (balances.paymentsCredit, declared): its value at the moment is what no profile entry says.
    /^the low-balance merchant's refund balance when the refund is made/,
    // The refund balance with its fee covers every payment the channel can make.
    /^a \$\{card\} payment the check can make is covered by the refund balance with its fee/,
  ];

  it(`every PreconditionSkip thrown in suites/ and harness/ops.ts, \
harness/target.ts declares a profile path, or is known not to be declarable`, () => {
    const files = [join(ROOT, 'harness/ops.ts'), join(ROOT, 'harness/target.ts'), ...walk(join(ROOT, 'suites'))];
    const missing: string[] = [];
    for (const f of files) {
      const text = readFileSync(f, 'utf8');
      // Each call whole, however the formatter laid it out over lines.
      for (const m of text.matchAll(/new PreconditionSkip\(|skipUnless\(/g)) {
        const call = callText(text, m.index + m[0].length);
        if (/declare:/.test(call)) continue;
        const literal = /(['`"])((?:\\.|(?!\1)[^\\])*?)\1/;
        const reason =
          (m[0].startsWith('skipUnless') ? literal.exec(call.slice(topLevelComma(call) + 1)) : literal.exec(call))?.[2] ?? call.trim();
        if (NOT_DECLARABLE.some((p) => p.test(reason))) continue;
        missing.push(`${relative(ROOT, f)}:${text.slice(0, m.index).split('\n').length}: ${reason}`);
      }
    }
    expect(missing).toEqual([]);
  });
});

/** The text of a call's arguments, from just after its `(` to its matching `)` (strings and templates skipped). */
function callText(text: string, start: number): string {
  let depth = 1;
  for (let i = start; i < text.length; i++) {
    const c = text[i]!;
    if (c === "'" || c === '"' || c === '`') {
      for (i++; i < text.length && text[i] !== c; i++) if (text[i] === '\\') i++;
    } else if (c === '(') depth++;
    else if (c === ')' && --depth === 0) return text.slice(start, i);
  }
  return text.slice(start);
}

/** Where a call's first argument ends (its first comma outside brackets and strings). */
function topLevelComma(call: string): number {
  let depth = 0;
  for (let i = 0; i < call.length; i++) {
    const c = call[i]!;
    if (c === "'" || c === '"' || c === '`') {
      for (i++; i < call.length && call[i] !== c; i++) if (call[i] === '\\') i++;
    } else if ('([{'.includes(c)) depth++;
    else if (')]}'.includes(c)) depth--;
    else if (c === ',' && depth === 0) return i;
  }
  return -1;
}

function walk(dir: string): string[] {
  return readdirSync(dir).flatMap((e) => {
    const p = join(dir, e);
    return statSync(p).isDirectory() ? walk(p) : p.endsWith('.ts') ? [p] : [];
  });
}
