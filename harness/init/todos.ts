/**
 * What no probe can learn: other merchants, sandbox controls, test cards with other outcomes, balances.
 * Each is a TODO naming the profile field and what to write there; the draft leaves the field out (it
 * stays valid JSON against the schema) and `<out>.todo.md` lists them all.
 */
import { factsOf } from '../facts/index.js';
import type { Profile } from '../profile/types.js';
import type { State } from './draft.js';
import type { Evidence, Learnt, Todo, ToldOnly } from './evidence.js';

export function addStandingTodos(ev: Evidence, profile: Profile): void {
  const t = (path: string, what: string) => ev.todo(path, what);
  t('merchants.second', 'another active merchant of the sandbox: { "id": …, "secretEnv": "VAR" } (access-control checks need it)');
  t('merchants.frozen', 'a disabled (suspended) merchant: { "id": …, "secretEnv": … } (merchantFrozen checks)');
  t(
    'merchants.lowBalance',
    'a merchant with tiny balances: { "id": …, "secretEnv": …, "payoutBalance": "…", "refundBalance": "…" } (insufficientFunds checks)',
  );
  t(
    'merchants.primary.productionSecretEnv',
    "the variable holding this merchant's production key (auth.env-keys checks the sandbox refuses it); never the key itself in the file",
  );
  // Version 3 facts (docs/PROFILE.md) only the vendor's documentation or dashboard can give.
  t('merchants.primary.name', "the merchant's name as the vendor shows it (auth.merchant-id checks it is refused as a merchant id)");
  t('merchants.primary.login', "a login of the merchant's users (auth.merchant-id checks it is refused as a merchant id)");
  // A profile template's variable as the user writes it, "${name}".
  const v = (name: string) => `\${${name}}`;
  t(
    'sandbox',
    'the sandbox controls, each { "path", "template", "outcomes"? }: completeCheckout, expireCheckout, chargeback, ' +
      "settleRefund, settlePayout (and completeCard, armFailure if the sandbox has them) — from the vendor's sandbox documentation. " +
      `armFailure.failures gives each failure its switch value, one string (${v('failure')}) or, for a switch of several values, ` +
      `an object whose keys are template variables ({ "operation": "query", "error": "500" } fills ${v('operation')}, ${v('error')}); ` +
      `a switch that matches a refund by its refund number: "refundSubject": "merchantRefundNo" and ${v('merchantRefundNo')} ` +
      `(or ${v('subject')}) in its template`,
  );
  const kinds: Record<string, string> = {
    decline: 'the provider declines',
    risk: 'the risk check refuses',
    invalid: 'a bad number',
    noChannel: 'no channel',
    pending: 'stays pending (3-D Secure) until sandbox.completeCard',
  };
  const missing = Object.keys(kinds).filter((k) => !profile.cardPayment?.cards[k as keyof typeof profile.cardPayment.cards]);
  if (profile.cardPayment && missing.length)
    t(
      'cardPayment.cards',
      `test cards init could not find among the published numbers it tried: ` +
        `${missing.map((k) => `${k} (${kinds[k]})`).join(', ')} — from the vendor's test-card list, if it has them`,
    );
  if (profile.cardPayment)
    t(
      'cardPayment.declines',
      `more card numbers the provider declines, beyond cards.decline` +
        `${profile.cardPayment.declines?.length ? ' and those init found' : ''}, ` +
        "from the vendor's test-card list (init tried the published numbers it knows)",
    );
  const methods = profile.methods.checkout.filter((m) => !profile.refunds?.support[m]);
  // Also asked when every method of the primary's is known: another merchant may have a method the primary lacks.
  if (profile.refunds)
    t(
      'refunds.support',
      `refund support ("none", "full" or "partial") of ${methods.length ? methods.join(', ') : 'no method of this merchant'}` +
        ' and of any method only another merchant has: only a card payment can be paid without a sandbox control, so only it was tried',
    );
  // A refund path no probe found (one that carries a number, a name init does not try): the whole section is the vendor's.
  if (!profile.refunds && !profile.endpoints.refundCreate)
    t(
      'refunds',
      'the refund section, whole ({ "template", "support", "queryBy", "data", … }) with endpoints.refundCreate: init found no ' +
        "refund path (a path carrying a number, such as /payments/{order_no}/refunds, is only in the vendor's documentation)",
    );
  if (profile.cardPayment && !profile.cardPayment.pendingStatus)
    t(
      'cardPayment.pendingStatus',
      "the status a card payment awaiting its 3-D Secure step shows, where it is not a new checkout's (version 4)",
    );
  if (profile.refunds && !profile.refunds.supportByMerchant)
    t(
      'refunds.supportByMerchant',
      "refund support of another merchant's methods where it differs from refunds.support, e.g. " +
        '{ "second": { "KLARNA": "none" } } (version 4)',
    );
  if (profile.refunds) {
    t('refunds.failingReason', 'a refund reason that makes the sandbox record the refund as failed, if it has one');
    t('refunds.fee', 'the fee added to a refund when the merchant balance is checked, if any');
    const known = Object.keys(profile.refunds.createdStatus ?? {});
    t(
      'refunds.createdStatus',
      `per method${known.length ? ` other than ${known.join(', ')}` : ''}, whether a new refund is created PENDING or SUCCESS, ` +
        'as the vendor documents it (init refunds only card payments: paying another method needs a sandbox control)',
    );
  }
  if (profile.payouts) {
    t('payouts.balances.primary', "the primary merchant's payout balance (init does not drain it to find out)");
    // No answer lists a target's payout methods: one named as none of init's candidates is only in the vendor's documentation.
    const found = Object.keys(profile.payouts.methods);
    t(
      'payouts.methods',
      `payout methods besides ${found.join(', ') || 'none'}, if the target has others: init tried the names it knows, those the ` +
        'vendor\'s facts name and those the checkout placed; each other\'s entry ({ "cancel", "usdOnly", "payee" }) from the ' +
        "vendor's documentation",
    );
    t('limits.payouts', `the range of each payout method besides ${found.join(', ') || 'none'} (see payouts.methods), if there are others`);
  }
  // Version 4: a payout method's range in another currency; init probes payouts in USD only.
  const facts = factsOf(profile);
  for (const m of Object.keys(profile.payouts?.methods ?? {}))
    if (facts.takesCurrency(m, 'EUR') !== false && facts.payoutLimitsDeclared(m))
      t(
        `limits.payouts.${m}.byCurrency`,
        `${m}'s range in each other currency it takes, where it is not the USD one ({ "EUR": { "min": …, "max": … } }): ` +
          'init probes payouts in USD only',
      );
  // Version 4: no answer tells a fee from a smaller balance, so only the vendor's price list says them.
  t(
    'fees',
    'the fees the vendor charges, per method: fees.payouts.<method>, fees.payments.<method>, fees.refunds.<method> ' +
      '({ "fixed": "0.25", "percent": "0.5", "rounding": "halfUp" }, version 5: "min" and "max" for a fee with a minimum ' +
      'or a cap); a balance check counts them (leave it out if none)',
  );
  // Version 5: init probes as the primary merchant; another merchant's own facts are the vendor's to say.
  t(
    'merchants.second.facts',
    "where another merchant's methods differ from the primary's (their ranges, the currencies a payout method takes, " +
      'refund support, fees, required fields): merchants.<role>.facts, in the shape of the shared sections ' +
      '(e.g. { "payouts": { "methods": { "BANK_TRANSFER": { "currencies": ["EUR"] } } } })',
  );
  t(
    'merchants.lowBalance.facts',
    "the same for the low-balance merchant, where its methods, ranges or fees differ from every merchant's " +
      '(e.g. { "limits": { "payments": { "CARD": { "min": "1.00", "max": "500.00" } } } })',
  );
  t(
    'balances',
    'how the balances move, if they do: balances.paymentsCredit (["payout"] when each successful payment adds its ' +
      'amount less its fee to the payout balance), balances.payoutFee (where a payout fee is taken from)',
  );
  // Version 5: limits no probe of init's finds (its values are short, its queries carry the lookup number alone).
  t(
    'lengths',
    "the target's shorter limits, if it has any: lengths.maxLength.<field> (merchantOrderNo, merchantRefundNo, " +
      'merchantPayoutNo, goodsName, description, metadata, reason, payee, email: the longest value accepted, in characters) ' +
      "and lengths.maxBodyBytes, from the vendor's documentation (init sends short values only)",
  );
  t(
    'queryParams',
    'the fields a payment, refund or payout query needs beside its lookup number, if any (a store id, a date range): ' +
      `queryParams.payment / .refund / .payout as value templates with ${v('merchantId')} and ${v('today')}`,
  );
  if (profile.webhooks && !ev.values.some((v) => v.path === 'webhooks.ackTimeoutMs'))
    t(
      'webhooks.ackTimeoutMs',
      `written as 5 s × the measured time scale (${profile.webhooks.ackTimeoutMs} ms): ` +
        `write the target's real acknowledgement limit if it has a floor (e.g. 1000)`,
    );
}

/**
 * The card payment and payouts parts, when the draft has none: a TODO naming each part and why init could not learn it, so
 * no fact of theirs is left out unsaid: a creation path of a shape init does not try (it tries fixed ones and those carrying
 * the merchant's own number, candidates.ts), or one through which no record of init's was served; a target without card
 * payments or payouts leaves these TODOs out of the profile.
 */
export function addAbsentPartTodos(ev: Evidence, profile: Profile, st: State): void {
  // What init drafted them through: its search's path, even where the draft left it out (paths.ts, served.ts), else the told one.
  const cardPath = st.paths.cardPayment;
  const payoutPath = st.paths.payoutCreate;
  if (!profile.cardPayment) {
    const why = !cardPath
      ? 'init found no card payment path: none of the usual shapes answered, those carrying the merchant order number ' +
        "(such as /api/v1/payments/{merchant_order_no}/card) included; the vendor's documentation gives it"
      : `no card payment init sent to ${cardPath} was charged and its record read (see the card lines above)`;
    ev.todo('methods.card', `the method name card payments are made with, with the cardPayment section: ${why}`);
    ev.todo(
      'cardPayment',
      `the card payment section, whole ({ "template", "cards", "data", … }) with endpoints.cardPayment, if the target takes ` +
        `card payments: ${why}`,
    );
  }
  if (!profile.payouts) {
    const why = !payoutPath
      ? 'init found no payout creation path: none of the usual shapes answered, those carrying the merchant payout number ' +
        "(such as /api/v1/payouts/{merchant_payout_no}/submit) included; the vendor's documentation gives it"
      : `init did not learn enough through ${payoutPath} to write it (see the payout lines above)`;
    ev.todo(
      'payouts',
      `the payouts section, whole ({ "template", "methods", "queryBy", "data", … }) with endpoints.payoutCreate, if the target ` +
        `makes payouts: ${why}`,
    );
    ev.todo('limits.payouts', `each payout method's range, with the payouts section: ${why}`);
  }
}

/** `next`: the doctor and run commands as they work pasted where init was run (harness/kit/invocation.ts). */
export function todoMarkdown(
  profilePath: string,
  todos: Todo[],
  learnt: Learnt[],
  next: { doctor: string; run: string },
  told: ToldOnly[] = [],
): string {
  const L = [
    `# TODO for ${profilePath}`,
    '',
    `Drafted by mpsi-conformance init. The profile is valid as it stands; each item below is a field init ` +
      `could not learn by probing. Write it into the profile, then run \`${next.doctor}\` and \`${next.run}\`.`,
    '',
  ];
  for (const t of todos) L.push(`- [ ] \`${t.path}\` — ${t.what}`);
  if (told.length) {
    L.push('', '## Written as the vendor told it, not proved by a probe (confirm each)', '');
    for (const t of told) L.push(`- \`${t.path}\` = \`${JSON.stringify(t.value)}\` — from ${t.source}`);
  }
  L.push('', '## What init learnt, with its evidence', '');
  for (const l of learnt) L.push(`- \`${l.path}\` = \`${JSON.stringify(l.value)}\` — ${l.evidence}`);
  return `${L.join('\n')}\n`;
}
