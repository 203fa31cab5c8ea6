/**
 * The version-5 request-shape genes (fixtures/arbitraries/genes/request-shape.ts) as the reference is given them
 * (reference/request-limits.ts) and as a true profile says them (queryParams, lengths).
 */
import type { LengthsGene, QueryParamsGene } from '../../../fixtures/arbitraries/genes/request-shape.js';
import type { Profile } from '../../../harness/profile/types.js';
import type { TargetDescription } from '../../../reference/index.js';

const ROUTE_KIND = { payment: 'payments', refund: 'refunds', payout: 'payouts' } as const;

/** What the reference is given: the parameter each drawn query requires, the drawn limits. */
export function requestShapeDescription(g: {
  queryParams?: QueryParamsGene;
  lengths?: LengthsGene;
}): Pick<TargetDescription, 'queryParams' | 'maxLengths' | 'maxBodyBytes'> {
  const q = g.queryParams;
  const value = q && (q.value === 'merchantId' ? { merchantId: true as const } : q.value.fixed);
  return {
    ...(q && value !== undefined ? { queryParams: Object.fromEntries(q.kinds.map((k) => [ROUTE_KIND[k], { [q.field]: value }])) } : {}),
    ...(g.lengths && Object.keys(g.lengths.maxLength).length > 0 ? { maxLengths: { ...g.lengths.maxLength } } : {}),
    ...(g.lengths?.maxBodyBytes !== undefined ? { maxBodyBytes: g.lengths.maxBodyBytes } : {}),
  };
}

/** The true profile's queryParams and lengths (version 5); the reference profile's own lengths where the genome draws none. */
export function editRequestShape(p: Profile, g: { queryParams?: QueryParamsGene; lengths?: LengthsGene }): void {
  const q = g.queryParams;
  if (q) {
    // A profile template's variable, "${merchantId}" (harness/profile/query-params.ts).
    const value = q.value === 'merchantId' ? `\${merchantId}` : q.value.fixed;
    p.queryParams = Object.fromEntries(q.kinds.map((k) => [k, { [q.field]: value }]));
    p.profileVersion = 5;
  }
  if (g.lengths) {
    // Every drawn limit, and the reference's own where a field draws none (the reference profile's lengths hold there).
    p.lengths = {
      maxLength: { ...p.lengths?.maxLength, ...g.lengths.maxLength },
      ...((g.lengths.maxBodyBytes ?? p.lengths?.maxBodyBytes) !== undefined
        ? { maxBodyBytes: g.lengths.maxBodyBytes ?? p.lengths?.maxBodyBytes }
        : {}),
    };
    p.profileVersion = 5;
  }
}
