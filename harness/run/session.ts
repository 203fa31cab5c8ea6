import { createClient, type Client } from '../client.js';
import type { LoadedProfile } from '../profile/load.js';
import { createTarget, type Target } from '../target.js';

/** One process's connection to a target: the client, the target facade, and (later) the webhook receiver. */
export interface Session {
  target: Target;
  close(): Promise<void>;
}

export interface SessionOptions {
  loaded: LoadedProfile;
  baseUrl: string;
  /** Extra resources opened with the session (e.g. a webhook receiver) and closed with it. */
  notifyUrl?: string;
  onClose?: () => Promise<void>;
}

export function openSession(opts: SessionOptions): Session {
  const http = opts.loaded.profile.http ?? {};
  const client: Client = createClient({
    deadlineMs: http.deadlineMs ?? 10_000,
    maxResponseBytes: http.maxResponseBytes ?? 1_048_576,
  });
  const target = createTarget({ loaded: opts.loaded, baseUrl: opts.baseUrl, client, notifyUrl: opts.notifyUrl });
  return {
    target,
    async close() {
      await client.close();
      await opts.onClose?.();
    },
  };
}
