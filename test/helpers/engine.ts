/**
 * The engine this vitest project runs the suite on (vitest.config.ts sets CODER_SUBAGENTS_ENGINE per project;
 * the lua54 project loads wasmoon in its setup file). Tests of engine-specific behaviour branch on it.
 */
import type { LuaEngine, StateOptions } from '../../src/engine/engine.ts';
import { defaultEngineName, getEngine } from '../../src/engine/index.ts';
import type { ConvertMode } from '../../src/engine/values.ts';

export const ENGINE_NAME = defaultEngineName();
export const testEngine = getEngine(ENGINE_NAME);
export const onLua54 = ENGINE_NAME === 'lua54';

/** A state of the suite's engine with no files and no modules (and `null` defined, as the runtime defines it). */
export function bareState(budget = 1e7) {
  const state = testEngine.createState({
    budget,
    budgetMessage: 'budget',
    moduleDirs: [],
    readFile: () => undefined,
    loadRoots: ['/nowhere'],
    baseDir: '/nowhere',
    print: () => {},
    displayPath: (p) => p,
  });
  state.setGlobal('null', null);
  return state;
}

/** Runs `code` in a fresh bare state and converts its result with `mode`. */
export const runBare = (code: string, mode: ConvertMode = 'serde', scope: Record<string, unknown> = {}) =>
  bareState().runChunk(code, 't.lua', 1, scope, mode);

/**
 * A state of `engine` rooted at /w whose files are `files` (absolute path -> content), for the engine's own tests;
 * `options` overrides the rest (budget, limits, module dirs...).
 */
export function stateAtW(engine: LuaEngine, files: Record<string, string | Uint8Array> = {}, options: Partial<StateOptions> = {}) {
  return engine.createState({
    budget: 1e7,
    budgetMessage: 'budget',
    moduleDirs: ['/w'],
    readFile: (abs) => files[abs],
    loadRoots: ['/w'],
    baseDir: '/w',
    print: () => {},
    displayPath: (p) => p,
    ...options,
  });
}
