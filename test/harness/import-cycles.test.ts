/**
 * An import circle (even type-only) means a type lives in the wrong module. The kit's own modules
 * (harness, reference, suites, fixtures) form none; this finds every strongly connected set of relative imports.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = resolve(import.meta.dirname, '../..');
const DIRS = ['harness', 'reference', 'suites', 'fixtures'];
const IMPORT = /(?:import|export)\s+(?:type\s+)?(?:[^'";]*?\sfrom\s+)?['"](\.[^'"]+)['"]/g;

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = join(dir, e.name);
    if (e.isDirectory()) return e.name === 'node_modules' ? [] : sources(p);
    return e.name.endsWith('.ts') ? [p] : [];
  });
}

/** Relative imports of each file, resolved to the .ts file they name. */
function importGraph(files: readonly string[]): Map<string, string[]> {
  const graph = new Map<string, string[]>();
  for (const f of files) {
    const deps = [...readFileSync(f, 'utf8').matchAll(IMPORT)]
      .map((m) => resolve(dirname(f), m[1]!.replace(/\.js$/, '.ts')))
      .filter((p) => existsSync(p));
    graph.set(f, deps);
  }
  return graph;
}

/** Tarjan's strongly connected components of more than one file: the circles. */
function circles(graph: Map<string, string[]>): string[][] {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const out: string[][] = [];
  let next = 0;
  const visit = (v: string): void => {
    index.set(v, next);
    low.set(v, next);
    next += 1;
    stack.push(v);
    onStack.add(v);
    for (const w of graph.get(v) ?? []) {
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!));
    }
    if (low.get(v) !== index.get(v)) return;
    const component: string[] = [];
    let w: string;
    do {
      w = stack.pop()!;
      onStack.delete(w);
      component.push(w);
    } while (w !== v);
    if (component.length > 1) out.push(component.sort());
  };
  for (const v of graph.keys()) if (!index.has(v)) visit(v);
  return out;
}

describe('import circles', () => {
  it('finds a circle where there is one (the search can fail)', () => {
    const g = new Map([
      ['a', ['b']],
      ['b', ['c']],
      ['c', ['a']],
      ['d', ['a']],
    ]);
    expect(circles(g)).toEqual([['a', 'b', 'c']]);
  });

  it('finds none among the modules of harness, reference, suites and fixtures', () => {
    const files = DIRS.flatMap((d) => sources(join(ROOT, d)));
    expect(files.length).toBeGreaterThan(200);
    const found = circles(importGraph(files)).map((c) => c.map((f) => relative(ROOT, f)));
    expect(found).toEqual([]);
  });
});
