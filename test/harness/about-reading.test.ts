/**
 * Allowances are the kit's: every "about" of the webhook schedule is read one way (harness/webhooks/schedule.ts,
 * ABOUT_TOLERANCE), whatever the profile says; a profile can widen it (webhooks.tolerance) and is then named in the
 * certificate as a loosened check, never narrow it.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { buildCertificate, renderMarkdown } from '../../harness/report/certificate.js';
import type { Profile } from '../../harness/profile/types.js';
import { ABOUT_TOLERANCE, gapBounds, loosenedAllowances, webhookTiming } from '../../harness/webhooks/schedule.js';
import { kitchenSink } from '../report/certificate-sink.js';

function profileWith(tolerance: number): Profile {
  const p = JSON.parse(readFileSync('fixtures/profiles/reference.json', 'utf8')) as Profile;
  p.webhooks!.tolerance = tolerance;
  return p;
}

describe('the kit\'s reading of the document\'s "about"', () => {
  it('is ±25 %, the same for every target, whatever narrower value a profile gives', () => {
    expect(ABOUT_TOLERANCE).toBe(0.25);
    for (const declared of [0, 0.1, 0.25]) {
      expect(webhookTiming(profileWith(declared)).tolerance).toBe(0.25);
      expect(loosenedAllowances(profileWith(declared))).toEqual([]);
    }
    // About 15 s at time scale 1, no jitter or attempt length: 11.25 s to 18.75 s.
    const t = { ...webhookTiming(profileWith(0.1)), timeScale: 1, jitterMs: 0 };
    expect(gapBounds(t, 15_000, 0)).toEqual({ min: 11_250, max: 18_750 });
  });

  it('a profile that widens it is judged with its value and named as a loosened check in the certificate', () => {
    const wide = profileWith(0.5);
    expect(webhookTiming(wide).tolerance).toBe(0.5);
    const loosened = loosenedAllowances(wide);
    expect(loosened).toEqual([
      {
        field: 'webhooks.tolerance',
        declared: 0.5,
        reading: 0.25,
        clauses: ['webhook.retry.growing-waits', 'webhook.retry.total-span'],
      },
    ]);
    const input = kitchenSink();
    const { certificate } = buildCertificate({ ...input, meta: { ...input.meta, loosened } });
    expect(certificate.loosened).toEqual(loosened);
    const md = renderMarkdown(certificate);
    expect(md).toContain('## Loosened checks');
    expect(md).toContain('| `webhooks.tolerance` | 0.5 | 0.25 | `webhook.retry.growing-waits`, `webhook.retry.total-span` |');
    // A profile that keeps the kit's reading: no such section, the certificate as before.
    expect(renderMarkdown(buildCertificate(kitchenSink()).certificate)).not.toContain('Loosened');
  });
});
