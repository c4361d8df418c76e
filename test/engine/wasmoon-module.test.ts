/**
 * wasmoon's module as wasmoon-module.ts loads it: the `_name` members are the WebAssembly instance's own exports
 * (not the glue's per-call assertion shims), and the rest of the emscripten module is there.
 */
import { describe, expect, it } from 'vitest';
import { loadLuaModule } from '../../src/engine/wasmoon-module.ts';

describe('the lua54 WebAssembly module', () => {
  it('calls the raw exports, and keeps the glue\'s memory views and addFunction', async () => {
    const M = await loadLuaModule();
    // a WebAssembly export prints as native code; the glue's shim is JS that checks the runtime first
    for (const name of ['_lua_gettop', '_lua_pushlstring', '_luaL_newstate', '_malloc', '_free']) {
      expect(String(M[name as `_${string}`])).toMatch(/\[native code\]/);
    }
    const L = M._luaL_newstate() as number;
    expect(M._lua_gettop(L)).toBe(0);
    M._lua_pushinteger(L, 42n);
    expect([M._lua_gettop(L), M._lua_tointegerx(L, -1, 0)]).toEqual([1, 42n]);
    M._lua_close(L);
    expect(M.HEAPU8).toBeInstanceOf(Uint8Array);
    expect(typeof M.addFunction).toBe('function');
  });
});
