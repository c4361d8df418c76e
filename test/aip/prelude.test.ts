import { describe, expect, it } from 'vitest';
import { runLua } from '../helpers/lua.ts';

describe('aip.lua (prelude.lua)', () => {
  it('merge is shallow, in place, later wins, nil/null skipped; non-tables are an error', () => {
    const { value } = runLua(`
      local t = { a = 1, n = { x = 1 } }
      local r = aip.lua.merge(t, { b = 2 }, nil, null, { a = 3, n = { y = 2 } })
      local ok, err = pcall(aip.lua.merge, t, "nope")
      return { same = r == t, a = t.a, b = t.b, n = t.n, err = tostring(err) }
    `);
    expect(value).toMatchObject({ same: true, a: 3, b: 2, n: { y: 2 } });
    expect((value as { err: string }).err).toContain('Cannot merge a non table type. Actual type: string');
  });

  it('merge_deep recurses where both sides are tables', () => {
    const { value } = runLua('return aip.lua.merge_deep({ n = { x = 1, l = { 1, 2 } } }, { n = { y = 2, l = { 9 } } })');
    expect(value).toEqual({ n: { x: 1, y: 2, l: [9, 2] } });
  });

  it('dump renders strings quoted, null as NULL, nested tables indented, {} empty', () => {
    const { value } = runLua('return aip.lua.dump({ s = "a", n = 1, z = null, e = {}, t = { 1 } })');
    expect(value).toBe('{\n  e = {},\n  n = 1,\n  s = "a",\n  t = {\n    1 = 1,\n  },\n  z = NULL,\n}');
  });

  it('print joins its arguments with newlines and dumps tables', () => {
    const { sim } = runLua('print("a", 2, { k = true }) return nil');
    expect(sim.trace.of('print').map((e) => e.text)).toEqual(['a\n2\n{\n  k = true,\n}']);
  });
});

describe('null helpers', () => {
  it('is_null, nil_if_null and value_or treat nil and null alike', () => {
    const { value } = runLua(`
      return {
        is_null_nil = is_null(nil), is_null_null = is_null(null), is_null_0 = is_null(0),
        nil_if_null = nil_if_null(null) == nil, keeps = nil_if_null(5),
        value_or = value_or(nil, null, "x", "y"), value_or_last = value_or(nil, null),
        same_sentinel = null == NULL and Null == null,
      }
    `);
    expect(value).toEqual({
      is_null_nil: true,
      is_null_null: true,
      is_null_0: false,
      nil_if_null: true,
      keeps: 5,
      value_or: 'x',
      value_or_last: null,
      same_sentinel: true,
    });
  });

  it('exist only from the AIPack version that added them', () => {
    expect(runLua('return { is_null = type(is_null), NULL = type(NULL), null = type(null), is_list = type(is_list) }', { aipackVersion: '0.8.14' }).value).toEqual({
      is_null: 'nil',
      NULL: 'nil',
      null: 'userdata',
      is_list: 'nil',
    });
    expect(runLua('return { is_list = is_list({1}), is_object = is_object({}) }', { aipackVersion: '0.8.27' }).value).toEqual({ is_list: true, is_object: true });
  });
});

describe('number formatting', () => {
  it('print and aip.lua.dump write floats as Rust does (3.0 -> 3, no exponent)', () => {
    const { value, sim } = runLua('print(3.0, 0.1, 1e20, 2^53, 1/3, -0.0, 1/0, 7, 1.5e-7) return aip.lua.dump({ f = 3.0, g = 0.5, i = 2 })');
    expect(sim.trace.of('print').map((e) => e.text)).toEqual(['3\n0.1\n100000000000000000000\n9007199254740992\n0.3333333333333333\n-0\ninf\n7\n0.00000015']);
    expect(value).toBe('{\n  f = 3,\n  g = 0.5,\n  i = 2,\n}');
  });
});

describe('legacy globals', () => {
  it('has the aipack alias of aip.flow up to 0.8.0 only', () => {
    expect(runLua('return { t = type(aipack), same = aipack == aip.flow }', { aipackVersion: '0.8.0' }).value).toEqual({ t: 'table', same: true });
    expect(runLua('return { t = type(aipack) }', { aipackVersion: '0.8.1' }).value).toEqual({ t: 'nil' });
  });
});

describe('print and aip.lua.dump resist script tampering (they are Rust in AIPack)', () => {
  it('keep working after globals, the string metatable and __pairs are tampered with', () => {
    const { value, sim } = runLua(`
      local hidden = setmetatable({ k = 1 }, { __pairs = function() error("__pairs must not be used") end })
      getmetatable("").__index = nil
      _G.tostring, _G.pairs, _G.string, _G.table, _G.null = nil, nil, nil, nil, 1
      print(true, "s", hidden)
      return { dump = aip.lua.dump(null), merged = aip.lua.merge({}, hidden) }
    `);
    expect(sim.trace.of('print').map((e) => e.text)).toEqual(['true\ns\n{\n  k = 1,\n}']);
    expect(value).toEqual({ dump: 'NULL', merged: { k: 1 } });
  });

  it('dump shows nil as nil before null existed (0.8.0)', () => {
    expect(runLua('return aip.lua.dump(nil)', { aipackVersion: '0.8.0' }).value).toBe('nil');
  });
});
