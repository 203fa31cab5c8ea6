import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { annotationLine, escapeData, escapeProperty } from '../../harness/cli/ci.js';
import { ROOT, SMALL_SUITE } from './helpers.js';
import { action, decide, play } from './action-play.js';

/**
 * The repository's GitHub Action (action.yml), played as a runner plays it (test/cli/action-play.ts) with the kit from
 * the action's own checkout (kit-version "checkout"); the npm install branch is played in test/package/install.test.ts,
 * against the packed kit.
 */
describe('the GitHub Action (action.yml)', () => {
  it('is a composite action whose every step names its shell', () => {
    expect(action.runs.using).toBe('composite');
    for (const s of action.runs.steps) expect(s.shell, s.name).toBe('bash');
    expect(Object.keys(action.outputs)).toEqual(['verdict', 'exit-code', 'certificate', 'certificate-json']);
  });

  it('a conformant run: verdict output, certificate.md in the job summary, no annotation, the gate passes', () => {
    const p = play({ 'kit-version': 'checkout', suites: SMALL_SUITE, webhooks: 'off', reports: 'out', args: '--no-html' });
    expect(p.outputs.verdict, p.stdout).toBe('conformant');
    expect(p.outputs['exit-code']).toBe('0');
    expect(p.outputs.certificate).toMatch(/\/out\/certificate\.md$/);
    expect(existsSync(p.outputs.certificate!)).toBe(true);
    expect(p.summary).toBe(readFileSync(p.outputs.certificate!, 'utf8'));
    expect(p.stdout).not.toMatch(/^::error/m);
    expect(p.codes['Gate on the verdict']).toBe(0);
  }, 240_000);

  it('a failing run (a fault of the embedded reference): one error annotation per failed clause, the gate fails', () => {
    const p = play({
      'kit-version': 'checkout',
      suites: SMALL_SUITE,
      webhooks: 'off',
      args: '--fault mutual-exclusive-code-422 --no-doctor --no-html',
    });
    expect(p.outputs.verdict, p.stdout).toBe('non-conformant');
    expect(p.outputs['exit-code']).toBe('1');
    const cert = JSON.parse(readFileSync(p.outputs['certificate-json']!, 'utf8')) as { clauses: { id: string; status: string }[] };
    const failedClauses = cert.clauses.filter((c) => c.status === 'failed').map((c) => c.id);
    expect(failedClauses).toContain('err.req.mutually-exclusive');
    const errors = p.stdout.split('\n').filter((l) => l.startsWith('::error '));
    expect(errors.map((l) => /^::error title=([^ ]+) /.exec(l)?.[1]).sort()).toEqual(failedClauses.sort());
    expect(errors.find((l) => l.includes('err.req.mutually-exclusive'))).toMatch(/mutual-exclusion\//);
    expect(p.summary).toMatch(/NON-CONFORMANT|non-conformant/i);
    expect(p.codes['Gate on the verdict']).toBe(1);
    // With fail-on-verdict "false" the gate does not run: the shard reports and the merged verdict gates.
    const gate = action.runs.steps.find((s) => s.name === 'Gate on the verdict')!;
    expect(decide(gate.if, false, { 'inputs.fail-on-verdict': 'false' })).toBe(false);
    expect(decide(gate.if, false, { 'inputs.fail-on-verdict': 'true' })).toBe(true);
  }, 240_000);

  it('a run that cannot be made (no such profile): verdict "none", exit code 2, one annotation saying so', () => {
    const p = play({ 'kit-version': 'checkout', profile: 'no-such-profile.json', webhooks: 'off' });
    expect(p.outputs.verdict).toBe('none');
    expect(p.outputs['exit-code']).toBe('2');
    expect(p.outputs.certificate).toBe('');
    expect(p.stdout).toMatch(/^::error title=mpsi-conformance%3A no verdict::/m);
    expect(p.codes['Gate on the verdict']).toBe(2);
  }, 240_000);
});

describe('ci-summary annotations', () => {
  it("escape a workflow command's data and properties as GitHub's toolkit does", () => {
    expect(escapeData('a%b\r\nc')).toBe('a%25b%0D%0Ac');
    expect(escapeProperty('x: y, z')).toBe('x%3A y%2C z');
    expect(annotationLine({ level: 'error', title: 'a:b', message: 'one\ntwo' })).toBe('::error title=a%3Ab::one%0Atwo');
  });
});

describe('examples of the Action', () => {
  const dir = join(ROOT, 'examples');
  const files = readdirSync(dir).filter((f) => f.startsWith('action-') && f.endsWith('.yml'));

  it('there is a release gate and a sharded matrix, each valid YAML using the action with its inputs', () => {
    expect(files.sort()).toEqual(['action-release-gate.yml', 'action-sharded.yml']);
    for (const f of files) {
      const wf = parse(readFileSync(join(dir, f), 'utf8')) as { jobs: Record<string, { steps?: { uses?: string; with?: object }[] }> };
      const uses = Object.values(wf.jobs).flatMap((j) => (j.steps ?? []).filter((s) => /mpsi-conformance@/.test(s.uses ?? '')));
      expect(uses.length, f).toBeGreaterThan(0);
      for (const u of uses) for (const k of Object.keys(u.with ?? {})) expect(Object.keys(action.inputs), `${f}: ${k}`).toContain(k);
    }
  });
});
