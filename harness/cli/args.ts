/** A small strict argument parser: unknown flags and missing values are errors, never ignored. */
export interface FlagSpec {
  /** 'value' = takes a value; 'multi' = may repeat, and a value is split at commas; 'repeat' = may repeat, each value whole. */
  [flag: string]: 'value' | 'multi' | 'repeat' | 'bool';
}

export class UsageError extends Error {}

export function parseArgs(argv: string[], spec: FlagSpec): { flags: Record<string, string | string[] | boolean>; rest: string[] } {
  const flags: Record<string, string | string[] | boolean> = {};
  const rest: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (!arg.startsWith('--')) {
      rest.push(arg);
      continue;
    }
    const [name, inline] = arg.slice(2).split(/=(.*)/s, 2) as [string, string | undefined];
    const kind = spec[name];
    if (!kind) throw new UsageError(`unknown option --${name}`);
    if (kind === 'bool') {
      flags[name] = true;
      continue;
    }
    const value = inline ?? argv[++i];
    if (value === undefined || (inline === undefined && value.startsWith('--'))) throw new UsageError(`option --${name} needs a value`);
    if (kind === 'multi') flags[name] = [...((flags[name] as string[] | undefined) ?? []), ...value.split(',').filter(Boolean)];
    else if (kind === 'repeat') flags[name] = [...((flags[name] as string[] | undefined) ?? []), value];
    else flags[name] = value;
  }
  return { flags, rest };
}

export function intFlag(v: unknown, name: string, min: number, max: number): number | undefined {
  if (v === undefined) return undefined;
  const n = Number(v);
  if (!Number.isInteger(n) || n < min || n > max)
    throw new UsageError(`--${name} must be a whole number from ${min} to ${max}, got ${JSON.stringify(v)}`);
  return n;
}

/**
 * A command's flags declared once: the parser's options and the help text's option list are both made from it,
 * so a flag cannot be accepted and left unexplained, or explained and refused.
 */
export interface FlagDef {
  readonly kind: FlagSpec[string];
  /** What the value is, in the help (FILE, URL, N); none for a switch. */
  readonly arg?: string;
  /** The help text; each further line of it is indented under the first. */
  readonly help: string;
}
export type FlagTable = Readonly<Record<string, FlagDef>>;

type ValueOf<K> = K extends 'bool' ? true : K extends 'multi' | 'repeat' ? string[] : string;
/** The flags given, typed from the table: a switch is `true`, a repeatable flag a list, any other a string. */
export type ParsedFlags<T extends FlagTable> = { -readonly [N in keyof T]?: ValueOf<T[N]['kind']> } & { help?: true };

/** parseArgs over a table; `--help` is every command's and is not listed in its table. */
export function parseFlags<T extends FlagTable>(argv: string[], table: T): { flags: ParsedFlags<T>; rest: string[] } {
  const spec: FlagSpec = { help: 'bool' };
  for (const [name, def] of Object.entries(table)) spec[name] = def.kind;
  const { flags, rest } = parseArgs(argv, spec);
  return { flags: flags as ParsedFlags<T>, rest };
}

/** The option list of a help text: one entry per flag, in the table's order, the explanations in one column. */
export function flagsHelp(table: FlagTable): string {
  const entries = Object.entries(table).map(([name, def]) => ({
    head: `  --${name}${def.arg ? ` ${def.arg}` : ''}`,
    lines: def.help.split('\n'),
  }));
  const column = Math.max(...entries.map((e) => e.head.length)) + 2;
  return entries
    .flatMap(({ head, lines }) => [head.padEnd(column) + lines[0], ...lines.slice(1).map((l) => ' '.repeat(column) + l)])
    .map((l) => `${l}\n`)
    .join('');
}
