/**
 * fengari's tables read and written in place (fengari-tables.ts), on a bare fengari state: which tables of a
 * pristine list a stage changed, their put-back in their own order, and the copy of the globals.
 */
import { describe, expect, it } from 'vitest';
import { changedTriples, pushGlobalsCopy, putTriplesBack, readTriples } from '../../src/engine/fengari-tables.ts';
import { jsString } from '../../src/engine/fengari-bridge.ts';
import { lauxlib, lua, lualib, to_luastring, type LuaState } from '../../src/engine/fengari-vm.ts';

function newState(): LuaState {
  const L = lauxlib.luaL_newstate();
  lualib.luaL_openlibs(L);
  return L;
}

/** runs `code`; its results are left on the stack */
function run(L: LuaState, code: string, results = 0): void {
  expect(lauxlib.luaL_loadstring(L, to_luastring(code))).toBe(lua.LUA_OK);
  lua.lua_call(L, 0, results);
}

/** the keys of global table `name` in iteration order, joined */
function keysOf(L: LuaState, name: string): string {
  run(L, `local ks = {} for k in pairs(${name}) do ks[#ks + 1] = tostring(k) end return table.concat(ks, ",")`, 1);
  const keys = jsString(L, -1);
  lua.lua_settop(L, -2);
  return keys;
}

// a pristine list as PRISTINE_LUA makes it: (table, copy, metatable or false) triples
const LIST = `
  local function copy(t) local c = {} for k, v in pairs(t) do c[k] = v end return c end
  a = { x = 1, y = 2, z = 3 }
  b = { 1, 2, 3, w = "w" }
  return { a, copy(a), false, b, copy(b), false }`;

describe('fengari tables in place', () => {
  it('finds the tables a stage changed: entries, order or metatable', () => {
    const L = newState();
    run(L, LIST, 1);
    const triples = readTriples(L, lua.lua_gettop(L));
    expect(triples).toHaveLength(2);
    expect(changedTriples(triples)).toEqual([]);
    run(L, 'b[1] = 9');
    expect(changedTriples(triples)).toEqual([2]);
    run(L, 'b[1] = 1 a.x = nil a.x = 1');
    // the same entries in another order
    expect(changedTriples(triples)).toEqual([1]);
    run(L, 'setmetatable(b, {})');
    expect(changedTriples(triples)).toEqual([1, 2]);
  });

  it('puts the changed tables back with their keys in their order, refusing another metatable', () => {
    const L = newState();
    run(L, LIST, 1);
    const triples = readTriples(L, lua.lua_gettop(L));
    const before = keysOf(L, 'a');
    run(L, 'a.x = nil a.added = true a.x = 1 a.y = "two"');
    expect(keysOf(L, 'a')).not.toBe(before);
    expect(putTriplesBack(L, triples)).toBe(true);
    expect(keysOf(L, 'a')).toBe(before);
    run(L, 'return a.y, a.added', 2);
    expect([lua.lua_tointeger(L, -2), lua.lua_type(L, -1)]).toEqual([2, lua.LUA_TNIL]);
    lua.lua_settop(L, -3);
    expect(changedTriples(triples)).toEqual([]);
    run(L, 'setmetatable(b, {})');
    expect(putTriplesBack(L, triples)).toBe(false);
  });

  it('copies the globals into a new table, entry by entry', () => {
    const L = newState();
    run(L, 'g1 = "one"');
    pushGlobalsCopy(L);
    lua.lua_getfield(L, -1, to_luastring('g1'));
    expect(jsString(L, -1)).toBe('one');
    lua.lua_getfield(L, -2, to_luastring('string'));
    lua.lua_getglobal(L, to_luastring('string'));
    expect(Boolean(lua.lua_rawequal(L, -1, -2))).toBe(true);
    lua.lua_pushglobaltable(L);
    expect(Boolean(lua.lua_rawequal(L, -1, -5))).toBe(false);
    lua.lua_settop(L, 0);
  });
});
