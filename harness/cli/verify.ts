import { resolve } from 'node:path';
import { flagsHelp, parseFlags, UsageError, type FlagTable } from './args.js';
import { CertificateReadError, verifyCertificate } from '../report/certificate.js';

export const VERIFY_FLAGS = {
  results: { kind: 'value', arg: 'DIR', help: 'the results the certificate was made from (default: results/ next to FILE)' },
} as const satisfies FlagTable;

export const VERIFY_HELP = `mpsi-conformance verify-certificate FILE [--results DIR]

Checks a certificate (certificate.json, or certificate.md with its .json beside it): recomputes
the SHA-256 over the canonical results (default: the results/ directory next to FILE), rebuilds
the verdict and every clause status from them, and compares with what the certificate says.

${flagsHelp(VERIFY_FLAGS)}
Exit codes: 0 the certificate holds, 1 it does not (what differs is printed), 2 it cannot be read.
`;

export async function verifyMain(argv: string[]): Promise<number> {
  const { flags, rest } = parseFlags(argv, VERIFY_FLAGS);
  if (flags.help) {
    process.stdout.write(VERIFY_HELP);
    return 0;
  }
  if (rest.length !== 1) throw new UsageError('verify-certificate needs exactly one FILE (certificate.json or certificate.md)');
  try {
    const v = verifyCertificate(resolve(rest[0]!), flags.results ? resolve(flags.results) : undefined);
    const c = v.certificate!;
    if (v.ok) {
      process.stdout.write(
        `certificate holds: ${c.verdict} (exit code ${c.exitCode}) for ${c.target.url}, profile ` +
          `${c.profile.name}, ${c.date}; ${c.results.count} results, sha256 ${c.integrity.resultsSha256}\n`,
      );
      return 0;
    }
    for (const p of v.problems) process.stdout.write(`✗ ${p}\n`);
    process.stderr.write(`mpsi-conformance: the certificate does not hold: ${v.problems[0]}\n`);
    return 1;
  } catch (err) {
    if (err instanceof CertificateReadError) {
      process.stderr.write(`mpsi-conformance: cannot verify: ${err.message}\n`);
      return 2;
    }
    throw err;
  }
}
