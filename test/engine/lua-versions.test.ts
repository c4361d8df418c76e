/**
 * What differs between the engines (docs/engines.md), asserted on each: lua54 behaves as AIPack's Lua 5.4,
 * fengari as Lua 5.3 with 32-bit integers, and its 5.4 parse errors point to `--engine lua54`.
 */
import { describe, expect, it } from 'vitest';
import { runLua } from '../helpers/lua.ts';
import { ENGINE_NAME, onLua54 } from '../helpers/engine.ts';

const value = (code: string) => runLua(code).value;
const error = (code: string) => {
  try {
    runLua(code);
  } catch (err) {
    return (err as Error).message;
  }
  throw new Error('no error');
};

describe(`Lua version differences (${ENGINE_NAME})`, () => {
  it('_VERSION and math.type of big integers', () => {
    expect(value('return _VERSION')).toBe(onLua54 ? 'Lua 5.4' : 'Lua 5.3');
    expect(value('return math.type(3000000000)')).toBe(onLua54 ? 'integer' : 'float');
    expect(value('return math.maxinteger')).toBe(onLua54 ? 9223372036854775807 : 2147483647);
  });

  it('integers past 2^31: arithmetic and %d', () => {
    expect(value('return 2147483647 + 1')).toBe(onLua54 ? 2147483648 : -2147483648);
    if (onLua54) expect(value('return string.format("%d", 3000000000)')).toBe('3000000000');
    else expect(error('return string.format("%d", 3000000000)')).toMatch(/number has no integer representation/);
    expect(value('return 1 << 40')).toBe(onLua54 ? 1099511627776 : 0);
  });

  it('float formatting', () => {
    expect(value('return tostring(1e15)')).toBe(onLua54 ? '1e+15' : '1000000000000000.0');
    expect(value('return tostring(1/0)')).toBe(onLua54 ? 'inf' : 'Infinity');
    expect(value('return tostring(3.0)')).toBe('3.0');
  });

  it('<const> locals: run on lua54, point to --engine lua54 on fengari', () => {
    if (onLua54) expect(value('local x <const> = 41\nreturn x + 1')).toBe(42);
    else expect(error('local x <const> = 41\nreturn x + 1')).toMatch(/Lua 5\.4 syntax: run with --engine lua54[\s\S]*unexpected symbol near '<'/);
  });

});
