/**
 * The kit's own proof: how far a reader of a certificate may trust the kit that made it.
 * `npm run proof` (scripts/kit-proof.ts) measures it at release — the kill matrix, and the false verdicts
 * of the kit and of its doctor over generated legal targets — and writes proof/kit-proof.json, which the
 * package ships. A certificate carries that proof only when it was measured for the kit version that made
 * the run; otherwise it says so, and shows no figure: a stale figure must never read as current.
 *
 * Every figure is about the kit, measured over the kit's own reference and the targets its genome draws: it says
 * what it was measured over (the fault catalogue, the genome version, how many targets, the seed) beside it, and is
 * never a statement about the service a certificate is about (a fact of that service the genome does not draw is
 * covered by no figure here).
 */
import { existsSync, readFileSync } from 'node:fs';
import { kitFile } from '../kit/kit-files.js';

export const KIT_PROOF_FORMAT = 'mpsi-conformance-kit-proof/1';

/** proof/kit-proof.json, as the release script writes it. */
export interface KitProof {
  format: typeof KIT_PROOF_FORMAT;
  kitVersion: string;
  /** When it was measured (ISO 8601). */
  date: string;
  /** The git commit measured, and whether the work tree had changes not in it. */
  commit: string;
  dirty: boolean;
  /** Every fault of the reference's catalogue, each counted killed only by a finding charged to its own clause. */
  killMatrix: { faults: number; killed: number; seed: number; runsPerProperty: number; notKilled: string[] };
  /** The kit with each target's true profile: every failed check and every doctor WRONG is a false verdict. */
  legalTargets: {
    /**
     * The version of the genome that drew the targets (fixtures/arbitraries/genome.ts GENOME_VERSION): which facts of
     * a service the figures range over.
     */
    genomeVersion: number;
    targets: number;
    seed: number;
    runsPerProperty: number;
    checks: number;
    falseVerdicts: number;
    targetsWithFalseVerdict: number;
    doctorFalseWrong: number;
  };
  /**
   * How the measured-over facts were recorded, where they were not written by the measuring run itself (a proof
   * measured before they were recorded, completed afterwards from the script's defaults and the commit's genome).
   */
  provenance?: string;
}

/** What a certificate says of the kit's proof. */
export type CertificateKitProof =
  | { status: 'measured'; proof: KitProof }
  /** The package's proof measured another kit version: its figures are left out on purpose. */
  | { status: 'other-version'; measuredVersion: string; measuredCommit: string }
  | { status: 'missing'; why: 'no-file' | 'unreadable' };

export const KIT_PROOF_PATH = kitFile('proof', 'kit-proof.json');

export class KitProofError extends Error {}

function isCount(v: unknown): v is number {
  return typeof v === 'number' && Number.isInteger(v) && v >= 0;
}

/** The file's content, checked field by field: a proof that is not whole is no proof. */
export function parseKitProof(raw: unknown): KitProof {
  const p = raw as Partial<KitProof> | null;
  if (p === null || typeof p !== 'object' || p.format !== KIT_PROOF_FORMAT)
    throw new KitProofError(`not a kit proof (${KIT_PROOF_FORMAT})`);
  if (typeof p.kitVersion !== 'string' || typeof p.date !== 'string' || typeof p.commit !== 'string' || typeof p.dirty !== 'boolean')
    throw new KitProofError('kitVersion, date, commit and dirty are required');
  const k = p.killMatrix;
  if (!k || ![k.faults, k.killed, k.runsPerProperty].every(isCount) || !Number.isInteger(k.seed) || !Array.isArray(k.notKilled))
    throw new KitProofError('killMatrix is incomplete');
  const l = p.legalTargets;
  const counts = l && [l.targets, l.runsPerProperty, l.checks, l.falseVerdicts, l.targetsWithFalseVerdict, l.doctorFalseWrong];
  if (!l || !counts?.every(isCount) || !Number.isInteger(l.seed) || !isCount(l.genomeVersion))
    throw new KitProofError('legalTargets is incomplete (targets, seed, genomeVersion and the counts are required)');
  if (p.provenance !== undefined && typeof p.provenance !== 'string') throw new KitProofError('provenance is text');
  return p as KitProof;
}

/** The package's proof file, or why there is none. */
export function readKitProof(path: string = KIT_PROOF_PATH): KitProof | { missing: 'no-file' | 'unreadable' } {
  if (!existsSync(path)) return { missing: 'no-file' };
  try {
    return parseKitProof(JSON.parse(readFileSync(path, 'utf8')));
  } catch {
    return { missing: 'unreadable' };
  }
}

/** What the certificate of a run made by `kitVersion` carries, given what the package holds. */
export function kitProofFor(kitVersion: string, found: ReturnType<typeof readKitProof>): CertificateKitProof {
  if ('missing' in found) return { status: 'missing', why: found.missing };
  if (found.kitVersion !== kitVersion) return { status: 'other-version', measuredVersion: found.kitVersion, measuredCommit: found.commit };
  return { status: 'measured', proof: found };
}
