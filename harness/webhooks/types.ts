import type { VerifyResult } from '../http/signing.js';

/**
 * How the receiver answers one delivery. `success` acknowledges, and so does `http500-success`
 * (INTERFACE.md › Acknowledgement: "Only the body is examined"); every other kind must cause a retry.
 */
export type ReplyKind =
  | 'success'
  | 'success-newline' // "success\n"
  | 'upper' // "SUCCESS"
  | 'quoted' // "\"success\""
  | 'json' // {"code":0,"msg":"success"} (a JSON envelope is not the bare word)
  | 'empty-200' // HTTP 200, empty body
  | 'http500-success' // HTTP 500 with body "success": the body acknowledges, whatever the status
  | 'slow' // "success", but after longer than the target's ack limit
  | 'in-time' // "success" after half the target's ack limit: late, but an acknowledgement
  | 'drop' // connection destroyed without an answer
  | 'reject'; // HTTP 401 "rejected": what the receiver answers a delivery it refuses (signature, merchant, unreadable body)

export interface Delivery {
  /** Order of arrival at this receiver, from 1. */
  seq: number;
  /** Arrival time, ms since the epoch (Date.now()). */
  receivedAt: number;
  method: string;
  headers: Record<string, string | string[]>;
  /** Raw body bytes as received (capped). */
  body: Buffer;
  /** True when the body was longer than the cap and only its start was kept. */
  truncated?: boolean;
  /** Parsed JSON when the body parses. */
  json?: unknown;
  jsonError?: string;
  /** Verdict of the signature check against the merchant named in X-MerchantID (if it is one of the profile's). */
  signature: VerifyResult;
  /** The merchant number in the body (merchant_order_no), used to route scripts; undefined for junk. */
  merchantNo?: string;
  reply: ReplyKind;
  /** When our reply was written, ms since the epoch; absent while a delayed reply is pending, or dropped. */
  repliedAt?: number;
}

export interface Receiver {
  /** URL a target must call (profile webhooks.receiver.publicUrl when set). */
  readonly url: string;
  /** Replies for deliveries whose body has this merchant_order_no, used in order; the last one repeats. Default: ['success']. */
  script(merchantNo: string, replies: ReplyKind[]): void;
  deliveries(filter?: { merchantNo?: string; event?: string }): Delivery[];
  /** Resolves with the matching deliveries once pred holds; resolves (not rejects) with what came when timeoutMs passes. */
  /** `purpose` says what the wait is for, in words, for the run's progress line (e.g. "all 9 attempts"). */
  waitFor(
    filter: { merchantNo?: string; event?: string },
    pred: (ds: Delivery[]) => boolean,
    timeoutMs: number,
    purpose?: string,
  ): Promise<Delivery[]>;
  close(): Promise<void>;
}
