import type { LoadedProfile } from '../profile/load.js';
import { startReceiver } from '../webhooks/receiver.js';
import type { Receiver } from '../webhooks/types.js';
import { relayPublicUrlFor } from '../webhooks/relay.js';

/** `publicUrlFor` of a receiver when this process belongs to a run with a tunnel. */
export function publicUrlThroughTunnel(): { publicUrlFor?: (localUrl: string) => Promise<string> } {
  const f = relayPublicUrlFor();
  return f ? { publicUrlFor: f } : {};
}

/** The run's webhook receiver, from the profile's webhooks section; none when webhooks are off or undeclared. */
export async function openRunReceiver(loaded: LoadedProfile, mode: 'quick' | 'full' | 'off'): Promise<Receiver | undefined> {
  const wh = loaded.profile.webhooks;
  if (mode === 'off' || !wh) return undefined;
  return startReceiver({
    host: wh.receiver?.host ?? '127.0.0.1',
    port: wh.receiver?.port ?? 0,
    publicUrl: wh.receiver?.publicUrl,
    // A run with --tunnel: the receiver's public URL through the tunnel (harness/webhooks/relay.ts).
    ...publicUrlThroughTunnel(),
    merchants: Object.values(loaded.merchants).flatMap((m) => (typeof m === 'object' ? [m] : [])),
    ackTimeoutMs: wh.ackTimeoutMs,
  });
}
