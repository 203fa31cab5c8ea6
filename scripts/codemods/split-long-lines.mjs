#!/usr/bin/env node
/**
 * Splits the lines of .ts/.mjs files that the formatter leaves over the line width (biome.json, 140): long string
 * literals (into pieces joined by `+`, the text unchanged) and long comments (rewrapped). Kept and runnable again:
 * branches merged later bring their own long lines.
 *
 *   node scripts/codemods/split-long-lines.mjs [--width 140] [files or directories…]   (default: the source directories)
 *
 * Then `npx biome format --write` on the files it lists, and run it again until it changes nothing (the formatter
 * moves the pieces, which can leave a piece long). A tagged template (String.raw`…`) is never split: its text is
 * not its value. What it cannot split (code, a word longer than the width) it lists; split those by hand.
 * Verify with `npx tsc --noEmit -p tsconfig.json`: a literal type (a clause id, a key) must stay one literal.
 */
import { readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/** String and template literals (with their `${…}` holes) and comments of `src`, by offset. */
function tokens(src) {
  const lits = [];
  const comments = [];
  const holes = []; // open template holes: { lit, depth }
  let depth = 0;
  let last = '';
  let i = 0;
  const template = (lit, from) => {
    let j = from;
    while (j < src.length) {
      if (src[j] === '\\') j += 2;
      else if (src[j] === '`') {
        lit.end = j + 1;
        return j + 1;
      } else if (src[j] === '$' && src[j + 1] === '{') {
        lit.holes.push([j, undefined]);
        holes.push({ lit, depth });
        depth++;
        return j + 2;
      } else j++;
    }
    lit.end = src.length;
    return src.length;
  };
  while (i < src.length) {
    const ch = src[i];
    const next = src[i + 1];
    if (ch === '/' && next === '/') {
      const nl = src.indexOf('\n', i);
      const end = nl === -1 ? src.length : nl;
      comments.push({ kind: 'line', start: i, end });
      i = end;
    } else if (ch === '/' && next === '*') {
      const e = src.indexOf('*/', i + 2);
      const end = e === -1 ? src.length : e + 2;
      comments.push({ kind: 'block', start: i, end });
      i = end;
    } else if (ch === "'" || ch === '"') {
      let j = i + 1;
      while (j < src.length && src[j] !== ch && src[j] !== '\n') j += src[j] === '\\' ? 2 : 1;
      lits.push({ kind: 'str', start: i, end: j + 1, holes: [] });
      i = j + 1;
      last = 'x';
    } else if (ch === '`') {
      const before = src.slice(0, i).trimEnd();
      const tagged = /[\w$)\]]$/.test(before) && !/\b(return|typeof|case|in|of)$/.test(before);
      const lit = { kind: 'tpl', start: i, end: undefined, holes: [], tagged };
      lits.push(lit);
      i = template(lit, i + 1);
      last = 'x';
    } else if (
      ch === '/' &&
      (last === '' || '(,=:[!&|?{};+-*%<>~^'.includes(last) || /\breturn\s*$/.test(src.slice(Math.max(0, i - 8), i)))
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
      last = 'x';
    } else if (ch === '}' && holes.length > 0 && holes[holes.length - 1].depth === depth - 1) {
      const h = holes.pop();
      depth--;
      h.lit.holes[h.lit.holes.length - 1][1] = i + 1;
      i = template(h.lit, i + 1);
    } else {
      if (ch === '{') depth++;
      else if (ch === '}') depth--;
      if (!/\s/.test(ch)) last = ch;
      i++;
    }
  }
  return { lits, comments };
}

/** Words of `text` in lines of at most `room` characters (a longer word stays whole on its own line). */
function wrap(text, room) {
  const out = [];
  let line = '';
  for (const w of text.split(/ +/)) {
    if (line && line.length + 1 + w.length > room) {
      out.push(line);
      line = w;
    } else line = line ? `${line} ${w}` : w;
  }
  if (line) out.push(line);
  return out;
}

/** A literal that may be split: where the `+` chain it becomes keeps its meaning in place. */
function splittable(src, lit) {
  if (lit.tagged) return false;
  const before = src.slice(0, lit.start).trimEnd();
  const after = src.slice(lit.end).trimStart();
  // A property key, an import path, a member access or a literal type would change meaning or break.
  if (/^[.[]/.test(after) || /\b(import|from|require)\s*\(?$/.test(before)) return false;
  if (/^:/.test(after) && /[{,]$/.test(before)) return false;
  if (/(\btype\b[^=]*=|[|&<]|\bextends|:\s*)$/.test(before) && !/[?(]$/.test(before) && /\btype\b/.test(before.split('\n').pop()))
    return false;
  return true;
}

/**
 * Where to cut `lit` into pieces of about equal length that each fit the width once the formatter has put them on
 * lines of their own (at `indent` plus a level or two): after a space, outside any `${…}` hole, never in an escape.
 */
function splitPoints(src, lit, indent, width) {
  const inHole = (p) => lit.holes.some(([a, b]) => p > a && p < (b ?? Infinity));
  const edge = (p) => lit.holes.some(([a, b]) => p === a || p === b);
  // A cut at `p` starts the second piece there: after a space of the text, or where a hole begins or ends.
  const ok = (p) =>
    p > lit.start + 1 && p < lit.end - 1 && !inHole(p) && ((src[p - 1] === ' ' && src[p - 2] !== '\\' && !inHole(p - 1)) || edge(p));
  // Data without spaces (hex, JSON) is cut anywhere outside an escape.
  const anywhere = (p) =>
    p > lit.start + 1 &&
    p < lit.end - 1 &&
    !inHole(p) &&
    /[\w,":{}./-]{2}/.test(src.slice(p - 1, p + 1)) &&
    !src.slice(p - 6, p).includes('\\');
  const len = lit.end - lit.start;
  const room = width - indent - 12;
  // Two pieces at least: a literal that fits alone still makes its line long beside the code around it.
  const k = Math.max(2, Math.ceil(len / room));
  if (len < 40) return [];
  const cuts = [];
  for (let i = 1; i < k; i++) {
    const target = lit.start + Math.round((i * len) / k);
    for (let d = 0; d < room / 2; d++) {
      const p = [target - d, target + d].find((q) => ok(q) && q > (cuts[cuts.length - 1] ?? lit.start + 1));
      if (p !== undefined) {
        cuts.push(p);
        break;
      }
    }
    if (cuts.length < i) {
      const p = [...Array(Math.floor(room / 2)).keys()]
        .flatMap((d) => [target - d, target + d])
        .find((q) => anywhere(q) && q > (cuts[cuts.length - 1] ?? lit.start + 1));
      if (p !== undefined) cuts.push(p);
    }
  }
  return cuts;
}

function fix(src, width) {
  const { lits, comments } = tokens(src);
  const lines = src.split('\n');
  const starts = [];
  let o = 0;
  for (const l of lines) {
    starts.push(o);
    o += l.length + 1;
  }
  const edits = [];
  const left = [];
  // Pieces the formatter put back on one line (an outer split made an inner one needless) are joined again.
  const lineOf = (off) => starts.findLastIndex((x) => x <= off);
  const ordered = lits.filter((l) => !l.tagged && l.end !== undefined).sort((x, y) => x.start - y.start);
  let joinedUpTo = -1;
  for (let k = 0; k + 1 < ordered.length; k++) {
    const [x, y] = [ordered[k], ordered[k + 1]];
    const q = src[x.start];
    if (x.start < joinedUpTo || src[y.start] !== q || !/^\s*\+\s*$/.test(src.slice(x.end, y.start))) continue;
    const n = lineOf(x.start);
    if (n !== lineOf(y.end - 1) || /^[.[]/.test(src.slice(y.end).trimStart())) continue;
    // Never make `${` out of two pieces: in a template it would open a hole, in a string it reads like one.
    if (src[x.end - 2] === '$' && src[y.start + 1] === '{') continue;
    if (lines[n].length > width) continue;
    // After `key:` or `x =` the formatter pulls a lone literal up to that line: it must fit there too. After a call's
    // `(` it may pull the literal and the arguments after it: never joined there.
    const prev = n > 0 ? lines[n - 1].trimEnd() : '';
    const head = src.slice(starts[n], x.start).trim();
    if (head === '' && /\($/.test(prev)) continue;
    if (head === '' && /(:|=|=>)$/.test(prev) && prev.length + 1 + lines[n].trim().length - 5 > width) continue;
    edits.push({ from: x.end - 1, to: y.start + 1, text: '' });
    joinedUpTo = y.end;
  }
  lines.forEach((line, n) => {
    if (line.length <= width) return;
    const a = starts[n];
    const b = a + line.length;
    const indent = /^\s*/.exec(line)[0];
    // A comment that makes the line long: rewrap it.
    const c = comments.find((k) => k.start < b && k.end > a && (k.kind === 'line' ? k.start >= a : true));
    // A directive (@ts-expect-error, biome-ignore) applies to the line after it: never moved or wrapped.
    const directive = c && /^\/[/*]\*?\s*(@ts-|biome-ignore|eslint|@vitest)/.test(src.slice(c.start, c.start + 24));
    if (c && !directive && c.kind === 'line' && c.start - a + 2 < width) {
      const code = src.slice(a, c.start).trimEnd();
      const text = src.slice(c.start + 2, b).trim();
      const prefix = `${indent}// `;
      const wrapped = wrap(text, width - prefix.length).map((w) => prefix + w);
      if (wrapped.every((w) => w.length <= width)) {
        edits.push({ from: a, to: b, text: code.trim() ? `${wrapped.join('\n')}\n${code}` : wrapped.join('\n') });
        return;
      }
    }
    if (c && !directive && c.kind === 'block' && c.start <= a + indent.length && c.end >= b - 2) {
      const body = line.trim();
      const one = /^\/\*\*?\s*(.*?)\s*\*\/$/.exec(body);
      const mid = /^\*\s?(.*)$/.exec(body);
      if (one && c.start === a + indent.length && c.end === b) {
        const wrapped = wrap(one[1], width - indent.length - 3).map((w) => `${indent} * ${w}`);
        edits.push({ from: a, to: b, text: `${indent}/**\n${wrapped.join('\n')}\n${indent} */` });
        return;
      }
      if (mid && !body.startsWith('*/')) {
        const wrapped = wrap(mid[1], width - indent.length - 2).map((w) => `${indent}* ${w}`);
        if (wrapped.length > 1 && wrapped.every((w) => w.length <= width)) {
          edits.push({ from: a, to: b, text: wrapped.join('\n') });
          return;
        }
      }
    }
    // A test's title: split into pieces it would be broken out of its call and the whole body indented again; a
    // template continued with a backslash-newline (which adds nothing to its text) keeps the call on its line.
    const title = lits.find(
      (l) =>
        l.start >= a &&
        l.end <= b &&
        l.kind === 'str' &&
        /\b(it|test|describe)(\.\w+)?\($/.test(src.slice(a, l.start)) &&
        !/[`$]/.test(src.slice(l.start, l.end)),
    );
    if (title) {
      const cut = splitPoints(src, title, indent.length, width)[0];
      if (cut !== undefined && cut - a + 2 <= width) {
        const text = (from, to) => src.slice(from, to).replaceAll(`\\${src[title.start]}`, src[title.start]);
        edits.push({ from: title.start, to: title.end, text: `\`${text(title.start + 1, cut)}\\\n${text(cut, title.end - 1)}\`` });
        return;
      }
    }
    // The longest literal wholly on the line.
    const on = lits.filter((l) => l.start >= a && l.end <= b && splittable(src, l)).sort((x, y) => y.end - y.start - (x.end - x.start));
    for (const lit of on) {
      const cuts = splitPoints(src, lit, indent.length, width);
      if (cuts.length === 0) continue;
      const q = src[lit.start];
      const bounds = [lit.start + 1, ...cuts, lit.end - 1];
      const pieces = bounds.slice(1).map((to, i) => `${q}${src.slice(bounds[i], to)}${q}`);
      const before = src.slice(0, lit.start).trimEnd();
      const after = src.slice(lit.end).trimStart();
      const bare = /([(,=:[?{}]|=>|\breturn|\+|\?\?|\|\||&&)$/.test(before) && /^([),;\]}:+]|\?\?|\|\||&&|$)/.test(after);
      const joined = pieces.join(` +\n${indent}  `);
      edits.push({ from: lit.start, to: lit.end, text: bare ? joined : `(${joined})` });
      return;
    }
    left.push(n + 1);
  });
  let out = src;
  for (const e of edits.sort((x, y) => y.from - x.from)) out = out.slice(0, e.from) + e.text + out.slice(e.to);
  return { out, n: edits.length, left };
}

function files(paths) {
  const out = [];
  const walk = (p) => {
    const st = statSync(p, { throwIfNoEntry: false });
    if (!st) return;
    if (st.isDirectory()) {
      for (const e of readdirSync(p)) if (e !== 'node_modules' && !e.startsWith('.') && e !== 'dist' && e !== 'reports') walk(join(p, e));
    } else if (/\.(ts|mts|mjs)$/.test(p)) out.push(p);
  };
  for (const p of paths) walk(p);
  return out;
}

const argv = process.argv.slice(2);
const w = argv.indexOf('--width');
const width = w >= 0 ? Number(argv[w + 1]) : 140;
const roots = argv.filter((a, k) => !a.startsWith('--') && !(w >= 0 && k === w + 1));
const changed = [];
const unsplit = [];
for (const file of files(roots.length ? roots : ['suites', 'harness', 'reference', 'test', 'bench', 'fixtures', 'scripts', 'bin'])) {
  const src = readFileSync(file, 'utf8');
  const r = fix(src, width);
  if (r.out !== src) {
    writeFileSync(file, r.out);
    changed.push(file);
  }
  for (const n of r.left) unsplit.push(`${file}:${n}`);
}
process.stdout.write(changed.length ? `split or rewrapped in: ${changed.join(' ')}\n` : 'nothing to split\n');
if (unsplit.length) process.stdout.write(`left over ${width} (split by hand):\n  ${unsplit.join('\n  ')}\n`);
