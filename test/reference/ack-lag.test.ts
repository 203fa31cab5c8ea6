/**
 * Issue 23: the reference never charges a receiver with its own machine's delays. A reply that came
 * within the ack limit while the sandbox's process was stalled is read before the late limit timer
 * decides; the limit widens by no more than that lateness, so a reply ten times late is still no answer.
 */
import { createServer, type Server } from 'node:http';
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
  server = createServer((req, res) => {
    req.resume();
    req.on('end', () => setTimeout(() => res.end('success'), ms));
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
    const url = await replyingAfter(30);
    const attempt = postOnce(url, {}, Buffer.from('{}'), 150, isAck, new AbortController().signal);
    // Let the request reach the receiver, then stall past the limit: the reply waits unread behind our late timer.
    await new Promise((r) => setTimeout(r, 10));
    blockFor(400);
    const r = await attempt;
    expect(r.acked, r.summary).toBe(true);
    expect(r.summary).toMatch(/limit widened by \d+ ms/);
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
