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

export class Evidence {
  readonly values: Learnt[] = [];
  readonly todos: Todo[] = [];
  constructor(private readonly progress: (line: string) => void) {}

  learnt(path: string, value: unknown, evidence: string): void {
    this.values.push({ path, value, evidence });
    this.progress(`  ✓ ${path} = ${JSON.stringify(value)}  (${evidence})`);
  }

  todo(path: string, what: string): void {
    if (this.todos.some((t) => t.path === path)) return;
    this.todos.push({ path, what });
    this.progress(`  TODO ${path}: ${what}`);
  }
}
