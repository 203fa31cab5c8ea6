/** A small strict argument parser: unknown flags and missing values are errors, never ignored. */
export interface FlagSpec {
  /** true = takes a value; 'multi' = may repeat. */
  [flag: string]: 'value' | 'multi' | 'bool';
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
