/**
 * A doctor item that cannot isolate its fact is not verifiable, never WRONG: the channel ranges a vendor documents for a
 * method whose every channel is down (the reference's VENMO) cannot be shown by any payment of it. The doctor calls
 * nothing WRONG, proposes no fix that contradicts another declared fact (listing the no-channel method among the
 * checkout methods), and the checks with that true profile pass. Where several refusals of the document hold at once
 * (no channel available, and no available channel accepting the amount), either passes.
 */
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import { runDoctor } from '../../harness/doctor/run.js';
import { sign } from '../../harness/http/signing.js';
import { startEmbeddedReference } from '../../harness/run/embedded.js';
import { loadProfile } from '../../harness/profile/load.js';
import { conformantRun } from '../../harness/proof/run.js';
import { loadSuites } from '../../harness/run/suites.js';
import { profileWith, type Json } from './support.js';

/** The reference's no-channel method (reference/methods.ts NO_CHANNEL_METHODS), listed for the primary with its ranges. */
function noChannelWithRanges(p: Json): void {
  p.merchants.primary.paymentMethods = [...p.methods.checkout, p.methods.noChannel];
  p.limits.payments[p.methods.noChannel] = {
    min: '1.00',
    max: '500.00',
    channels: [
      { min: '1.00', max: '100.00' },
      { min: '200.00', max: '500.00' },
    ],
  };
}

describe('doctor: a fact no probe isolates is not verifiable', () => {
  it(`lists the ranges of a method whose every channel is down as not verifiable, not WRONG, \
and proposes no fix that contradicts methods.noChannel`, async () => {
    const loaded = loadProfile(profileWith(noChannelWithRanges));
    const method = loaded.profile.methods.noChannel!;
    const r = await runDoctor({ loaded, baseUrl: 'embedded', webhooks: false });
    expect(r.items.filter((i) => i.status === 'wrong')).toEqual([]);
    expect(r.exitCode).toBe(0);
    const ranges = r.items.filter((i) => i.path.startsWith(`limits.payments.${method}`) && i.status !== 'warning');
    expect(ranges.map((i) => `${i.path} ${i.status}`)).toEqual([`limits.payments.${method} not-verifiable`]);
    expect(ranges[0]!.answered).toMatch(/every channel down \(methods\.noChannel\)/);
    // Enabled for the primary with every channel down: its own line is verified by "no payment channel available".
    expect(r.items.find((i) => i.path === `merchants.primary.paymentMethods[${loaded.profile.methods.checkout.length}]`)?.status).toBe(
      'verified',
    );
    for (const i of r.items) expect(`${i.path}: ${i.fix ?? ''}`).not.toMatch(new RegExp(`add ${method} to methods\\.checkout`));
    const warning = r.items.find((i) => i.status === 'warning' && i.path === `limits.payments.${method}`);
    expect(warning?.fix).toMatch(/keep it as documentation/);
  }, 60_000);

  it('proposes no fix that adds the method not enabled for the primary to methods.checkout', async () => {
    const r = await runDoctor({
      loaded: loadProfile(profileWith((p) => (p.limits.payments[p.methods.notEnabled] = { min: '1.00', max: '10.00' }))),
      baseUrl: 'embedded',
      webhooks: false,
    });
    const warning = r.items.find((i) => i.status === 'warning' && i.path === 'limits.payments.KLARNA');
    expect(warning?.answered).toMatch(/methods\.notEnabled/);
    expect(warning?.fix).not.toMatch(/methods\.checkout/);
  }, 60_000);

  it(`judges a range only by a refusal that names the amount: a method the target does not enable (3003) is WRONG in the \
second merchant's list, its ranges not verifiable`, async () => {
    const r = await runDoctor({
      loaded: loadProfile(
        profileWith((p) => {
          p.merchants.second.paymentMethods = [...p.methods.checkout, p.methods.notEnabled];
          p.limits.payments[p.methods.notEnabled] = { min: '1.00', max: '10.00' };
        }),
      ),
      baseUrl: 'embedded',
      webhooks: false,
    });
    const wrong = r.items.filter((i) => i.status === 'wrong').map((i) => i.path);
    expect(wrong).toEqual(['merchants.second.paymentMethods[5]']);
    const ranges = r.items.filter((i) => i.path.startsWith('limits.payments.KLARNA.'));
    expect(ranges.length).toBeGreaterThan(0);
    for (const i of ranges) {
      expect(i.status).toBe('not-verifiable');
      expect(i.answered).toMatch(/does not name the amount/);
    }
  }, 60_000);

  it('runs CONFORMANT with that true profile: the checks fail nothing on the reference (quick)', async () => {
    const loaded = loadProfile(profileWith(noChannelWithRanges));
    const run = await conformantRun(loaded, await loadSuites(), 4242, 5, 'quick');
    expect(run.failed).toEqual([]);
    expect(run.passed).toBeGreaterThan(150);
  }, 600_000);
});

function bodyOf(req: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve) => {
    const parts: Buffer[] = [];
    req.on('data', (c: Buffer) => parts.push(c));
    req.on('end', () => resolve(Buffer.concat(parts)));
  });
}

/**
 * The reference behind a proxy that answers a checkout of `method` itself with 2006 amountOutOfRange ("No available
 * channel accepts the amount"), signed for the merchant that asked (the other answer the document gives a method without
 * a channel); or, with `answer` 403, every card payment with HTTP 403 forbidden (unsigned, as an authentication error
 * is). Everything else goes to the reference as sent.
 */
async function answering2006For(method: string, merchants: Record<string, string>, answer: '2006' | '403' = '2006') {
  const ref = await startEmbeddedReference(loadProfile(profileWith(() => {})).profile);
  const server = createServer(async (req, res) => {
    const raw = await bodyOf(req);
    const id = String(req.headers['x-merchantid'] ?? '');
    let parsed: Record<string, unknown> | undefined;
    try {
      parsed = JSON.parse(raw.toString('utf8')) as Record<string, unknown>;
    } catch {}
    if (req.url?.endsWith('/payments/card') && answer === '403') {
      res.writeHead(403, { 'Content-Type': 'application/json' });
      res.end(JSON.stringify({ code: 403, msg: 'Invalid signature|forbidden' }));
      return;
    }
    if (req.url?.endsWith('/payments/checkout') && parsed?.['payment_method'] === method && merchants[id] !== undefined) {
      const body = Buffer.from(JSON.stringify({ code: 2006, msg: 'No available channel accepts the amount|amountOutOfRange' }));
      res.writeHead(200, { 'Content-Type': 'application/json', ...sign({ merchantId: id, secret: merchants[id]! }, body) });
      res.end(body);
      return;
    }
    const headers = Object.fromEntries(
      Object.entries(req.headers).filter(([k]) => !['host', 'connection', 'content-length'].includes(k)),
    ) as Record<string, string>;
    const r = await fetch(`${ref.url}${req.url}`, { method: req.method, headers, body: raw });
    const back = Buffer.from(await r.arrayBuffer());
    const out = Object.fromEntries([...r.headers].filter(([k]) => !['transfer-encoding', 'connection', 'content-length'].includes(k)));
    res.writeHead(r.status, out);
    res.end(back);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await ref.close();
    },
  };
}

describe('doctor: where several refusals of the document hold at once, any of them passes', () => {
  it("verifies the no-channel method in a merchant's list by 2006 amountOutOfRange as well as by validationFailed", async () => {
    const loaded = loadProfile(profileWith(noChannelWithRanges));
    const method = loaded.profile.methods.noChannel!;
    const secrets = Object.fromEntries(Object.values(loaded.merchants).flatMap((m) => (typeof m === 'object' ? [[m.id, m.secret]] : [])));
    const proxy = await answering2006For(method, secrets);
    try {
      const r = await runDoctor({ loaded, baseUrl: proxy.url, webhooks: false });
      const listed = r.items.find((i) => i.path === `merchants.primary.paymentMethods[${loaded.profile.methods.checkout.length}]`);
      expect(listed?.status, JSON.stringify(listed)).toBe('verified');
      expect(listed?.answered).toMatch(/code 2006 amountOutOfRange/);
      expect(r.items.filter((i) => i.clauses?.includes('err.pay.no-channel'))).toEqual([]);
      expect(r.items.filter((i) => i.status === 'wrong')).toEqual([]);
    } finally {
      await proxy.close();
    }
  }, 60_000);
});

describe('doctor: an authentication refusal of a later probe shows nothing of its fact', () => {
  it('lists the test cards of card payments refused HTTP 403 (the credentials verified) as not verifiable, not WRONG', async () => {
    const loaded = loadProfile(profileWith(() => {}));
    const proxy = await answering2006For(loaded.profile.methods.checkout[0]!, {}, '403');
    try {
      const r = await runDoctor({ loaded, baseUrl: proxy.url, webhooks: false });
      expect(r.items.find((i) => i.path === 'merchants.primary')?.status).toBe('verified');
      const success = r.items.find((i) => i.path === 'cardPayment.cards.success');
      expect(success?.status, JSON.stringify(success)).toBe('not-verifiable');
      expect(success?.answered).toMatch(/refused by authentication/);
      expect(r.items.filter((i) => i.status === 'wrong')).toEqual([]);
    } finally {
      await proxy.close();
    }
  }, 60_000);
});
