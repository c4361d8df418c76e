/** The globals every Lua stage starts with: the version's `aip` table, CTX, null sentinels, the prelude, mocks. */
import { aipackGlobalsAt, findAipFunction } from '../aip/catalog.ts';
import { nullGlobalsAt, PRELUDE, PRELUDE_HELPERS, preludeFeatures } from '../aip/prelude.ts';
import { aipNamespace, buildAipTable } from '../aip/registry.ts';
import type { StageEnv } from '../aip/types.ts';
import type { LuaState, StateTemplate } from '../engine/engine.ts';
import { fixedMocks, type Mocks } from './mocks.ts';

/**
 * A state's `aip` functions run the stage now running on that state: the engine keeps a state's template globals
 * (the `aip` table, the prelude) from stage to stage, so each function of the table is set once and finds its
 * stage here. Each namespace of a stage is made at its first call into it (AIPack builds them per state too).
 */
interface StageSlot {
  env?: StageEnv;
  /** the stage's namespaces made so far */
  namespaces?: Map<string, Record<string, unknown>>;
}
const slots = new WeakMap<LuaState, StageSlot>();

/** Points the `aip` functions of `state` (made by a stageTemplate) at `env`'s stage; undefined when the stage ends. */
export function bindStage(state: LuaState, env: StageEnv | undefined): void {
  const slot = slots.get(state);
  if (!slot) throw new Error('bindStage: the state was not made with a stage template');
  slot.env = env;
  slot.namespaces = undefined;
}

/**
 * The globals every stage of an AIPack version (and set of mocks) starts with, for createState: the `aip` table
 * of the version (functions calling the bound stage's own), the legacy aliases, the null sentinels, the prelude
 * and the Lua mocks. CTX is the stage's own (setStageCtx). `key` names the mocks ('' for none).
 */
export function stageTemplate(env: StageEnv, mocks: Mocks | undefined, mocksLua: string, key: string): StateTemplate {
  const aipackVersion = env.aipackVersion;
  return {
    key: `${aipackVersion}\0${key}`,
    install(state) {
      const slot: StageSlot = {};
      slots.set(state, slot);
      const aip: Record<string, Record<string, unknown>> = {};
      for (const [ns, fns] of Object.entries(shapeAt(env))) {
        aip[ns] = {};
        for (const [name, entry] of Object.entries(fns)) {
          if (!entry.isFunction) {
            aip[ns][name] = entry.value;
            continue;
          }
          const call = (...args: unknown[]) => {
            if (!slot.env) throw new Error(`aip.${ns}.${name} called outside a stage`);
            slot.namespaces ??= new Map();
            let impl = slot.namespaces.get(ns);
            if (!impl) {
              impl = aipNamespace(slot.env, ns);
              slot.namespaces.set(ns, impl);
            }
            return (impl[name] as (...a: unknown[]) => unknown)(...args);
          };
          aip[ns][name] = Object.assign(call, entry.value);
        }
      }
      for (const m of fixedMocks(mocks ?? {})) {
        // a constant (aip.web.UA_*) is stubbed by its value, a function by a function returning it
        aip[m.ns][m.name] = findAipFunction(`aip.${m.ns}.${m.name}`)?.kind === 'constant' ? m.fn() : m.fn;
      }
      state.setGlobal('aip', aip);
      const globals = stageGlobalsAt(aipackVersion);
      state.exec(globals.setup, '=setup');
      for (const g of globals.nulls) state.setGlobal(g, null);
      state.setGlobal('__features', globals.features);
      state.setGlobal('__helpers', PRELUDE_HELPERS);
      state.exec(PRELUDE, '=prelude');
      if (mocksLua) state.exec(mocksLua, '=mocks');
    },
  };
}

/** One entry of the `aip` table's shape: a constant's value, or a function's marks (how the bridge converts its arguments). */
interface ShapeEntry {
  isFunction: boolean;
  value: unknown;
}
const shapes = new Map<string, Record<string, Record<string, ShapeEntry>>>();

/**
 * Which functions and constants the version has, with each function's marks: the same for every stage and every
 * simulator of the version, so it is worked out once per version (building a stage's table runs every namespace's
 * factory, which each new pooled state paid). Marks are copied off the functions: no stage's closures are kept.
 */
function shapeAt(env: StageEnv): Record<string, Record<string, ShapeEntry>> {
  let shape = shapes.get(env.aipackVersion);
  if (!shape) {
    shape = {};
    for (const [ns, fns] of Object.entries(buildAipTable(env))) {
      shape[ns] = {};
      for (const [name, value] of Object.entries(fns)) {
        shape[ns][name] = typeof value === 'function' ? { isFunction: true, value: { ...value } } : { isFunction: false, value };
      }
    }
    shapes.set(env.aipackVersion, shape);
  }
  return shape;
}

/** The stage's CTX, on a state made with a stage template. */
export function setStageCtx(state: LuaState, ctx: Record<string, unknown>): void {
  state.setGlobal('CTX', ctx);
}

/** What every stage's set-up takes from the catalog at a version, worked out once per version (it is the same). */
const stageGlobals = new Map<string, { setup: string; nulls: string[]; features: Record<string, boolean> }>();
function stageGlobalsAt(version: string) {
  let g = stageGlobals.get(version);
  if (!g) {
    // `utils` is the legacy alias of `aip`; `aipack` (alias of aip.flow) existed up to 0.8.0
    g = {
      setup: aipackGlobalsAt(version).includes('aipack') ? 'utils = aip; aipack = aip.flow' : 'utils = aip',
      nulls: nullGlobalsAt(version),
      features: preludeFeatures(version),
    };
    stageGlobals.set(version, g);
  }
  return g;
}

// `.aip` files parsed once per path and content: every aip.agent.run of a chain reads the same few agents.
