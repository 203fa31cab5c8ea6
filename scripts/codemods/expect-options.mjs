#!/usr/bin/env node
/**
 * Codemod: the named assertions of harness/check/expect.ts moved from positional strings to a
 * clause id and an options object, and a check's own clause became the default. Other branches keep writing the
 * old calls until they merge, so this script is kept and runnable again: it rewrites only calls still in the old
 * form (an old call is told apart from a new one by its arguments, see OLD below), then drops a clause that is the
 * enclosing check's own (first) clause, written as a literal, which the assertion now takes by default.
 *
 *   node scripts/codemods/expect-options.mjs [--keep-own-clause] [files or directories…]   (default: suites harness test bench fixtures)
 *
 * It changes text, not meaning; verify its output with `npx tsc --noEmit -p tsconfig.json`, then format it with
 * `npx biome check --write` on the files it lists. No parser is a dependency of the kit, so it scans the source
 * itself: strings, template literals, comments and regular expressions are skipped, brackets are matched.
 */
import { readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';

const OPEN = { '(': ')', '[': ']', '{': '}' };

/** Which characters are code (not inside a string, comment or regex) and where each bracket closes. */
export function scan(src) {
  const code = new Uint8Array(src.length);
  const close = new Map();
  const stack = [];
  // Template literals nest through `${`: the stack entry 'tpl' marks a `${` whose `}` resumes the template.
  let i = 0;
  let lastCode = '';
  const inTemplate = (start) => {
    let j = start;
    while (j < src.length) {
      const ch = src[j];
      if (ch === '\\') j += 2;
      else if (ch === '`') return { end: j + 1 };
      else if (ch === '$' && src[j + 1] === '{') return { end: j + 2, interp: true };
      else j++;
    }
    return { end: src.length };
  };
  while (i < src.length) {
    const ch = src[i];
    const next = src[i + 1];
    if (ch === '/' && next === '/') {
      const nl = src.indexOf('\n', i);
      i = nl === -1 ? src.length : nl;
      continue;
    }
    if (ch === '/' && next === '*') {
      const end = src.indexOf('*/', i + 2);
      i = end === -1 ? src.length : end + 2;
      continue;
    }
    if (ch === "'" || ch === '"') {
      let j = i + 1;
      while (j < src.length && src[j] !== ch) j += src[j] === '\\' ? 2 : 1;
      i = j + 1;
      lastCode = 'x';
      continue;
    }
    if (ch === '`') {
      const t = inTemplate(i + 1);
      if (t.interp) stack.push({ tpl: true, at: t.end - 1 });
      i = t.end;
      lastCode = 'x';
      continue;
    }
    if (
      ch === '/' &&
      (lastCode === '' || '(,=:[!&|?{};+-*%<>~^'.includes(lastCode) || /\breturn\s*$/.test(src.slice(Math.max(0, i - 8), i)))
    ) {
      let j = i + 1;
      let cls = false;
      while (j < src.length && (cls || src[j] !== '/') && src[j] !== '\n') {
        if (src[j] === '\\') j++;
        else if (src[j] === '[') cls = true;
        else if (src[j] === ']') cls = false;
        j++;
      }
      i = j + 1;
      lastCode = 'x';
      continue;
    }
    if (ch === '}' && stack.length > 0 && stack[stack.length - 1].tpl) {
      stack.pop();
      const t = inTemplate(i + 1);
      if (t.interp) stack.push({ tpl: true, at: t.end - 1 });
      i = t.end;
      lastCode = 'x';
      continue;
    }
    code[i] = 1;
    if (OPEN[ch]) stack.push({ at: i });
    else if (ch === ')' || ch === ']' || ch === '}') {
      const o = stack.pop();
      if (o && !o.tpl) close.set(o.at, i);
    }
    if (!/\s/.test(ch)) lastCode = ch;
    i++;
  }
  return { code, close };
}

/** The top-level arguments of the call whose `(` is at `open`: [start, end) ranges, trimmed. */
function args(src, s, open) {
  const end = s.close.get(open);
  const out = [];
  let from = open + 1;
  for (let i = open + 1; i < end; i++) {
    if (!s.code[i]) continue;
    if (s.close.has(i)) {
      i = s.close.get(i);
      continue;
    }
    if (src[i] === ',') {
      out.push([from, i]);
      from = i + 1;
    }
  }
  out.push([from, end]);
  return out
    .map(([a, b]) => {
      while (a < b && /\s/.test(src[a])) a++;
      while (b > a && /\s/.test(src[b - 1])) b--;
      return [a, b];
    })
    .filter(([a, b]) => b > a);
}

const isObject = (t) => t.startsWith('{') && t.endsWith('}');
const isUndefined = (t) => t === 'undefined';

/** `{ what, title: x, ...rest }` from [key, value text] pairs; an object literal value is spread in place. */
function options(entries) {
  const parts = [];
  for (const [key, value] of entries) {
    if (value === undefined || isUndefined(value)) continue;
    if (key === '...') {
      if (isObject(value)) {
        const inner = value.slice(1, -1).trim().replace(/,$/, '').trim();
        if (inner) parts.push(inner);
      } else parts.push(`...${value}`);
    } else parts.push(value === key ? key : `${key}: ${value}`);
  }
  return parts.length === 0 ? undefined : `{ ${parts.join(', ')} }`;
}

/**
 * OLD: how an old call is recognised (its arguments are text `a`) and rewritten (new argument texts). A new call
 * never matches: its options are an object literal where the old one had a string, or it has fewer arguments.
 */
const OLD = {
  expectSuccess: (a) => (a.length === 3 && !isObject(a[2]) ? [a[0], a[1], options([['what', a[2]]])] : undefined),
  expectError: (a) =>
    a.length >= 4 && !isObject(a[3])
      ? [
          a[0],
          a[1],
          a[2],
          options([
            ['what', a[3]],
            ['...', a[4]],
          ]),
        ]
      : undefined,
  expectOneOf: (a) =>
    a.length >= 4 && !isObject(a[3])
      ? [
          a[0],
          a[1],
          a[2],
          options([
            ['topic', a[3]],
            ['what', a[4]],
          ]),
        ]
      : undefined,
  expectRefused: (a) =>
    a.length >= 3 && !isObject(a[2])
      ? [
          a[0],
          a[1],
          options([
            ['what', a[2]],
            ['topic', a[3]],
          ]),
        ]
      : undefined,
  expectAuthError: (a) => (a.length === 4 && !isObject(a[3]) ? [a[0], a[1], a[2], options([['what', a[3]]])] : undefined),
  expectEqual: (a) =>
    a.length >= 5
      ? [
          a[0],
          a[1],
          a[3],
          options([
            ['code', a[2]],
            ['title', a[4]],
            ['exchange', a[5]],
          ]),
        ]
      : undefined,
  failCheck: (a) =>
    a.length === 4
      ? [
          a[1],
          options([
            ['code', a[0]],
            ['title', a[2]],
            ['...', a[3]],
          ]),
        ]
      : undefined,
};

/** Where the clause sits in a new call, for dropping the check's own. */
const CLAUSE_AT = {
  expectSuccess: 1,
  expectError: 2,
  expectOneOf: 2,
  expectRefused: 1,
  expectAuthError: 2,
  expectEqual: 2,
  failCheck: 0,
  expectUnsigned: 1,
};

/** Local names bound to the assertions of harness/check/expect.ts in this file. */
function imported(src, file) {
  const names = new Map();
  const re = /import\s*(?:type\s*)?\{([^}]*)\}\s*from\s*'([^']+)'/g;
  for (const m of src.matchAll(re)) {
    const from = m[2];
    const ok = /(^|\/)check\/expect\.js$/.test(from) || (from === './expect.js' && /harness[\\/]check[\\/]/.test(file));
    if (!ok) continue;
    for (const spec of m[1].split(',')) {
      const [name, alias] = spec.trim().split(/\s+as\s+/);
      if (name && (OLD[name] || CLAUSE_AT[name] !== undefined)) names.set(alias ?? name, name);
    }
  }
  return names;
}

/** The calls of the assertions in `src`: name, the `(` and the argument ranges. */
function calls(src, s, names) {
  const out = [];
  if (names.size === 0) return out;
  const re = new RegExp(`(?<![\\w$.])(${[...names.keys()].join('|')})\\s*\\(`, 'g');
  for (const m of src.matchAll(re)) {
    const open = m.index + m[0].length - 1;
    if (!s.code[m.index] || !s.close.has(open)) continue;
    if (/function\s+$/.test(src.slice(Math.max(0, m.index - 12), m.index))) continue;
    out.push({ name: names.get(m[1]), at: m.index, open, close: s.close.get(open), args: args(src, s, open) });
  }
  return out;
}

/** Applies non-overlapping edits (outermost first); the caller repeats until nothing changes. */
function apply(src, edits) {
  const taken = [];
  for (const e of edits.sort((x, y) => x.from - y.from || y.to - x.to))
    if (!taken.some((t) => e.from < t.to && t.from < e.to)) taken.push(e);
  let out = src;
  for (const e of taken.sort((x, y) => y.from - x.from)) out = out.slice(0, e.from) + e.text + out.slice(e.to);
  return { out, n: taken.length };
}

function rewriteOld(src, file) {
  let total = 0;
  for (;;) {
    const s = scan(src);
    const edits = [];
    for (const c of calls(src, s, imported(src, file))) {
      const rule = OLD[c.name];
      const texts = c.args.map(([a, b]) => src.slice(a, b));
      const now = rule?.(texts);
      if (!now) continue;
      while (now.length > 0 && now[now.length - 1] === undefined) now.pop();
      edits.push({ from: c.open + 1, to: c.close, text: now.join(', ') });
    }
    if (edits.length === 0) return { src, n: total };
    const r = apply(src, edits);
    src = r.out;
    total += r.n;
  }
}

/** The innermost check definition (an object literal with `clause:` and `run`) whose run contains `at`, and its own clause. */
function ownClauseAt(src, s, at) {
  let best;
  for (const [o, c] of s.close) {
    if (src[o] !== '{' || !(o < at && at < c)) continue;
    if (best && o < best.o) continue;
    // The object's own properties: its text with nested brackets blanked out.
    let top = '';
    for (let i = o + 1; i < c; i++) {
      if (s.code[i] && s.close.has(i) && i !== o) {
        const e = s.close.get(i);
        top += src[i] + ' '.repeat(e - i - 1) + src[e];
        i = e;
      } else top += s.code[i] ? src[i] : ' ';
    }
    const cl = /(?:^|[\s,])clause\s*:/.exec(top);
    const run = /(?:^|[\s,])(?:async\s+)?run\s*[(:]/.exec(top);
    if (!cl || !run || at < o + 1 + run.index) continue;
    const lit = /^\s*\[?\s*'([a-z0-9.-]+)'/.exec(src.slice(o + 1 + cl.index + cl[0].length));
    best = { o, clause: lit?.[1] };
  }
  return best?.clause;
}

function dropOwn(src, file) {
  const s = scan(src);
  const edits = [];
  for (const c of calls(src, s, imported(src, file))) {
    const k = CLAUSE_AT[c.name];
    if (k === undefined || c.args.length <= k) continue;
    const texts = c.args.map(([a, b]) => src.slice(a, b));
    const lit = /^'([a-z0-9.-]+)'$/.exec(texts[k]);
    // Only a clause followed by the options object (or by nothing) is the new form's clause slot.
    if (!lit || (texts.length > k + 1 && !(texts.length === k + 2 && isObject(texts[k + 1])))) continue;
    if (ownClauseAt(src, s, c.at) !== lit[1]) continue;
    texts.splice(k, 1);
    edits.push({ from: c.open + 1, to: c.close, text: texts.join(', ') });
  }
  return apply(src, edits);
}

function files(paths) {
  const out = [];
  const walk = (p) => {
    const st = statSync(p, { throwIfNoEntry: false });
    if (!st) return;
    if (st.isDirectory()) {
      for (const e of readdirSync(p)) if (e !== 'node_modules' && !e.startsWith('.')) walk(join(p, e));
    } else if (/\.(ts|mts|mjs)$/.test(p) && !p.endsWith('.d.ts') && !/harness[\\/]check[\\/]expect\.ts$/.test(p)) out.push(p);
  };
  for (const p of paths) walk(p);
  return out;
}

const argv = process.argv.slice(2);
const keepOwn = argv.includes('--keep-own-clause');
const roots = argv.filter((a) => !a.startsWith('--'));
const changed = [];
for (const file of files(roots.length ? roots : ['suites', 'harness', 'test', 'bench', 'fixtures'])) {
  const before = readFileSync(file, 'utf8');
  const old = rewriteOld(before, file);
  // Own clauses are a check's: only suites define checks.
  const own = keepOwn || !/(^|[\\/])suites[\\/]/.test(file) ? { out: old.src, n: 0 } : dropOwn(old.src, file);
  if (own.out !== before) {
    writeFileSync(file, own.out);
    changed.push(file);
    process.stdout.write(`${relative(process.cwd(), file)}: ${old.n} rewritten, ${own.n} own clause(s) dropped\n`);
  }
}
if (changed.length === 0) process.stdout.write('nothing to rewrite\n');
else process.stdout.write(`\nnow: npx tsc --noEmit -p tsconfig.json && npx biome check --write ${changed.join(' ')}\n`);
