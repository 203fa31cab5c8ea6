/**
 * The parameters a query needs beside its lookup number (version 5, `queryParams`): "Only `merchant_order_no`/`order_no`
 * lookup inputs are shown, other query parameters: not shown." A service may want a store id or a date range on every
 * query; the profile says them as value templates, and every payment, refund and payout query the kit sends carries
 * them, the lookup numbers (or their absence, in the checks of the lookup rules) as the check means them.
 */
import { fillTemplate } from './template.js';
import type { Profile, QueryParams } from './types.js';

export type QueryKind = keyof QueryParams;

/** The query kind of each query endpoint. */
export const QUERY_KIND_OF: Readonly<Record<string, QueryKind>> = {
  paymentQuery: 'payment',
  refundQuery: 'refund',
  payoutQuery: 'payout',
};

/** The UTC date, YYYY-MM-DD. */
function today(now: Date): string {
  return now.toISOString().slice(0, 10);
}

/** The query's extra fields for the merchant sending it (none when the profile says none). */
export function queryParamsFor(
  profile: Pick<Profile, 'queryParams'>,
  kind: QueryKind,
  merchantId: string,
  now: Date = new Date(),
): Record<string, unknown> {
  const template = profile.queryParams?.[kind];
  if (!template) return {};
  return fillTemplate(template, { merchantId, today: today(now) });
}

/** The body with the query's extra fields added; a field the body already has (a lookup number) keeps its value. */
export function withQueryParams(
  profile: Pick<Profile, 'queryParams'>,
  kind: QueryKind,
  merchantId: string,
  body: Record<string, unknown>,
): Record<string, unknown> {
  const extra = queryParamsFor(profile, kind, merchantId);
  const out: Record<string, unknown> = { ...body };
  for (const [k, v] of Object.entries(extra)) if (!(k in out)) out[k] = v;
  return out;
}
