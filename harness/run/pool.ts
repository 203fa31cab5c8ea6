/**
 * The run-wide request pool. vitest runs the suite files in several worker processes; each used to
 * pace itself alone, with a third of the profile's `http.rateLimit` and its own in-flight window, so the run sent
 * below the limit whenever a worker was idle and above the budget when all were busy. One pool, held by vitest's
 * pool process started by global setup (harness/run/global-setup.ts), now hands out every request's slot and rate token: at most
 * `http.concurrency` requests in flight in the whole run, at most `http.rateLimit` per second, and the AIMD window
 * of harness/http/throttle.ts narrowed by a throttled answer whichever worker got it.
 *
 * A slot is held for one request, from send to answer: a check that waits (a webhook window, a retry schedule)
 * holds none. The protocol is one line per message on a loopback TCP connection per worker: `a<key>` asks for a slot,
 * `g` grants one, `r0`/`r1` gives one back (`r1`: the answer was a gateway's throttling), optionally followed by when
 * the attempt went on the wire and when its answer came (epoch ms) and, for `r1`, the Retry-After wait (ms): the pool's
 * pacer learns a rate from them when the target throttles and the profile declares none (harness/http/throttle.ts). A
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
 *
 * Exclusive sections (harness/http/exclusive.ts): a request to the target asks with what it is, `a<key> <rid> <merchant>
 * <operation> <holds>` (the merchant id URI-encoded after an `m`, the operation from the profile's endpoints, the ids of the sections
 * its sender holds, comma-separated, or `-`), is granted by `g<rid>`, and gives its slot back with `r0@<rid> …` so the
 * pool knows which request ended. `x+<id> <scope> <merchant> <operation> <holds>` asks for a section, which the pool
 * grants with `x<id>` once no other section overlaps it and no request it covers is in flight; from the ask on, the
 * pool holds back every request the section covers, but a request of another section's holder (so none deadlocks);
 * `x-<id>` closes it (or withdraws the ask). A worker that goes away closes its sections with its socket. A plain
 * `a<key>` (no class) is never held: it is not a request to the target.
 */
import { spawn } from 'node:child_process';
import { createRequire } from 'node:module';
import { createServer, connect, type Server, type Socket } from 'node:net';
import { pathToFileURL } from 'node:url';
import { currentRecorder } from '../check/context.js';
import {
  EXCLUSIVE_SCOPES,
  type ExclusiveScope,
  type HeldSection,
  OPERATIONS,
  type Operation,
  type RequestTag,
  SectionBook,
  type SectionSpec,
} from '../http/exclusive.js';
import { codeFile, COMPILED } from '../kit/kit-files.js';
import type { PoolFacts } from '../report/floor.js';
import { type AcquireOptions, type LearntRate, Pacer, type ReleaseOptions, type RequestPacer } from '../http/throttle.js';

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
  /** Whether an exclusive section holds it back now (absent: never). */
  held?: () => boolean;
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

  /** Whether an ask may be granted now (its worker there, no section holding it back); drops the gone ones. */
  ready(): boolean {
    return this.firstReady() >= 0;
  }

  /** Removes and returns the first ask that may be granted now. */
  takeReady(): Ask | undefined {
    const i = this.firstReady();
    return i < 0 ? undefined : this.asks.splice(i, 1)[0];
  }

  private firstReady(): number {
    for (let i = 0; i < this.asks.length; ) {
      const a = this.asks[i]!;
      if (a.gone()) {
        this.asks.splice(i, 1);
        continue;
      }
      if (!a.held?.()) return i;
      i += 1;
    }
    return -1;
  }
}

/** An ask line: `a`, or `a` and its key (whole milliseconds); a request to the target: then its id, merchant, operation, holds. */
const ASK = /^a(\d{1,16})?(?: (\d{1,9}) ([^ ]{1,512}) ([a-z.]{1,32}) ([0-9a-z,]{1,512}|-))?$/;
/**
 * A release line: `r0`/`r1`, the request's id after `@` when it asked with one, then optionally the attempt's wire
 * times (epoch ms) and, throttled, its wait (ms).
 */
const RELEASE = /^r([01])(?:@(\d{1,9}))?(?: (\d{1,16}(?:\.\d{1,6})?) (\d{1,16}(?:\.\d{1,6})?)(?: (\d{1,9}))?)?$/;
/** A section line: `x+<id> <scope> <merchant> <operation> <holds>` opens one, `x-<id>` closes it. */
const SECTION = /^x(?:\+([0-9a-z]{1,16}) ([a-z]{1,16}) ([^ ]{1,512}) ([a-z.]{1,32}) ([0-9a-z,]{1,512}|-)|-([0-9a-z]{1,16}))$/;
/** The longest Retry-After a worker's word may hold the whole run for (harness/http/throttle.ts bounds one resend's wait so). */
const MAX_RELEASE_WAIT_MS = 60_000;

/** What a release line tells the pool's pacer, its times on the pool's own clock (performance.now()). */
export function parseRelease(line: string): { throttled: boolean; opts: ReleaseOptions; rid?: number } | undefined {
  const m = RELEASE.exec(line);
  if (!m) return undefined;
  const throttled = m[1] === '1';
  const rid = m[2] === undefined ? {} : { rid: Number(m[2]) };
  if (m[3] === undefined || m[4] === undefined) return { throttled, opts: {}, ...rid };
  const at = Number(m[3]) - performance.timeOrigin;
  const answeredAt = Number(m[4]) - performance.timeOrigin;
  const opts: ReleaseOptions = { attempt: { at, answeredAt, answer: throttled ? 'throttled' : 'admitted' } };
  if (throttled && m[5] !== undefined) opts.waitMs = Math.min(MAX_RELEASE_WAIT_MS, Number(m[5]));
  return { throttled, opts, ...rid };
}

/** The request's class and holds on an ask line, after its key. */
function askTail(tag: RequestTag): string {
  return ` ${tag.rid} ${encodeMerchant(tag.merchant)} ${tag.operation} ${tag.holds.length > 0 ? tag.holds.join(',') : '-'}`;
}

/** A merchant id on a line: URI-encoded after an `m`, so that even an empty one is a word. */
function encodeMerchant(id: string): string {
  return `m${encodeURIComponent(id)}`;
}

function parseOperation(s: string): Operation | undefined {
  return (OPERATIONS as readonly string[]).includes(s) ? (s as Operation) : undefined;
}

function decodeMerchant(s: string): string | undefined {
  if (!s.startsWith('m')) return undefined;
  try {
    return decodeURIComponent(s.slice(1));
  } catch {
    return undefined;
  }
}

function parseHolds(s: string): string[] {
  return s === '-' ? [] : s.split(',');
}

/** The release line for an answer: its wire times on the shared clock (epoch ms), so the pool can set them side by side. */
export function releaseLine(throttled: boolean, opts: ReleaseOptions = {}): string {
  const rid = opts.request?.rid;
  const head = `${throttled ? 'r1' : 'r0'}${rid === undefined ? '' : `@${rid}`}`;
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
  /** The run's exclusive sections and its requests to the target in flight, per worker connection. */
  const book = new SectionBook<Socket>();
  let dispatching = false;
  // One slot and rate token at a time, and only then the choice of who gets it: the ask that is best when the slot
  // comes free, not the one that was best when the wait began.
  const dispatch = async (): Promise<void> => {
    if (dispatching) return;
    dispatching = true;
    try {
      while (queue.ready()) {
        await pacer.acquire();
        const ask = queue.takeReady();
        if (!ask) {
          // Every waiter's worker went away, or a section began to hold them back, while the slot came free.
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
    /** This worker's requests to the target in flight, by id (for the book). */
    const tagged = new Set<number>();
    const giveBack = (throttled: boolean, released: ReleaseOptions = {}) => {
      held -= 1;
      inFlight -= 1;
      lastReleaseAt = Date.now();
      pacer.release(throttled, released);
    };
    const onAsk = (ask: RegExpExecArray): boolean => {
      const key = ask[1] === undefined ? Date.now() : Number(ask[1]);
      if (ask[2] === undefined) {
        queue.add({
          key,
          seq: seq++,
          gone: () => gone,
          grant: () => {
            held += 1;
            socket.write('g\n');
          },
        });
        return true;
      }
      const rid = Number(ask[2]);
      const merchant = decodeMerchant(ask[3]!);
      const operation = parseOperation(ask[4]!);
      if (merchant === undefined || operation === undefined || tagged.has(rid)) return false;
      const tag: RequestTag = { merchant, operation, holds: parseHolds(ask[5]!) };
      queue.add({
        key,
        seq: seq++,
        gone: () => gone,
        held: () => book.blocked(socket, tag),
        grant: () => {
          held += 1;
          tagged.add(rid);
          book.sent(socket, rid, tag);
          socket.write(`g${rid}\n`);
        },
      });
      return true;
    };
    const onSection = (m: RegExpExecArray): boolean => {
      if (m[6] !== undefined) {
        book.close(socket, m[6]);
        return true;
      }
      const scope = m[2] as ExclusiveScope;
      const merchant = decodeMerchant(m[3]!);
      const operation = parseOperation(m[4]!);
      if (!EXCLUSIVE_SCOPES.includes(scope) || merchant === undefined || operation === undefined) return false;
      const id = m[1]!;
      const spec: SectionSpec = { scope, merchant, operation };
      book.open(socket, id, spec, parseHolds(m[5]!), () => {
        if (!gone) socket.write(`x${id}\n`);
      });
      return true;
    };
    onLines(socket, (line) => {
      const ask = ASK.exec(line);
      const released = ask ? undefined : parseRelease(line);
      const section = ask || released ? undefined : SECTION.exec(line);
      let ok: boolean;
      if (ask) ok = onAsk(ask);
      else if (released && held > 0 && (released.rid === undefined || tagged.has(released.rid))) {
        giveBack(released.throttled, released.opts);
        if (released.rid !== undefined) {
          tagged.delete(released.rid);
          book.done(socket, released.rid);
        }
        ok = true;
      } else if (section) ok = onSection(section);
      else ok = false;
      if (!ok) {
        // Not our worker: nothing it says is trusted with the run's budget.
        socket.destroy();
        return false;
      }
      // A release, a section opened or closed, may let an ask go that a section held back.
      void dispatch();
      return true;
    });
    const drop = () => {
      if (gone) return;
      gone = true;
      sockets.delete(socket);
      while (held > 0) giveBack(false);
      book.drop(socket);
      void dispatch();
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
 * worker falls back to `fallback` (its local pacing, and its own gate for sections when it has one), so a check never
 * waits for a grant that cannot come.
 */
export function connectPool(
  port: number,
  fallback: RequestPacer,
): RequestPacer & { openSection: NonNullable<RequestPacer['openSection']>; close(): void } {
  /** This worker's waiters, lowest key first (the pool grants its best ask, and that is this worker's first). */
  const waiting = new AskQueue();
  /** Its requests to the target waiting for a grant, by id (the pool names the one it grants). */
  const waitingTagged = new Map<number, () => void>();
  /** Its sections asked for and not yet granted, by id. */
  const opening = new Map<string, () => void>();
  let seq = 0;
  let rid = 0;
  let sectionSeq = 0;
  let socket: Socket | undefined = connect({ port, host: '127.0.0.1' });
  socket.setNoDelay(true);
  // The pool never keeps a worker alive on its own.
  socket.unref();
  /** Slots of the pool held by this worker's requests in flight (after a loss, their releases are not sent). */
  let poolHeld = 0;
  /** Its requests to the target in flight on a pool grant (the others went on the fallback's). */
  const poolTagged = new WeakSet<RequestTag>();
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
    for (const go of waitingTagged.values()) go();
    waitingTagged.clear();
    for (const go of opening.values()) go();
    opening.clear();
  };
  onLines(socket, (line) => {
    if (line === 'g') waiting.take()?.grant();
    else if (line.startsWith('g')) {
      const id = Number(line.slice(1));
      const go = waitingTagged.get(id);
      waitingTagged.delete(id);
      go?.();
    } else if (line.startsWith('x')) {
      const id = line.slice(1);
      const go = opening.get(id);
      opening.delete(id);
      go?.();
    }
    return true;
  });
  socket.on('error', lost);
  socket.on('close', lost);
  const acquireTagged = (tag: RequestTag, opts: AcquireOptions, key: number): Promise<void> => {
    const s = socket!;
    tag.rid = ++rid;
    const id = tag.rid;
    return new Promise<'pool' | 'lost'>((resolve) => {
      waitingTagged.set(id, () => resolve(socket === s ? 'pool' : 'lost'));
      send(`a${key}${askTail(tag)}\n`);
    }).then((via) => {
      if (via === 'pool') {
        poolTagged.add(tag);
        return;
      }
      return fallback.acquire(opts);
    });
  };
  return {
    acquire(opts = {}) {
      if (!socket) return fallback.acquire(opts);
      const s = socket;
      // The running check's start (harness/check/context.ts); outside a check, now: the order of asking. A resend: 0.
      const key = opts.resend ? 0 : Math.floor(currentRecorder()?.startedAt ?? Date.now());
      if (opts.request) return acquireTagged(opts.request, opts, key);
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
      if (opts.request !== undefined) {
        if (!poolTagged.delete(opts.request)) return fallback.release(throttled, opts);
        if (socket) send(releaseLine(throttled, opts));
        return;
      }
      if (poolHeld === 0) return fallback.release(throttled, opts);
      poolHeld -= 1;
      if (socket) send(releaseLine(throttled, opts));
    },
    openSection(spec: SectionSpec, holds: readonly string[]): Promise<HeldSection> {
      const viaFallback = () => {
        if (!fallback.openSection) return Promise.resolve({ id: 'lost', close: () => undefined });
        return fallback.openSection(spec, holds);
      };
      if (!socket) return viaFallback();
      const s = socket;
      const id = `w${(++sectionSeq).toString(36)}`;
      return new Promise<boolean>((resolve) => {
        opening.set(id, () => resolve(socket === s));
        send(`x+${id} ${spec.scope} ${encodeMerchant(spec.merchant)} ${spec.operation} ${holds.length > 0 ? holds.join(',') : '-'}\n`);
      }).then((onPool) => {
        if (!onPool) return viaFallback();
        return {
          id,
          close: () => {
            if (socket === s) send(`x-${id}\n`);
          },
        };
      });
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
