/**
 * The reference a CLI run starts in a process of its own takes the profile's readings, as the
 * in-process start does: the alt profile's paths must exist on it.
 */
import { describe, expect, it } from 'vitest';
import { loadProfile } from '../../harness/profile/load.js';
import { startEmbeddedReferenceProcess } from '../../harness/run/embedded.js';
import { call } from '../reference/helpers/client.js';

describe('the embedded reference process', () => {
  it('serves the alt readings when the profile asks for them', async () => {
    for (const [file, known] of [
      ['fixtures/profiles/reference-alt.json', true],
      ['fixtures/profiles/reference.json', false],
    ] as const) {
      const ref = await startEmbeddedReferenceProcess(loadProfile(file).profile);
      try {
        // A signed empty body: the alt payout path is refused for its fields, the default reference knows no such path.
        const msg = String((await call(ref.url, '/api/v1/payouts/submit', {})).json.msg);
        expect(msg, file).toMatch(known ? /^(?!Unknown path)/ : /^Unknown path/);
      } finally {
        await ref.close();
      }
    }
  }, 30_000);

  it('serves readings named one by one (a generated target, test/legal-targets)', async () => {
    const profile = loadProfile('fixtures/profiles/reference.json').profile;
    const ref = await startEmbeddedReferenceProcess({
      ...profile,
      embedded: { readings: ['uuid-service-numbers', 'other-endpoint-paths'] },
    });
    try {
      expect(String((await call(ref.url, '/api/v1/payouts/submit', {})).json.msg)).toMatch(/^(?!Unknown path)/);
    } finally {
      await ref.close();
    }
  }, 30_000);
});
