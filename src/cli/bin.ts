#!/usr/bin/env node
/**
 * The `coder-subagents` executable. The published package runs the compiled dist/. In a source checkout (src/ next
 * to dist/) it runs the TypeScript sources through tsx instead, so that a CLI run never uses a stale build;
 * CODER_SUBAGENTS_DIST=1 forces dist/ there (the start-up benchmark). Compiled, it runs the bundle of the CLI
 * (dist/bundle/cli.js, scripts/bundle.mjs): a few files to load instead of hundreds of modules.
 */
import { exists } from '../support/host-fs.ts';
import { fileURLToPath } from 'node:url';

// A reader that stops early (`| head`) closes the pipe: the rest of the output is not wanted, so end quietly as Unix
// tools do, instead of an unhandled EPIPE and its stack.
for (const stream of [process.stdout, process.stderr]) {
  stream.on('error', (err: NodeJS.ErrnoException) => {
    if (err.code !== 'EPIPE') throw err;
    process.exit(process.exitCode ?? 0);
  });
}

const sources = new URL('../../src/cli/main.ts', import.meta.url);
const compiled = import.meta.url.endsWith('.js');
let main: (argv: string[]) => Promise<number>;
if (compiled && process.env.CODER_SUBAGENTS_DIST !== '1' && exists(fileURLToPath(sources))) {
  const tsx = 'tsx/esm/api';
  const { register } = (await import(tsx)) as { register: () => void };
  register();
  ({ main } = (await import(sources.href)) as { main: typeof main });
} else if (compiled) {
  // `test` starts its first worker before this thread loads the CLI, so that the two load side by side; the
  // bundle's chunks are shared, so the CLI's suite run finds the worker idle in the same pool
  if (process.argv[2] === 'test') {
    const workers = new URL('../bundle/suite-workers.js', import.meta.url).href;
    ((await import(workers)) as typeof import('../harness/isolated.ts')).prestartSuiteWorkers();
  }
  const bundle = new URL('../bundle/cli.js', import.meta.url).href;
  ({ main } = (await import(bundle)) as { main: typeof main });
} else {
  ({ main } = await import('./main.ts'));
}
process.exitCode = await main(process.argv);
