/**
 * vitest's main process for a run of the compiled kit: vitest's own command, started without the module
 * hook vite would register to import the config. The compiled config is imported by Node (`--configLoader native`,
 * harness/cli/run.ts); to track the config's dependencies for watch mode, vite imports it through a resolve hook, and
 * on Node versions without `Module.registerHooks` (before 22.15) that hook is `Module.register`'s: a thread of its own
 * that every later import of the process waits on (the config's whole harness, vitest's reporters and runner
 * chunks). A run never watches, so vite is left to its plain `import()`, which it uses where no hook API exists.
 *
 *   node dist/harness/run/vitest-main.js <vitest's arguments>
 */
import { Module } from 'node:module';
import { pathToFileURL } from 'node:url';
import { dependencyBin } from '../kit/kit-files.js';

const moduleApi = Module as unknown as { register?: unknown; registerHooks?: unknown };
if (moduleApi.registerHooks === undefined) moduleApi.register = undefined;
await import(pathToFileURL(dependencyBin('vitest')).href);
