import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { annotationLine, escapeData, escapeProperty } from '../../harness/cli/ci.js';
import { ROOT, SMALL_SUITE } from './helpers.js';

/**
 * The repository's GitHub Action (action.yml) run as a runner runs a composite action: each step's `run` in bash, its
 * `${{ … }}` expressions filled from the inputs and the earlier steps' outputs, GITHUB_OUTPUT and GITHUB_STEP_SUMMARY
 * files of its own, `if:` decided. The kit comes from the action's own checkout (kit-version "checkout"); the npm
 * install branch is the one line this test does not run.
 */
interface Step {
  id?: string;
  name: string;
  if?: string;
  shell: string;
  env?: Record<string, string>;
  run: string;
}
interface Action {
  inputs: Record<string, { default: string }>;
  outputs: Record<string, { value: string }>;
  runs: { using: string; steps: Step[] };
}

const action = parse(readFileSync(join(ROOT, 'action.yml'), 'utf8')) as Action;

interface Played {
  outputs: Record<string, string>;
  summary: string;
  stdout: string;
  /** Exit code of each step that ran, by name. */
  codes: Record<string, number>;
}

function play(inputs: Record<string, string>): Played {
  const work = mkdtempSync(join(tmpdir(), 'mpsi-action-'));
  const values: Record<string, string> = {};
  for (const [k, v] of Object.entries(action.inputs)) values[`inputs.${k}`] = inputs[k] ?? v.default;
  values['github.action_path'] = ROOT.replace(/\/$/, '');
  const expr = (s: string): string => s.replace(/\$\{\{\s*([^}]+?)\s*\}\}/g, (_, name: string) => values[name] ?? '');
  let failed = false;
  const codes: Record<string, number> = {};
  let summary = '';
  let stdout = '';
  for (const step of action.runs.steps) {
    if (!decide(step.if, failed, values)) continue;
    const outFile = join(work, `${step.id ?? 'step'}-output`);
    const sumFile = join(work, `${step.id ?? 'step'}-summary`);
    writeFileSync(outFile, '');
    writeFileSync(sumFile, '');
    const env = Object.fromEntries(Object.entries(step.env ?? {}).map(([k, v]) => [k, expr(String(v))]));
    const r = spawnSync('bash', ['-e', '-c', expr(step.run)], {
      cwd: work,
      env: { ...process.env, ...env, GITHUB_OUTPUT: outFile, GITHUB_STEP_SUMMARY: sumFile, RUNNER_TEMP: work, CI: '1' },
      encoding: 'utf8',
      timeout: 220_000,
    });
    codes[step.name] = r.status ?? -1;
    stdout += r.stdout;
    if (r.status !== 0) failed = true;
    summary += readFileSync(sumFile, 'utf8');
    for (const line of readFileSync(outFile, 'utf8').split('\n')) {
      const m = /^([^=]+)=(.*)$/.exec(line);
      if (m && step.id) values[`steps.${step.id}.outputs.${m[1]}`] = m[2]!;
    }
  }
  const outputs = Object.fromEntries(Object.entries(action.outputs).map(([k, o]) => [k, expr(o.value)]));
  return { outputs, summary, stdout, codes };
}

/** The `if:` forms action.yml uses: always(), success() by default, `==`/`!=` over expressions and strings, `&&`. */
function decide(cond: string | undefined, failed: boolean, values: Record<string, string>): boolean {
  if (cond === undefined) return !failed;
  const always = /always\(\)/.test(cond);
  const rest = cond
    .replace(/always\(\)\s*&&\s*/, '')
    .replace(/always\(\)/, 'true')
    .split('&&')
    .map((part) => {
      const m = /^\s*([\w.-]+)\s*(==|!=)\s*'([^']*)'\s*$/.exec(part);
      if (!m) return part.trim() === 'true';
      const v = values[m[1]!] ?? '';
      return m[2] === '==' ? v === m[3] : v !== m[3];
    })
    .every(Boolean);
  return rest && (always || !failed);
}

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
