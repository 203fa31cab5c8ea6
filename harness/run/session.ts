import { createClient, type Client } from '../client.js';
import type { LoadedProfile } from '../profile/load.js';
import { createTarget, type Target } from '../target.js';
import type { Receiver } from '../webhooks/types.js';

/** One process's connection to a target: the client, the target facade, and (later) the webhook receiver. */
export interface Session {
  target: Target;
  close(): Promise<void>;
}

export interface SessionOptions {
  loaded: LoadedProfile;
  baseUrl: string;
  /** The webhook receiver for this session; closed with it. */
  receiver?: Receiver;
  /**
   * Wraps the session's only client, so whatever it adds sees every request a check sends: parity's
   * safe-mode guard and request log. Absent: the plain client.
   */
  wrapClient?: (client: Client) => Client;
}

export function openSession(opts: SessionOptions): Session {
  const http = opts.loaded.profile.http ?? {};
  const plain: Client = createClient({
    deadlineMs: http.deadlineMs ?? 10_000,
    maxResponseBytes: http.maxResponseBytes ?? 1_048_576,
  });
  const client = opts.wrapClient ? opts.wrapClient(plain) : plain;
  const target = createTarget({ loaded: opts.loaded, baseUrl: opts.baseUrl, client, receiver: opts.receiver });
  return {
    target,
    async close() {
      await client.close();
      await opts.receiver?.close();
    },
  };
}
