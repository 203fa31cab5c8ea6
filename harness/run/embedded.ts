/** The embedded reference target, started for a profile whose baseUrl is "embedded". */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createRequire } from 'node:module';
import { pathToFileURL } from 'node:url';
import { codeFile, COMPILED } from '../kit/kit-files.js';
import { type RunningReference, startReference, type TargetDescription, type WritePlan } from '../../reference/index.js';
import { logStalls, logWrites, writesFileOf } from '../../reference/lag.js';
import type { Profile } from '../profile/types.js';

/**
 * On port 0, at the profile's webhook time scale, with the profile's readings and the named faults switched on; behind
 * a gateway (reference/gateway.ts) when the profile's embedded section asks for field conditions (rateLimit, latencyMs).
 */
export async function startEmbeddedReference(
  profile: Profile,
  faults: string[] = [],
  onWebhookWritten?: (nonce: string, at: number, plan: WritePlan) => void,
): Promise<RunningReference> {
  const e = profile.embedded;
  return startReference({
    ...(onWebhookWritten ? { onWebhookWritten } : {}),
    port: 0,
    timeScale: profile.webhooks?.timeScale ?? 1,
    faults,
    readings: e?.readings ?? 'default',
    // The reference checks the description itself (reference/sandbox-data.ts) and throws a clear error for one it cannot be.
    target: e?.target as TargetDescription | undefined,
    latencyMs: e?.latencyMs,
    rateLimit: e?.rateLimit,
  });
}

/**
 * The reference in this process, writing this process's scheduling stalls to a lag file as `serve --lag-file` does: for a
 * process that does nothing timing-sensitive of its own while the checks run (the CLI, harness/run/host.ts).
 */
export async function startEmbeddedReferenceHere(profile: Profile, faults: string[] = []): Promise<EmbeddedProcess> {
  const lagDir = mkdtempSync(join(tmpdir(), 'mpsi-reference-lag-'));
  const lagFile = join(lagDir, 'stalls.txt');
  // Each attempt's write time beside its stalls: the kit tells the time its receiver lost from the sandbox's.
  let reference: RunningReference;
  try {
    reference = await startEmbeddedReference(profile, faults, logWrites(writesFileOf(lagFile)));
  } catch (err) {
    rmSync(lagDir, { recursive: true, force: true });
    throw err;
  }
  const stopStallLog = logStalls(lagFile);
  return {
    url: reference.url,
    lagFile,
    close: async () => {
      stopStallLog();
      try {
        await reference.close();
      } finally {
        rmSync(lagDir, { recursive: true, force: true });
      }
    },
  };
}

/** The reference's own command (`serve`), as TypeScript under tsx or as compiled JavaScript. */
function serveEntry(): { file: string; execArgv: string[] } {
  const file = codeFile('reference/serve');
  return { file, execArgv: COMPILED ? [] : ['--import', pathToFileURL(createRequire(import.meta.url).resolve('tsx')).href] };
}

export interface EmbeddedProcess {
  url: string;
  /** Where the reference writes its own scheduling stalls (reference/lag.ts): our machine's lost time, not the target's. */
  lagFile: string;
  close(): Promise<void>;
}

/**
 * The same reference in a process of its own: the conformance run's vitest main process also
 * transforms modules for the workers and writes reports, and a reference sharing its event loop
 * would send webhooks late (its first retry wait is 75 ms at the reference profile's time scale).
 */
export function startEmbeddedReferenceProcess(profile: Profile, faults: string[] = []): Promise<EmbeddedProcess> {
  const { file, execArgv } = serveEntry();
  const lagDir = mkdtempSync(join(tmpdir(), 'mpsi-reference-lag-'));
  const lagFile = join(lagDir, 'stalls.txt');
  const readings = profile.embedded?.readings ?? 'default';
  // The profile's readings as the in-process start takes them (startEmbeddedReference): without them a run of the alt profile meets the
  // default reference.
  const e = profile.embedded;
  const field = [
    ...(e?.rateLimit !== undefined ? ['--rate-limit', String(e.rateLimit)] : []),
    ...(e?.latencyMs ? ['--latency', String(e.latencyMs)] : []),
    ...(e?.target !== undefined ? ['--target', JSON.stringify(e.target)] : []),
  ];
  const args = [
    ...execArgv,
    file,
    '--port',
    '0',
    '--time-scale',
    String(profile.webhooks?.timeScale ?? 1),
    ...(readings === 'default' ? [] : ['--readings', Array.isArray(readings) ? readings.join(',') : readings]),
    ...field,
    ...faults.flatMap((f) => ['--fault', f]),
    '--lag-file',
    lagFile,
  ];
  const child = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'pipe'] });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  // vitest ends an interrupted run with process.exit(), skipping teardown: the reference goes with it.
  const stopWithUs = (): void => {
    child.kill('SIGTERM');
  };
  process.once('exit', stopWithUs);
  return new Promise<EmbeddedProcess>((resolve, reject) => {
    let out = '';
    let err = '';
    const onOut = (chunk: Buffer): void => {
      out += chunk.toString('utf8');
      const m = /listening on (http:\/\/\S+)/.exec(out);
      if (!m) return;
      // The reference logs every webhook attempt: read on and drop it, so the pipe never fills.
      child.stdout.off('data', onOut);
      child.stdout.resume();
      resolve({
        url: m[1]!,
        lagFile,
        close: async () => {
          process.off('exit', stopWithUs);
          if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
          const timer = setTimeout(() => child.kill('SIGKILL'), 5_000);
          await exited;
          clearTimeout(timer);
          rmSync(lagDir, { recursive: true, force: true });
        },
      });
    };
    child.stdout.on('data', onOut);
    child.stderr.on('data', (chunk: Buffer) => {
      err = (err + chunk.toString('utf8')).slice(-2_000);
    });
    child.once('exit', (code, signal) =>
      reject(
        new Error(`the embedded reference exited (${code ?? signal}) before listening: ${err.trim().split('\n').slice(-3).join(' / ')}`),
      ),
    );
  });
}
