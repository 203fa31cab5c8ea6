/**
 * The Allure 3 generator in a child process of its own, started before its job is known: a
 * conformance run starts it beside vitest, so the generator's modules (about 0.4 s of loading) are
 * ready when the results are, and the report is made in the time of the report alone.
 *
 * The child does what `allure generate --config <file> <results>` does (allure's
 * commands/commons/generate.js: readConfig, then AllureReport start, readDirectory, done), through
 * @allurereport/core as the installed `allure` package resolves it.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { dependencyDir } from '../kit-files.js';

export interface RenderJob {
  /** Folder the generator runs in (it may write caches there). */
  cwd: string;
  /** An allurerc.mjs for readConfig. */
  configFile: string;
  /** The allure-results folder, or its pack (allure-pack.ts): one file read instead of a few thousand. */
  results: string | { pack: string };
}

/** Plain ESM for `node --input-type=module -e`: nothing to compile, in a clone or installed. */
const CHILD = `
import { createRequire } from 'node:module';
import { pathToFileURL } from 'node:url';
const req = createRequire(process.env.MPSI_ALLURE_PACKAGE_JSON);
const load = (name) => import(pathToFileURL(req.resolve(name)).href);
const core = await load('@allurereport/core');
// readConfig loads the report's plugin; load it now, while the run still runs.
await load('@allurereport/plugin-awesome').catch(() => undefined);
let input = '';
process.stdin.setEncoding('utf8');
process.stdin.on('data', (chunk) => { input += chunk; });
process.stdin.on('end', async () => {
  if (input.trim() === '') process.exit(0);
  const job = JSON.parse(input);
  try {
    const config = await core.readConfig(job.cwd, job.configFile, {});
    const report = new core.AllureReport(config);
    await report.restoreState([]);
    await report.start();
    if (typeof job.results === 'string') await report.readDirectory(job.results);
    else {
      // The files of a packed folder, in readDirectory's order, as the results reader reads a file.
      const readerApi = createRequire(req.resolve('@allurereport/core')).resolve('@allurereport/reader-api');
      const { BufferResultFile } = await import(pathToFileURL(readerApi).href);
      const { gunzipSync } = await import('node:zlib');
      const { readFileSync } = await import('node:fs');
      const pack = JSON.parse(gunzipSync(readFileSync(job.results.pack)).toString('utf8'));
      if (pack.format !== 'mpsi-allure-results/1') throw new Error(job.results.pack + ' is not a packed allure-results folder');
      const names = Object.keys(pack.files).filter((n) => !n.endsWith('.tmp')).sort((a, b) => a.localeCompare(b));
      for (const name of names) await report.readResult(new BufferResultFile(Buffer.from(pack.files[name], 'base64'), name));
    }
    await report.done();
    process.exit(0);
  } catch (err) {
    process.stderr.write(String(err && err.message ? err.message : err));
    process.exit(1);
  }
});
`;

/** The longest a report may take before the generator is stopped (a run never hangs on its report). */
export const RENDER_TIMEOUT_MS = 300_000;

export interface AllureRenderer {
  /** Runs the job; rejects with the generator's last lines when it fails. One job per renderer. */
  render(job: RenderJob): Promise<void>;
  /** Stops a renderer that will get no job (--no-html, an interrupted run). */
  dispose(): void;
  /** Settles when the child process has ended (its exit code or signal). */
  readonly ended: Promise<number | string>;
}

export function startAllureRenderer(): AllureRenderer {
  const child: ChildProcess = spawn(process.execPath, ['--input-type=module', '-e', CHILD], {
    stdio: ['pipe', 'pipe', 'pipe'],
    env: { ...process.env, NO_COLOR: '1', MPSI_ALLURE_PACKAGE_JSON: `${dependencyDir('allure')}/package.json` },
  });
  let output = '';
  const keep = (chunk: Buffer): void => {
    output = (output + chunk.toString('utf8')).slice(-4_000);
  };
  child.stdout?.on('data', keep);
  child.stderr?.on('data', keep);
  // A child that already ended (or could not start) is reported by render(), not as an unhandled error.
  child.on('error', (err) => keep(Buffer.from(err.message)));
  child.stdin?.on('error', () => undefined);
  const exited = new Promise<number | string>((resolve) => child.once('close', (code, signal) => resolve(code ?? signal ?? 'unknown')));
  let used = false;
  return {
    ended: exited,
    async render(job) {
      if (used) throw new Error('this Allure renderer already ran a job');
      used = true;
      child.stdin?.end(JSON.stringify(job));
      let timedOut = false;
      const timer = setTimeout(() => {
        timedOut = true;
        child.kill('SIGKILL');
      }, RENDER_TIMEOUT_MS);
      const status = await exited;
      clearTimeout(timer);
      if (timedOut) throw new Error(`allure generate did not finish within ${RENDER_TIMEOUT_MS / 1000} s and was stopped`);
      if (status !== 0) throw new Error(`allure generate failed (exit ${status}): ${output.trim().split('\n').slice(-3).join(' / ')}`);
    },
    dispose() {
      if (used) return;
      used = true;
      child.stdin?.end();
      child.kill('SIGTERM');
    },
  };
}
