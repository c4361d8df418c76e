import type { EngineName, LuaEngine } from './engine.ts';
import { fengariEngine } from './fengari-engine.ts';
import { ENGINE_NAMES, isEngineName } from './names.ts';

export type { EngineName, LuaEngine, LuaState, StateOptions } from './engine.ts';
export { DEFAULT_ENGINE, defaultEngineName, ENGINE_ENV, ENGINE_NAMES, isEngineName } from './names.ts';

const loaded = new Map<EngineName, LuaEngine>([['fengari', fengariEngine]]);

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
