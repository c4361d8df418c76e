/**
 * wasmoon-tables.ts: the Lua 5.4 table layout holds on the pinned wasmoon build (else pooled lua54 states would
 * silently lose their fast check), and an image tells every kind of change from none.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { cstr, freeTempCStrings, M } from '../../src/engine/wasmoon-bridge.ts';
import { imageOf, layoutHolds, unchanged } from '../../src/engine/wasmoon-tables.ts';

const L = M._luaL_newstate() as number;
M._luaL_openlibs(L);
afterAll(() => M._lua_close(L));

/** Runs Lua in the scratch state; `t` is a global table the cases change. */
function lua(code: string): void {
  const status = M._luaL_loadstring(L, cstr(code)) || M._lua_pcallk(L, 0, 0, 0, 0, 0);
  freeTempCStrings();
  if (status !== 0) throw new Error(`lua: ${code}`);
}
function imageOfGlobal(name: string) {
  M._lua_getglobal(L, cstr(name));
  freeTempCStrings();
  const image = imageOf(M._lua_topointer(L, -1) as number);
  M._lua_settop(L, -2);
  return image;
}

describe('Lua 5.4 tables read in place', () => {
  it('the layout holds on this build', () => {
    expect(layoutHolds).toBe(true);
  });

  it.each([
    ['a value replaced', 't.a = 2'],
    ['a value replaced by another type', 't.a = "1"'],
    ['a key removed', 't.a = nil'],
    ['a key added (the hash part grows)', 't.z = 1'],
    ['a key added into a free node', 't.c = nil; t.d = 1'],
    ['an array element replaced', 't[1] = false'],
    ['the array part grown', 't[4] = 4'],
    ['a function value replaced by another', 't.f = print'],
    ['a metatable set', 'setmetatable(t, {})'],
  ])('%s is a change', (_label, change) => {
    lua('t = { 10, 20, 30, a = 1, b = "x", c = true, f = type }');
    const image = imageOfGlobal('t');
    expect(unchanged(image)).toBe(true);
    lua(change);
    expect(unchanged(image)).toBe(false);
  });

  it('reading, and setting a value back to what it was, are no change', () => {
    lua('t = { 10, a = 1, b = "x" }');
    const image = imageOfGlobal('t');
    lua('local x = t.a + t[1]; for k, v in pairs(t) do end; t.a = 1; t.b = "x"; t[1] = 10');
    expect(unchanged(image)).toBe(true);
  });
});
