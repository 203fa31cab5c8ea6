/**
 * The repository's GitHub Action (action.yml) run as a runner runs a composite action: each step's `run` in bash, its
 * `${{ … }}` expressions filled from the inputs and the earlier steps' outputs, GITHUB_OUTPUT and GITHUB_STEP_SUMMARY
 * files of its own, `if:` decided. Shared by test/cli/action.test.ts (the kit from the action's own checkout) and
 * test/package/install.test.ts (the npm install branch, against the packed kit).
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse } from 'yaml';
import { ROOT } from './helpers.js';

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

export const action = parse(readFileSync(join(ROOT, 'action.yml'), 'utf8')) as Action;

export interface Played {
  outputs: Record<string, string>;
  summary: string;
  stdout: string;
  /** Exit code of each step that ran, by name. */
  codes: Record<string, number>;
}

export function play(inputs: Record<string, string>, extraEnv: NodeJS.ProcessEnv = {}): Played {
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
      env: { ...process.env, ...extraEnv, ...env, GITHUB_OUTPUT: outFile, GITHUB_STEP_SUMMARY: sumFile, RUNNER_TEMP: work, CI: '1' },
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
export function decide(cond: string | undefined, failed: boolean, values: Record<string, string>): boolean {
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
