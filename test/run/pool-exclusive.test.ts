/**
 * Exclusive sections of the run-wide pool (harness/http/exclusive.ts, harness/run/pool.ts): while a section is held, no
 * request it covers is granted to anyone but its holder, whichever worker asks; opening one waits for the requests it
 * covers already in flight and holds new ones back; overlapping sections never run together and cannot deadlock; a
 * worker that goes away releases its sections; a request not to the target (no class) is never held.
 */
import { connect } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { covers, overlap, type RequestTag, SectionBook, type SectionSpec } from '../../harness/http/exclusive.js';
import { GatedPacer } from '../../harness/http/gated-pacer.js';
import { connectPool, type PoolServer, startPoolServer } from '../../harness/run/pool.js';
import { Pacer } from '../../harness/http/throttle.js';

const servers: PoolServer[] = [];
const clients: { close(): void }[] = [];

afterEach(async () => {
  for (const c of clients.splice(0)) c.close();
  for (const s of servers.splice(0)) await s.close();
});

async function pool(concurrency = 8): Promise<PoolServer> {
  const s = await startPoolServer({ concurrency });
  servers.push(s);
  return s;
}

function worker(port: number) {
  const c = connectPool(port, new GatedPacer(new Pacer()));
  clients.push(c);
  return c;
}

/** Whether the promise settled within `ms` (a grant travels over loopback). */
async function settles(p: Promise<unknown>, ms = 200): Promise<boolean> {
  return Promise.race([p.then(() => true), new Promise<boolean>((r) => setTimeout(() => r(false), ms))]);
}

const tag = (merchant: string, operation: RequestTag['operation'], holds: string[] = []): RequestTag => ({ merchant, operation, holds });
const section = (scope: SectionSpec['scope'], merchant = 'M1', operation: SectionSpec['operation'] = 'payment.create'): SectionSpec => ({
  scope,
  merchant,
  operation,
});

describe('what a section covers', () => {
  it('covers by scope: the merchant and operation, the merchant, everything; a subject section covers nothing', () => {
    const r = { merchant: 'M1', operation: 'payment.create' } as const;
    expect(covers(section('operation'), r)).toBe(true);
    expect(covers(section('operation'), { ...r, operation: 'payment.query' })).toBe(false);
    expect(covers(section('operation'), { ...r, merchant: 'M2' })).toBe(false);
    expect(covers(section('merchant'), { ...r, operation: 'sandbox' })).toBe(true);
    expect(covers(section('merchant'), { ...r, merchant: 'M2' })).toBe(false);
    expect(covers(section('target'), { merchant: 'M9', operation: 'other' })).toBe(true);
    expect(covers(section('subject'), r)).toBe(false);
  });

  it('lets two sections run together only when no request could be covered by both', () => {
    expect(overlap(section('operation'), section('operation', 'M1', 'payment.query'))).toBe(false);
    expect(overlap(section('operation'), section('operation', 'M2'))).toBe(false);
    expect(overlap(section('operation'), section('merchant'))).toBe(true);
    expect(overlap(section('merchant', 'M2'), section('merchant'))).toBe(false);
    expect(overlap(section('target', 'M2'), section('operation'))).toBe(true);
  });
});

describe('the book of sections', () => {
  it('holds back what a granted section covers, but not its holder, nor what it does not cover', () => {
    const book = new SectionBook<string>();
    let granted = false;
    book.open('w1', 's1', section('operation'), [], () => {
      granted = true;
    });
    expect(granted).toBe(true);
    expect(book.blocked('w2', tag('M1', 'payment.create'))).toBe(true);
    expect(book.blocked('w1', tag('M1', 'payment.create'))).toBe(true);
    expect(book.blocked('w1', tag('M1', 'payment.create', ['s1']))).toBe(false);
    // The same id held on another connection is not this section.
    expect(book.blocked('w2', tag('M1', 'payment.create', ['s1']))).toBe(true);
    expect(book.blocked('w2', tag('M1', 'payment.query'))).toBe(false);
    expect(book.blocked('w2', tag('M2', 'payment.create'))).toBe(false);
    book.close('w1', 's1');
    expect(book.blocked('w2', tag('M1', 'payment.create'))).toBe(false);
  });

  it('opens a section only once what it covers is no longer in flight, holding new requests back meanwhile', () => {
    const book = new SectionBook<string>();
    book.sent('w2', 1, tag('M1', 'payment.create'));
    book.sent('w2', 2, tag('M2', 'payment.create'));
    let granted = false;
    book.open('w1', 's1', section('operation'), [], () => {
      granted = true;
    });
    expect(granted).toBe(false);
    expect(book.blocked('w3', tag('M1', 'payment.create'))).toBe(true);
    expect(book.holding('w1', 's1')).toBe('requests in flight');
    book.done('w2', 2);
    expect(granted).toBe(false);
    book.done('w2', 1);
    expect(granted).toBe(true);
  });

  it("never holds back a section holder's request for a section still opening: neither can wait on the other", () => {
    const book = new SectionBook<string>();
    book.open('w1', 's1', section('operation'), [], () => undefined);
    let second = false;
    book.open('w2', 's1', section('target'), [], () => {
      second = true;
    });
    expect(second).toBe(false);
    // w1's own request goes (its section must end); everyone else's waits for the opening target section.
    expect(book.blocked('w1', tag('M1', 'payment.create', ['s1']))).toBe(false);
    expect(book.blocked('w1', tag('M1', 'payment.query', ['s1']))).toBe(false);
    expect(book.blocked('w3', tag('M2', 'payment.query'))).toBe(true);
    book.close('w1', 's1');
    expect(second).toBe(true);
  });

  it('grants a nested section of the same holder at once', () => {
    const book = new SectionBook<string>();
    book.open('w1', 's1', section('merchant'), [], () => undefined);
    let nested = false;
    book.open('w1', 's2', section('operation'), ['s1'], () => {
      nested = true;
    });
    expect(nested).toBe(true);
  });

  it("drops a gone owner's sections and requests in flight", () => {
    const book = new SectionBook<string>();
    book.open('w1', 's1', section('target'), [], () => undefined);
    book.sent('w1', 1, tag('M1', 'payment.create', ['s1']));
    let next = false;
    book.open('w2', 's1', section('target'), [], () => {
      next = true;
    });
    expect(next).toBe(false);
    book.drop('w1');
    expect(next).toBe(true);
  });
});

describe('exclusive sections of the run-wide pool', () => {
  it("holds another worker's covered request until the section closes; the holder's own and uncovered ones go", async () => {
    const s = await pool();
    const a = worker(s.port);
    const b = worker(s.port);
    const held = await a.openSection(section('operation'), []);
    const stolen = tag('M1', 'payment.create');
    const theirs = b.acquire({ request: stolen });
    expect(await settles(theirs)).toBe(false);
    const own = tag('M1', 'payment.create', [held.id]);
    await a.acquire({ request: own });
    a.release(false, { request: own });
    const other = tag('M2', 'payment.create');
    await b.acquire({ request: other });
    b.release(false, { request: other });
    // A request that is not to the target (no class) is never held.
    await b.acquire();
    b.release(false);
    held.close();
    expect(await settles(theirs, 5_000)).toBe(true);
    b.release(false, { request: stolen });
  });

  it('opens a section only when the covered requests in flight have answered', async () => {
    const s = await pool();
    const a = worker(s.port);
    const b = worker(s.port);
    const inFlight = tag('M1', 'payment.create');
    await b.acquire({ request: inFlight });
    const opening = a.openSection(section('merchant'), []);
    expect(await settles(opening)).toBe(false);
    // Meanwhile a new request it covers waits too.
    const later = tag('M1', 'sandbox');
    const waiting = b.acquire({ request: later });
    b.release(false, { request: inFlight });
    const held = await opening;
    expect(await settles(waiting)).toBe(false);
    held.close();
    expect(await settles(waiting, 5_000)).toBe(true);
    b.release(false, { request: later });
  });

  it('runs overlapping sections of two workers one after the other', async () => {
    const s = await pool();
    const a = worker(s.port);
    const b = worker(s.port);
    const first = await a.openSection(section('target'), []);
    const second = b.openSection(section('operation', 'M2'), []);
    expect(await settles(second)).toBe(false);
    first.close();
    const held = await second;
    held.close();
  });

  it('releases the sections of a worker that goes away', async () => {
    const s = await pool();
    const a = worker(s.port);
    const b = worker(s.port);
    await a.openSection(section('target'), []);
    const r = tag('M1', 'payment.query');
    const waiting = b.acquire({ request: r });
    expect(await settles(waiting)).toBe(false);
    a.close();
    expect(await settles(waiting, 5_000)).toBe(true);
    b.release(false, { request: r });
  });

  it('carries any merchant id, an empty one and one with spaces included', async () => {
    const s = await pool();
    const a = worker(s.port);
    const b = worker(s.port);
    const held = await a.openSection(section('merchant', ''), []);
    const empty = tag('', 'payment.query');
    const waiting = b.acquire({ request: empty });
    expect(await settles(waiting)).toBe(false);
    const spaced = tag('M 1 é', 'payment.query');
    expect(await settles(b.acquire({ request: spaced }), 5_000)).toBe(true);
    b.release(false, { request: spaced });
    held.close();
    expect(await settles(waiting, 5_000)).toBe(true);
    b.release(false, { request: empty });
  });

  it('drops a connection whose section line is not the protocol', async () => {
    const s = await pool();
    const rogue = connect({ port: s.port, host: '127.0.0.1' });
    await new Promise<void>((r) => rogue.once('connect', () => r()));
    const closed = new Promise<void>((r) => rogue.once('close', () => r()));
    rogue.write('x+s1 everything M1 payment.create -\n');
    await closed;
    const a = worker(s.port);
    const r = tag('M1', 'payment.create');
    expect(await settles(a.acquire({ request: r }), 5_000)).toBe(true);
  });
});

describe("a process's own gate (no pool)", () => {
  it('keeps sections the same way', async () => {
    const g = new GatedPacer(new Pacer());
    const held = await g.openSection(section('merchant'), []);
    const r = tag('M1', 'refund.create');
    const waiting = g.acquire({ request: r });
    expect(await settles(waiting)).toBe(false);
    const own = tag('M1', 'refund.create', [held.id]);
    await g.acquire({ request: own });
    g.release(false, { request: own });
    held.close();
    expect(await settles(waiting, 1_000)).toBe(true);
    g.release(false, { request: r });
  });
});
