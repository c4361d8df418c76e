/**
 * fengari-chunks.ts: the build's bytecode of the simulator's own Lua stands in for parsing only for the exact
 * source it was compiled from, and a chunk loaded from it reads as a parsed one (its name and lines in errors).
 */
import { afterEach, describe, expect, it } from 'vitest';
import { compileBundle, loadPrecompiled, sourceKey, usePrecompiled } from '../../src/engine/fengari-chunks.ts';
import { lauxlib, lua, lualib } from '../../src/engine/fengari-vm.ts';

afterEach(() => usePrecompiled(null));

const SOURCE = 'local function f(x)\n  if x > 1 then error("too big: " .. x) end\n  return x * 10\nend\nreturn f';

/** Calls the function on top of the stack with no arguments, then the function it returned with `arg`. */
function callReturned(L: ReturnType<typeof lauxlib.luaL_newstate>, arg: number): { ok: boolean; value: string } {
  lua.lua_call(L, 0, 1);
  lua.lua_pushinteger(L, arg);
  const ok = lua.lua_pcall(L, 1, 1, 0) === lua.LUA_OK;
  const value = new TextDecoder().decode(lauxlib.luaL_tolstring(L, -1) as Uint8Array);
  lua.lua_settop(L, 0);
  return { ok, value };
}

describe('precompiled fengari chunks', () => {
  it('load the exact source compiled, named and numbered as the chunk it stands for', () => {
    usePrecompiled(compileBundle([{ name: 'mod.lua', code: SOURCE }]));
    const L = lauxlib.luaL_newstate();
    lualib.luaL_openlibs(L);
    expect(loadPrecompiled(L, SOURCE, '@/some/pack/lua/mod.lua')).toBe(true);
    expect(callReturned(L, 1)).toEqual({ ok: true, value: '10' });
    expect(loadPrecompiled(L, new TextEncoder().encode(SOURCE), '@/else/where.lua')).toBe(true);
    // the name it is loaded under, not the one it was compiled under, and the source's own line
    expect(callReturned(L, 5)).toEqual({ ok: false, value: '/else/where.lua:2: too big: 5' });
  });

  it('leave any other source to the parser, and a bundle of another fengari unused', () => {
    usePrecompiled(compileBundle([{ name: 'mod.lua', code: SOURCE }]));
    const L = lauxlib.luaL_newstate();
    expect(loadPrecompiled(L, SOURCE + '\n', '@x.lua')).toBe(false);
    expect(lua.lua_gettop(L)).toBe(0);
    usePrecompiled({ ...compileBundle([{ name: 'mod.lua', code: SOURCE }]), fengari: '0.0.0' });
    expect(loadPrecompiled(L, SOURCE, '@x.lua')).toBe(false);
  });

  it('an entry that is not loadable bytecode is parsed instead, and leaves the stack as it was', () => {
    usePrecompiled({ fengari: compileBundle([]).fengari, chunks: { [sourceKey(SOURCE)]: Buffer.from('\x1bLua not bytecode').toString('base64') } });
    const L = lauxlib.luaL_newstate();
    expect(loadPrecompiled(L, SOURCE, '@x.lua')).toBe(false);
    expect(lua.lua_gettop(L)).toBe(0);
  });

  it('refuses to compile a source with a syntax error, naming it', () => {
    expect(() => compileBundle([{ name: 'pack/lua/broken.lua', code: 'local ok = 1\nreturn +' }])).toThrow(/^precompiling pack\/lua\/broken\.lua: pack\/lua\/broken\.lua:2: unexpected symbol near '\+'$/);
  });
});
