/**
 * Which of the kit's own modules vitest leaves to Node (issue 27). Compiled, the harness, the reference, the fixtures
 * and the suites' support modules are plain JavaScript that Node imports as it is; given to vitest's module runner
 * they are transformed by vitest's main process, sent over IPC to each worker and evaluated there (about a third of
 * a worker's start-up and most of vitest main's transforms). Only the test files themselves stay with the runner,
 * which must collect them. From the TypeScript sources nothing can be left to Node (Node 20 runs no TypeScript).
 */
import { sep } from 'node:path';
import { CODE_ROOT, COMPILED } from '../kit-files.js';

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** Patterns for vitest's `server.deps.external`: every compiled module of the kit but a test file. */
export function nativeModules(codeRoot: string = CODE_ROOT, compiled: boolean = COMPILED): RegExp[] {
  if (!compiled) return [];
  const root = codeRoot.endsWith(sep) ? codeRoot : codeRoot + sep;
  return [new RegExp(`^${escapeRegExp(root)}(?!.*\\.test\\.js$).*\\.js$`)];
}
