/**
 * fengari's tables read and written in place (fengari-tables.ts), on a bare fengari state: which tables of a
 * pristine list a stage changed, their put-back in their own order, and the copy of the globals.
 */
import { describe, expect, it } from 'vitest';
import { changedTriples, pushGlobalsCopy, putTriplesBack, reachableTriples, type PristineTriple } from '../../src/engine/fengari-tables.ts';
import { PRISTINE_LUA } from '../../src/engine/state-put-back.ts';
import { jsString } from '../../src/engine/fengari-bridge.ts';
import { getInt, lauxlib, lua, lualib, TAG, to_luastring, valueAt, type LuaState, type LuaTable } from '../../src/engine/fengari-vm.ts';

/** the (table, copy, metatable) triples of PRISTINE_LUA's list at stack index `list`, in its order */
function readTriples(L: LuaState, list: number): PristineTriple[] {
  const t = valueAt(L, list).value as LuaTable;
  const triples: PristineTriple[] = [];
  for (let i = 1; getInt(t, i).type === TAG.LUA_TTABLE; i += 3) {
    const mt = getInt(t, i + 2);
    triples.push([getInt(t, i).value as LuaTable, getInt(t, i + 1).value as LuaTable, mt.type === TAG.LUA_TTABLE ? (mt.value as LuaTable) : null]);
  }
  return triples;
}

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

  it("finds the tables PRISTINE_LUA's walk finds, each with the same copy and metatable", () => {
    const L = newState();
    // tables reached only through a key, a metatable, a Lua closure's upvalue, a host closure's upvalue, a
    // userdata's metatable, a light userdata's metatable; a private table, and what only it holds, left out
    run(L, `
      local by_upvalue = { u = 1 }
      reach = { [{ as_key = true }] = "k", nested = { deep = { deeper = {} } } }
      setmetatable(reach, { __index = { from_meta = true } })
      fn = function() return by_upvalue end
      hidden = { secret = { only_here = true } }
      array_mt = { __name = "array" }`);
    lua.lua_newtable(L);
    lua.lua_pushcclosure(L, () => 0, 1);
    lua.lua_setglobal(L, to_luastring('host'));
    lua.lua_newuserdata(L, 0);
    lua.lua_newtable(L);
    lua.lua_setmetatable(L, -2);
    lua.lua_setglobal(L, to_luastring('ud'));
    lua.lua_pushlightuserdata(L, {});
    lua.lua_newtable(L);
    lua.lua_setmetatable(L, -2);
    lua.lua_setglobal(L, to_luastring('light'));
    run(L, 'local private, h = { [hidden] = true }, hidden hidden = nil return array_mt, private, h', 3);
    const top = lua.lua_gettop(L);
    const [arrayMt, privateTables, hidden] = [top - 2, top - 1, top].map((i) => valueAt(L, i).value as LuaTable) as [LuaTable, LuaTable, LuaTable];
    lua.lua_pushcclosure(L, () => 0, 1); // the private table is held by a host function only, as in the sandbox
    lua.lua_setglobal(L, to_luastring('keeper'));
    // PRISTINE_LUA's own list, with its host helpers written with the C API
    expect(lauxlib.luaL_loadstring(L, to_luastring(PRISTINE_LUA))).toBe(lua.LUA_OK);
    lua.lua_pushvalue(L, top - 2);
    lua.lua_pushcfunction(L, (L: LuaState) => {
      lua.lua_createtable(L, 0, 0);
      let n = 0;
      while (lua.lua_getupvalue(L, 1, n + 1) !== null) lua.lua_rawseti(L, -2, ++n);
      lua.lua_pushinteger(L, n);
      lua.lua_setfield(L, -2, to_luastring('n'));
      return 1;
    });
    lua.lua_pushcfunction(L, (L: LuaState) => {
      if (!lua.lua_getmetatable(L, 1)) lua.lua_pushnil(L);
      return 1;
    });
    lua.lua_pushvalue(L, top - 1);
    lua.lua_call(L, 4, 2);
    const fromLua = readTriples(L, lua.lua_gettop(L) - 1);
    lua.lua_pushglobaltable(L);
    lua.lua_pushliteral(L, '');
    lua.lua_getmetatable(L, -1);
    const [globals, stringMt] = [-3, -1].map((i) => valueAt(L, lua.lua_gettop(L) + 1 + i).value as LuaTable) as [LuaTable, LuaTable];
    const fromJs = reachableTriples(L, [globals, stringMt, arrayMt], privateTables);

    const mine = new Map(fromJs.map(([t, copy, mt]) => [t, { copy, mt }]));
    expect(mine.size).toBe(fromJs.length);
    expect(fromJs.length).toBe(fromLua.length);
    for (const [t, copy, mt] of fromLua) {
      const found = mine.get(t);
      expect(found, 'a table the Lua walk reaches').toBeDefined();
      expect(found?.mt).toBe(mt);
      // the same entries in the same order as the table and as the Lua walk's copy
      expect(changedTriples([[t, found!.copy, mt], [copy, found!.copy, null]])).toEqual([]);
    }
    expect(fromJs.some(([t]) => t === hidden)).toBe(false);
    expect(fromJs.length).toBeGreaterThan(20);
  });
});
