/**
 * Which of the kit's own modules vitest leaves to Node. Compiled, the harness, the reference, the fixtures
 * and the suites' support modules are plain JavaScript that Node imports as it is; given to vitest's module runner
 * they are transformed (or read from vitest's module cache) by vitest's main process, sent over IPC to each worker
 * and evaluated there by vitest's module runner. Only the test files themselves stay with the runner,
 * which must collect them. From the TypeScript sources nothing can be left to Node (Node 20 runs no TypeScript). A module
 * the pattern misses (a path spelt another way) is only inlined as before: slower, never different.
 */
import { sep } from 'node:path';
import { CODE_ROOT, COMPILED } from '../kit/kit-files.js';

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** Patterns for vitest's `server.deps.external`: every compiled module of the kit but a test file. */
export function nativeModules(codeRoot: string = CODE_ROOT, compiled: boolean = COMPILED): RegExp[] {
  if (!compiled) return [];
  // vite names modules by their path with forward slashes, on Windows too.
  const slashed = codeRoot.split(sep).join('/');
  const root = slashed.endsWith('/') ? slashed : `${slashed}/`;
  return [new RegExp(`^${escapeRegExp(root)}(?!.*\\.test\\.js$).*\\.js$`)];
}
