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

export default defineConfig({
  test: {
    testTimeout: 30_000,
    // many tests wait on spawned CLIs and worker threads, so vitest's default (one worker less than the cores)
    // leaves a 2-core CI machine half idle: 2 workers there take the suite from 546 s to 401 s
    maxWorkers: Math.max(2, os.availableParallelism() - 1),
    projects: [
      {
        extends: true,
        test: {
          name: 'fengari',
          include: ['test/**/*.test.ts'],
          env: { CODER_SUBAGENTS_ENGINE: 'fengari' },
          setupFiles: ['test/helpers/load-engine.ts'],
        },
      },
      {
        extends: true,
        test: {
          name: 'lua54',
          include: ['test/**/*.test.ts'],
          exclude: ENGINE_INDEPENDENT,
          env: { CODER_SUBAGENTS_ENGINE: 'lua54' },
          setupFiles: ['test/helpers/load-engine.ts'],
        },
      },
    ],
  },
});
