/**
 * A real local webhook receiver. Each hit is recorded with its raw bytes and arrival time; the
 * reply is decided per hit by a script, so tests can play a receiver that is slow, wrong or down.
 */
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface Hit {
  at: number;
  headers: IncomingHttpHeaders;
  raw: Buffer;
  // biome-ignore lint/suspicious/noExplicitAny: webhook bodies are asserted field by field
  json: any;
}

export interface ReplyPlan {
  status?: number;
  body?: string;
  delayMs?: number;
}

export type Script = (hit: Hit, index: number) => ReplyPlan;

export const ACK: Script = () => ({ status: 200, body: 'success' });
export const NEVER_ACK: Script = () => ({ status: 200, body: 'fail' });

export interface Receiver {
  url: string;
  port: number;
  hits: Hit[];
  script: Script;
  /** Resolves once `n` hits matching `filter` arrived, or rejects after `timeoutMs`. */
  waitFor(n: number, timeoutMs?: number, filter?: (h: Hit) => boolean): Promise<Hit[]>;
  close(): Promise<void>;
}

export async function startReceiver(script: Script = ACK, port = 0): Promise<Receiver> {
  const hits: Hit[] = [];
  const waiters = new Set<() => void>();
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const raw = Buffer.concat(chunks);
      let json: unknown;
      try {
        json = JSON.parse(raw.toString('utf8'));
      } catch {
        json = undefined;
      }
      const hit: Hit = { at: performance.now(), headers: req.headers, raw, json };
      hits.push(hit);
      for (const w of waiters) w();
      const plan = receiver.script(hit, hits.length - 1);
      const reply = (): void => {
        if (res.destroyed) return;
        res.writeHead(plan.status ?? 200, { 'Content-Type': 'text/plain' });
        res.end(plan.body ?? 'success');
      };
      if (plan.delayMs) setTimeout(reply, plan.delayMs);
      else reply();
    });
  });
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  const actual = (server.address() as AddressInfo).port;
  const receiver: Receiver = {
    url: `http://127.0.0.1:${actual}/hook`,
    port: actual,
    hits,
    script,
    waitFor(n, timeoutMs = 10_000, filter = () => true) {
      return new Promise((resolve, reject) => {
        const check = (): void => {
          const matched = hits.filter(filter);
          if (matched.length >= n) {
            waiters.delete(check);
            clearTimeout(timer);
            resolve(matched);
          }
        };
        const timer = setTimeout(() => {
          waiters.delete(check);
          reject(new Error(`expected ${n} webhook hits, got ${hits.filter(filter).length}`));
        }, timeoutMs);
        waiters.add(check);
        check();
      });
    },
    close() {
      return new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
    },
  };
  return receiver;
}

export function sleep(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms));
}
