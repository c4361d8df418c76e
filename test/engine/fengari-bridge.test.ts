/**
 * fengari's side of the value bridge (fengari-bridge.ts): values read and built in fengari's own structures, with
 * fengari's 32-bit integers.
 */
import { describe, expect, it } from 'vitest';
import { pushJs, setArrayMetatable, toJs } from '../../src/engine/fengari-bridge.ts';
import { lauxlib, lua, lualib, to_luastring } from '../../src/engine/fengari-vm.ts';

/** a bare fengari state with what the bridge needs (the array metatable) */
function newState() {
  const L = lauxlib.luaL_newstate();
  setArrayMetatable(L);
  return L;
}

function roundTrip(value: unknown, mode: 'aip' | 'serde' = 'serde'): unknown {
  const L = newState();
  pushJs(L, value, false);
  return toJs(L, -1, mode);
}

describe('fengari bridge', () => {
  it('integers from 2^31 up cross as floats (fengari integers are 32-bit), smaller ones as integers', () => {
    const L = newState();
    lualib.luaL_openlibs(L);
    pushJs(L, { small: 2147483647, big: 2147483648, neg: -2147483648, half: 1.5 }, false);
    lua.lua_setglobal(L, to_luastring('v'));
    lauxlib.luaL_dostring(L, to_luastring('return { math.type(v.small), math.type(v.big), math.type(v.neg), math.type(v.half) }'));
    expect(toJs(L, -1, 'serde')).toEqual(['integer', 'float', 'integer', 'float']);
  });

  it('builds tables in place that read back as they were, [] included', () => {
    const value = { list: [1, 'two', { three: 3 }], empty: [], obj: {}, nested: { a: [true, false] }, null: null };
    expect(roundTrip(value)).toEqual(value);
    expect(roundTrip({ gap: [1, undefined, 3] })).toEqual({ gap: [1, null, 3] }); // a border of the list, as Lua's length gives it
  });

  it('the value at an index past the top is undefined (no value), not an error', () => {
    const L = newState();
    expect(toJs(L, 3, 'serde')).toBeUndefined();
  });
});
