import { describe, expect, it } from 'vitest';
import { optStr, reqInt, reqStr, setKey, toLuaData } from '../../src/aip/pure-args.ts';
import { LuaError } from '../../src/engine/values.ts';

describe('argument helpers', () => {
  it('optStr / reqStr / reqInt accept their type and name the argument otherwise', () => {
    expect(optStr(undefined, 'f')).toBeUndefined();
    expect(() => optStr(null, 'f')).toThrow(new LuaError("f: expected 'content' to be a string or nil, got userdata")); // the null sentinel
    expect(reqStr('x', 'f', 'a')).toBe('x');
    expect(() => reqStr(1, 'f', 'a')).toThrow(new LuaError("f: expected 'a' to be a string, got number"));
    expect(reqInt(-2, 'f', 'n', true)).toBe(-2);
    expect(() => reqInt(-2, 'f', 'n')).toThrow(new LuaError("f: expected 'n' to be a non-negative integer, got number -2"));
    expect(() => reqInt(1.5, 'f', 'n', true)).toThrow(/to be an integer, got number 1.5/);
  });

  it('setKey stores __proto__ as a plain key', () => {
    const o: Record<string, unknown> = {};
    setKey(o, '__proto__', 1);
    expect(Object.keys(o)).toEqual(['__proto__']);
    expect(Object.getPrototypeOf(o)).toBe(Object.prototype);
  });

  it('toLuaData turns parsed data into bridge data', () => {
    const m = new Map<unknown, unknown>([[1, new Date('2024-01-02T03:04:05.000Z')]]);
    expect(toLuaData({ a: [undefined, 10n], m })).toEqual({ a: [null, 10], m: { 1: '2024-01-02T03:04:05Z' } });
  });
});
