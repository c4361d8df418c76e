/** How Lua values look on the JS side (values.ts): the table shapes of the two conversions, options, error parts. */
import { describe, expect, it } from 'vitest';
import { chunkFailure, hostFn, HOST_OPTIONS, locationOf, LuaError, luaTypeName, optionsArg, PathedConversionError, tableValue, through, type HostFunction } from '../../src/engine/values.ts';

describe('tableValue', () => {
  it('aip: keys exactly 1..n in any order make a list; a gap, a repeat or a non-integer makes an object', () => {
    expect(tableValue([2, 1], ['b', 'a'], 'aip')).toEqual(['a', 'b']);
    expect(tableValue([], [], 'aip')).toEqual([]);
    expect(tableValue([1, 3], ['a', 'c'], 'aip')).toEqual({ 1: 'a', 3: 'c' });
    expect(tableValue([1.5], ['x'], 'aip')).toEqual({ '1.5': 'x' });
  });

  it('serde: always an object (lists were taken before); a "__proto__" key is an ordinary key', () => {
    expect(tableValue([1, 2], ['a', 'b'], 'serde')).toEqual({ 1: 'a', 2: 'b' });
    const obj = tableValue(['__proto__'], [1], 'serde') as Record<string, unknown>;
    expect(Object.getPrototypeOf(obj)).toBe(Object.prototype);
    expect(Object.keys(obj)).toEqual(['__proto__']);
  });
});

describe('optionsArg and luaTypeName', () => {
  it('no options may be nil, null or an empty table (which the aip conversion makes []); a non-table is refused', () => {
    expect(optionsArg(undefined, 'f')).toEqual({});
    expect(optionsArg(null, 'f')).toEqual({});
    expect(optionsArg([], 'f')).toEqual({});
    expect(optionsArg({ a: 1 }, 'f')).toEqual({ a: 1 });
    expect(() => optionsArg('x', 'aip.x.y')).toThrow(new LuaError('aip.x.y: options must be a table, got string'));
    expect([undefined, null, [], {}, () => 1, 3, 'x', true].map(luaTypeName)).toEqual(['nil', 'userdata', 'table', 'table', 'function', 'number', 'string', 'boolean']);
  });
});

describe('errors', () => {
  it('a chunk failure splits message and traceback and keeps the position', () => {
    const e = chunkFailure('a.lua:3: boom\nstack traceback:\n\ta.lua:3: in main chunk');
    expect([e.message, e.traceback, e.location]).toEqual(['a.lua:3: boom', 'stack traceback:\n\ta.lua:3: in main chunk', 'a.lua:3']);
    expect(chunkFailure('no position').location).toBeUndefined();
    expect(locationOf('[string "x"]:1: y')).toBe('[string "x"]:1');
  });

  it('a pathed conversion error names the path from the root, innermost key last', () => {
    const err = new PathedConversionError((path) => `bad at ${path}`);
    through(through(err, '.b'), '[2]');
    expect(err.at('argument #1').message).toBe('bad at argument #1[2].b');
    const other = new Error('x');
    expect(through(other, '.a')).toBe(other);
  });

  it('hostFn marks a function with its argument mode', () => {
    const f = hostFn(() => 1, { argMode: 'serde' });
    expect((f as HostFunction)[HOST_OPTIONS]).toEqual({ argMode: 'serde' });
  });
});
