#!/usr/bin/env node
/**
 * Codemod: move files and folders of the repository and rewrite everything that names them, runnable again after
 * other work merges. Moves are mechanical and many hands change the same files while they are decided, so they are
 * never done once by hand: this script takes a move map (a JSON object, old repo-relative path → new path, files or
 * folders; keys starting with "//" are notes) and
 *   1. moves with `git mv` every tracked file at an old path (a folder's files one by one, so a file another branch
 *      added to an old folder moves too); a file already at its new path is skipped, one found at both is reported;
 *   2. rewrites every relative specifier of the .ts/.mts/.mjs/.js/.cjs/.tsx files (`import … from`, `export … from`,
 *      `import()`, `vi.mock()`, `require()`, `new URL(…, import.meta.url)`, any string literal starting with ./ or ../
 *      that resolves to a moved path): those that point to a moved file, and those inside a moved file that point
 *      elsewhere, keeping the specifier's own extension (`.js` for a `.ts` file, none, `/index.js`, a trailing `/`);
 *      a specifier that names no file from its own folder but a moved one from the repository's root (a path handed
 *      to a child process) is rewritten from the root; and the relative links of Markdown files, likewise;
 *   3. rewrites repo-relative mentions of the old paths in every tracked text file (Markdown, comments, strings,
 *      package.json scripts and `files`, tsconfig, vitest and biome configuration), word-bounded so that
 *      `harness/ops.ts` does not match `harness/ops.tsx` nor `test/harness/ops.ts`; a `.ts` path is also found
 *      spelled `.js`; a mention led by `./` or `../` is rewritten only when that prefix leads to the repository's root
 *      from the mentioning file; in code, a path spelled as arguments (`join(ROOT, 'docs', 'reference', page)`) too;
 *   4. keeps the package's public paths: for a moved file the package `exports` reach through a `*` pattern (say
 *      `./harness/*.js`), an explicit entry from the old subpath to the new file is added, so importers keep working.
 * Then it lists what it could not do: a relative specifier that resolves to no file, and every remaining mention of an
 * old path it did not rewrite (a `{a,b}` list, a glob, a name without its folder): those are for a person.
 *
 *   node scripts/codemods/move.mjs <map.json> [--dry-run]     (--dry-run: list the moves, change nothing)
 *
 * Idempotent: a second run moves nothing already moved and rewrites only what still names an old path. The map file
 * and a sibling `<map>.md` (the rationale) are never rewritten: they name the old paths on purpose. node_modules,
 * dist and reports are never touched. It changes text, not meaning: verify with `npx tsc --noEmit -p tsconfig.json`
 * and `npx biome check --write` on the files it lists (a moved import may need re-sorting).
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, extname, join, posix, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const CODE = /\.(ts|mts|cts|tsx|mjs|cjs|js|jsx)$/;
const TEXT = /\.(ts|mts|cts|tsx|mjs|cjs|js|jsx|md|json|jsonc|ya?ml|sh|txt|html)$|(^|\/)(\.gitignore|run)$/;
const SKIP = /^(node_modules|dist|reports)\//;
/** A source extension and the extension a specifier spells it with. */
const SPELLED = { '.ts': '.js', '.mts': '.mjs', '.cts': '.cjs', '.tsx': '.jsx' };
const SOURCE_OF = Object.fromEntries(Object.entries(SPELLED).map(([s, j]) => [j, s]));

/** A file at the repository's root, to resolve a specifier written from there. */
const ROOT_FILE = '<root>';
const git = (root, ...args) => execFileSync('git', args, { cwd: root, encoding: 'utf8' });
const toPosix = (p) => p.split('\\').join('/');
const escapeRe = (s) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** The map, with folders told from files by the tracked tree (a key ending in "/" is a folder too). */
export function readMap(file) {
  const raw = JSON.parse(readFileSync(file, 'utf8'));
  const entries = Object.entries(raw.moves ?? raw).filter(([k]) => !k.startsWith('//'));
  return entries.map(([from, to]) => ({ from: from.replace(/\/$/, ''), to: to.replace(/\/$/, '') }));
}

/** Where an old path goes: the exact entry, else the longest folder entry that holds it. */
export function mapper(entries) {
  const sorted = [...entries].sort((a, b) => b.from.length - a.from.length);
  return (p) => {
    for (const { from, to } of sorted) {
      if (p === from) return to;
      if (p.startsWith(`${from}/`)) return to + p.slice(from.length);
    }
    return undefined;
  };
}

function trackedFiles(root) {
  return git(root, 'ls-files', '-z')
    .split('\0')
    .filter((f) => f && !SKIP.test(f) && existsSync(join(root, f)));
}

/** Phase 1: the moves. Returns new path → old path for what moved in this run. */
function moveFiles(root, files, mapPath, dryRun, log) {
  const movedFrom = new Map();
  const present = new Set(files);
  for (const file of files) {
    const to = mapPath(file);
    if (to === undefined || to === file) continue;
    if (present.has(to)) {
      log.problems.push(`${file}: not moved, ${to} exists already (merge the two by hand)`);
      continue;
    }
    if (!dryRun) {
      mkdirSync(dirname(join(root, to)), { recursive: true });
      git(root, 'mv', file, to);
    }
    movedFrom.set(to, file);
    log.moved.push(`${file} → ${to}`);
  }
  return movedFrom;
}

/** The tree as it was before this run's moves: old paths of moved files, other files where they are. */
function oldTree(files, movedFrom) {
  const oldFiles = new Set();
  for (const f of files) oldFiles.add(movedFrom.get(f) ?? f);
  const oldDirs = new Set();
  for (const f of oldFiles) for (let d = posix.dirname(f); d !== '.'; d = posix.dirname(d)) oldDirs.add(d);
  return { oldFiles, oldDirs };
}

/**
 * Where a specifier written in `fromOld` (the file's path before the moves) points after them, as a specifier written
 * in `fromNew`; `null` when it is unchanged, `undefined` when it resolves to nothing.
 */
export function respecify(spec, fromOld, fromNew, tree, mapPath, newFiles, moduleLike = true) {
  const trailing = spec.endsWith('/') && spec.length > 1 ? '/' : '';
  const bare = trailing ? spec.slice(0, -1) : spec;
  const target = posix.normalize(posix.join(posix.dirname(fromOld), bare));
  // Outside the repository, or in what it does not track (dependencies, the build, reports): not ours to move.
  if (target.startsWith('..') || SKIP.test(`${target}/`)) return null;
  const candidates = [];
  const ext = posix.extname(target);
  candidates.push([target, '']);
  if (SOURCE_OF[ext]) candidates.push([target.slice(0, -ext.length) + SOURCE_OF[ext], 'spelled']);
  for (const s of Object.keys(SPELLED).concat(['.js', '.mjs', '.json'])) candidates.push([target + s, `ext:${s}`]);
  for (const s of ['.ts', '.js']) candidates.push([`${target}/index${s}`, `index:${s}`]);
  let hit;
  for (const [path, how] of candidates) {
    if (tree.oldFiles.has(path)) {
      hit = [path, how];
      break;
    }
  }
  // A folder (`new URL('../schemas/', import.meta.url)`); a bare '.' or '..' only where a module path is expected.
  const bareDots = /^\.{1,2}$/.test(bare);
  if (!hit && (!bareDots || moduleLike) && (tree.oldDirs.has(target) || target === '.')) hit = [target, 'dir'];
  if (!hit && !bareDots && fromOld !== ROOT_FILE) {
    // Written from the repository's root (a path given to a child process or a command run there): moved, rewritten so.
    const fromRoot = respecify(spec, ROOT_FILE, ROOT_FILE, tree, mapPath, newFiles, moduleLike);
    if (typeof fromRoot === 'string') return fromRoot;
  }
  if (!hit) {
    // Not in the old tree: perhaps already written for the new one (a file of this run's moves, written by hand).
    const known = [];
    for (const here of [posix.normalize(posix.join(posix.dirname(fromNew), bare)), posix.normalize(bare)]) {
      known.push(here, ...Object.keys(SPELLED).map((s) => here + s));
      const e = posix.extname(here);
      if (SOURCE_OF[e]) known.push(here.slice(0, -e.length) + SOURCE_OF[e]);
    }
    return known.some((k) => newFiles.has(k)) ? null : undefined;
  }
  const [path, how] = hit;
  const movedTo = mapPath(path) ?? path;
  let newTarget;
  if (how === '') newTarget = movedTo;
  else if (how === 'spelled') newTarget = movedTo.replace(/\.[cm]?tsx?$/, (e) => SPELLED[e] ?? e);
  else if (how.startsWith('ext:')) newTarget = movedTo.slice(0, -how.slice(4).length);
  else if (how.startsWith('index:')) newTarget = posix.dirname(movedTo);
  else newTarget = movedTo;
  let out = posix.relative(posix.dirname(fromNew), newTarget) || '.';
  if (!out.startsWith('.')) out = `./${out}`;
  out += trailing;
  if (how.startsWith('index:') && /\/index(\.\w+)?$/.test(bare)) out = spec; // written with its index: rare, keep
  return out === spec ? null : out;
}

/** Relative string literals of a code file, with whether they sit where a module specifier is expected. */
function* relativeLiterals(src) {
  const re = /(['"`])(\.{1,2}\/[^'"`\s$]*|\.{1,2})\1/g;
  for (let m = re.exec(src); m; m = re.exec(src)) {
    const before = src.slice(Math.max(0, m.index - 40), m.index);
    const after = src.slice(m.index + m[0].length, m.index + m[0].length + 30);
    const lineStart = src.slice(src.lastIndexOf('\n', m.index) + 1, m.index);
    const inComment = /^\s*(\*|\/\/)/.test(lineStart) || lineStart.includes('//');
    // Code quoted in a string of another quote (a fixture, a child's script): not this file's own import.
    const other = m[1] === "'" ? '"' : "'";
    const quoted = lineStart.split(other).length % 2 === 0 || lineStart.split('`').length % 2 === 0;
    const url = /\bnew\s+URL\s*\(\s*$/.test(before);
    const moduleLike =
      !inComment &&
      !quoted &&
      (url ? /^\s*,\s*import\.meta\.url/.test(after) : /(\bfrom\s*|\bimport\s*\(?\s*|\brequire\s*\(\s*|\bvi\.\w+\s*\(\s*)$/.test(before));
    yield { start: m.index + 1, end: m.index + 1 + m[2].length, spec: m[2], moduleLike };
  }
}

/** Phase 2: relative specifiers of code files. */
function rewriteSpecifiers(root, files, movedFrom, tree, mapPath, skip, log) {
  const newFiles = new Set(files);
  for (const file of files.filter((f) => CODE.test(f) && !skip.has(f))) {
    const fromOld = movedFrom.get(file) ?? file;
    const src = readFileSync(join(root, file), 'utf8');
    let out = '';
    let last = 0;
    let changed = 0;
    for (const lit of relativeLiterals(src)) {
      const next = respecify(lit.spec, fromOld, file, tree, mapPath, newFiles, lit.moduleLike);
      if (next === undefined) {
        if (lit.moduleLike && !/^\.{1,2}$/.test(lit.spec)) log.unresolved.push(`${file}: '${lit.spec}' resolves to no file`);
        continue;
      }
      if (next === null) continue;
      out += src.slice(last, lit.start) + next;
      last = lit.end;
      changed++;
    }
    if (changed) {
      out += src.slice(last);
      writeFileSync(join(root, file), out);
      log.specifiers.push(`${file}: ${changed}`);
    }
  }
}

/** Phase 2b: relative links of Markdown files, `[text](../reference/cli.md#flags)`, resolved from the linking file. */
function rewriteMarkdownLinks(root, files, movedFrom, tree, mapPath, skip, log) {
  const newFiles = new Set(files);
  for (const file of files.filter((f) => f.endsWith('.md') && !skip.has(f))) {
    const fromOld = movedFrom.get(file) ?? file;
    const src = readFileSync(join(root, file), 'utf8');
    let changed = 0;
    const out = src.replace(/\[([^\]\n]*)\](\(\s*)([^)\s#?]+)([^)]*\))/g, (whole, text, open, target, rest) => {
      if (/^([a-z][\w+.-]*:|\/|#)/i.test(target)) return whole;
      const next = respecify(target, fromOld, file, tree, mapPath, newFiles, false);
      if (typeof next !== 'string') {
        if (next === undefined && !file.includes('/fixtures/')) log.unresolved.push(`${file}: link ${target} resolves to no file`);
        return whole;
      }
      const written = target.startsWith('.') ? next : next.replace(/^\.\//, '');
      if (written === target) return whole;
      changed++;
      // A link that shows its own path shows the new one.
      return `[${text === target ? written : text}]${open}${written}${rest}`;
    });
    if (changed) {
      writeFileSync(join(root, file), out);
      log.specifiers.push(`${file}: ${changed} link(s)`);
    }
  }
}

/** The old paths to look for in text, longest first, each with its replacement (a `.ts` path spelled `.js` too). */
function mentionTable(entries, tree, mapPath) {
  const table = new Map();
  const add = (from, to) => {
    if (!table.has(from)) table.set(from, to);
  };
  for (const { from, to } of entries) add(from, to);
  for (const f of tree.oldFiles) {
    const to = mapPath(f);
    if (to !== undefined) add(f, to);
  }
  for (const [from, to] of [...table]) {
    const e = extname(from);
    if (SPELLED[e] && extname(to) === e) add(from.slice(0, -e.length) + SPELLED[e], to.slice(0, -e.length) + SPELLED[e]);
  }
  return [...table].sort((a, b) => b[0].length - a[0].length);
}

function mentionRegex(table) {
  // Before: nothing that continues a path or a word; a ./ or ../ run is taken as part of the mention.
  // After: nothing that continues a word or an extension (`.tsx`, `.ts.bak`), a "/" only after a folder.
  const alternatives = table.map(([from]) => escapeRe(from)).join('|');
  return new RegExp(`(?<![\\w@.\\/\\-])((?:\\.\\.?\\/)*)(${alternatives})(?![\\w\\-]|\\.[A-Za-z0-9])`, 'g');
}

/** Phase 3: mentions of the old paths in every tracked text file. */
function rewriteMentions(root, files, movedFrom, table, skip, dryRun, log) {
  if (table.length === 0) return;
  const to = new Map(table);
  const re = mentionRegex(table);
  for (const file of files.filter((f) => TEXT.test(f) && !skip.has(f))) {
    const fromOld = movedFrom.get(file) ?? file;
    const src = readFileSync(join(root, file), 'utf8');
    let changed = 0;
    const out = src.replace(re, (whole, prefix, path, at) => {
      // The package's compatibility exports keep the old subpaths as keys on purpose.
      if (file === 'package.json' && src[at - 1] === '"' && /^":\s*[{"]/.test(src.slice(at + whole.length))) return whole;
      if (prefix && posix.normalize(posix.join(posix.dirname(fromOld), prefix, 'x')) !== 'x') return whole;
      changed++;
      return prefix + to.get(path);
    });
    const [joined, joins] = CODE.test(file) ? rewriteSegments(out, to) : [out, 0];
    changed += joins;
    if (changed) {
      if (!dryRun) writeFileSync(join(root, file), joined);
      log.mentions.push(`${file}: ${changed}`);
    }
  }
}

/**
 * A path spelled as arguments, `join(ROOT, 'docs', 'reference', page)` or `kitFile('harness', 'schemas')`: a run of two or
 * more string literals whose leading ones, joined by "/", are an old path, is rewritten to the new path's segments.
 */
export function rewriteSegments(src, to) {
  let count = 0;
  const run = /(['"])[\w.@-]+\1(?:\s*,\s*(['"])[\w.@-]+\2)+/g;
  const out = src.replace(run, (whole) => {
    const lits = [...whole.matchAll(/(['"])([\w.@-]+)\1/g)];
    const segs = lits.map((m) => m[2]);
    for (let k = segs.length; k >= 2; k--) {
      const next = to.get(segs.slice(0, k).join('/'));
      if (next === undefined) continue;
      const q = lits[0][1];
      const rest = whole.slice(lits[k - 1].index + lits[k - 1][0].length);
      count++;
      return (
        next
          .split('/')
          .map((seg) => q + seg + q)
          .join(', ') + rest
      );
    }
    return whole;
  });
  return [out, count];
}

/** Phase 4: explicit `exports` entries for moved files a `*` pattern of the package used to reach. */
function keepExports(root, movedFrom, dryRun, log) {
  const pkgFile = join(root, 'package.json');
  if (!existsSync(pkgFile)) return;
  const text = readFileSync(pkgFile, 'utf8');
  const pkg = JSON.parse(text);
  if (!pkg.exports || typeof pkg.exports !== 'object') return;
  const added = {};
  for (const [key, value] of Object.entries(pkg.exports)) {
    if (!key.includes('*')) continue;
    const [kPre, kPost] = key.split('*');
    const targets = typeof value === 'string' ? { default: value } : value;
    for (const [newPath, oldPath] of movedFrom) {
      const subOld = compatSubpath(oldPath, kPre, kPost);
      const subNew = compatSubpath(newPath, kPre, kPost);
      if (!subOld || !subNew || pkg.exports[subOld.key] || added[subOld.key]) continue;
      const entry = {};
      for (const [cond, t] of Object.entries(targets)) entry[cond] = t.replace('*', subNew.star);
      added[subOld.key] = typeof value === 'string' ? entry.default : entry;
    }
  }
  if (Object.keys(added).length === 0) return;
  // Explicit subpaths win over patterns whatever their order; they are written before the pattern for the reader.
  const exportsOut = {};
  for (const [key, value] of Object.entries(pkg.exports)) {
    if (key.includes('*')) for (const [k, v] of Object.entries(added)) if (k.startsWith(key.split('*')[0])) exportsOut[k] = v;
    exportsOut[key] = value;
  }
  for (const [k, v] of Object.entries(added)) if (!(k in exportsOut)) exportsOut[k] = v;
  pkg.exports = exportsOut;
  if (!dryRun) writeFileSync(pkgFile, `${JSON.stringify(pkg, null, 2)}\n`);
  log.exports.push(...Object.keys(added));
}

/** The subpath a `./pre*post` export key gives a source file, if the pattern reaches it. */
function compatSubpath(sourcePath, kPre, kPost) {
  const e = extname(sourcePath);
  const spelled = SPELLED[e] ? sourcePath.slice(0, -e.length) + SPELLED[e] : sourcePath;
  const sub = `./${spelled}`;
  if (!sub.startsWith(kPre) || !sub.endsWith(kPost) || sub.length < kPre.length + kPost.length) return undefined;
  const star = sub.slice(kPre.length, sub.length - kPost.length);
  return { key: sub, star };
}

/** What still names an old path after the rewrite, for a person. */
function leftovers(root, files, table, skip, log) {
  const names = table.map(([from]) => from).filter((f) => f.includes('/'));
  if (names.length === 0) return;
  const re = new RegExp(`(${names.map(escapeRe).join('|')})(?![\\w\\-]|\\.[A-Za-z0-9])`, 'g');
  for (const file of files.filter((f) => TEXT.test(f) && !skip.has(f))) {
    const lines = readFileSync(join(root, file), 'utf8').split('\n');
    lines.forEach((line, i) => {
      // The package's compatibility exports name the old subpaths on purpose.
      if (file === 'package.json' && /^\s*"\.\/[^"]+":/.test(line)) return;
      re.lastIndex = 0;
      for (let m = re.exec(line); m; m = re.exec(line)) {
        const at = m.index;
        const prev = line.slice(0, at);
        if (/[\w@-]$/.test(prev)) continue;
        // Led by a folder (`test/harness/ops.ts`): another path, not the old one.
        if (/\/$/.test(prev) && !/(^|[^\w.])(\.{1,2}\/)+$/.test(prev)) continue;
        log.leftovers.push(`${file}:${i + 1}: ${line.trim().slice(0, 160)}`);
        break;
      }
    });
  }
}

export function run(mapFile, { dryRun = false, root = process.cwd() } = {}) {
  const log = { moved: [], specifiers: [], mentions: [], exports: [], unresolved: [], problems: [], leftovers: [] };
  const entries = readMap(mapFile);
  const mapPath = mapper(entries);
  const before = trackedFiles(root);
  const movedFrom = moveFiles(root, before, mapPath, dryRun, log);
  if (dryRun) return log;
  const files = trackedFiles(root);
  const tree = oldTree(files, movedFrom);
  // Every old path the map names, moved in this run or an earlier one: a file merged in since still names it.
  for (const f of files) {
    for (const { from, to } of entries) {
      if (f !== to && !f.startsWith(`${to}/`)) continue;
      const old = from + f.slice(to.length);
      tree.oldFiles.add(old);
      for (let d = posix.dirname(old); d !== '.'; d = posix.dirname(d)) tree.oldDirs.add(d);
    }
  }
  const mapRel = toPosix(relative(root, resolve(mapFile)));
  const self = toPosix(relative(root, fileURLToPath(import.meta.url)));
  const skip = new Set([mapRel, mapRel.replace(/\.json$/, '.md'), 'package-lock.json', self]);
  rewriteSpecifiers(root, files, movedFrom, tree, mapPath, skip, log);
  rewriteMarkdownLinks(root, files, movedFrom, tree, mapPath, skip, log);
  const table = mentionTable(entries, tree, mapPath);
  rewriteMentions(root, files, movedFrom, table, skip, dryRun, log);
  keepExports(root, movedFrom, dryRun, log);
  leftovers(root, files, table, skip, log);
  return log;
}

function report(log) {
  const section = (title, lines) => {
    console.log(`${title}: ${lines.length}`);
    for (const l of lines) console.log(`  ${l}`);
  };
  section('moved', log.moved);
  section('files with specifiers or Markdown links rewritten', log.specifiers);
  section('files with path mentions rewritten', log.mentions);
  section('package exports kept for old paths', log.exports);
  section('NOT DONE: problems', log.problems);
  section('NOT DONE: relative specifiers that resolve to no file', log.unresolved);
  section('NOT DONE: old paths still named (for a person)', log.leftovers);
}

if (import.meta.url === `file://${process.argv[1]}` || process.argv[1]?.endsWith('move.mjs')) {
  const argv = process.argv.slice(2);
  const mapFile = argv.find((a) => !a.startsWith('--'));
  if (!mapFile) {
    console.error('usage: node scripts/codemods/move.mjs <map.json> [--dry-run]');
    process.exit(2);
  }
  const root = git(process.cwd(), 'rev-parse', '--show-toplevel').trim();
  report(run(resolve(mapFile), { dryRun: argv.includes('--dry-run'), root }));
}
