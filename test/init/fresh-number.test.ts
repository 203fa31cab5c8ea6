/**
 * A creation init makes under a number of its own, refused 422 systemBusy, is sent again under a new number: the
 * document's advice ("use a new order number"), and a sandbox may fail a number init happened to draw (a magic suffix
 * nobody told init of), which would otherwise cost a measure (the webhooks' acknowledgement limit).
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { learnCard } from '../../harness/init/card-refund.js';
import { type CheckoutShape, classifyMethods } from '../../harness/init/checkout.js';
import { Evidence } from '../../harness/init/evidence.js';
import { type Answer, Prober, postFresh } from '../../harness/init/prober.js';

describe("a creation under init's own number refused as systemBusy", () => {
  let server: Server | undefined;
  afterEach(async () => {
    await new Promise<void>((r) => (server ? server.close(() => r()) : r()));
    server = undefined;
  });

  /** A target that fails every order number `busy` takes (a sandbox's magic number), and takes the rest. */
  async function target(busy: (no: string) => boolean): Promise<{ url: string; seen: string[] }> {
    const seen: string[] = [];
    server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const no = String((JSON.parse(Buffer.concat(chunks).toString('utf8')) as { merchant_order_no: string }).merchant_order_no);
        seen.push(no);
        const body = busy(no) ? { code: 422, msg: 'Order creation failed|systemBusy' } : { code: 0, msg: 'success', data: {} };
        res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(body));
      });
    });
    await new Promise<void>((r) => server!.listen(0, '127.0.0.1', r));
    return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, seen };
  }

  const prober = (url: string) =>
    new Prober({ baseUrl: url, merchantId: 'M1', secret: 'k', budget: 50, timeLimitMs: 30_000, deadlineMs: 5000, progress: () => {} });

  it('is sent again under a new number, and the number the target took is the one returned', async () => {
    const t = await target((no) => no.endsWith('1'));
    const p = prober(t.url);
    try {
      const { answer, no } = await postFresh(p, '/pay', 'o', (n) => ({ merchant_order_no: n }));
      expect(answer.code).toBe(0);
      expect(t.seen).toHaveLength(2);
      expect(no).toBe(t.seen[1]);
      expect(t.seen[0]).not.toBe(t.seen[1]);
    } finally {
      await p.close();
    }
  });

  it('is sent at most three times in all, and a target busy for every number is answered as it answered', async () => {
    const t = await target(() => true);
    const p = prober(t.url);
    try {
      const { answer } = await postFresh(p, '/pay', 'o', (n) => ({ merchant_order_no: n }));
      expect(answer.key).toBe('systemBusy');
      expect(new Set(t.seen).size).toBe(3);
    } finally {
      await p.close();
    }
  });
});

describe('a checkout method whose every checkout is answered systemBusy', () => {
  type Obj = Record<string, unknown>;
  /** A stub prober: `answer` decides from the checkout's body; every other request is not made. */
  const stub = (answer: (body: Obj) => Answer) => {
    let n = 0;
    return { newNo: () => `init-t-o${++n}`, phase: () => {}, post: async (_path: string, body: Obj) => answer(body) } as unknown as Prober;
  };
  const shape = (): CheckoutShape => ({
    path: '/api/v1/payments/checkout',
    extras: {},
    byMethod: {},
    notifyUrl: 'http://127.0.0.1:1/hook',
  });
  const busy: Answer = { envelope: true, http: 200, code: 422, key: 'systemBusy', message: 'Order creation failed' };
  const paid = (body: Obj): Answer => ({ envelope: true, http: 200, code: 0, data: { order_no: 'O1', trans_amount: body.trans_amount } });

  it('at the amounts the sandbox fails (a magic ending .37) is tried at the next amount, and placed there', async () => {
    const p = stub((b) => (String((b.trans_amount as { value: string }).value).endsWith('.37') ? busy : paid(b)));
    const [found] = await classifyMethods(p, new Evidence(() => {}), shape(), [], ['GOOGLE_PAY']);
    expect(found?.cls).toBe('accepted');
    expect(found?.evidence).toMatch(/^10\.37 → .*systemBusy.*; 1\.37 → .*; 100\.37 → .*; 2\.03 → HTTP 200 code 0 success/);
  });

  it('at every amount is placed nowhere, and the TODOs ask the vendor whether it is a checkout method', async () => {
    const ev = new Evidence(() => {});
    const [found] = await classifyMethods(
      stub(() => busy),
      ev,
      shape(),
      [],
      ['GOOGLE_PAY'],
    );
    expect(found?.cls).toBe('other');
    expect(ev.todos.map((t) => t.path)).toEqual([
      'methods.checkout (GOOGLE_PAY)',
      'methods.pricePoint (GOOGLE_PAY)',
      'pricePoints (GOOGLE_PAY)',
    ]);
  });
});

describe('the first card payment, answered systemBusy for its order number', () => {
  it('is sent again under a new number, and the first published card is the one learnt (not the next that charges)', async () => {
    let n = 0;
    const numbers: string[] = [];
    const p = {
      newNo: () => `init-t-o${++n}`,
      phase: () => {},
      post: async (_path: string, body: Record<string, unknown>): Promise<Answer> => {
        const no = String(body.merchant_order_no);
        numbers.push(no);
        // A sandbox failing the order numbers that end in 1 (a magic suffix): every card it takes charges.
        if (no.endsWith('1')) return { envelope: true, http: 200, code: 422, key: 'systemBusy', message: 'Order creation failed' };
        return { envelope: true, http: 200, code: 0, data: { order_no: `S-${no}`, status: 'SUCCESS' } };
      },
    } as unknown as Prober;
    const ev = new Evidence(() => {});
    const card = await learnCard(p, ev, '/api/v1/payments/create', ['CARD'], 'order_no', 'http://127.0.0.1:1/hook');
    expect(card?.card.card_number).toBe('4242424242424242');
    expect(numbers).toEqual(['init-t-o1', 'init-t-o2']);
  });
});
