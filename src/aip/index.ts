import { readFileSync } from 'node:fs';
import { LuaError } from '../engine/values.ts';
import { aipFunctionsAt, aipackGlobalsAt } from './catalog.ts';
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
const FACTORIES: Record<string, AipNamespaceFactory> = {
  agent, cmd, code, csv, file, flow, hash, hbs, json, md, path, run, semver, tag, task, text, time, toml, udiffx, uuid, web, yaml,
};

/** Implemented in Lua (prelude.lua), so they are not expected among the JS factories. */
const LUA_IMPLEMENTED = new Set(['aip.lua.merge', 'aip.lua.merge_deep', 'aip.lua.dump']);

export const PRELUDE = readFileSync(new URL('./prelude.lua', import.meta.url), 'utf8');

/**
 * The `aip` table of one stage: exactly the functions the simulated AIPack version has (catalog.ts). A function
 * AIPack has but the simulator does not implement raises `aip.X.y is not simulated` instead of being a silent nil.
 */
export function buildAipTable(env: StageEnv): Record<string, Record<string, unknown>> {
  const made = new Map<string, Record<string, unknown>>();
  const namespace = (ns: string) => {
    let impl = made.get(ns);
    if (!impl) {
      impl = FACTORIES[ns]?.(env) ?? {};
      made.set(ns, impl);
    }
    return impl;
  };
  const table: Record<string, Record<string, unknown>> = {};
  for (const { ns, name, path } of layoutAt(env.aipackVersion)) {
    table[ns] ??= {};
    if (LUA_IMPLEMENTED.has(path)) continue;
    const impl = namespace(ns)[name];
    table[ns][name] = impl !== undefined ? impl : notSimulated(path);
  }
  return table;
}

const layouts = new Map<string, { ns: string; name: string; path: string }[]>();

/** The catalog's functions at a version, split into namespace and name (computed once per version). */
function layoutAt(version: string) {
  let layout = layouts.get(version);
  if (!layout) {
    layout = aipFunctionsAt(version).map((fn) => {
      const [, ns, name] = fn.path.split('.');
      return { ns, name, path: fn.path };
    });
    layouts.set(version, layout);
  }
  return layout;
}

function notSimulated(path: string) {
  return () => {
    throw new LuaError(`${path} is not simulated`);
  };
}

/** Which prelude parts exist at a version (see prelude.lua). */
export function preludeFeatures(version: string): Record<string, boolean> {
  const globals = new Set(aipackGlobalsAt(version));
  const fns = new Set(aipFunctionsAt(version).map((f) => f.path));
  return {
    null_helpers: globals.has('is_null'),
    type_helpers: globals.has('is_list'),
    merge: fns.has('aip.lua.merge'),
  };
}

/**
 * A float as Rust's `Display` writes it, which is how AIPack's `print` and `aip.lua.dump` show Lua floats: the
 * shortest digits that round-trip, never an exponent, no ".0" (3.0 -> "3", 1e20 -> "100000000000000000000").
 */
export function formatRustFloat(n: number): string {
  if (Number.isNaN(n)) return 'NaN';
  if (!Number.isFinite(n)) return n > 0 ? 'inf' : '-inf';
  if (n === 0) return Object.is(n, -0) ? '-0' : '0';
  const sign = n < 0 ? '-' : '';
  const [mantissa, exponent] = Math.abs(n).toExponential().split('e');
  const digits = mantissa.replace('.', '');
  const point = Number(exponent) + 1; // digits before the decimal point
  if (point <= 0) return `${sign}0.${'0'.repeat(-point)}${digits}`;
  if (point >= digits.length) return sign + digits + '0'.repeat(point - digits.length);
  return `${sign}${digits.slice(0, point)}.${digits.slice(point)}`;
}

/** Host helpers the prelude takes (and removes from the globals) when it loads; see prelude.lua. */
export const PRELUDE_HELPERS = { format_float: formatRustFloat };

/** Globals naming the null sentinel at a version. */
export function nullGlobalsAt(version: string): string[] {
  return aipackGlobalsAt(version).filter((g) => g === 'null' || g === 'Null' || g === 'NULL');
}

export type ApiStatus = 'simulated' | 'scripted' | 'stricter' | 'not simulated';

/** Answered from scripted entries of the responses file, never from the host. */
const SCRIPTED = new Set(['aip.cmd.exec', 'aip.web.get', 'aip.web.post']);
/** Outside aip.file, writes under the same sandbox rules (udiffx: no delete outside the workspace, see udiffx.ts). */
const STRICTER = new Set(['aip.udiffx.apply_file_changes']);

/**
 * Every aip.* function of an AIPack version with what the simulator does with it (`coder-subagents api`):
 * simulated as AIPack does it, scripted (cmd/web answers from the responses file), stricter (aip.file reads
 * only inside the workspace, the packs and the agent's folder, loudly; aip.udiffx.apply_file_changes writes only in the
 * workspace), or not simulated (raises; stub it with mocks). aip.udiffx.file_changes_instruction is simulated with
 * wording of its own (same format, different prose from AIPack's).
 */
export function apiStatusAt(version: string): { path: string; since: string; kind: string; status: ApiStatus }[] {
  const probe = {} as StageEnv;
  const impl = new Map<string, Record<string, unknown>>();
  return aipFunctionsAt(version).map((f) => {
    const [, ns, name] = f.path.split('.');
    if (!impl.has(ns)) impl.set(ns, FACTORIES[ns]?.(probe) ?? {});
    const has = LUA_IMPLEMENTED.has(f.path) || impl.get(ns)?.[name] !== undefined;
    const status: ApiStatus = !has ? 'not simulated' : SCRIPTED.has(f.path) ? 'scripted' : ns === 'file' || STRICTER.has(f.path) ? 'stricter' : 'simulated';
    return { path: f.path, since: f.since, kind: f.kind, status };
  });
}
