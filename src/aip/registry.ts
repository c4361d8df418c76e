import { LuaError } from '../engine/values.ts';
import { aipFunctionsAt } from './catalog.ts';
import { aipEntry } from './functions.ts';
import { isSharedNamespace } from './shared-namespace.ts';
import type { AipNamespaceFactory, StageEnv } from './types.ts';
import { agent } from './agent.ts';
import { cmd } from './cmd.ts';
import { code } from './code.ts';
import { csv } from './csv.ts';
import { file } from './file.ts';
import { flow } from './flow.ts';
import { hash } from './hash.ts';
import { hbs } from './hbs.ts';
import { json } from './json.ts';
import { md } from './md.ts';
import { path } from './path.ts';
import { run, task } from './run.ts';
import { semver } from './semver.ts';
import { tag } from './tag.ts';
import { text } from './text.ts';
import { time } from './time.ts';
import { toml } from './toml.ts';
import { udiffx } from './udiffx.ts';
import { uuid } from './uuid.ts';
import { web } from './web.ts';
import { yaml } from './yaml.ts';

/** The namespaces the simulator implements in JS, one module each; `aip.lua` lives in prelude.lua. */
export const FACTORIES: Record<string, AipNamespaceFactory> = {
  agent, cmd, code, csv, file, flow, hash, hbs, json, md, path, run, semver, tag, task, text, time, toml, udiffx, uuid, web, yaml,
};

/**
 * The `aip` table of one stage: exactly the functions the simulated AIPack version has (catalog.ts). A function
 * AIPack has but the simulator does not implement raises `aip.X.y is not simulated` instead of being a silent nil.
 */
export function buildAipTable(env: StageEnv): Record<string, Record<string, unknown>> {
  const table: Record<string, Record<string, unknown>> = {};
  for (const ns of layoutAt(env.aipackVersion).keys()) table[ns] = aipNamespace(env, ns);
  return table;
}

/** One namespace of a stage's `aip` table (see buildAipTable): made on its own, so a stage pays for those it calls. */
export function aipNamespace(env: StageEnv, ns: string): Record<string, unknown> {
  const impl = FACTORIES[ns]?.(env) ?? {};
  // a shared namespace (shared-namespace.ts) is the same at every stage: so is its table, made once per version
  const shared = isSharedNamespace(impl);
  if (shared) {
    const made = sharedTables.get(impl)?.get(env.aipackVersion);
    if (made) return made;
  }
  const table: Record<string, unknown> = {};
  for (const { name, path, inLua } of layoutAt(env.aipackVersion).get(ns) ?? []) {
    // written in Lua (prelude.lua): not among the JS factories
    if (inLua) continue;
    table[name] = impl[name] !== undefined ? impl[name] : notSimulated(path);
  }
  if (shared) {
    let byVersion = sharedTables.get(impl);
    if (!byVersion) sharedTables.set(impl, (byVersion = new Map()));
    byVersion.set(env.aipackVersion, Object.freeze(table));
  }
  return table;
}

/** Tables of shared namespaces, by namespace object and AIPack version. */
const sharedTables = new WeakMap<object, Map<string, Record<string, unknown>>>();

const layouts = new Map<string, Map<string, { name: string; path: string; inLua: boolean }[]>>();

/** The catalog's functions at a version, by namespace in catalog order (computed once per version). */
function layoutAt(version: string) {
  let layout = layouts.get(version);
  if (!layout) {
    layout = new Map();
    for (const fn of aipFunctionsAt(version)) {
      const [, ns, name] = fn.path.split('.');
      const list = layout.get(ns) ?? [];
      list.push({ name, path: fn.path, inLua: aipEntry(fn.path)?.inLua === true });
      layout.set(ns, list);
    }
    layouts.set(version, layout);
  }
  return layout;
}

function notSimulated(path: string) {
  return () => {
    throw new LuaError(`${path} is not simulated`);
  };
}
