/**
 * lua54's in-place reader (wasmoon-direct-reader.ts) against the C API reader it stands in for: the same values,
 * in the same key order, the same errors at the same paths, on tables of every shape a run makes.
 */
import { describe, expect, it } from 'vitest';
import { LUA_OK, M, cstr, mallocBytes, toJs, toJsThroughApi, toStr } from '../../src/engine/wasmoon-bridge.ts';
import { readsInPlace, tableInPlace } from '../../src/engine/wasmoon-direct-reader.ts';

/** A fresh raw state with the value `code` returns on top of its stack. */
function evaluate(code: string): number {
  const L = M._luaL_newstate() as number;
  M._luaL_openlibs(L);
  const bytes = new TextEncoder().encode(code);
  const p = mallocBytes(bytes);
  try {
    if (M._luaL_loadbufferx(L, p, bytes.length, cstr('=t'), 0) !== LUA_OK || M._lua_pcallk(L, 0, 1, 0, 0, 0) !== LUA_OK) throw new Error(toStr(L, -1));
  } finally {
    M._free(p);
  }
  return L;
}

/** Both readers' conversions of `code`'s value: the result as JSON text (key order shows), or the error. */
function both(code: string, maxNodes?: number): { inPlace: string; api: string } {
  const L = evaluate(code);
  const outcome = (f: () => unknown) => {
    try {
      return JSON.stringify(f());
    } catch (err) {
      return `error: ${(err as Error).message}`;
    }
  };
  try {
    return { inPlace: outcome(() => toJs(L, -1, 'aip', 'value', maxNodes)), api: outcome(() => toJsThroughApi(L, -1, 'aip', 'value', maxNodes)) };
  } finally {
    M._lua_close(L);
  }
}

/** A Lua expression building a random table (seeded): keys and values of every kind, nesting, shared tables, holes. */
function randomTable(seed: number): string {
  let s = seed;
  const rnd = (n: number) => {
    s = (Math.imul(s, 1103515245) + 12345) & 0x7fffffff;
    return s % n;
  };
  const strings = ['"a"', '"name"', '"stages"', '"\\u{e9}t\\u{e9}"', '"\\xff\\xfe"', 'string.rep("long", 30)', '""', '"k\\0z"', 'string.rep("z", 20000)'];
  const scalar = (): string => {
    switch (rnd(9)) {
      case 0: return String(rnd(1000) - 500);
      case 1: return ['9007199254740993', '-9007199254740993', 'math.maxinteger', 'math.mininteger', '2^53', '-0.0', '1e300', '0.1'][rnd(8)]!;
      case 2: return (rnd(100000) / 7).toString();
      case 3: return rnd(2) ? 'true' : 'false';
      default: return strings[rnd(strings.length)]!;
    }
  };
  const lines: string[] = ['local shared = { 1, 2, { x = "y" } }'];
  let n = 0;
  const table = (depth: number): string => {
    const name = `t${n++}`;
    lines.push(`local ${name} = {}`);
    const count = rnd(12);
    for (let i = 0; i < count; i++) {
      const value = depth < 4 && rnd(4) === 0 ? table(depth + 1) : rnd(10) === 0 ? 'shared' : scalar();
      switch (rnd(6)) {
        case 0:
        case 1: lines.push(`${name}[#${name} + 1] = ${value}`); break;
        case 2: lines.push(`${name}[${strings[rnd(strings.length)]} .. "${i}"] = ${value}`); break;
        case 3: lines.push(`${name}[${rnd(40) - 5}] = ${value}`); break;
        case 4: lines.push(`${name}.key${rnd(30)} = ${value}`); break;
        default: lines.push(`${name}[${rnd(2) ? '2.5' : 'true'}] = ${value}`);
      }
    }
    // a key removed again leaves a dead key in its node
    if (rnd(3) === 0) lines.push(`${name}.gone = 1`, `${name}.gone = nil`, `${name}[1] = nil`);
    return name;
  };
  const top = table(0);
  lines.push(`return ${top}`);
  return lines.join('\n');
}

describe('wasmoon direct reader', () => {
  it('holds on this build: the probe read its table as the API does', () => {
    expect(readsInPlace()).toBe(true);
  });

  it('converts 400 random tables as the API reader does: values, key order, errors', () => {
    for (let seed = 1; seed <= 400; seed++) {
      const code = randomTable(seed);
      const { inPlace, api } = both(code);
      expect(inPlace, code).toBe(api);
    }
  });

  it('lists, records, mixed tables and the empty table keep their shapes and order', () => {
    const code = `local r = {} for i = 1, 50 do r["k" .. i] = i end r.k7 = nil
      return { list = { "a", "b", "c" }, holes = { 1, nil, 3 }, record = r, mixed = { 1, 2, x = 3, [10] = 4 }, empty = {},
        grown = (function() local t = {} for i = 1, 100 do t[i] = i end for i = 51, 100 do t[i] = nil end return t end)() }`;
    const { inPlace, api } = both(code);
    expect(inPlace).toBe(api);
    expect(JSON.parse(inPlace).list).toEqual(['a', 'b', 'c']);
    // toJs took the in-place path
    const L = evaluate(code);
    try {
      expect(tableInPlace(L, M._lua_gettop(L), 'aip', 'value', 10_000)?.value).toEqual(JSON.parse(inPlace));
    } finally {
      M._lua_close(L);
    }
    expect(Object.keys(JSON.parse(inPlace).record)).toEqual(Object.keys(JSON.parse(api).record));
  });

  it('fails as the API reader fails: a function, a cycle, a NaN, too deep, too many values', () => {
    const cases = [
      'return { a = { b = print } }',
      'local t = { x = {} } t.x.back = t return t',
      'return { n = { 0/0 } }',
      'local t = {} local c = t for i = 1, 300 do c.next = {} c = c.next end return t',
      'local t = {} for i = 1, 50 do t[i] = { i, i } end return t',
      'return { co = coroutine.create(print) }',
    ];
    for (const code of cases) {
      const { inPlace, api } = both(code, 60);
      expect(inPlace.startsWith('error: '), code).toBe(true);
      expect(inPlace, code).toBe(api);
    }
  });

  it('leaves the serde conversion and values other than tables to the API', () => {
    const L = evaluate('return { 1, 2 }');
    try {
      expect(tableInPlace(L, M._lua_gettop(L), 'serde', 'value', 100)).toBeUndefined();
      M._lua_pushinteger(L, 5n);
      expect(tableInPlace(L, M._lua_gettop(L), 'aip', 'value', 100)).toBeUndefined();
    } finally {
      M._lua_close(L);
    }
  });
});
