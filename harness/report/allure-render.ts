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
import { dependencyDir } from '../kit/kit-files.js';

export interface RenderJob {
  /** Folder the generator runs in (it may write caches there). */
  cwd: string;
  /** An allurerc.mjs for readConfig. */
  configFile: string;
  /** The allure-results folder, or its pack (allure-pack.ts): one file read instead of a few thousand. */
  results: string | { pack: string };
}

/**
 * How the generator's child loads @allurereport/core. Core's report.js imports, whatever the report, every
 * reader (the XML ones, the xcresult tools), the Allure service client (axios), zip streams and the summary page:
 * about 0.4 s of CPU to load, none of it used by a single-file report from allure-js results. The child imports
 * report.js's own text with those imports swapped for stand-ins, and every other import resolved to the file core
 * itself would get (relative ones beside report.js, packages as core resolves them): what a report of ours calls
 * loads the real module when called (the JSON readers at once; the XML readers, xcresult and the summary on first
 * use); what it never calls (service clients, zip dumps) throws a named error, so a configuration that needs them
 * fails loudly instead of making another report. A report.js whose imports are not the ones expected (another Allure
 * version) is imported unchanged: slower, never different. Module hooks would do the same without touching the text,
 * but Node 20 runs them on a thread every import waits for: 0.5 s more, not less.
 */
const LEAN_CORE = `
const absent = (what) => 'class { constructor() { throw new Error("the Allure generator of the kit does not load ' + what + '"); } }';
const lazy = (real, name) =>
  'export async function ' + name + '(...a) { return (await import(' + JSON.stringify(real) + ')).' + name + '(...a); }';
const standIns = {
  '@allurereport/service': () => [
    'export const AllureRemoteHistory = ' + absent('the Allure service (history)') + ';',
    'export const AllureServiceClient = ' + absent('the Allure service client') + ';',
    'export const AllureTestOpsClient = ' + absent('the TestOps client') + ';',
    'export class KnownError extends Error {}',
    'export class UnknownError extends Error {}',
  ].join(' '),
  'zip-stream': () => 'export default ' + absent('zip-stream (report dumps)') + ';',
  'node-stream-zip': () => 'export default { async: ' + absent('node-stream-zip (report dumps)') + ' };',
  '@allurereport/summary': (real) => lazy(real, 'generateSummary'),
  '@allurereport/reader': (real) => {
    const dir = real.slice(0, real.lastIndexOf('/') + 1);
    const at = JSON.stringify(real);
    // Both XML readers match only names ending in .xml: other files never load them, .xml files ask the real reader.
    const xml = (name, id) =>
      '{ readerId: () => ' + JSON.stringify(id) + ', matches: async (d) => d.getOriginalFileName().endsWith(".xml") && ' +
      '(await import(' + at + '))[' + JSON.stringify(name) + '].matches(d), ' +
      'read: async (v, d) => (await import(' + at + '))[' + JSON.stringify(name) + '].read(v, d) }';
    return [
      'export * from ' + JSON.stringify(dir + 'allure2/index.js') + ';',
      'export * from ' + JSON.stringify(dir + 'attachments/index.js') + ';',
      'export * from ' + JSON.stringify(dir + 'cucumberjson/index.js') + ';',
      'export const allure1 = ' + xml('allure1', 'allure1') + ';',
      'export const junitXml = ' + xml('junitXml', 'junit') + ';',
      // The real function asks isXcResultBundle first too, and answers false when it says no.
      'import { isXcResultBundle } from ' + JSON.stringify(dir + 'xcresult/bundle.js') + ';',
      'export async function readXcResultBundle(v, d) {',
      '  return (await isXcResultBundle(d)) ? (await import(' + at + ')).readXcResultBundle(v, d) : false;',
      '}',
    ].join(' ');
  },
};
// config.js's TypeScript loader (jiti, 0.2 MB) serves an allurerc.ts only; ours is an .mjs. Called, it loads the real
// module then, synchronously as the real import would have. (Its YAML parser is not swapped: the agent plugin core adds
// to every report imports it too.)
const syncLater = (name) => (real) =>
  'import { createRequire } from "node:module"; import { fileURLToPath } from "node:url"; ' +
  'const at = fileURLToPath(' + JSON.stringify(real) + '); ' +
  'export function ' + name + '(...a) { return createRequire(at)(at).' + name + '(...a); }';
const configStandIns = { jiti: syncLater('createJiti') };
// A module of core imported from its own text with the imports in standIns swapped and every other one resolved to the
// file core itself would get; undefined when its imports are not the expected ones (another Allure version).
async function leanImport(moduleUrl, swaps, coreReq, dynamicAllowed = []) {
  try {
    const text = readFileSync(new URL(moduleUrl), 'utf8');
    // Imports the rewrite below would not see (bare side-effect or dynamic ones) would not resolve from a data: URL.
    let rest = text;
    for (const ok of dynamicAllowed) rest = rest.replaceAll(ok, '');
    if (/^import ["']|import[(]|require[(]/m.test(rest)) throw new Error('the module imports in a way the rewrite does not handle');
    const swapped = new Set();
    const lean = text
      .replace(/^(import [^;]*? from |export [^;]*? from )"([^"]+)";$/gms, (line, head, spec) => {
        if (spec.startsWith('node:')) return line;
        let url;
        if (spec.startsWith('./') || spec.startsWith('../')) url = new URL(spec, moduleUrl).href;
        else if (swaps[spec]) {
          swapped.add(spec);
          const make = swaps[spec];
          url = 'data:text/javascript,' + encodeURIComponent(make(make.length > 0 ? pathToFileURL(coreReq.resolve(spec)).href : ''));
        } else url = pathToFileURL(coreReq.resolve(spec)).href;
        return head + JSON.stringify(url) + ';';
      })
      .replaceAll('import.meta.url', JSON.stringify(moduleUrl));
    if (swapped.size !== Object.keys(swaps).length) throw new Error('the module imports other modules than expected');
    return await import('data:text/javascript,' + encodeURIComponent(lean));
  } catch {
    return undefined;
  }
}
// core's AllureReport and readConfig.
async function loadCore(coreEntry) {
  const coreReq = createRequire(fileURLToPath(coreEntry));
  const reportUrl = new URL('./report.js', coreEntry).href;
  const configUrl = new URL('./config.js', coreEntry).href;
  // A .js config is imported by its absolute file: URL, which a data: module may import; jiti.import is a method.
  const dynamic = ['import(normalizeImportPath(configPath))', 'jiti.import('];
  const config = (await leanImport(configUrl, configStandIns, coreReq, dynamic)) ?? (await import(configUrl));
  const report = (await leanImport(reportUrl, standIns, coreReq)) ?? (await import(reportUrl));
  return { AllureReport: report.AllureReport, readConfig: config.readConfig };
}
`;

/** Plain ESM for `node --input-type=module -e`: nothing to compile, in a clone or installed. */
const CHILD = `
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath, pathToFileURL } from 'node:url';
${LEAN_CORE}
const req = createRequire(process.env.MPSI_ALLURE_PACKAGE_JSON);
const load = (name) => import(pathToFileURL(req.resolve(name)).href);
const core = await loadCore(pathToFileURL(req.resolve('@allurereport/core')).href);
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
      const pack = JSON.parse(gunzipSync(readFileSync(job.results.pack)).toString('utf8'));
      if (pack.format !== 'mpsi-allure-results/1') throw new Error(job.results.pack + ' is not a packed allure-results folder');
      const names = Object.keys(pack.files).filter((n) => !n.endsWith('.tmp')).sort((a, b) => a.localeCompare(b));
      // The reader's BufferResultFile hands its bytes out through a stream, copied chunk by chunk into a new buffer,
      // for each of ~1,500 files: the same bytes given back as they are (a copy, as the stream's would be).
      class PackFile extends BufferResultFile {
        async asBuffer() { return Buffer.from(this.buffer); }
        async asUtf8String() { return this.buffer.toString('utf8'); }
        async asJson() { return JSON.parse(this.buffer.toString('utf8')); }
      }
      for (const name of names) await report.readResult(new PackFile(Buffer.from(pack.files[name], 'base64'), name));
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
