/**
 * Where a run's time goes. With MPSI_TRACE_EXCHANGES=<file>, every exchange the kit records (doctor and
 * checks, in every worker process) and every doctor phase's start is appended to <file> as one JSON line, so that
 * bench/latency-where.ts can draw the timeline. Off (the default), it costs one property read per exchange.
 */
import { appendFileSync } from 'node:fs';
import { type Exchange, isOurRequest } from './exchange.js';

const file = process.env.MPSI_TRACE_EXCHANGES;

export interface TraceLine {
  pid: number;
  /** Epoch ms. */
  at: number;
  /** A doctor phase's start (ctx.progress). */
  phase?: string;
  checkId?: string;
  label?: string;
  method?: string;
  /** Epoch ms the exchange started (before any wait for a slot) and its round trip and queueing, ms. */
  startedAt?: number;
  totalMs?: number;
  queuedMs?: number;
  /** The CLI's round-trip tries before vitest starts (harness/run/round-trip.ts): when they began and ended, epoch ms. */
  roundTrip?: { startedAt: number; endedAt: number; ms?: number };
}

export function tracing(): boolean {
  return file !== undefined && file !== '';
}

function write(line: Omit<TraceLine, 'pid' | 'at'>): void {
  if (!tracing()) return;
  appendFileSync(file!, `${JSON.stringify({ pid: process.pid, at: Date.now(), ...line })}\n`);
}

export function traceExchange(ex: Exchange, checkId: string | undefined): void {
  // The target's webhook deliveries are not our round trips.
  if (!tracing() || !isOurRequest(ex)) return;
  write({
    ...(checkId !== undefined ? { checkId } : {}),
    label: ex.label,
    method: ex.request.method,
    startedAt: Date.parse(ex.timings.startedAt),
    totalMs: ex.timings.totalMs,
    ...(ex.timings.queuedMs !== undefined ? { queuedMs: ex.timings.queuedMs } : {}),
  });
}

export function tracePhase(phase: string): void {
  write({ phase });
}

export function traceRoundTrip(startedAt: number, ms: number | undefined): void {
  write({ roundTrip: { startedAt, endedAt: Date.now(), ...(ms !== undefined ? { ms } : {}) } });
}
