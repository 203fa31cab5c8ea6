/**
 * Runs every receiver check against one endpoint, a few at a time: a receiver that hangs costs
 * each check at most its deadline, and the run goes on to the end.
 */
import { checkSeed } from '../../check/run.js';
import { type MerchantResult, runMerchantCheck } from '../check.js';
import { type ReceiverContext, receiverChecks } from './checks.js';

export interface ReceiverRunOptions {
  url: string;
  merchantId: string;
  secret: string;
  seed: number;
  inspectUrl?: string;
  /** Default 5000 (the document's); the project's tests scale it down. */
  ackLimitMs?: number;
  /** Property runs per event kind (default 12). */
  numRuns?: number;
  /** Only checks whose id or clause contains one of these. */
  only?: string[];
  concurrency?: number;
}

export async function runReceiver(o: ReceiverRunOptions): Promise<MerchantResult[]> {
  const ackLimitMs = o.ackLimitMs ?? 5000;
  const checks = receiverChecks.filter((c) => !o.only?.length || o.only.some((x) => c.id.includes(x) || c.clauses.includes(x)));
  const results: MerchantResult[] = new Array(checks.length);
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < checks.length) {
      const i = next++;
      const check = checks[i]!;
      const log: string[] = [];
      const ctx: ReceiverContext = {
        url: o.url,
        id: { merchantId: o.merchantId, secret: o.secret },
        ackLimitMs,
        deadlineMs: ackLimitMs + Math.min(1000, ackLimitMs),
        numRuns: o.numRuns ?? 12,
        inspectUrl: o.inspectUrl,
        log,
      };
      results[i] = await runMerchantCheck(check, ctx, checkSeed(o.seed, check.id), log);
    }
  };
  await Promise.all(Array.from({ length: Math.min(o.concurrency ?? 6, checks.length) }, worker));
  return results;
}
