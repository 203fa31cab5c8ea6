import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { buildCertificate, type Certificate, renderMarkdown, verifyCertificate } from '../../harness/report/certificate.js';
import {
  KIT_PROOF_FORMAT,
  KIT_PROOF_PATH,
  type KitProof,
  kitProofFor,
  parseKitProof,
  readKitProof,
} from '../../harness/report/certificate-kit-proof.js';
import { writeResult } from '../../harness/run/results.js';
import { kitchenSink } from './certificate-sink.js';

const proof: KitProof = {
  format: KIT_PROOF_FORMAT,
  kitVersion: '0.1.0',
  date: '2026-11-24T22:00:00.000Z',
  commit: 'b885e85aaaaabbbbbccccc',
  dirty: false,
  killMatrix: { faults: 195, killed: 194, seed: 1, runsPerProperty: 20, notKilled: ['x (c): survived'] },
  legalTargets: {
    targets: 20,
    seed: 2027,
    runsPerProperty: 10,
    checks: 4260,
    falseVerdicts: 3,
    targetsWithFalseVerdict: 1,
    doctorFalseWrong: 2,
  },
};
const ROW = "| Kit's own proof |";
const dir = mkdtempSync(join(tmpdir(), 'mpsi-kit-proof-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function file(name: string, content: unknown): string {
  const p = join(dir, name);
  writeFileSync(p, typeof content === 'string' ? content : JSON.stringify(content));
  return p;
}

function certificateWith(k: ReturnType<typeof kitProofFor>): Certificate {
  return buildCertificate({ ...kitchenSink(), kitProof: k }).certificate;
}

describe("the kit's own proof on the certificate", () => {
  it('present and measured for the run’s kit version: its figures, in the JSON and in the Markdown', () => {
    const k = kitProofFor('0.1.0', readKitProof(file('ok.json', proof)));
    expect(k).toEqual({ status: 'measured', proof });
    const c = certificateWith(k);
    expect(c.kitProof).toEqual({ status: 'measured', proof });
    const row = renderMarkdown(c)
      .split('\n')
      .find((l) => l.startsWith(ROW));
    expect(row).toContain('measured for 0.1.0 (commit b885e85aaaaa, 2026-11-24)');
    expect(row).toContain('194/195 seeded faults killed, each by a finding charged to its own clause');
    expect(row).toContain('3 false verdicts in 4260 checks over 20 generated legal targets (seed 2027)');
    expect(row).toContain('2 false WRONG of the profile doctor');
  });

  it('measured for another version: says "not measured for this version" and shows none of its figures', () => {
    const k = kitProofFor('0.2.0', readKitProof(file('old.json', proof)));
    expect(k).toEqual({ status: 'other-version', measuredVersion: '0.1.0', measuredCommit: proof.commit });
    const c = certificateWith(k);
    expect(JSON.stringify(c.kitProof)).not.toContain('4260');
    const md = renderMarkdown(c);
    const row = md.split('\n').find((l) => l.startsWith(ROW));
    expect(row).toContain('not measured for this version (0.1.0)');
    expect(row).toContain('measured for 0.1.0');
    expect(md).not.toMatch(/194\/195|4260 checks/);
  });

  it('missing or not whole: says it is not measured, and why', () => {
    expect(kitProofFor('0.1.0', readKitProof(join(dir, 'absent.json')))).toEqual({ status: 'missing', why: 'no-file' });
    expect(kitProofFor('0.1.0', readKitProof(file('garbage.json', '{not json')))).toEqual({ status: 'missing', why: 'unreadable' });
    const { legalTargets: _l, ...partial } = proof;
    expect(kitProofFor('0.1.0', readKitProof(file('partial.json', partial)))).toEqual({ status: 'missing', why: 'unreadable' });
    const negative = { ...proof, killMatrix: { ...proof.killMatrix, killed: -1 } };
    expect(() => parseKitProof(negative)).toThrow(/killMatrix/);
    const row = renderMarkdown(certificateWith({ status: 'missing', why: 'no-file' }))
      .split('\n')
      .find((l) => l.startsWith(ROW));
    expect(row).toBe(`${ROW} not measured: this package ships no proof of the kit (proof/kit-proof.json is absent) |`);
  });

  it('a certificate made before the kit shipped its proof stays as it was (no row, no field)', () => {
    const c = buildCertificate(kitchenSink()).certificate;
    expect(c).not.toHaveProperty('kitProof');
    expect(renderMarkdown(c)).not.toContain(ROW);
  });

  it('verify-certificate: holds with the proof it carries; a proof of another version shown as measured does not', () => {
    // As readResults gives them back: sorted by check id.
    const sink = kitchenSink();
    const input = { ...sink, results: [...sink.results].sort((a, b) => (a.checkId < b.checkId ? -1 : 1)) };
    const reports = mkdtempSync(join(dir, 'reports-'));
    for (const r of input.results) writeResult(join(reports, 'results'), r, (s) => s);
    const write = (c: Certificate) => writeFileSync(join(reports, 'certificate.json'), JSON.stringify(c));
    // Made before the kit shipped its proof: rebuilt without one, it still holds.
    write(buildCertificate(input).certificate);
    expect(verifyCertificate(join(reports, 'certificate.json')).problems).toEqual([]);
    const good = buildCertificate({ ...input, kitProof: { status: 'measured', proof } }).certificate;
    write(good);
    expect(verifyCertificate(join(reports, 'certificate.json')).problems).toEqual([]);
    // Edited to pass a stale proof off as current, with its digest recomputed: the figures are not this kit's.
    const stale = buildCertificate({ ...input, kitProof: { status: 'measured', proof: { ...proof, kitVersion: '0.0.9' } } }).certificate;
    write(stale);
    expect(verifyCertificate(join(reports, 'certificate.json')).problems).toEqual([
      "the kit's proof it shows as measured is for kit 0.0.9, not for 0.1.0 that made the run",
    ]);
  });

  it('the package ships a whole proof (npm run proof wrote it)', () => {
    const shipped = readKitProof(KIT_PROOF_PATH);
    expect(shipped).not.toHaveProperty('missing');
    expect((shipped as KitProof).killMatrix.faults).toBeGreaterThan(0);
    expect((shipped as KitProof).legalTargets.targets).toBeGreaterThan(0);
  });
});
