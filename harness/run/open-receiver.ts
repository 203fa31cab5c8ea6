import type { LoadedProfile } from '../profile/load.js';
import { startReceiver } from '../webhooks/receiver.js';
import type { Receiver } from '../webhooks/types.js';

/** The run's webhook receiver, from the profile's webhooks section; none when webhooks are off or undeclared. */
export async function openRunReceiver(loaded: LoadedProfile, mode: 'quick' | 'full' | 'off'): Promise<Receiver | undefined> {
  const wh = loaded.profile.webhooks;
  if (mode === 'off' || !wh) return undefined;
  return startReceiver({
    host: wh.receiver?.host ?? '127.0.0.1',
    port: wh.receiver?.port ?? 0,
    publicUrl: wh.receiver?.publicUrl,
    merchants: Object.values(loaded.merchants).flatMap((m) => (typeof m === 'object' ? [m] : [])),
    ackTimeoutMs: wh.ackTimeoutMs,
  });
}
