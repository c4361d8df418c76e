// The C API adapter of lua54 (wasmoon-api.ts) on a bare Lua 5.4 state: values pushed and read back, fields,
// raw access, calls and the error relay's reads (the head of a message, its tail, the name of a call).
import { describe, expect, it } from 'vitest';
import { api } from '../../src/engine/wasmoon-api.ts';
import { cstr, M, mallocBytes } from '../../src/engine/wasmoon-bridge.ts';

describe('the lua54 C API adapter', () => {
  const L = M._luaL_newstate() as number;

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
    expect(api.head(L, 3, 2)).toBe('h\u00c3');
    api.pushtail(L, 3, 1);
    expect(api.tostring(L, -1)).toBe('éllo');
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

  it('concatenates, and a protected call returns its status and message', () => {
    api.pushstring(L, 'a');
    api.pushinteger(L, 1);
    api.concat(L, 2);
    expect(api.tostring(L, -1)).toBe('a1');
    api.settop(L, 0);
    api.pushglobaltable(L);
    expect(api.type(L, -1)).toBe(5);
    api.settop(L, 0);
    const code = new TextEncoder().encode('local x return x.y');
    const buf = mallocBytes(code);
    expect(M._luaL_loadbufferx(L, buf, code.length, cstr('=t'), cstr('t'))).toBe(0);
    M._free(buf);
    expect(api.pcall(L, 0, 0, 0)).toBe(2);
    expect(api.tostring(L, -1)).toBe("t:1: attempt to index a nil value (local 'x')");
    api.settop(L, 0);
  });
});
