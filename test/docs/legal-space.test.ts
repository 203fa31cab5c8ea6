/**
 * docs/LEGAL-SPACE.md is held to the document and to the kit: every passage it quotes is INTERFACE.md's word for word,
 * every line of INTERFACE.md that says "not shown", "for example" or "such as" has a row, every profile field a row
 * names is a path of the profile schema, every gene is a key the genome draws (or a reading it draws), every test file
 * exists, and the gaps listed are exactly the rows without a profile field or a gene.
 */
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { NOT_DRAWN, READING_NAMES, targetGenes } from '../../fixtures/arbitraries/genome.js';
import { type Leaf, profileLeaves } from '../../harness/doctor/facts.js';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const DOC = readFileSync(join(root, 'docs', 'LEGAL-SPACE.md'), 'utf8');

/** INTERFACE.md is kept beside the project (../shared): looked for upwards, as worktrees sit deeper. */
function interfaceText(): string | undefined {
  let dir = root;
  for (let i = 0; i < 4; i++) {
    const p = join(dir, 'shared', 'INTERFACE.md');
    if (existsSync(p)) return readFileSync(p, 'utf8');
    dir = dirname(dir);
  }
  return undefined;
}

interface Row {
  id: string;
  quote: string;
  profile: string;
  gene: string;
  tests: string;
}

/** The table's rows: cells split at "|" not escaped, the quote taken from between its double quotes. */
function rowsOf(doc: string): Row[] {
  const lines = doc.split('\n').filter((l) => /^\| [A-Z]\d+[a-z]? \|/.test(l));
  return lines.map((l) => {
    const cells = l
      .slice(1, -1)
      .split(/(?<!\\)\|/)
      .map((c) => c.trim().replace(/\\\|/g, '|'));
    const quote = /^"(.*)"$/.exec(cells[1] ?? '')?.[1] ?? '';
    return { id: cells[0]!, quote, profile: cells[3] ?? '', gene: cells[4] ?? '', tests: cells[6] ?? '' };
  });
}

const ticked = (cell: string): string[] => [...cell.matchAll(/`([^`]+)`/g)].map((m) => m[1]!);
const isGap = (cell: string): boolean => cell === '—';
const isNoneNeeded = (cell: string): boolean => cell.startsWith('none needed');

/** Whether a dotted profile path is a schema leaf or a part of one (`*` a map key, `[]` a list element). */
function inSchema(path: string, leaves: readonly Leaf[]): boolean {
  const segs = path.split('.').flatMap((s) => (s.endsWith('[]') ? [s.slice(0, -2), '[]'] : [s]));
  return leaves.some((leaf) => segs.length <= leaf.length && segs.every((s, i) => s === leaf[i] || leaf[i] === '*' || s === '*'));
}

/** Every key path the genome draws (`target.paths.prefix`, `target.keys.primary.id`, …), over many draws. */
function genePaths(): Set<string> {
  const out = new Set<string>();
  const walk = (v: unknown, at: string): void => {
    if (at) out.add(at);
    if (v !== null && typeof v === 'object' && !Array.isArray(v)) for (const [k, x] of Object.entries(v)) walk(x, `${at}.${k}`);
  };
  for (const g of fc.sample(targetGenes(), { seed: 36, numRuns: 200 })) walk(g, 'target');
  return out;
}

/** What is wrong with the document's table (empty when nothing is). */
function problemsOf(doc: string, iface: string | undefined): string[] {
  const rows = rowsOf(doc);
  const problems: string[] = [];
  const leaves = profileLeaves();
  const genes = genePaths();
  const squash = (s: string) => s.replace(/\s+/g, ' ');
  const ids = rows.map((r) => r.id);
  for (const id of ids.filter((x, i) => ids.indexOf(x) !== i)) problems.push(`${id}: two rows with this id`);
  for (const r of rows) {
    if (r.quote === '') problems.push(`${r.id}: quotes nothing`);
    else if (iface !== undefined && !squash(iface).includes(squash(r.quote))) problems.push(`${r.id}: not in INTERFACE.md: ${r.quote}`);
    if (!isGap(r.profile) && !isNoneNeeded(r.profile)) {
      if (ticked(r.profile).length === 0) problems.push(`${r.id}: the profile cell names no field`);
      for (const f of ticked(r.profile)) if (!inSchema(f, leaves)) problems.push(`${r.id}: no profile field ${f} in the schema`);
    }
    if (!isGap(r.gene) && !isNoneNeeded(r.gene)) {
      if (ticked(r.gene).length === 0) problems.push(`${r.id}: the gene cell names no gene`);
      for (const g of ticked(r.gene)) {
        if (g.startsWith('reading:')) {
          const name = g.slice('reading:'.length);
          if (!(READING_NAMES as readonly string[]).includes(name)) problems.push(`${r.id}: no reading ${name}`);
          else if (NOT_DRAWN.has(name as never)) problems.push(`${r.id}: the genome does not draw the reading ${name}`);
        } else if (!genes.has(g)) problems.push(`${r.id}: no gene ${g} in what the genome draws`);
      }
    }
    if (ticked(r.tests).length === 0) problems.push(`${r.id}: names no test`);
    for (const t of ticked(r.tests)) if (!existsSync(join(root, t))) problems.push(`${r.id}: no test file ${t}`);
  }
  // Every line of the document that leaves something open has a row quoting it.
  if (iface !== undefined)
    for (const line of iface.split('\n'))
      if (/not shown|for example|such as/i.test(line) && !rows.some((r) => r.quote !== '' && squash(line).includes(squash(r.quote))))
        problems.push(`no row for INTERFACE.md: ${line.trim().slice(0, 100)}`);
  // The gaps listed are the rows without a field or a gene.
  const section = doc.slice(doc.indexOf('## Gaps'));
  const listed = [...section.matchAll(/^- \*\*([A-Z]\d+[a-z]?)\*\*/gm)].map((m) => m[1]!);
  const gaps = rows.filter((r) => isGap(r.profile) || isGap(r.gene)).map((r) => r.id);
  if (listed.join() !== gaps.join()) problems.push(`the Gaps section lists ${listed.join(', ')}; the gaps are ${gaps.join(', ')}`);
  const count = /^(\d+) of (\d+) rows:/m.exec(section);
  if (!count || Number(count[1]) !== gaps.length || Number(count[2]) !== rows.length)
    problems.push(`the Gaps section's count is not "${gaps.length} of ${rows.length} rows:"`);
  return problems;
}

const iface = interfaceText();

describe('docs/LEGAL-SPACE.md', () => {
  it('has a row for the document and its every open line', () => {
    expect(rowsOf(DOC).length).toBeGreaterThan(40);
    expect(problemsOf(DOC, iface)).toEqual([]);
  });

  it.skipIf(iface === undefined)('covers every "not shown" line of INTERFACE.md', () => {
    const notShown = iface!.split('\n').filter((l) => /not shown/.test(l));
    expect(notShown.length).toBeGreaterThan(15);
  });

  it('fails on a row naming a profile field or a gene that does not exist, or a test file that does not', () => {
    const bad = DOC.replace('`endpoints.cardPayment`', '`endpoints.cardPaymentPath`')
      .replace('`target.cardPendingStatus`', '`target.cardPendingName`')
      .replace('`reading:nonce-reuse-allowed`', '`reading:nonce-reused`');
    const problems = problemsOf(bad, iface);
    expect(problems).toContain('N9: no profile field endpoints.cardPaymentPath in the schema');
    expect(problems).toContain('N6: no gene target.cardPendingName in what the genome draws');
    expect(problems).toContain('N16: no reading nonce-reused');
  });

  it.skipIf(iface === undefined)('fails when a "not shown" line has no row, or a quote is not the document\'s', () => {
    const rows = DOC.split('\n').filter((l) => !l.startsWith('| N19 |'));
    const problems = problemsOf(rows.join('\n').replace('"Rate limits: not shown."', '"Rate limits: not given."'), iface);
    expect(problems.some((p) => p.startsWith('no row for INTERFACE.md: - Maximum lengths of string fields'))).toBe(true);
    expect(problems).toContain('N17: not in INTERFACE.md: Rate limits: not given.');
  });

  it('fails when the gaps listed are not the rows without a field or a gene', () => {
    // A row whose gene is taken away becomes a gap the list does not name.
    const gapless = DOC.split('\n')
      .map((l) =>
        l.startsWith('| N17 |')
          ? l
              .split(' | ')
              .map((c, i) => (i === 4 ? '—' : c))
              .join(' | ')
          : l,
      )
      .join('\n');
    const problems = problemsOf(gapless, iface);
    expect(problems.some((p) => p.startsWith('the Gaps section lists'))).toBe(true);
  });
});
