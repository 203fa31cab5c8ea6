/**
 * The exclusive sections (harness/http/exclusive.ts) kept by a process that sends without the run-wide pool: a gate in front
 * of its pacer (harness/http/throttle.ts), with the same book of sections and one owner.
 */
import type { AcquireOptions, ReleaseOptions, RequestPacer } from './throttle.js';
import { type HeldSection, type RequestTag, SectionBook, type SectionGate, type SectionSpec } from './exclusive.js';

/**
 * A process's own gate in front of its pacer, for a client that sends without the run-wide pool (the doctor, the kill
 * matrix, parity, a test): the same book of sections, with one owner.
 */
export class GatedPacer implements RequestPacer {
  private readonly book = new SectionBook<0>();
  private readonly waiting: { tag: RequestTag; go: () => void }[] = [];
  private rid = 0;
  private sectionSeq = 0;

  constructor(private readonly inner: RequestPacer) {}

  acquire(opts: AcquireOptions = {}): Promise<void> {
    const tag = opts.request;
    if (tag === undefined) return this.inner.acquire(opts);
    tag.rid = ++this.rid;
    return new Promise<void>((go) => {
      this.waiting.push({ tag, go });
      this.wake();
    }).then(() => this.inner.acquire(opts));
  }

  release(throttled: boolean, opts: ReleaseOptions = {}): void {
    this.inner.release(throttled, opts);
    const rid = opts.request?.rid;
    if (rid !== undefined && this.book.done(0, rid)) this.wake();
  }

  openSection(spec: SectionSpec, holds: readonly string[]): Promise<HeldSection> {
    const id = `s${++this.sectionSeq}`;
    return new Promise<HeldSection>((granted) => {
      this.book.open(0, id, spec, holds, () =>
        granted({
          id,
          close: () => {
            if (this.book.close(0, id)) this.wake();
          },
        }),
      );
      // Opening holds new requests back: those already admitted are in flight.
      this.wake();
    });
  }

  /** Admits, in order of asking, every waiting request no section covers (admitted: in flight for the book). */
  private wake(): void {
    for (let i = 0; i < this.waiting.length; ) {
      const w = this.waiting[i]!;
      if (this.book.blocked(0, w.tag)) {
        i += 1;
        continue;
      }
      this.waiting.splice(i, 1);
      this.book.sent(0, w.tag.rid!, w.tag);
      w.go();
    }
  }
}

/** A pacer that keeps exclusive sections: the given one when it does (the pool's client), else one gated here. */
export function gated(pacer: RequestPacer): RequestPacer & SectionGate {
  return pacer.openSection ? (pacer as RequestPacer & SectionGate) : new GatedPacer(pacer);
}
