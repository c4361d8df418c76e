#!/usr/bin/env node
// The CLI is TypeScript run through tsx, so the repo works right after `npm install` with no build step.
import { register } from 'tsx/esm/api';

register();
const { main } = await import('../src/cli/main.ts');
process.exitCode = await main(process.argv);
