/**
 * The repository's files speak of the project alone: what it does, how to use it, how fast, how to reproduce a figure.
 * Words about how the people who build it organise their work are not the project's, and they go stale at once.
 * This test reads every tracked file (`git ls-files`: .git, node_modules and dist are never tracked), its path and
 * each of its lines, and fails on a hit naming `file:line` and the rule.
 *
 * The rules (case-insensitive; N a number, NAME a lower-case word):
 *   1. a numbered working sitting: the word "session" followed by a number ("session N", "session-N", "sessions N–M");
 *   2. a sitting named by its place in time: "last", "next", "previous", "earlier", "end of", "start of", "before this",
 *      "in this", "of this" before the word "session" (but "this session" alone, "the doctor's session", "an HTTP
 *      session" and session.ts are the code's own: a run's session of requests);
 *   3. a helper sitting or a helper's work: "helper" next to "session", "sweep", "branch", "report" or "running";
 *   4. a team's unit of work or branch: the word made of "work" and "stream", the word "branch" after "team", and the
 *      word "branch" followed by a name in backquotes;
 *   5. a tracker's issue used as history: "issue" followed by a number, with or without "#" ("issue N", "issues N–M",
 *      "(issue N item M)"), in a line or in a file's path;
 *   6. the one who merges: the word "lead" after "the", as a person (not "the lead time");
 *   7. an absolute path of one machine's workspace (a folder under /work, /home/NAME, /Users/NAME): a reader's clone is
 *      elsewhere, so a document names files from the repository's root (`../shared/INTERFACE.md`, `docs/…`).
 *
 * This file states the rules without matching them: each pattern is assembled from parts below, so the file is not
 * exempt and a rule it breaks is still found here.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const root = join(import.meta.dirname, '..', '..');
const S = 'session';
const I = 'issue';

/** Each rule: a name for the message and its pattern. */
const RULES: readonly { rule: string; re: RegExp }[] = [
  { rule: 'a numbered working sitting', re: new RegExp(`\\b${S}s?[ -]?\\d+`, 'i') },
  {
    rule: 'a sitting named by its place in time',
    re: new RegExp(`\\b(last|next|previous|earlier|end of( the)?|start of( the)?|before this|in this|of this) ${S}\\b`, 'i'),
  },
  {
    rule: "a helper's sitting or work",
    re: new RegExp(`\\bhelpers?'?s?[ -](${S}s?|sweeps?|branch(es)?|reports?|running|working)\\b|\\b(other|two|three) helpers\\b`, 'i'),
  },
  { rule: "a team's unit of work", re: new RegExp(`\\bwork${'stream'}s?\\b|\\bteam ${'bra'}nch`, 'i') },
  { rule: 'a branch of the team named', re: new RegExp(`\\b${'bra'}nch(es)? \`[a-z0-9][a-z0-9-]*\``, 'i') },
  { rule: "a tracker's issue as history", re: new RegExp(`\\b${I}s?[ _#-]*\\d+`, 'i') },
  { rule: 'the one who merges', re: new RegExp(`\\b(the|by the) ${'le'}ad\\b(?! (time|to|of|in|and)\\b)`, 'i') },
  {
    rule: "an absolute path of one machine's workspace",
    re: new RegExp(`(^|[\\s(\`'"=])/(${'wo'}rk|home/[a-z][a-z0-9_-]*|Users/[A-Za-z][\\w.-]*)/`),
  },
];

/** Every hit in one file's text (and its path): `file:line: rule: the line`. */
function hits(file: string, text: string): string[] {
  const out: string[] = [];
  for (const { rule, re } of RULES) if (re.test(file)) out.push(`${file}:0: ${rule} (in the path)`);
  const lines = text.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    for (const { rule, re } of RULES) {
      const m = re.exec(line);
      if (m) out.push(`${file}:${i + 1}: ${rule}: "${m[0]}" in ${JSON.stringify(line.trim().slice(0, 160))}`);
    }
  }
  return out;
}

function tracked(): string[] {
  return execFileSync('git', ['ls-files', '-z'], { cwd: root, encoding: 'utf8' }).split('\0').filter(Boolean);
}

describe("the repository speaks of the project, not of the team's way of working", () => {
  it('finds none of the rules in any tracked file (each hit is named file:line: rewrite the line about the project)', () => {
    const found: string[] = [];
    for (const file of tracked()) {
      let text: string;
      try {
        text = readFileSync(join(root, file), 'utf8');
      } catch {
        continue; // a tracked file deleted in the working tree
      }
      if (text.includes('\0')) continue; // binary
      found.push(...hits(file, text));
    }
    expect(found).toEqual([]);
  });

  it('catches each rule and leaves the technical word alone', () => {
    const bad = [
      `end of ${S} 20`,
      `measured in ${S}-17`,
      `before this ${S}`,
      `at the end of the ${S}`,
      `a helper ${S} ran it`,
      `the other ${'help'}ers' sweeps`,
      `from ${'bra'}nch \`pace\``,
      `(${I} 23 item 3)`,
      `${I} #19's done-when`,
      `taken by the ${'le'}ad on main`,
      `one per work${'stream'}`,
      `(in the workspace: \`/${'wo'}rk/${'sha'}red/INTERFACE.md\`)`,
      `node /${'ho'}me/ci/reports/repro/x.mjs`,
    ];
    for (const line of bad) expect(hits('x.md', line), line).not.toEqual([]);
    const good = [
      `verified against the target through the ${S}`,
      `harness/run/${S}.ts`,
      `50 client ${S}s against the sandbox`,
      `an HTTP ${S} keeps its cookies`,
      `the webhook receiver for this ${S}; closed with it`,
      'one helper starts the renderer',
      'the lead time of a webhook',
      `a ${'bra'}nch of the state machine`,
      'read `../shared/INTERFACE.md` and harness/work/queue.ts',
      'POST https://sandbox.example/work/orders',
    ];
    for (const line of good) expect(hits('x.md', line), line).toEqual([]);
    expect(hits(`test/init/${I}-24.test.ts`, '')).toHaveLength(1);
  });
});
