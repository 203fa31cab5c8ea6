/**
 * The reference's own scheduling stalls, written down for a kit that started it on the same machine
 * (`serve --lag-file FILE`): when this process is late, its webhooks are late, and that time is the
 * machine's, not the target's. One line per stall, `<ended at, ms since the epoch> <ms late>`, appended as it
 * ends. Node built-ins only: reference/ never imports harness/ (which reads the file, harness/check/lag.ts).
 */
import { appendFileSync } from 'node:fs';
import type { WritePlan } from './webhooks/outbox.js';

/** Tick interval, ms. */
const INTERVAL_MS = 10;
/** Lateness below this is ordinary work, not worth a line. */
const MIN_STALL_MS = 20;

/** Starts writing stalls to `file`; the returned function stops. Never keeps the process alive. */
export function logStalls(file: string): () => void {
  let expectedAt = Date.now() + INTERVAL_MS;
  let writable = true;
  const timer = setInterval(() => {
    const now = Date.now();
    const late = now - expectedAt;
    expectedAt = now + INTERVAL_MS;
    if (late < MIN_STALL_MS || !writable) return;
    try {
      appendFileSync(file, `${now} ${late}\n`);
    } catch {
      // A kit that removed the file has stopped reading it: the reference goes on serving.
      writable = false;
    }
  }, INTERVAL_MS);
  timer.unref();
  return () => clearInterval(timer);
}

/**
 * When each webhook attempt was written whole, for the same kit (`serve --lag-file FILE` writes them to `FILE.writes`):
 * one line per attempt, `<written at, ms since the epoch> <X-Nonce> <due at> <wait, ms>`. Its receiver notes an arrival
 * later than this only by time our machine lost between the two processes (loopback), and the sandbox writes an attempt
 * later than it was due only by time this process lost: neither is the sandbox's to answer for.
 */
export function logWrites(file: string): (nonce: string, at: number, plan?: WritePlan) => void {
  let writable = true;
  return (nonce, at, plan) => {
    if (!writable || !/^[\x21-\x7e]{1,128}$/.test(nonce)) return;
    try {
      const planned = plan ? ` ${Math.round(plan.dueAt)} ${Math.round(plan.waitMs)}` : '';
      appendFileSync(file, `${at} ${nonce}${planned}\n`);
    } catch {
      writable = false;
    }
  };
}

/** Where the attempts' write times go beside a stall file (logWrites). */
export function writesFileOf(lagFile: string): string {
  return `${lagFile}.writes`;
}
