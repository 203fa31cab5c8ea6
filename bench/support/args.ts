/**
 * A bench's options, read strictly: an option the bench does not know (a typo, or --help read as nothing) would
 * otherwise start a run of an hour on a shared machine. `--help` prints the usage and exits 0; anything else it cannot
 * read prints the error and the usage and exits 2. Every option but help is a string.
 */
import { parseArgs } from 'node:util';

/** The value of each option, by name: `flag(name, fallback)` is the option's, else the fallback. */
export interface BenchArgs {
  flag(name: string, fallback: string): string;
}

export function benchArgs(usage: string, names: readonly string[]): BenchArgs {
  let values: Record<string, string | boolean | undefined>;
  try {
    ({ values } = parseArgs({
      options: { ...Object.fromEntries(names.map((n) => [n, { type: 'string' as const }])), help: { type: 'boolean', short: 'h' } },
      strict: true,
      allowPositionals: false,
    }));
  } catch (e) {
    console.error(`${(e as Error).message}\nusage: ${usage}`);
    process.exit(2);
  }
  if (values.help) {
    console.log(`usage: ${usage}`);
    process.exit(0);
  }
  return { flag: (name, fallback) => (typeof values[name] === 'string' ? (values[name] as string) : fallback) };
}
