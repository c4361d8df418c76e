import os from 'node:os';
import { defineConfig } from 'vitest/config';

// The suite runs once per Lua engine (CODER_SUBAGENTS_ENGINE is the default engine of Simulators and of the CLI,
// spawned CLIs included). Engine-independent tests run once: whole folders, and kill -9 during writes (what it
// tests is the host's all-or-nothing write layer; its agent is one loop of saves, ~30 s per engine).
const ENGINE_INDEPENDENT = [
  'test/check/**',
  'test/package/**',
  'test/scripts/**',
  'test/support/**',
  'test/isolate/**',
  'test/report/**',
  'test/security/kill9.test.ts',
];

// Test files share their worker's modules (isolate: false): each file's own module graph cost ~0.3 s of import and
// engine set-up, ~290 s of worker time over the suite. A file that replaces a module the others import
// (vi.mock) runs isolated.
const NEEDS_ISOLATION = ['test/check/cli.test.ts'];

const engineProject = (engine: 'fengari' | 'lua54', isolated: boolean, exclude: string[]) => ({
  extends: true as const,
  test: {
    name: isolated ? `${engine}-isolated` : engine,
    include: isolated ? NEEDS_ISOLATION : ['test/**/*.test.ts'],
    exclude: isolated ? exclude : [...exclude, ...NEEDS_ISOLATION],
    isolate: isolated,
    env: { CODER_SUBAGENTS_ENGINE: engine },
    setupFiles: ['test/helpers/load-engine.ts'],
  },
});

export default defineConfig({
  test: {
    // timeouts are hang guards, never speed checks: beside two busy loops a real-binary test took 34 s and a
    // beforeAll that runs a pipeline more than 10 s
    testTimeout: 120_000,
    hookTimeout: 120_000,
    // many tests wait on spawned CLIs and worker threads, so vitest's default (one worker less than the cores)
    // leaves a 2-core CI machine half idle: 2 workers there take the suite from 546 s to 401 s
    maxWorkers: Math.max(2, os.availableParallelism() - 1),
    projects: [
      engineProject('fengari', false, []),
      engineProject('lua54', false, ENGINE_INDEPENDENT),
      engineProject('fengari', true, []),
      engineProject('lua54', true, ENGINE_INDEPENDENT),
    ],
  },
});
