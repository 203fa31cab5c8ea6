/**
 * The replay a run prints (harness/run/replay.ts) works pasted the way the kit was installed: `npx mpsi-conformance run …`
 * for an installed package, `node <absolute bin> run …` in a clone; with the --target the run was given, and with the
 * address a profile took from the environment ("${BASE_URL}"), which the shell it is pasted in may not have. The
 * certificate's other commands (the reference to start again, the verify command) follow the same form.
 */
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { kitBin } from '../../harness/kit/invocation.js';
import { defaultRunConfig } from '../../harness/run/config.js';
import { environmentTarget, kitLine, replayLine, replayOf } from '../../harness/run/replay.js';
import { ROOT } from '../cli/helpers.js';

const cfg = { ...defaultRunConfig(), seed: 7, profilePath: '/srv/vendor/acme.json', targetUrl: 'https://sandbox.acme.example' };

describe('the replay line', () => {
  it('is npx mpsi-conformance for an installed kit, with the --target the run was given', () => {
    const line = replayLine(replayOf(cfg, undefined, undefined, undefined, true));
    expect(line).toBe(
      'npx mpsi-conformance run --profile /srv/vendor/acme.json --target https://sandbox.acme.example --seed 7 --runs 20 --webhooks quick',
    );
  });

  it('is node <absolute bin> in a clone', () => {
    expect(replayLine(replayOf(cfg, undefined, undefined, undefined, false))).toMatch(
      new RegExp(`^node ${kitBin().replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} run --profile /srv/vendor/acme.json --target `),
    );
  });

  it('gives as --target the address a profile took from the environment (a BASE_URL variable)', () => {
    const dir = mkdtempSync(join(tmpdir(), 'mpsi-replay-'));
    const profile = JSON.parse(readFileSync(join(ROOT, 'fixtures', 'profiles', 'reference.json'), 'utf8')) as Record<string, unknown>;
    const file = join(dir, 'p.json');
    writeFileSync(file, JSON.stringify({ ...profile, baseUrl: `\${BASE_URL}` }));
    const fromEnv = { ...cfg, profilePath: file, targetUrl: undefined };
    const env = environmentTarget(fromEnv, 'https://sandbox-42.acme.example');
    expect(env).toBe('https://sandbox-42.acme.example');
    expect(replayLine(replayOf(fromEnv, undefined, undefined, env, true))).toContain('--target https://sandbox-42.acme.example');
    // A profile that states its address needs no --target: none is added.
    writeFileSync(file, JSON.stringify(profile));
    expect(environmentTarget(fromEnv, 'https://sandbox-42.acme.example')).toBeUndefined();
  });

  it("prints the certificate's other commands the same way", () => {
    expect(kitLine({ bin: kitBin(), installed: true }, ['verify-certificate', 'reports/certificate.json'])).toBe(
      'npx mpsi-conformance verify-certificate reports/certificate.json',
    );
  });
});
