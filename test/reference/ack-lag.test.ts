/**
 * The reference never charges a receiver with its own machine's delays. A reply that came
 * within the ack limit while the sandbox's process was stalled is read before the late limit timer
 * decides; the limit widens by no more than that lateness, so a reply ten times late is still no answer.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { postOnce } from '../../reference/webhooks/post.js';

let server: Server | undefined;

afterEach(async () => {
  server?.closeAllConnections();
  await new Promise<void>((r) => (server ? server.close(() => r()) : r()));
  server = undefined;
});

async function replyingAfter(ms: number): Promise<string> {
  return serving((req, res) => req.on('end', () => setTimeout(() => res.end('success'), ms)));
}

async function serving(onRequest: (req: IncomingMessage, res: ServerResponse) => void): Promise<string> {
  server = createServer((req, res) => {
    req.resume();
    onRequest(req, res);
  });
  await new Promise<void>((r) => server!.listen(0, '127.0.0.1', () => r()));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
}

function blockFor(ms: number): void {
  const end = performance.now() + ms;
  while (performance.now() < end) {
    // the sandbox's process cannot run
  }
}

const isAck = (b: Buffer) => b.toString() === 'success';

describe('the ack limit on a stalled sandbox', () => {
  it('acknowledges a reply that came in time while the sandbox could not read it', async () => {
    const limitMs = 1_000;
    const start = performance.now();
    // The receiver answers at once and then the whole process (sandbox included) stalls until past the limit: the
    // reply waits unread behind the sandbox's late timer. Stalling inside the handler, not after a guessed pause,
    // keeps the order certain on a loaded machine (the request may take long to arrive, but not a whole second).
    const url = await serving((req, res) =>
      req.on('end', () => {
        res.end('success');
        blockFor(Math.max(0, start + limitMs - performance.now()) + 300);
      }),
    );
    const r = await postOnce(url, {}, Buffer.from('{}'), limitMs, isAck, new AbortController().signal);
    expect(r.acked, r.summary).toBe(true);
    expect(r.summary).toMatch(/limit widened by \d+ ms/);
  });

  it('does not count a stall before the request was written against the receiver', async () => {
    // Old behaviour: the limit ran from the call, so a sandbox that stalled before writing took the receiver's time.
    const url = await replyingAfter(400);
    const attempt = postOnce(url, {}, Buffer.from('{}'), 1_000, isAck, new AbortController().signal);
    blockFor(800);
    const r = await attempt;
    expect(r.acked, r.summary).toBe(true);
  });

  it('still refuses a reply far later than the limit and the time the sandbox lost', async () => {
    const url = await replyingAfter(1_500);
    const attempt = postOnce(url, {}, Buffer.from('{}'), 150, isAck, new AbortController().signal);
    await new Promise((r) => setTimeout(r, 10));
    blockFor(100);
    const r = await attempt;
    expect(r.acked).toBe(false);
    expect(r.summary).toMatch(/^no complete reply within 150 ms/);
  });
});
