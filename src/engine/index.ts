import type { EngineName, LuaEngine } from './engine.ts';
import { ENGINE_NAMES, isEngineName } from './names.ts';

export type { EngineName, LuaEngine, LuaState, StateOptions } from './engine.ts';
export { DEFAULT_ENGINE, defaultEngineName, ENGINE_ENV, ENGINE_NAMES, isEngineName } from './names.ts';

// Each engine's modules load when it is asked for: a worker running lua54 does not load fengari (~60 ms of its
// start-up), nor one running fengari the WebAssembly module. The package's entry adds fengari eagerly (index.ts),
// so that a Simulator on the default engine needs no `await` there.
const loaded = new Map<EngineName, LuaEngine>();

const importers: Record<EngineName, () => Promise<LuaEngine>> = {
  fengari: async () => (await import('./fengari-engine.ts')).fengariEngine,
  // WebAssembly, instantiated asynchronously once per process (~15 ms)
  lua54: async () => (await import('./wasmoon-engine.ts')).wasmoonEngine,
};

/** Loads an engine; after this, its states are created synchronously, so runs stay synchronous. */
export async function loadEngine(name: EngineName): Promise<LuaEngine> {
  let engine = loaded.get(name);
  if (!engine) {
    if (!isEngineName(name)) throw new Error(`unknown Lua engine '${String(name)}': expected ${ENGINE_NAMES.join(' or ')}`);
    engine = await importers[name]();
    loaded.set(name, engine);
  }
  return engine;
}

/** Makes an engine whose module the caller imported itself available to getEngine. */
export function addLoadedEngine(engine: LuaEngine): void {
  loaded.set(engine.name, engine);
}

/** An engine already loaded (`await loadEngine(name)` first; the package's entry loads fengari itself). */
export function getEngine(name: EngineName): LuaEngine {
  const engine = loaded.get(name);
  if (engine) return engine;
  if (!isEngineName(name)) throw new Error(`unknown Lua engine '${String(name)}': expected ${ENGINE_NAMES.join(' or ')}`);
  throw new Error(`the ${name} engine is not loaded: call \`await loadEngine('${name}')\` before creating a Simulator with it`);
}
