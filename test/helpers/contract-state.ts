import { CONTRACT_LUA_FILE, generateContractLua } from '../../src/contract/lua-gen.ts';
import type { LuaState } from '../../src/engine/engine.ts';
import { fengariEngine } from '../../src/engine/fengari-engine.ts';

const MODULE_DIR = '/contract';

/** A Lua state where `require("sub_agent_contract")` loads the contract module as `build` generates it now. */
export function contractLuaState(source: string = generateContractLua()): LuaState {
  return fengariEngine.createState({
    budget: 2_000_000_000,
    budgetMessage: 'budget exceeded',
    moduleDirs: [MODULE_DIR],
    readFile: (abs) => (abs === `${MODULE_DIR}/${CONTRACT_LUA_FILE}` ? source : undefined),
    loadRoots: [],
    baseDir: '/',
    print: () => {},
    displayPath: (abs) => abs,
  });
}
