#!/usr/bin/env node
// Installed, the package runs its compiled JavaScript (dist/, built by `npm pack`): nothing is compiled at start-up.
// A clone runs the same compiled JavaScript when dist/ was built from exactly its sources (`npm ci` builds it, see
// scripts/build.mjs and bin/built-from.mjs): tsx's loading of the CLI costs about 0.6 s of CPU a run. Otherwise —
// no build, or any source changed since — it runs its TypeScript sources through tsx (a dev dependency), so working
// on the kit needs no build step and never runs a stale build.
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const sources = new URL('../harness/cli/main.ts', import.meta.url);
let main;
if (existsSync(sources) && !(await import('./built-from.mjs')).distIsFresh(fileURLToPath(new URL('..', import.meta.url)))) {
  const { register } = await import('tsx/esm/api');
  register();
  ({ main } = await import(sources.href));
} else {
  ({ main } = await import('../dist/harness/cli/main.js'));
}
process.exitCode = await main(process.argv.slice(2));
