/**
 * A method's declared limits as channels: one range (`min`/`max`), or several channels whose
 * ranges may leave gaps (`channels`). An amount is accepted when some channel's range holds it
 * (INTERFACE.md › Limits: "inside the minimum and maximum of at least one enabled channel").
 */
import { centsNumberOf, valueOfCents } from './money.js';
import type { ChannelLimits, PayoutLimits } from '../profile/types.js';

export interface CentsSpan {
  min: number;
  max: number;
}

/** The channels' ranges in cents, sorted and merged where they touch or overlap. */
export function channelSpans(lim: ChannelLimits): CentsSpan[] {
  const raw = (lim.channels ?? [lim]).map((c) => ({ min: centsNumberOf(c.min), max: centsNumberOf(c.max) })).sort((a, b) => a.min - b.min);
  const out: CentsSpan[] = [];
  for (const r of raw) {
    const last = out[out.length - 1];
    if (last && r.min <= last.max + 1) last.max = Math.max(last.max, r.max);
    else out.push({ ...r });
  }
  return out;
}

/** Amounts between two channels, inside the overall bounds, that no channel accepts. */
export function channelGaps(lim: ChannelLimits): CentsSpan[] {
  const spans = channelSpans(lim);
  const gaps: CentsSpan[] = [];
  for (let i = 1; i < spans.length; i++) gaps.push({ min: spans[i - 1]!.max + 1, max: spans[i]!.min - 1 });
  return gaps;
}

export function acceptsCents(lim: ChannelLimits, cents: number): boolean {
  return channelSpans(lim).some((s) => cents >= s.min && cents <= s.max);
}

/** `preferred` when a channel accepts it, else the minimum of the channel nearest above it (or the last channel's maximum). */
export function amountInside(lim: ChannelLimits, preferred = '10.00'): string {
  const want = centsNumberOf(preferred);
  if (acceptsCents(lim, want)) return preferred;
  const spans = channelSpans(lim);
  const above = spans.find((s) => s.min > want);
  return valueOfCents(above ? above.min : spans[spans.length - 1]!.max);
}

/** A payout method's limits in `currency`: its own range there (`byCurrency`, version 4), else its USD ones. */
export function payoutLimitsIn(lim: PayoutLimits, currency: string): ChannelLimits {
  const own = currency === 'USD' ? undefined : lim.byCurrency?.[currency];
  if (own) return own;
  const { byCurrency: _, ...usd } = lim;
  return usd;
}
