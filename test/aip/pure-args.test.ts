import { describe, expect, it } from 'vitest';
import { setKey, toLuaData } from '../../src/aip/pure-args.ts';

describe('data helpers', () => {
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
