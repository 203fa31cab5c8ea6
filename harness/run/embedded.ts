/** The embedded reference target, started for a profile whose baseUrl is "embedded". */
import { type RunningReference, startReference } from '../../reference/index.js';
import type { Profile } from '../profile/types.js';

/** On port 0, at the profile's webhook time scale, with the profile's readings and the named faults switched on. */
export function startEmbeddedReference(profile: Profile, faults: string[] = []): Promise<RunningReference> {
  return startReference({ port: 0, timeScale: profile.webhooks?.timeScale ?? 1, faults, readings: profile.embedded?.readings ?? 'default' });
}
