/** What `init` learnt, each value with the exchange that shows it, and what it could not learn. */
export interface Learnt {
  /** JSON path in the profile, e.g. limits.payments.CARD.min. */
  path: string;
  value: unknown;
  evidence: string;
}

export interface Todo {
  path: string;
  /** What to write there, and why init could not. */
  what: string;
}

/** A value the vendor told (a hint, a hints file, an API description) that no probe proved, with where it was read. */
export interface ToldOnly {
  path: string;
  value: unknown;
  source: string;
}

export class Evidence {
  readonly values: Learnt[] = [];
  readonly todos: Todo[] = [];
  readonly told: ToldOnly[] = [];
  /** TODOs not yet printed: their field was told, so the vendor's value may settle them (holdWhere). */
  private readonly held = new Set<Todo>();
  private toldCovers?: (path: string) => boolean;
  constructor(private readonly progress: (line: string) => void) {}

  /**
   * A TODO whose field the vendor told is not printed when it is raised: the told value settles it at the end
   * (told.ts applyTold), and only a TODO still standing then is printed (printHeld), so no told fact shows as a TODO.
   */
  holdWhere(told: (path: string) => boolean): void {
    this.toldCovers = told;
  }

  /** Prints the held TODOs the vendor's facts did not settle. */
  printHeld(): void {
    for (const t of this.todos) if (this.held.has(t)) this.progress(`  TODO ${t.path}: ${t.what}`);
    this.held.clear();
    this.toldCovers = undefined;
  }

  learnt(path: string, value: unknown, evidence: string): void {
    this.values.push({ path, value, evidence });
    this.progress(`  ✓ ${path} = ${JSON.stringify(value)}  (${evidence})`);
  }

  /** A value learnt again: the vendor's, which the answers allow (it replaces init's rougher one at that path). */
  relearn(path: string, value: unknown, evidence: string): void {
    for (let i = this.values.length - 1; i >= 0; i--) if (this.values[i]!.path === path) this.values.splice(i, 1);
    this.learnt(path, value, evidence);
  }

  /** A value learnt that a later probe did not bear out: it is not counted learnt (a TODO says why). */
  unlearn(path: string): void {
    for (let i = this.values.length - 1; i >= 0; i--) if (this.values[i]!.path === path) this.values.splice(i, 1);
  }

  /** Written into the draft because the vendor said so; the TODO file lists it apart, with its source, to confirm. */
  toldOnly(t: ToldOnly): void {
    this.told.push(t);
    this.progress(`  ← ${t.path} = ${JSON.stringify(t.value)}  (told: ${t.source}; no probe proved it)`);
  }

  /** Drops the TODOs the vendor's facts answered. */
  settle(answered: (t: Todo) => boolean): void {
    for (let i = this.todos.length - 1; i >= 0; i--) if (answered(this.todos[i]!)) this.todos.splice(i, 1);
  }

  todo(path: string, what: string): void {
    if (this.todos.some((t) => t.path === path)) return;
    const t = { path, what };
    this.todos.push(t);
    if (this.toldCovers?.(path)) this.held.add(t);
    else this.progress(`  TODO ${path}: ${what}`);
  }
}
