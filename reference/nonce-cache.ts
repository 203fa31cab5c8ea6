/**
 * Remembers (merchant, nonce) pairs for the replay window. Requests older than the timestamp
 * tolerance are refused anyway, so a window of twice that tolerance is enough; the size cap keeps
 * memory bounded even under a flood of validly signed requests.
 */
export class NonceCache {
  // Insertion order is arrival order, so the oldest entries are always at the front.
  private readonly seen = new Map<string, number>();

  constructor(
    private readonly windowMs: number,
    private readonly maxEntries: number = 500_000,
  ) {}

  /** Records the pair and returns true, or returns false when it was seen inside the window. */
  checkAndRemember(merchantId: string, nonce: string, now: number = Date.now()): boolean {
    this.prune(now);
    const key = `${merchantId}\n${nonce}`;
    const at = this.seen.get(key);
    if (at !== undefined && now - at < this.windowMs) return false;
    this.seen.delete(key);
    this.seen.set(key, now);
    while (this.seen.size > this.maxEntries) {
      const oldest = this.seen.keys().next();
      if (oldest.done) break;
      this.seen.delete(oldest.value);
    }
    return true;
  }

  get size(): number {
    return this.seen.size;
  }

  private prune(now: number): void {
    for (const [key, at] of this.seen) {
      if (now - at < this.windowMs) break;
      this.seen.delete(key);
    }
  }
}
