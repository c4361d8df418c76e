import { existsSync, readFileSync } from 'node:fs';
import nodePath from 'node:path';
import type { Command } from 'commander';
import { isValidVersion } from '../aip/catalog.ts';
import type { EngineName } from '../engine/engine.ts';
import { defaultEngineName, ENGINE_ENV, ENGINE_NAMES, isEngineName, loadEngine } from '../engine/index.ts';
import { ScriptedAi, ScriptedAiError } from '../runtime/ai.ts';
import { REPO_PACK } from '../runtime/packs.ts';
import { DEFAULT_AIPACK_VERSION, Simulator } from '../runtime/simulator.ts';
import { findWorkspace } from '../runtime/workspace.ts';
import { requireDir, UsageError } from './errors.ts';

/** Options shared by the commands that run agents on the simulated runtime. */
export interface SimCliOptions {
  workspace?: string;
  ai?: string;
  aipackVersion: string;
  write?: boolean;
  json?: boolean;
  trace?: boolean;
  budget?: string;
  engine?: string;
}

/** `--engine fengari|lua54`: the Lua engine (default $CODER_SUBAGENTS_ENGINE, else fengari). */
export function addEngineOption(cmd: Command): Command {
  return cmd.option('--engine <name>', `Lua engine: fengari (Lua 5.3, default) or lua54 (Lua 5.4 as in AIPack; default from $${ENGINE_ENV})`);
}

/** Checks and loads the engine named by `--engine` (lua54 instantiates its WebAssembly module once). */
export async function engineFromOption(name: string | undefined): Promise<EngineName> {
  let engine: EngineName;
  try {
    engine = name === undefined ? defaultEngineName() : (name as EngineName);
  } catch (err) {
    throw new UsageError((err as Error).message);
  }
  if (!isEngineName(engine)) throw new UsageError(`--engine ${name}: expected ${ENGINE_NAMES.join(' or ')}`);
  await loadEngine(engine);
  return engine;
}

export function addSimOptions(cmd: Command): Command {
  return addEngineOption(cmd)
    .option('--workspace <dir>', 'workspace directory (the one holding .aipack/)', undefined)
    .option('--ai <file>', 'TOML file of scripted AI responses')
    .option('--aipack-version <version>', 'simulated AIPack version (CTX.AIPACK_VERSION)', DEFAULT_AIPACK_VERSION)
    .option('--write', 'write the files the run created, changed or deleted to the workspace (default: report only)')
    .option('--json', 'print one JSON object')
    .option('--trace', 'print the trace of the run (stages, agent calls, AI calls, pins, files)')
    .option('--budget <instructions>', 'instruction budget of a run (the agent and every agent it runs)');
}

export async function makeSimulator(o: SimCliOptions): Promise<Simulator> {
  const engine = await engineFromOption(o.engine);
  const workspaceDir = o.workspace ? nodePath.resolve(o.workspace) : findWorkspace(process.cwd());
  if (o.workspace) requireDir('--workspace', o.workspace, workspaceDir);
  if (!isValidVersion(o.aipackVersion)) throw new UsageError(`--aipack-version ${o.aipackVersion}: expected MAJOR.MINOR.PATCH, e.g. 0.8.15`);
  let ai: ScriptedAi | undefined;
  if (o.ai) {
    if (!existsSync(o.ai)) throw new UsageError(`--ai ${o.ai}: file not found`);
    try {
      ai = ScriptedAi.fromToml(readFileSync(o.ai, 'utf8'), o.ai);
    } catch (err) {
      if (err instanceof ScriptedAiError) throw new UsageError(err.message);
      throw err;
    }
  }
  let budget: number | undefined;
  if (o.budget !== undefined) {
    budget = Number(o.budget);
    if (!Number.isInteger(budget) || budget <= 0) throw new UsageError(`--budget ${o.budget}: expected a positive integer`);
  }
  return new Simulator({ workspaceDir, ai, aipackVersion: o.aipackVersion, packs: [REPO_PACK], budget, engine, traceValues: o.trace ? 'full' : 'top' });
}
