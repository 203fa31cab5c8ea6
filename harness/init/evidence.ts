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
  constructor(private readonly progress: (line: string) => void) {}

  learnt(path: string, value: unknown, evidence: string): void {
    this.values.push({ path, value, evidence });
    this.progress(`  ✓ ${path} = ${JSON.stringify(value)}  (${evidence})`);
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
    this.todos.push({ path, what });
    this.progress(`  TODO ${path}: ${what}`);
  }
}
