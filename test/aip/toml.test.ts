import { describe, expect, it } from 'vitest';
import { toml } from '../../src/aip/toml.ts';
import type { StageEnv } from '../../src/aip/types.ts';

const tm = toml({} as StageEnv) as Record<string, (...args: unknown[]) => unknown>;

describe('aip.toml', () => {
  it('parses tables, arrays and dates (dates as their TOML text)', () => {
    const v = tm.parse('title = "Example"\nwhen = 1979-05-27T07:32:00Z\nday = 1979-05-27\n[owner]\nname = "John"\nids = [1, 2]\n');
    expect(v).toEqual({ title: 'Example', when: '1979-05-27T07:32:00Z', day: '1979-05-27', owner: { name: 'John', ids: [1, 2] } });
    expect(Object.getPrototypeOf(v)).toBe(Object.prototype);
  });
  it('raises "aip.toml.parse failed. ..."', () => {
    expect(() => tm.parse('a = ')).toThrow(/^aip\.toml\.parse failed\. /);
    expect(() => tm.parse(undefined)).toThrow(/aip\.toml\.parse: expected 'content' to be a string/);
  });
  it('stringifies tables and round-trips', () => {
    const data = { title: 'Example', owner: { name: 'John' }, list: [1, 2], items: [{ q: 1 }, { q: 2 }] };
    const text = tm.stringify(data) as string;
    expect(text).toContain('title = "Example"');
    expect(text).toContain('[owner]');
    expect(tm.parse(text)).toEqual(data);
  });
  it('refuses null values and non-tables', () => {
    expect(() => tm.stringify({ a: null })).toThrow(/^aip\.toml\.stringify fail to stringify\. unsupported null value at 'a'/);
    expect(() => tm.stringify([1])).toThrow(/expected a table with string keys, got a list/);
    expect(tm.stringify([])).toBe('');
  });
});
