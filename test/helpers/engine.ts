/**
 * The engine this vitest project runs the suite on (vitest.config.ts sets CODER_SUBAGENTS_ENGINE per project;
 * the lua54 project loads wasmoon in its setup file). Tests of engine-specific behaviour branch on it.
 */
import { defaultEngineName, getEngine } from '../../src/engine/index.ts';

export const ENGINE_NAME = defaultEngineName();
export const testEngine = getEngine(ENGINE_NAME);
export const onLua54 = ENGINE_NAME === 'lua54';
