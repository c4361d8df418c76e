/** The globals every Lua stage starts with: the version's `aip` table, CTX, null sentinels, the prelude, mocks. */
import { aipackGlobalsAt, findAipFunction } from '../aip/catalog.ts';
import { nullGlobalsAt, PRELUDE, PRELUDE_HELPERS, preludeFeatures } from '../aip/prelude.ts';
import { buildAipTable } from '../aip/registry.ts';
import type { StageEnv } from '../aip/types.ts';
import type { LuaState } from '../engine/engine.ts';
import { fixedMocks, type Mocks } from './mocks.ts';

export function setUpStageGlobals(state: LuaState, env: StageEnv, ctx: Record<string, unknown>, mocks: Mocks | undefined, mocksLua: string): void {
  const aip = buildAipTable(env);
  for (const m of fixedMocks(mocks ?? {})) {
    // a constant (aip.web.UA_*) is stubbed by its value, a function by a function returning it
    aip[m.ns][m.name] = findAipFunction(`aip.${m.ns}.${m.name}`)?.kind === 'constant' ? m.fn() : m.fn;
  }
  state.setGlobal('aip', aip);
  const globals = stageGlobalsAt(env.aipackVersion);
  state.exec(globals.setup, '=setup');
  state.setGlobal('CTX', ctx);
  for (const g of globals.nulls) state.setGlobal(g, null);
  state.setGlobal('__features', globals.features);
  state.setGlobal('__helpers', PRELUDE_HELPERS);
  state.exec(PRELUDE, '=prelude');
  if (mocksLua) state.exec(mocksLua, '=mocks');
}

/** What every stage's set-up takes from the catalog at a version, worked out once per version (it is the same). */
const stageGlobals = new Map<string, { setup: string; nulls: string[]; features: Record<string, boolean> }>();
function stageGlobalsAt(version: string) {
  let g = stageGlobals.get(version);
  if (!g) {
    // `utils` is the legacy alias of `aip`; `aipack` (alias of aip.flow) existed up to 0.8.0
    g = {
      setup: aipackGlobalsAt(version).includes('aipack') ? 'utils = aip\naipack = aip.flow' : 'utils = aip',
      nulls: nullGlobalsAt(version),
      features: preludeFeatures(version),
    };
    stageGlobals.set(version, g);
  }
  return g;
}

// `.aip` files parsed once per path and content: every aip.agent.run of a chain reads the same few agents.
