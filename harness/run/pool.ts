/**
 * The run-wide request pool. vitest runs the suite files in several worker processes; each used to
 * pace itself alone, with a third of the profile's `http.rateLimit` and its own in-flight window, so the run sent
 * below the limit whenever a worker was idle and above the budget when all were busy. One pool, held by vitest's
 * pool process started by global setup (harness/run/global-setup.ts), now hands out every request's slot and rate token: at most
 * `http.concurrency` requests in flight in the whole run, at most `http.rateLimit` per second, and the AIMD window
 * of harness/throttle.ts narrowed by a throttled answer whichever worker got it.
 *
 * A slot is held for one request, from send to answer: a check that waits (a webhook window, a retry schedule)
 * holds none. The protocol is one line per message on a loopback TCP connection per worker: `a<key>` asks for a slot,
 * `g` grants one, `r0`/`r1` gives one back (`r1`: the answer was a gateway's throttling), optionally followed by when
 * the attempt went on the wire and when its answer came (epoch ms) and, for `r1`, the Retry-After wait (ms): the pool's
 * pacer learns a rate from them when the target throttles and the profile declares none (harness/throttle.ts). A
 * worker that goes away gives its slots back with its socket. The pool runs in a process of its own (`startPoolProcess`), started by global
 * setup.
 *
 * Who gets a slot that comes free: the ask with the lowest key, which is the start time (epoch ms) of the check that
 * asks (`a` alone: the time the pool got the ask). Earliest-started check first: a check's requests follow one another
 * in chains, and a chain whose every request queued behind every later check's would end last (behind a
 * gateway at 50 requests/s the stateful check's sequences waited for a rate token on each step, and set the run's
 * tail). The earliest check holds at most its own chains' width, so later checks get every slot it leaves; and the
 * suite files start longest first (harness/run/sequencer.ts), so the long chains are the early ones. A worker gives a
 * grant to its own lowest-keyed waiter, which is the ask the pool chose. A resend after a throttled answer asks with
 * key 0: before every fresh request, so that fresh requests cannot take the gateway's next second from it.
 */
import { spawn } from 'node:child_process';
import { createRequire } from 'node:module';
import { createServer, connect, type Server, type Socket } from 'node:net';
import { pathToFileURL } from 'node:url';
import { currentRecorder } from '../check/context.js';
import { codeFile, COMPILED } from '../kit-files.js';
import type { PoolFacts } from '../report/floor.js';
import { type LearntRate, Pacer, type ReleaseOptions, type RequestPacer } from '../throttle.js';

export interface PoolOptions {
  /** Most requests in flight in the whole run (the profile's `http.concurrency`). */
  concurrency: number;
  /** Requests per second for the whole run (the profile's `http.rateLimit`); absent: no pacing. */
  rateLimit?: number;
}

export interface PoolServer {
  /** Loopback port the workers connect to (passed to them with vitest's provide/inject). */
  port: number;
  /** Slots granted so far (one per request sent, resends included). */
  granted(): number;
  /** Most slots held at once so far. */
  maxInFlight(): number;
  /** When the first slot was granted and the last given back (epoch ms); undefined before. */
  firstGrantAt(): number | undefined;
  lastReleaseAt(): number | undefined;
  /** The rate learnt from the target's throttling when the profile declares none; undefined when none was. */
  learntRate(): LearntRate | undefined;
  /** Hands the pool a rate the doctor learnt before the checks (`Pacer.seedRate`). */
  seedRate(ratePerSecond: number): void;
  close(): Promise<void>;
}

/** An ask waiting for a slot: its key (lower first), its arrival (ties in order), and its worker's connection. */
interface Ask {
  key: number;
  seq: number;
  grant: () => void;
  gone: () => boolean;
}

/** The waiting asks, lowest key first; `take` removes and returns the first whose worker is still there. */
export class AskQueue {
  private readonly asks: Ask[] = [];

  get size(): number {
    return this.asks.length;
  }

  add(ask: Ask): void {
    // Binary search for the first ask that comes after this one: the queue is short and mostly appended to.
    let lo = 0;
    let hi = this.asks.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      const m = this.asks[mid]!;
      if (m.key < ask.key || (m.key === ask.key && m.seq < ask.seq)) lo = mid + 1;
      else hi = mid;
    }
    this.asks.splice(lo, 0, ask);
  }

  take(): Ask | undefined {
    for (let a = this.asks.shift(); a !== undefined; a = this.asks.shift()) if (!a.gone()) return a;
    return undefined;
  }
}

/** An ask line: `a`, or `a` and its key (whole milliseconds). */
const ASK = /^a(\d{1,16})?$/;
/** A release line: `r0`/`r1`, then optionally the attempt's wire times (epoch ms) and, throttled, its wait (ms). */
const RELEASE = /^r([01])(?: (\d{1,16}(?:\.\d{1,6})?) (\d{1,16}(?:\.\d{1,6})?)(?: (\d{1,9}))?)?$/;
/** The longest Retry-After a worker's word may hold the whole run for (harness/throttle.ts bounds one resend's wait so). */
const MAX_RELEASE_WAIT_MS = 60_000;

/** What a release line tells the pool's pacer, its times on the pool's own clock (performance.now()). */
export function parseRelease(line: string): { throttled: boolean; opts: ReleaseOptions } | undefined {
  const m = RELEASE.exec(line);
  if (!m) return undefined;
  const throttled = m[1] === '1';
  if (m[2] === undefined || m[3] === undefined) return { throttled, opts: {} };
  const at = Number(m[2]) - performance.timeOrigin;
  const answeredAt = Number(m[3]) - performance.timeOrigin;
  const opts: ReleaseOptions = { attempt: { at, answeredAt, answer: throttled ? 'throttled' : 'admitted' } };
  if (throttled && m[4] !== undefined) opts.waitMs = Math.min(MAX_RELEASE_WAIT_MS, Number(m[4]));
  return { throttled, opts };
}

/** The release line for an answer: its wire times on the shared clock (epoch ms), so the pool can set them side by side. */
export function releaseLine(throttled: boolean, opts: ReleaseOptions = {}): string {
  const head = throttled ? 'r1' : 'r0';
  const a = opts.attempt;
  // An attempt without an answer tells nothing of the gateway's count.
  if (a === undefined || a.answer === 'none') return `${head}\n`;
  const epoch = (t: number) => (performance.timeOrigin + t).toFixed(3);
  const wait = throttled && opts.waitMs !== undefined ? ` ${Math.round(opts.waitMs)}` : '';
  return `${head} ${epoch(a.at)} ${epoch(a.answeredAt)}${wait}\n`;
}

export async function startPoolServer(opts: PoolOptions): Promise<PoolServer> {
  const pacer = new Pacer({ concurrency: opts.concurrency, ratePerSecond: opts.rateLimit, capped: true });
  let granted = 0;
  let inFlight = 0;
  let maxInFlight = 0;
  let firstGrantAt: number | undefined;
  let lastReleaseAt: number | undefined;
  let seq = 0;
  const queue = new AskQueue();
  let dispatching = false;
  // One slot and rate token at a time, and only then the choice of who gets it: the ask that is best when the slot
  // comes free, not the one that was best when the wait began.
  const dispatch = async (): Promise<void> => {
    if (dispatching) return;
    dispatching = true;
    try {
      while (queue.size > 0) {
        await pacer.acquire();
        const ask = queue.take();
        if (!ask) {
          // Every waiter's worker went away while the slot came free.
          pacer.release(false);
          break;
        }
        inFlight += 1;
        granted += 1;
        firstGrantAt ??= Date.now();
        maxInFlight = Math.max(maxInFlight, inFlight);
        ask.grant();
      }
    } finally {
      dispatching = false;
    }
  };
  const sockets = new Set<Socket>();
  const server: Server = createServer((socket) => {
    sockets.add(socket);
    socket.setNoDelay(true);
    let held = 0;
    let gone = false;
    const giveBack = (throttled: boolean, released: ReleaseOptions = {}) => {
      held -= 1;
      inFlight -= 1;
      lastReleaseAt = Date.now();
      pacer.release(throttled, released);
    };
    onLines(socket, (line) => {
      const ask = ASK.exec(line);
      const released = ask ? undefined : parseRelease(line);
      if (ask) {
        queue.add({
          key: ask[1] === undefined ? Date.now() : Number(ask[1]),
          seq: seq++,
          gone: () => gone,
          grant: () => {
            held += 1;
            socket.write('g\n');
          },
        });
        void dispatch();
      } else if (released && held > 0) {
        giveBack(released.throttled, released.opts);
      } else {
        // Not our worker: nothing it says is trusted with the run's budget.
        socket.destroy();
        return false;
      }
      return true;
    });
    const drop = () => {
      if (gone) return;
      gone = true;
      sockets.delete(socket);
      while (held > 0) giveBack(false);
    };
    socket.on('close', drop);
    socket.on('error', drop);
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('the request pool did not get a TCP port');
  return {
    port: address.port,
    granted: () => granted,
    maxInFlight: () => maxInFlight,
    firstGrantAt: () => firstGrantAt,
    lastReleaseAt: () => lastReleaseAt,
    learntRate: () => pacer.learntRate,
    seedRate: (rate) => pacer.seedRate(rate, 'doctor'),
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}

/**
 * A worker's end of the pool. If the pool cannot be reached or goes away mid-run (the main process ended), the
 * worker falls back to `fallback` (its local pacing), so a check never waits for a grant that cannot come.
 */
export function connectPool(port: number, fallback: RequestPacer): RequestPacer & { close(): void } {
  /** This worker's waiters, lowest key first (the pool grants its best ask, and that is this worker's first). */
  const waiting = new AskQueue();
  let seq = 0;
  let socket: Socket | undefined = connect({ port, host: '127.0.0.1' });
  socket.setNoDelay(true);
  // The pool never keeps a worker alive on its own.
  socket.unref();
  /** Slots of the pool held by this worker's requests in flight (after a loss, their releases are not sent). */
  let poolHeld = 0;
  /**
   * Lines not yet written: a release and the next ask of a chain, and the asks of checks started together,
   * go out in one write at the end of the current tick instead of one system call each (two per request made the pool
   * a worker's costliest writer). A tick adds no event-loop turn, and the pool sees the same lines in the same order.
   */
  let unsent = '';
  const flush = () => {
    const lines = unsent;
    unsent = '';
    if (lines !== '') socket?.write(lines);
  };
  const send = (line: string) => {
    if (unsent === '') process.nextTick(flush);
    unsent += line;
  };
  const lost = () => {
    if (!socket) return;
    unsent = '';
    socket.destroy();
    socket = undefined;
    // Each waiter now paces itself locally instead.
    for (let w = waiting.take(); w !== undefined; w = waiting.take()) void fallback.acquire().then(w.grant);
  };
  onLines(socket, (line) => {
    if (line === 'g') waiting.take()?.grant();
    return true;
  });
  socket.on('error', lost);
  socket.on('close', lost);
  return {
    acquire(opts = {}) {
      if (!socket) return fallback.acquire(opts);
      const s = socket;
      // The running check's start (harness/check/context.ts); outside a check, now: the order of asking. A resend: 0.
      const key = opts.resend ? 0 : Math.floor(currentRecorder()?.startedAt ?? Date.now());
      return new Promise<void>((resolve) => {
        waiting.add({
          key,
          seq: seq++,
          gone: () => false,
          grant: () => {
            if (socket === s) poolHeld += 1;
            resolve();
          },
        });
        send(`a${key}\n`);
      });
    },
    release(throttled, opts = {}) {
      if (poolHeld === 0) return fallback.release(throttled, opts);
      poolHeld -= 1;
      if (socket) send(releaseLine(throttled, opts));
    },
    close() {
      socket?.destroy();
      socket = undefined;
    },
  };
}

/** What the pool's process answers when it is told to end (its stdin closed): the facts of the run. */
type PoolCounts = Pick<PoolFacts, 'granted' | 'maxInFlight' | 'firstGrantAt' | 'lastReleaseAt' | 'learntRate'>;

export interface PoolProcess {
  port: number;
  /** Ends the pool's process and returns what it counted. */
  close(): Promise<PoolCounts>;
}

/**
 * The pool in a process of its own: vitest's main process transforms modules for the workers and runs the reporters,
 * and a grant waiting behind that work would be our scheduling's time charged to every request of the run.
 */
export function startPoolProcess(opts: PoolOptions): Promise<PoolProcess> {
  const file = codeFile('harness/run/pool');
  const execArgv = COMPILED ? [] : ['--import', pathToFileURL(createRequire(import.meta.url).resolve('tsx')).href];
  const child = spawn(process.execPath, [...execArgv, file, JSON.stringify(opts)], { stdio: ['pipe', 'pipe', 'pipe'] });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  // vitest ends an interrupted run with process.exit(), skipping teardown: the pool goes with it.
  const stopWithUs = (): void => {
    child.kill('SIGTERM');
  };
  process.once('exit', stopWithUs);
  let out = '';
  let err = '';
  child.stderr.on('data', (chunk: Buffer) => {
    err = (err + chunk.toString('utf8')).slice(-2_000);
  });
  return new Promise<PoolProcess>((resolve, reject) => {
    const onOut = (chunk: Buffer): void => {
      out += chunk.toString('utf8');
      const m = /^pool listening on (\d+)\n/.exec(out);
      if (!m) return;
      out = out.slice(m[0].length);
      resolve({
        port: Number(m[1]),
        close: async () => {
          process.off('exit', stopWithUs);
          child.stdin.end();
          const timer = setTimeout(() => child.kill('SIGKILL'), 5_000);
          await exited;
          clearTimeout(timer);
          const counts = /^(\{.*\})\n/.exec(out);
          if (!counts) throw new Error(`the request pool ended without its counts: ${err.trim().split('\n').slice(-3).join(' / ')}`);
          return JSON.parse(counts[1]!) as PoolCounts;
        },
      });
    };
    child.stdout.on('data', onOut);
    child.once('exit', (code, signal) =>
      reject(new Error(`the request pool exited (${code ?? signal}) before listening: ${err.trim().split('\n').slice(-3).join(' / ')}`)),
    );
  });
}

/** The pool's process: serves until its stdin closes (the run ended, or the process that started it is gone). */
async function poolMain(arg: string | undefined): Promise<void> {
  const server = await startPoolServer(JSON.parse(arg ?? '{}') as PoolOptions);
  process.stdout.write(`pool listening on ${server.port}\n`);
  process.stdin.resume();
  process.stdin.once('end', () => {
    const counts: PoolCounts = {
      granted: server.granted(),
      maxInFlight: server.maxInFlight(),
      firstGrantAt: server.firstGrantAt(),
      lastReleaseAt: server.lastReleaseAt(),
    };
    const learnt = server.learntRate();
    if (learnt) counts.learntRate = learnt;
    process.stdout.write(`${JSON.stringify(counts)}\n`, () => {
      void server.close().then(() => process.exit(0));
    });
  });
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  poolMain(process.argv[2]).catch((e: unknown) => {
    process.stderr.write(`request pool: ${e instanceof Error ? e.message : String(e)}\n`);
    process.exit(1);
  });
}

/** Calls `each` with every whole line the socket sends (the pool's protocol is one word a line); `false` stops reading. */
function onLines(socket: Socket, each: (line: string) => boolean): void {
  let pending = '';
  socket.on('data', (chunk) => {
    pending += chunk.toString('latin1');
    for (let nl = pending.indexOf('\n'); nl >= 0; nl = pending.indexOf('\n')) {
      const line = pending.slice(0, nl);
      pending = pending.slice(nl + 1);
      if (!each(line)) return;
    }
  });
}
