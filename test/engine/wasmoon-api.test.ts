// The C API adapter of lua54 (wasmoon-api.ts) on a bare Lua 5.4 state: values pushed and read back, fields,
// raw access, calls and the error relay's reads (the head of a message, its tail, the name of a call).
import { describe, expect, it } from 'vitest';
import { api } from '../../src/engine/wasmoon-api.ts';
import { cstr, M, mallocBytes } from '../../src/engine/wasmoon-bridge.ts';
import { itActsAsTheLuaApi } from '../helpers/lua-api-contract.ts';

describe('the lua54 C API adapter', () => {
  const L = M._luaL_newstate() as number;

  itActsAsTheLuaApi(api, L);

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
