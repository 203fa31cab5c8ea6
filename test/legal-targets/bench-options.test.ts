import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { KIT_ROOT } from '../../harness/kit/kit-files.js';

/**
 * The bench used to read only the options it knew and ignore the rest: `--help` (or a typo such as `--seeds`) started a
 * 200-target run of about an hour on a shared machine. Without the strict parse these runs do not end within the timeout.
 */
function bench(...args: string[]) {
  return spawnSync(process.execPath, ['--import', 'tsx', join(KIT_ROOT, 'bench/legal-targets.ts'), ...args], {
    cwd: KIT_ROOT,
    encoding: 'utf8',
    timeout: 60_000,
    killSignal: 'SIGKILL',
  });
}

describe('bench/legal-targets.ts options', () => {
  it('--help prints the usage and runs nothing', () => {
    const r = bench('--help');
    expect(r.status).toBe(0);
    expect(r.stdout).toMatch(/^usage: npx tsx bench\/legal-targets\.ts \[--n N\]/);
    expect(r.stdout).not.toMatch(/legal targets: \d+ genomes/);
  }, 70_000);

  it('an unknown option is an error naming it, with the usage', () => {
    const r = bench('--seeds', '4001');
    expect(r.status).toBe(2);
    expect(r.stderr).toContain("Unknown option '--seeds'");
    expect(r.stderr).toContain('usage: npx tsx bench/legal-targets.ts');
    expect(r.stdout).not.toMatch(/legal targets: \d+ genomes/);
  }, 70_000);

  it('an option without its value is an error, not the default', () => {
    const r = bench('--n');
    expect(r.status).toBe(2);
    expect(r.stderr).toContain('--n');
    expect(r.stdout).not.toMatch(/legal targets: \d+ genomes/);
  }, 70_000);
});
