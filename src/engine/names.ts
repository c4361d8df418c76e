/**
 * The engines' names and the default, apart from the engines themselves: a command's main thread checks
 * `--engine` without loading fengari (the worker that runs the agent loads it).
 */
import type { EngineName } from './engine.ts';

export const ENGINE_NAMES: readonly EngineName[] = ['fengari', 'lua54'];
/** Fengari stays the default, as the project was designed (no WASM to load at start-up). */
export const DEFAULT_ENGINE: EngineName = 'fengari';
/** Names the engine used when none is given (CLI `--engine` default, `new Simulator()` without `engine`). */
export const ENGINE_ENV = 'CODER_SUBAGENTS_ENGINE';

export function isEngineName(name: string): name is EngineName {
  return (ENGINE_NAMES as readonly string[]).includes(name);
}

/** The engine used when none is given: $CODER_SUBAGENTS_ENGINE, else fengari. */
export function defaultEngineName(): EngineName {
  const fromEnv = process.env[ENGINE_ENV];
  if (fromEnv === undefined || fromEnv === '') return DEFAULT_ENGINE;
  if (!isEngineName(fromEnv)) throw new Error(`${ENGINE_ENV}=${fromEnv}: expected ${ENGINE_NAMES.join(' or ')}`);
  return fromEnv;
}
