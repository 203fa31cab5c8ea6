/**
 * `npx tsx scripts/largest-functions.ts [--top N] [dir…]`: the largest functions and files of the kit's code
 * (default harness/, suites/, reference/), in lines, as two markdown tables, so a note about splitting
 * programs into phases can show before and after from the same measure. A function's lines run from its
 * first to its last line and include the functions nested in it; the parse is vite's own (oxc), so what
 * counts as a function is what the language says, not a guess from braces.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseSync } from 'vite';

const ROOT = fileURLToPath(new URL('..', import.meta.url));

interface Sized {
  name: string;
  file: string;
  line: number;
  lines: number;
}

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((entry) => {
    const path = join(dir, entry);
    if (statSync(path).isDirectory()) return entry === 'node_modules' ? [] : sourceFiles(path);
    return /\.(ts|mts|mjs|js)$/.test(entry) && !entry.endsWith('.d.ts') ? [path] : [];
  });
}

type Node = { type: string; start: number; end: number; [key: string]: unknown };

const isNode = (x: unknown): x is Node => typeof x === 'object' && x !== null && typeof (x as Node).type === 'string';
const FUNCTION_TYPES = new Set(['FunctionDeclaration', 'FunctionExpression', 'ArrowFunctionExpression']);

function keyName(key: unknown): string | undefined {
  if (!isNode(key)) return undefined;
  if (key.type === 'Identifier' || key.type === 'PrivateIdentifier') return String(key.name);
  if (key.type === 'Literal') return String(key.value);
  return undefined;
}

/** The name a function is known by: its own, its variable's, its property's or method's; else where it sits. */
function nameOf(fn: Node, parent: Node | undefined, owner: string | undefined): string {
  const own = keyName(fn.id);
  if (own) return own;
  if (parent?.type === 'VariableDeclarator') return keyName(parent.id) ?? '(function)';
  if (parent?.type === 'MethodDefinition' || parent?.type === 'Property' || parent?.type === 'PropertyDefinition') {
    const key = keyName(parent.key) ?? '(computed)';
    return owner ? `${owner}.${key}` : key;
  }
  return owner ? `(callback in ${owner})` : '(callback)';
}

function functionsOf(file: string, text: string): Sized[] {
  const { program, errors } = parseSync(file, text);
  if (errors.length > 0) throw new Error(`${relative(ROOT, file)} does not parse: ${errors[0]?.message}`);
  const lineStarts = [0];
  for (let i = 0; i < text.length; i++) if (text[i] === '\n') lineStarts.push(i + 1);
  const lineOf = (offset: number): number => {
    let lo = 0;
    let hi = lineStarts.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (lineStarts[mid]! <= offset) lo = mid;
      else hi = mid - 1;
    }
    return lo + 1;
  };
  const found: Sized[] = [];
  const visit = (node: Node, parent: Node | undefined, owner: string | undefined): void => {
    let inside = owner;
    if (node.type === 'ClassDeclaration' || node.type === 'ClassExpression') inside = keyName(node.id) ?? owner;
    if (FUNCTION_TYPES.has(node.type)) {
      const name = nameOf(node, parent, owner);
      const first = lineOf(node.start);
      found.push({ name, file: relative(ROOT, file), line: first, lines: lineOf(node.end) - first + 1 });
      inside = name;
    }
    for (const value of Object.values(node)) {
      if (Array.isArray(value)) for (const child of value) isNode(child) && visit(child, node, inside);
      else if (isNode(value)) visit(value, node, inside);
    }
  };
  visit(program as unknown as Node, undefined, undefined);
  return found;
}

function main(argv: string[]): void {
  const topAt = argv.indexOf('--top');
  const top = topAt >= 0 ? Number(argv[topAt + 1]) : 15;
  if (!Number.isInteger(top) || top <= 0) throw new Error('--top takes a positive whole number');
  const dirs = argv.filter((_, i) => topAt < 0 || (i !== topAt && i !== topAt + 1));
  const roots = (dirs.length > 0 ? dirs : ['harness', 'suites', 'reference']).map((d) => join(ROOT, d));
  const files = roots.flatMap(sourceFiles);
  const functions: Sized[] = [];
  const fileSizes: { file: string; lines: number }[] = [];
  for (const file of files) {
    const text = readFileSync(file, 'utf8');
    fileSizes.push({ file: relative(ROOT, file), lines: text.split('\n').length - (text.endsWith('\n') ? 1 : 0) });
    functions.push(...functionsOf(file, text));
  }
  functions.sort((a, b) => b.lines - a.lines || a.file.localeCompare(b.file));
  fileSizes.sort((a, b) => b.lines - a.lines || a.file.localeCompare(b.file));
  const out = [`${files.length} files, ${functions.length} functions`, '', '| lines | function | where |', '|---:|---|---|'];
  for (const f of functions.slice(0, top)) out.push(`| ${f.lines} | \`${f.name}\` | ${f.file}:${f.line} |`);
  out.push('', '| lines | file |', '|---:|---|');
  for (const f of fileSizes.slice(0, top)) out.push(`| ${f.lines} | ${f.file} |`);
  console.log(out.join('\n'));
}

main(process.argv.slice(2));
