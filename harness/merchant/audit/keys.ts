/**
 * The sandbox's merchants as the audit knows them, from the reference's profile: test keys, and
 * production keys where the profile declares them (`productionSecret`); otherwise the reference's
 * production keys (shared values), so a client signing with its live key is named as such.
 */
import { matchesTemplate } from '../../profile/endpoint-path.js';
import type { LoadedProfile } from '../../profile/load.js';
import type { Operation } from './sequence.js';
import type { MerchantKeys } from './types.js';

const REFERENCE_PRODUCTION: Readonly<Record<string, string>> = {
  M100001: 'sk_live_primary_7d3f1a9c5e2b8046',
  M100002: 'sk_live_second_3a8c6e1f9b2d7054',
};

export function auditKeys(loaded: LoadedProfile, env: NodeJS.ProcessEnv = process.env): MerchantKeys[] {
  const out: MerchantKeys[] = [];
  for (const role of ['primary', 'second', 'frozen', 'lowBalance'] as const) {
    const m = loaded.merchants[role];
    if (!m) continue;
    const declared = (
      loaded.profile.merchants as unknown as Record<
        string,
        { productionSecret?: string; productionSecretEnv?: string } | string | undefined
      >
    )[role];
    const fromEnv = typeof declared === 'object' && declared.productionSecretEnv ? env[declared.productionSecretEnv] : undefined;
    const production = (typeof declared === 'object' ? declared.productionSecret : undefined) ?? fromEnv ?? REFERENCE_PRODUCTION[m.id];
    out.push({ id: m.id, test: m.secret, production });
  }
  return out;
}

/** Paths to operations; a path that carries a number ({payout_no}, …) finds its operation for any number in it. */
class OperationsByPath extends Map<string, Operation> {
  override get(path: string): Operation | undefined {
    return super.get(path) ?? [...this.entries()].find(([template]) => matchesTemplate(template, path))?.[1];
  }
}

/** Request paths to operations, from the profile's endpoints. */
export function auditOperations(loaded: LoadedProfile): Map<string, Operation> {
  const e = (loaded.profile.endpoints ?? {}) as Record<string, string | undefined>;
  const pairs: [string | undefined, Operation][] = [
    [e['checkout'], 'payment-create'],
    [e['cardPayment'], 'payment-create'],
    [e['refundCreate'], 'refund-create'],
    [e['payoutCreate'], 'payout-create'],
    [e['paymentQuery'], 'payment-query'],
    [e['refundQuery'], 'refund-query'],
    [e['payoutQuery'], 'payout-query'],
  ];
  return new OperationsByPath(pairs.filter((p): p is [string, Operation] => typeof p[0] === 'string'));
}
