// The C API adapter of fengari (fengari-api.ts) on a bare Lua 5.3 state: values pushed and read back, fields,
// raw access, calls, errors raised with a message built in JS, and the error relay's reads.
import { describe, expect, it } from 'vitest';
import { api, latin1, raise, str } from '../../src/engine/fengari-api.ts';
import { NULL_TOKEN } from '../../src/engine/fengari-bridge.ts';
import { lauxlib, lua, lualib, to_luastring, type LuaState } from '../../src/engine/fengari-vm.ts';
import { itActsAsTheLuaApi } from '../helpers/lua-api-contract.ts';

describe('the fengari C API adapter', () => {
  const L = lauxlib.luaL_newstate();
  lualib.luaL_openlibs(L);

  itActsAsTheLuaApi(api, L);

  it('displays a boolean and knows the null token', () => {
    api.settop(L, 0);
    api.pushboolean(L, true);
    expect(api.display(L, 1)).toBe('true');
    api.settop(L, 0);
    lua.lua_pushlightuserdata(L, NULL_TOKEN);
    expect(api.isNull(L, 1)).toBe(true);
    api.settop(L, 0);
  });

  it('str gives the Lua bytes of a name, made once for a name of up to 128 chars and anew for a longer one', () => {
    for (const s of ['value expected', 'é ∑ 😀', '']) expect(str(s)).toEqual(to_luastring(s));
    expect(str('value expected')).toBe(str('value expected'));
    const long = 'x'.repeat(129);
    expect(str(long)).toEqual(to_luastring(long));
    expect(str(long)).not.toBe(str(long));
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
