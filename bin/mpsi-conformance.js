#!/usr/bin/env node
// Installed, the package runs its compiled JavaScript (dist/, built by `npm pack` at prepack): nothing is
// compiled at start-up. A clone of the kit has its TypeScript sources and runs them through tsx (a dev
// dependency), so working on the kit needs no build step and never runs a stale build.
import { existsSync } from 'node:fs';

const sources = new URL('../harness/cli/main.ts', import.meta.url);
let main;
if (existsSync(sources)) {
  const { register } = await import('tsx/esm/api');
  register();
  ({ main } = await import(sources.href));
} else {
  ({ main } = await import('../dist/harness/cli/main.js'));
}
process.exitCode = await main(process.argv.slice(2));
