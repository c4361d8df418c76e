import type { EngineName, LuaEngine } from './engine.ts';
import { fengariEngine } from './fengari-engine.ts';

export type { EngineName, LuaEngine, LuaState, StateOptions } from './engine.ts';
export const ENGINE_NAMES: readonly EngineName[] = ['fengari', 'lua54'];
/** Fengari stays the default, as the project was designed (no WASM to load at start-up). */
export const DEFAULT_ENGINE: EngineName = 'fengari';
/** Names the engine used when none is given (CLI `--engine` default, `new Simulator()` without `engine`). */
export const ENGINE_ENV = 'CODER_SUBAGENTS_ENGINE';

/** The engine used when none is given: $CODER_SUBAGENTS_ENGINE, else fengari. */
export function defaultEngineName(): EngineName {
  const fromEnv = process.env[ENGINE_ENV];
  if (fromEnv === undefined || fromEnv === '') return DEFAULT_ENGINE;
  if (!isEngineName(fromEnv)) throw new Error(`${ENGINE_ENV}=${fromEnv}: expected ${ENGINE_NAMES.join(' or ')}`);
  return fromEnv;
}

const loaded = new Map<EngineName, LuaEngine>([['fengari', fengariEngine]]);

export function isEngineName(name: string): name is EngineName {
  return (ENGINE_NAMES as readonly string[]).includes(name);
}

/**
 * Loads an engine. lua54 is WebAssembly, instantiated asynchronously once per process (~15 ms); after this,
 * states are created synchronously, so runs stay synchronous. Call it before a run that uses `lua54`.
 */
export async function loadEngine(name: EngineName): Promise<LuaEngine> {
  let engine = loaded.get(name);
  if (!engine) {
    if (name !== 'lua54') throw new Error(`unknown Lua engine '${String(name)}': expected ${ENGINE_NAMES.join(' or ')}`);
    engine = (await import('./wasmoon-engine.ts')).wasmoonEngine;
    loaded.set(name, engine);
  }
  return engine;
}

/** An engine already loaded (fengari always is); lua54 needs `await loadEngine('lua54')` first. */
export function getEngine(name: EngineName): LuaEngine {
  const engine = loaded.get(name);
  if (engine) return engine;
  if (!isEngineName(name)) throw new Error(`unknown Lua engine '${String(name)}': expected ${ENGINE_NAMES.join(' or ')}`);
  throw new Error(`the ${name} engine is not loaded: call \`await loadEngine('${name}')\` before creating a Simulator with it`);
}
