/**
 * `--engine`: which Lua engine a command runs. Apart from simulate.ts, so that `test` can check the flag without
 * loading the simulator on its main thread (its worker runs the cases).
 */
import type { Command } from 'commander';
import type { EngineName } from '../engine/engine.ts';
import { defaultEngineName, ENGINE_ENV, ENGINE_NAMES, isEngineName } from '../engine/names.ts';
import { UsageError } from './errors.ts';

/** `--engine fengari|lua54`: the Lua engine (default $CODER_SUBAGENTS_ENGINE, else fengari). */
export function addEngineOption(cmd: Command): Command {
  return cmd.option('--engine <name>', `Lua engine: fengari (Lua 5.3, default) or lua54 (Lua 5.4 as in AIPack; default from $${ENGINE_ENV})`);
}

/** Checks the engine named by `--engine` (default from the environment), without loading it (engineFromOption loads). */
export function engineOf(name: string | undefined): EngineName {
  let engine: string;
  try {
    engine = name === undefined ? defaultEngineName() : name;
  } catch (err) {
    throw new UsageError((err as Error).message);
  }
  if (!isEngineName(engine)) throw new UsageError(`--engine ${name}: expected ${ENGINE_NAMES.join(' or ')}`);
  return engine;
}

/** Checks and loads the engine named by `--engine` (lua54 instantiates its WebAssembly module once). */
export async function engineFromOption(name: string | undefined): Promise<EngineName> {
  const engine = engineOf(name);
  // the engines themselves load only here (the demo runs in this thread): a main thread that only checks the flag
  // does not load fengari
  const { loadEngine } = await import('../engine/index.ts');
  await loadEngine(engine);
  return engine;
}
