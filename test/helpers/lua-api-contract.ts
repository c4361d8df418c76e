/**
 * What every C API adapter (fengari-api.ts, wasmoon-api.ts) must do the same on its bare state: push values and read
 * them back with their types, set and get fields by name and raw, walk a table with next. Called inside the
 * adapter's own describe, beside its engine-specific tests.
 */
import { expect, it } from 'vitest';
import type { LuaApi } from '../../src/engine/lua-api.ts';

export function itActsAsTheLuaApi<L>(api: LuaApi<L>, L: L): void {
  it('pushes values and reads them back, with their types (the head of a message its bytes, the tail a Lua string)', () => {
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
}
