/**
 * `serve [--port N] [--host H] [--time-scale X] [--readings SET] [--target JSON] [--fault NAME]... [--list-faults] [--list-readings]`: runs
 * the
 * reference sandbox until SIGINT or SIGTERM. Prints merchant ids but never their secrets.
 */
import { pathToFileURL } from 'node:url';
import { logStalls, logWrites, writesFileOf } from './lag.js';
import { faultCatalogue, type ReferenceOptions, readingCatalogue, type RunningReference, startReference } from './index.js';
import { READING_SETS, readingNames } from './readings/index.js';
import { resolveTarget, type TargetDescription } from './sandbox-data.js';

export interface ServeIO {
  out(line: string): void;
  err(line: string): void;
  /** Resolves when the server should stop; by default on SIGINT or SIGTERM. */
  untilStopped(): Promise<void>;
}

/** Lines to stdout/stderr, stopped by SIGINT or SIGTERM (also the client audit's, harness/cli/audit.ts). */
export const processIO: ServeIO = {
  out: (line) => process.stdout.write(`${line}\n`),
  err: (line) => process.stderr.write(`${line}\n`),
  untilStopped: () =>
    new Promise<void>((resolve) => {
      const stop = (): void => {
        process.off('SIGINT', stop);
        process.off('SIGTERM', stop);
        resolve();
      };
      process.on('SIGINT', stop);
      process.on('SIGTERM', stop);
    }),
};

const USAGE =
  'usage: serve [--port N] [--host H] [--time-scale X] [--rate-limit N] [--latency MS] [--readings SET] [--target JSON]' +
  ' [--fault NAME]... [--lag-file FILE] [--list-faults] [--list-readings]';

interface ServeArgs {
  opts: ReferenceOptions & { faults: string[] };
  /** Field conditions: a gateway in front, 429 beyond this many requests per second. */
  rateLimit?: number;
  /** Field conditions: one-way delay on every exchange and every webhook delivery, ms. */
  latencyMs?: number;
  /** Where this process writes its own scheduling stalls (reference/lag.ts), for the kit that started it. */
  lagFile?: string;
  listFaults: boolean;
  listReadings: boolean;
}

/** Throws a one-line message for anything it does not understand. */
export function parseServeArgs(argv: readonly string[]): ServeArgs {
  const args = argv[0] === 'serve' ? argv.slice(1) : [...argv];
  const out: ServeArgs = { opts: { faults: [] }, listFaults: false, listReadings: false };
  for (let i = 0; i < args.length; i++) {
    const arg = args[i] ?? '';
    const eq = arg.indexOf('=');
    const flag = arg.startsWith('--') && eq > 0 ? arg.slice(0, eq) : arg;
    const takeValue = (): string => {
      if (eq > 0 && arg.startsWith('--')) return arg.slice(eq + 1);
      const v = args[++i];
      if (v === undefined || v.startsWith('--')) throw new Error(`${flag} needs a value`);
      return v;
    };
    switch (flag) {
      case '--port': {
        const v = takeValue();
        const n = Number(v);
        if (!/^\d+$/.test(v) || n > 65535) throw new Error(`--port must be an integer 0..65535, got ${JSON.stringify(v)}`);
        out.opts.port = n;
        break;
      }
      case '--host':
        out.opts.host = takeValue();
        break;
      case '--time-scale': {
        const v = takeValue();
        const n = Number(v);
        if (v.trim() === '' || !Number.isFinite(n) || n <= 0)
          throw new Error(`--time-scale must be a positive number, got ${JSON.stringify(v)}`);
        out.opts.timeScale = n;
        break;
      }
      case '--rate-limit': {
        const v = takeValue();
        const n = Number(v);
        if (v.trim() === '' || !Number.isFinite(n) || n <= 0)
          throw new Error(`--rate-limit must be a positive number of requests per second, got ${JSON.stringify(v)}`);
        out.rateLimit = n;
        break;
      }
      case '--latency': {
        const v = takeValue();
        const n = Number(v);
        if (!/^\d+$/.test(v) || n > 60_000)
          throw new Error(`--latency must be an integer 0..60000 (ms, one way), got ${JSON.stringify(v)}`);
        out.latencyMs = n;
        break;
      }
      case '--fault': {
        const v = takeValue();
        if (!faultCatalogue.some((f) => f.name === v)) {
          throw new Error(`unknown fault ${JSON.stringify(v)} (known: ${faultCatalogue.map((f) => f.name).join(', ')})`);
        }
        out.opts.faults.push(v);
        break;
      }
      case '--readings': {
        const v = takeValue();
        // A set name, or reading names separated by commas (a generated target names its readings one by one).
        if (READING_SETS[v] !== undefined) out.opts.readings = v;
        else {
          const names = v.split(',').filter((n) => n !== '');
          readingNames(names);
          out.opts.readings = names;
        }
        break;
      }
      case '--lag-file':
        out.lagFile = takeValue();
        break;
      case '--target': {
        // A target description (reference/sandbox-data.ts) as JSON text: what a generated target has instead of the README's fixtures.
        const v = takeValue();
        let parsedTarget: unknown;
        try {
          parsedTarget = JSON.parse(v);
        } catch {
          throw new Error('--target must be a JSON object (a target description, reference/sandbox-data.ts)');
        }
        if (typeof parsedTarget !== 'object' || parsedTarget === null || Array.isArray(parsedTarget))
          throw new Error('--target must be a JSON object (a target description, reference/sandbox-data.ts)');
        resolveTarget(parsedTarget as TargetDescription);
        out.opts.target = parsedTarget as TargetDescription;
        break;
      }
      case '--list-faults':
        out.listFaults = true;
        break;
      case '--list-readings':
        out.listReadings = true;
        break;
      default:
        throw new Error(`unknown argument ${JSON.stringify(arg)}`);
    }
  }
  return out;
}

export async function serveMain(argv: string[], io: ServeIO = processIO): Promise<number> {
  let parsed: ServeArgs;
  try {
    parsed = parseServeArgs(argv);
  } catch (e) {
    io.err(`serve: ${e instanceof Error ? e.message : String(e)}. ${USAGE}`);
    return 2;
  }
  if (parsed.listFaults) {
    for (const f of faultCatalogue) io.out(`${f.name}\t${f.clause}\t${f.doc}`);
    return 0;
  }
  if (parsed.listReadings) {
    for (const r of readingCatalogue) io.out(`${r.name}\t${r.doc}`);
    return 0;
  }
  let running: RunningReference;
  const behind = parsed.rateLimit !== undefined || (parsed.latencyMs ?? 0) > 0;
  try {
    running = await startReference({
      ...parsed.opts,
      latencyMs: parsed.latencyMs,
      rateLimit: parsed.rateLimit,
      log: io.out,
      ...(parsed.lagFile !== undefined ? { onWebhookWritten: logWrites(writesFileOf(parsed.lagFile)) } : {}),
    });
  } catch (e) {
    io.err(`serve: could not start: ${e instanceof Error ? e.message : String(e)}`);
    return 1;
  }
  const stopStallLog = parsed.lagFile !== undefined ? logStalls(parsed.lagFile) : undefined;
  io.out(`MPSI reference sandbox listening on ${running.url}`);
  if (behind) {
    io.out(
      `gateway: ` +
        `${parsed.rateLimit !== undefined ? `HTTP 429 (HTML, Retry-After: 1) beyond ${parsed.rateLimit} requests/s` : 'no rate limit'}` +
        `${parsed.latencyMs ? `; ${parsed.latencyMs} ms one-way delay on every exchange and webhook delivery` : ''}`,
    );
  }
  const merchants = resolveTarget(parsed.opts.target).merchants;
  io.out(`merchants: ${merchants.map((m) => (m.frozen ? `${m.id} (frozen)` : m.id)).join(', ')}`);
  if (parsed.opts.readings !== undefined && parsed.opts.readings !== 'default')
    io.out(`readings: ${[parsed.opts.readings].flat().join(',')}`);
  if (parsed.opts.faults.length > 0) io.out(`faults: ${parsed.opts.faults.join(', ')}`);
  await io.untilStopped();
  stopStallLog?.();
  await running.close();
  io.out('MPSI reference sandbox stopped');
  return 0;
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  serveMain(process.argv.slice(2)).then(
    (code) => {
      process.exitCode = code;
    },
    () => {
      process.exitCode = 1;
    },
  );
}
