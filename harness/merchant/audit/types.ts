import type { Reserialisation } from './families.js';

/**
 * What the audit sees of one request: the same shape as the reference's observer record
 * (reference/http/server.ts ObservedExchange), restated so harness/merchant does not import reference/.
 */
export interface SeenRequest {
  method: string;
  path: string;
  headers: Readonly<Record<string, string | string[] | undefined>>;
  body?: Buffer;
  receivedAt: number;
  answeredAt: number;
  http: number;
  code: number;
  key?: string;
  connection: { id: number; openedAt: number; index: number };
  /** The fields the sandbox altered in its answer (`--tamper-responses`); that answer's signature does not verify. */
  tampered?: { field: string; genuine: string; sent: string }[];
}

/** One mistake the audit found in one request (or a sequence of them). */
export interface Diagnosis {
  /** Stable name, e.g. `upper-case-hex`: what the troubleshooting list calls the mistake. */
  name: string;
  clause: string;
  /** One sentence; never a secret. */
  detail: string;
  /** 1-based numbers of the requests it is about, in arrival order. */
  requests: number[];
  /** `re-serialised-body`: how the signed bytes differ from the sent ones (its family; words made at the edge). */
  reserialisation?: Reserialisation;
}

/** A merchant's keys as the audit knows them: the sandbox (test) key and, where known, the production key. */
export interface MerchantKeys {
  id: string;
  test: string;
  production?: string;
}

/**
 * One webhook attempt as the sandbox's delivery observer saw it (reference/webhooks/outbox.ts
 * ObservedDelivery, restated): what was sent and whether the receiver acknowledged it.
 */
export interface SeenDelivery {
  merchantId: string;
  url: string;
  event: string;
  orderNo: string;
  status: string;
  attempt: number;
  /** A second copy of a webhook already sent (`--rough`). */
  copy: boolean;
  /** Held back so later webhooks could overtake it (`--rough`). */
  held: boolean;
  replied: boolean;
  acked: boolean;
  summary: string;
}
