#!/usr/bin/env node
// The kit is written in TypeScript and run through tsx, so the published bin needs no build step.
import { register } from 'tsx/esm/api';

register();
const { main } = await import('../harness/cli/main.ts');
process.exitCode = await main(process.argv.slice(2));
