// The C API adapter of fengari (fengari-api.ts) on a bare Lua 5.3 state: values pushed and read back, fields,
// raw access, calls, errors raised with a message built in JS, and the error relay's reads.
import { describe, expect, it } from 'vitest';
import { api, latin1, raise, str } from '../../src/engine/fengari-api.ts';
import { NULL_TOKEN } from '../../src/engine/fengari-bridge.ts';
import { lauxlib, lua, lualib, type LuaState } from '../../src/engine/fengari-vm.ts';

describe('the fengari C API adapter', () => {
  const L = lauxlib.luaL_newstate();
  lualib.luaL_openlibs(L);

  it('pushes values and reads them back, with their types', () => {
    api.settop(L, 0);
    api.pushinteger(L, 42);
    api.pushnumber(L, 1.5);
    api.pushstring(L, 'héllo');
    api.pushboolean(L, true);
    api.pushnil(L);
    expect(api.gettop(L)).toBe(5);
    expect([1, 2, 3, 4, 5].map((i) => api.type(L, i))).toEqual([3, 3, 4, 1, 0]);
    expect([api.tonumber(L, 1), api.tonumber(L, 2), api.tostring(L, 3)]).toEqual([42, 1.5, 'héllo']);
    expect(api.display(L, 4)).toBe('true');
    // the head of a message is its bytes, the tail a Lua string of the rest
    expect(api.head(L, 3, 2)).toBe('h\u00c3');
    api.pushtail(L, 3, 1);
    expect(api.tostring(L, -1)).toBe('éllo');
    api.settop(L, 0);
    lua.lua_pushlightuserdata(L, NULL_TOKEN);
    expect(api.isNull(L, 1)).toBe(true);
    api.settop(L, 0);
  });

  it('sets and gets fields, raw and by name, and walks a table with next', () => {
    api.createtable(L, 0, 2);
    api.pushstring(L, 'v');
    api.setfield(L, -2, 'k');
    api.pushinteger(L, 7);
    api.rawseti(L, -2, 1);
    api.getfield(L, 1, 'k');
    expect(api.tostring(L, -1)).toBe('v');
    api.rawgeti(L, 1, 1);
    expect(api.tonumber(L, -1)).toBe(7);
    api.settop(L, 1);
    let n = 0;
    api.pushnil(L);
    while (api.next(L, 1)) {
      n++;
      api.settop(L, -2);
    }
    expect(n).toBe(2);
    api.settop(L, 0);
  });

  it("raises a message built in JS as it is: a '%' in it is no format directive", () => {
    lua.lua_pushjsfunction(L, (L: LuaState) => raise(L, 'cannot open /x/%d%s'));
    expect(api.pcall(L, 0, 0, 0)).toBe(lua.LUA_ERRRUN);
    expect(api.tostring(L, -1)).toBe('cannot open /x/%d%s');
    api.settop(L, 0);
  });

  it('names the function a C function was called as', () => {
    let called: unknown;
    lua.lua_pushjsfunction(L, (L: LuaState) => {
      called = api.callName(L);
      return 0;
    });
    api.setglobal(L, 'probe');
    expect(lauxlib.luaL_dostring(L, str('local t = { f = probe } t.f()'))).toBe(lua.LUA_OK);
    expect(called).toEqual({ name: 'f', namewhat: 'field' });
    expect(latin1(null)).toBeNull();
    api.settop(L, 0);
  });
});
