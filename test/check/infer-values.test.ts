import { describe, expect, it } from 'vitest';
import { accepts, arityText, describe as describeValue, fromLuaType, kindOf, shapeKinds, type T } from '../../src/check/infer-values.ts';

describe('fromLuaType: the value a signature return type stands for', () => {
  it('classes, lists of them, scalars; a nullable scalar or a union is unknown', () => {
    expect(fromLuaType('FileRecord')).toMatchObject({ k: 'class', cls: { name: 'FileRecord' } });
    expect(fromLuaType('FileInfo[]')).toMatchObject({ k: 'list', item: { k: 'class', cls: { name: 'FileInfo' } } });
    expect(fromLuaType('FileInfo|nil')).toMatchObject({ k: 'class' });
    expect(fromLuaType('string')).toEqual({ k: 'string' });
    expect(fromLuaType('integer')).toEqual({ k: 'number' });
    expect(fromLuaType('string|nil')).toEqual({ k: 'unknown' });
    expect(fromLuaType('string|table')).toEqual({ k: 'unknown' });
    expect(fromLuaType('{before: string}')).toEqual({ k: 'opaque-table' });
  });
});

describe('accepts: what a parameter admits', () => {
  const p = (type: string, optional = false) => ({ name: 'x', type, optional });
  it('by Lua type, with mlua number/string conversions; unknown values always pass', () => {
    const str: T = { k: 'string', value: 'abc' };
    const num: T = { k: 'number' };
    expect(accepts(p('string'), num)).toBe(true);
    expect(accepts(p('integer'), { k: 'string', value: '12' })).toBe(true);
    expect(accepts(p('integer'), str)).toBe(false);
    expect(accepts(p('string'), { k: 'nil' })).toBe(false);
    expect(accepts(p('string', true), { k: 'nil' })).toBe(true);
    expect(accepts(p('FileInfo|string[]'), { k: 'boolean' })).toBe(false);
    expect(accepts(p('any'), { k: 'boolean' })).toBe(true);
    expect(accepts(p('string'), { k: 'unknown' })).toBe(true);
  });
});

describe('naming values and shapes', () => {
  it('describe, kindOf, shapeKinds, arityText', () => {
    expect(describeValue({ k: 'string', value: 'x' })).toBe('the string "x"');
    expect(describeValue({ k: 'nil' })).toBe('nil');
    expect(kindOf({ k: 'opaque-table' })).toBe('table');
    expect(shapeKinds({ t: 'union', of: [{ t: 'string' }, { t: 'number' }] } as never)).toEqual(new Set(['string', 'number']));
    expect(shapeKinds({ t: 'any' } as never)).toBeUndefined();
    expect(arityText([{ name: 'a', type: 'string' }, { name: 'b', type: 'string', optional: true }])).toBe('1 to 2 arguments (a, b?)');
    expect(arityText([{ name: 'a', type: 'string' }, { name: 'r', type: 'any', optional: true, variadic: true }])).toBe('at least 1 argument (a, ...r)');
  });
});
