import { describe, expect, it } from 'vitest';
import { luaList, luaType } from '../../src/contract/lua-values.ts';

describe('Lua value vocabulary', () => {
  it('names types as Lua does, and the null sentinel "null"', () => {
    expect([undefined, null, true, 1, 'x', [], {}, () => 1].map(luaType)).toEqual([
      'nil',
      'null',
      'boolean',
      'number',
      'string',
      'table',
      'table',
      'function',
    ]);
  });
  it('reads lists as Lua tables with keys 1..n', () => {
    expect(luaList([1, 2])).toEqual([1, 2]);
    expect(luaList([])).toEqual([]);
    expect(luaList({})).toEqual([]);
    expect(luaList([1, undefined])).toEqual([1]); // a trailing nil does not exist
    expect(luaList([1, undefined, 3])).toBeUndefined(); // a hole
    expect(luaList({ a: 1 })).toBeUndefined();
    expect(luaList('x')).toBeUndefined();
  });
});
