/**
 * The figures of the kit's own proof where the documents quote them — README.md's certificate excerpt and
 * docs/PROVING.md's "Shipped now" line — are written from proof/kit-proof.json, never typed: `npm run docs:generate`
 * rewrites each quoted line, and test/docs/proof-figures.test.ts fails when one differs from the file.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { type KitProof, readKitProof } from '../harness/report/certificate-kit-proof.js';
import { kitProofCell } from '../harness/report/certificate-render.js';

export interface QuotedFigures {
  /** The document, from the repository's root. */
  file: string;
  /** How the one line that quotes the figures begins. */
  startsWith: string;
  render: (proof: KitProof) => string;
}

export const QUOTED_FIGURES: readonly QuotedFigures[] = [
  {
    file: 'README.md',
    startsWith: "| Kit's own proof |",
    render: (p) => `| Kit's own proof | ${kitProofCell({ status: 'measured', proof: p }, p.kitVersion)} |`,
  },
  {
    file: 'docs/PROVING.md',
    startsWith: 'Shipped now:',
    render: (p) => {
      const m = p.killMatrix;
      const l = p.legalTargets;
      return (
        `Shipped now: kit ${p.kitVersion} at commit ${p.commit.slice(0, 7)} — ${m.killed}/${m.faults} faults killed, each by its ` +
        `own clause; ${l.targets} legal targets of genome ${l.genomeVersion} (seed ${l.seed}): ${l.falseVerdicts} false verdicts ` +
        `in ${l.checks.toLocaleString('en-US')} checks, ${l.doctorFalseWrong} doctor false WRONG.`
      );
    },
  },
];

/** The proof the package ships (proof/kit-proof.json), whatever version it was measured for. */
export function shippedProof(): KitProof {
  const k = readKitProof();
  if ('missing' in k) throw new Error(`proof/kit-proof.json: ${k.missing}`);
  return k;
}

/** Each document's text with its quoted line written from the proof. */
export function withFigures(root: string, q: QuotedFigures, proof: KitProof): { now: string; fresh: string } {
  const now = readFileSync(join(root, q.file), 'utf8');
  const lines = now.split('\n');
  const i = lines.findIndex((l) => l.startsWith(q.startsWith));
  if (i < 0) throw new Error(`${q.file} has no line beginning ${JSON.stringify(q.startsWith)}`);
  lines[i] = q.render(proof);
  return { now, fresh: lines.join('\n') };
}

export function writeFigures(root: string): string[] {
  const proof = shippedProof();
  const written: string[] = [];
  for (const q of QUOTED_FIGURES) {
    const { now, fresh } = withFigures(root, q, proof);
    if (now !== fresh) {
      writeFileSync(join(root, q.file), fresh);
      written.push(q.file);
    }
  }
  return written;
}
