/**
 * Webhooks reach the receiver: a paid order's payment.updated arrives at the receiver (through
 * publicUrl when the profile gives one) within deliveryWaitMs. And, when a selected check waits on a webhook, the
 * target's clock: the receiver refuses that first delivery, and the wait before the retry ("about 15 seconds" in the
 * document) gives the ratio, judged against webhooks.timeScale (harness/doctor/clock.ts).
 */
import { add, type DoctorContext } from './context.js';
import { paidOrder } from './cards.js';
import { CLOCK_DECIDES, judgeClock } from './clock.js';

export async function checkWebhooks(ctx: DoctorContext): Promise<void> {
  const wh = ctx.loaded.profile.webhooks;
  if (!wh) return;
  if (!ctx.webhookClock)
    add(ctx, 'not-verifiable', 'webhooks.timeScale', "the target's clock ratio", {
      answered: 'not asked: no selected check waits on a webhook',
    });
  let receiver: ReturnType<typeof ctx.t.receiver>;
  try {
    receiver = ctx.t.receiver();
  } catch {
    add(ctx, 'not-verifiable', 'webhooks.receiver', 'webhooks reach the receiver', {
      answered: 'not asked: no receiver runs (--webhooks off)',
    });
    // No webhook check runs without a receiver: nothing depends on the clock then.
    if (ctx.webhookClock)
      add(ctx, 'not-verifiable', 'webhooks.timeScale', "the target's clock ratio", { answered: 'not asked: no receiver runs' });
    return;
  }
  ctx.progress('webhooks reach the receiver');
  const field = wh.receiver?.publicUrl !== undefined ? 'webhooks.receiver.publicUrl' : 'webhooks.receiver';
  const claim = `a webhook reaches the receiver at ${receiver.url} within webhooks.deliveryWaitMs (${wh.deliveryWaitMs} ms)`;
  const started = Date.now();
  const merchantOrderNo = ctx.t.newNo('order');
  // Refused first (HTTP 401, which no target takes for an acknowledgement), then acknowledged: the retry's wait is the clock.
  if (ctx.webhookClock) receiver.script(merchantOrderNo, ['reject', 'success']);
  const { order, ex } = await paidOrder(ctx, 'doctor: a paid order whose webhook must arrive', { merchantOrderNo });
  if (!order) {
    clockNotAsked(ctx, 'no paid order could be made');
    add(ctx, 'not-verifiable', field, claim, {
      answered: 'no paid order could be made (cardPayment.cards.success, or sandbox.completeCheckout)',
      ex: [ex],
    });
    return;
  }
  if (
    ex &&
    !ex.request.body.toString('utf8').includes(receiver.url) &&
    !ctx.exchanges.some((e) => e.request.body.toString('utf8').includes(receiver.url))
  ) {
    // biome-ignore lint/suspicious/noTemplateCurlyInString: the profile's template variable, shown as the user writes it
    const variable = '${notifyUrl}';
    clockNotAsked(ctx, 'no webhook can be asked for');
    add(ctx, 'not-verifiable', field, claim, {
      answered: `the profile's templates send no ${variable} (checkout.extras, cardPayment.template), so no webhook can be asked for`,
      fix: `put "notify_url": "${variable}" in checkout.extras and cardPayment.template`,
      ex: [ex],
    });
    return;
  }
  const got = await receiver.waitFor({ merchantNo: order.merchantOrderNo }, (ds) => ds.length > 0, wh.deliveryWaitMs);
  const ms = Date.now() - started;
  if (got.length > 0) {
    add(ctx, 'verified', field, claim, { answered: `${got.length} delivery after ${got[0]!.receivedAt - started} ms`, ex: [ex] });
    add(ctx, 'verified', 'webhooks.deliveryWaitMs', `deliveryWaitMs (${wh.deliveryWaitMs} ms) is long enough for a delivery`, {
      answered: `the first delivery came after ${got[0]!.receivedAt - started} ms`,
    });
    if (ctx.webhookClock) await judgeClock(ctx, receiver, order.merchantOrderNo, got[0]!);
  } else {
    clockNotAsked(ctx, 'no webhook arrived');
    const fix =
      field === 'webhooks.receiver.publicUrl'
        ? `webhooks.receiver.publicUrl (${receiver.url}) must be an address the target can reach that forwards to the ` +
          `receiver on ${wh.receiver?.host ?? '127.0.0.1'}:${wh.receiver?.port ?? 0}; or raise webhooks.deliveryWaitMs`
        : `the target cannot reach ${receiver.url}: give webhooks.receiver.publicUrl ` +
          `(a tunnel or public address), or raise webhooks.deliveryWaitMs`;
    add(ctx, 'wrong', field, claim, {
      expected: 'a delivery',
      answered: `no delivery for ${order.merchantOrderNo} in ${ms} ms (${receiver.deliveries().length} deliveries in all)`,
      fix,
      ex: [ex],
    });
  }
}

/** The clock a selected check depends on could not be measured: said so, with why. */
function clockNotAsked(ctx: DoctorContext, why: string): void {
  if (ctx.webhookClock)
    add(ctx, 'not-verifiable', 'webhooks.timeScale', "the target's clock ratio", {
      answered: `not measured: ${why}`,
      decides: [...CLOCK_DECIDES],
    });
}
