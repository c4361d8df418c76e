/**
 * The JS <-> Lua value policy (conversion.ts): first over a fake engine, so the policy is tested on its own, then
 * through the engine of this vitest project (fengari or lua54), whose reader and builder must give the same values.
 */
import { describe, expect, it } from 'vitest';
import { hostFunctionBody, jsToLua, luaToJs, workDone, T_BOOLEAN, T_FUNCTION, T_LIGHTUSERDATA, T_NIL, T_NUMBER, T_STRING, T_TABLE, type HostCallIO, type ValueBuilder, type ValueReader } from '../../src/engine/conversion.ts';
import { ConversionError, LuaError, hostFn, multi, type ConvertMode } from '../../src/engine/values.ts';
import { bareState, ENGINE_NAME, runBare } from '../helpers/engine.ts';

// ---- a fake engine: Lua values as tagged JS objects ----------------------------------------------------------

interface FakeTable {
  pairs: [Fake, Fake][];
  array?: boolean;
}
type Fake = { t: number; v?: unknown };
const nil: Fake = { t: T_NIL };
const num = (v: number): Fake => ({ t: T_NUMBER, v });
const str = (v: string): Fake => ({ t: T_STRING, v });
const tbl = (pairs: [Fake, Fake][], array = false): Fake => ({ t: T_TABLE, v: { pairs, array } as FakeTable });
const list = (...items: Fake[]) => tbl(items.map((item, i) => [num(i + 1), item] as [Fake, Fake]));

const reader: ValueReader<null, Fake> = {
  type: (_L, v) => v.t,
  boolean: (_L, v) => v.v as boolean,
  number: (_L, v) => v.v as number,
  string: (_L, v) => v.v as string,
  identity: (_L, v) => v.v,
  rawLength: (_L, v) => {
    const t = v.v as FakeTable;
    let n = 0;
    while (t.pairs.some(([k, x]) => k.t === T_NUMBER && k.v === n + 1 && x.t !== T_NIL)) n++;
    return n;
  },
  isArray: (_L, v) => (v.v as FakeTable).array === true,
  item: (_L, v, i) => (v.v as FakeTable).pairs.find(([k]) => k.t === T_NUMBER && k.v === i)?.[1] ?? nil,
  drop: () => {},
  forEach: (_L, v, visit) => {
    for (const [k, x] of (v.v as FakeTable).pairs) visit(k, x);
  },
  reserve: () => {},
};
const toJs = (v: Fake, mode: ConvertMode = 'serde') => luaToJs(reader, null, v, mode);

const builder: ValueBuilder<null, Fake, FakeTable> = {
  nil: () => nil,
  null: () => ({ t: T_LIGHTUSERDATA, v: 'null' }),
  boolean: (_L, b) => ({ t: T_BOOLEAN, v: b }),
  number: (_L, n) => num(n),
  string: (_L, s) => str(s),
  function: (_L, fn) => ({ t: T_FUNCTION, v: fn }),
  list: () => ({ pairs: [], array: true }),
  record: () => ({ pairs: [] }),
  setIndex: (_L, t, i, item) => void t.pairs.push([num(i), item]),
  setKey: (_L, t, key, item) => void t.pairs.push([str(key), item]),
  done: (_L, t) => ({ t: T_TABLE, v: t }),
};

describe('the conversion policy, Lua -> JS (over a fake engine)', () => {
  it('serde: a table with a length is a list of 1..#t (holes are null), an array-marked empty table is [], others objects', () => {
    expect(toJs(tbl([[str('l'), list(num(1), nil, num(3))], [str('e'), tbl([])], [str('a'), tbl([], true)]]))).toEqual({ l: [1], e: {}, a: [] });
    expect(toJs(tbl([[num(1), num(1)], [num(2), nil], [num(3), num(3)]]))).toEqual([1]);
  });

  it('aip: keys exactly 1..n make a list, an empty table is [], boolean and number keys are object keys', () => {
    expect(toJs(tbl([[num(2), str('b')], [num(1), str('a')]]), 'aip')).toEqual(['a', 'b']);
    expect(toJs(tbl([]), 'aip')).toEqual([]);
    expect(toJs(tbl([[{ t: T_BOOLEAN, v: true }, num(1)], [num(1.5), num(2)]]), 'aip')).toEqual({ true: 1, '1.5': 2 });
  });

  it('non-finite numbers: null in serde, an error naming the path in aip', () => {
    expect(toJs(list(num(Infinity), num(NaN)))).toEqual([null, null]);
    expect(() => toJs(tbl([[str('x'), num(-Infinity)]]), 'aip')).toThrow('cannot convert -Infinity to JSON at value.x');
  });

  it('refuses functions, other types, table keys that are not strings, numbers or booleans, cycles and depth, naming the path', () => {
    expect(() => toJs(tbl([[str('f'), { t: T_FUNCTION }]]))).toThrow('cannot convert a Lua function at value.f');
    expect(() => toJs(list(tbl([[str('co'), { t: 8 }]])))).toThrow('cannot convert a Lua thread at value[1].co');
    expect(() => toJs(tbl([[tbl([]), num(1)]]))).toThrow('cannot convert a table key of type table at value');
    const me = tbl([]);
    (me.v as FakeTable).pairs.push([str('me'), me]);
    expect(() => toJs(me)).toThrow('cannot convert a table that contains itself (cycle at value.me)');
    let deep = tbl([]);
    for (let i = 0; i < 200; i++) deep = tbl([[str('n'), deep]]);
    expect(() => toJs(deep)).toThrow(/nested deeper than 128 levels/);
  });

  it('the same table twice (not a cycle) converts twice, within the node limit', () => {
    const shared = list(num(1));
    expect(toJs(list(shared, shared))).toEqual([[1], [1]]);
    expect(() => luaToJs(reader, null, list(shared, shared), 'serde', 'argument #2', 3)).toThrow('cannot convert a value of more than 3 elements (simulator limit, at argument #2[2])');
  });

  it('a table met again is read once and copied: equal values, never one shared object', () => {
    let reads = 0;
    const counting: ValueReader<null, Fake> = { ...reader, forEach: (L, v, visit) => (reads++, reader.forEach(L, v, visit)) };
    const config = tbl([[str('name'), str('a.aip')], [str('tags'), list(str('x'))]]);
    const value = luaToJs(counting, null, tbl([[str('one'), config], [str('two'), list(config, config)]]), 'aip') as { one: { tags: string[] }; two: { tags: string[] }[] };
    expect(value).toEqual({ one: { name: 'a.aip', tags: ['x'] }, two: [{ name: 'a.aip', tags: ['x'] }, { name: 'a.aip', tags: ['x'] }] });
    // the outer table, the list and the config with its tags: 4 reads, not 8
    expect(reads).toBe(4);
    value.two[0]!.tags.push('changed');
    expect(value.one.tags).toEqual(['x']);
    expect(value.two[1]!.tags).toEqual(['x']);
  });

  it('a table met again costs its values and bytes again, and fails where a second read would fail', () => {
    const shared = tbl([[str('s'), str('abcd')], [str('l'), list(num(1), num(2))]]);
    const counted = (maxNodes: number) => {
      const before = { ...workDone() };
      luaToJs(reader, null, list(shared, shared, shared), 'aip', 'value', maxNodes);
      return { nodes: workDone().nodes - before.nodes, bytes: workDone().bytes - before.bytes };
    };
    // 1 list + 3 x (table, string, list, 2 numbers)
    expect(counted(100)).toEqual({ nodes: 16, bytes: 12 });
    expect(() => luaToJs(reader, null, list(shared, shared, shared), 'aip', 'value', 14)).toThrow('cannot convert a value of more than 14 elements (simulator limit, at value.3.l.1)');
    // met first near the top, then where the depth limit falls inside it
    let chain = shared;
    for (let i = 0; i < 126; i++) chain = tbl([[str('n'), chain]]);
    expect(() => toJs(list(shared, chain), 'aip')).toThrow(/nested deeper than 128 levels \(at value\.2(\.n){126}\.l\)$/);
  });
});

describe('the conversion policy, JS -> Lua (over a fake engine)', () => {
  it('builds lists marked as arrays with nil holes skipped, records without undefined fields, nested null as the sentinel', () => {
    const v = jsToLua(builder, null, { l: [1, undefined, 'x'], r: { a: null, b: undefined } }, false);
    expect(toJs(v)).toEqual({ l: [1], r: { a: null } });
    const l = (v.v as FakeTable).pairs.find(([k]) => k.v === 'l')?.[1] as Fake;
    expect((l.v as FakeTable).array).toBe(true);
    expect((l.v as FakeTable).pairs.map(([k]) => k.v)).toEqual([1, 3]);
  });

  it('a top-level null is nil only when asked (stage variables), the sentinel otherwise', () => {
    expect(jsToLua(builder, null, null, true)).toBe(nil);
    expect(jsToLua(builder, null, null, false).t).toBe(T_LIGHTUSERDATA);
  });

  it('refuses cycles, runaway nesting and values Lua has no type for', () => {
    const cyclic: Record<string, unknown> = {};
    cyclic.me = cyclic;
    expect(() => jsToLua(builder, null, cyclic, false)).toThrow('cannot pass a cyclic value to Lua');
    let deep: unknown = 1;
    for (let i = 0; i < 200; i++) deep = [deep];
    expect(() => jsToLua(builder, null, deep, false)).toThrow('cannot pass a value nested deeper than 128 levels to Lua');
    expect(() => jsToLua(builder, null, { n: 10n }, false)).toThrow('cannot pass a JS bigint to Lua');
    // the same object twice is no cycle
    const shared = { a: 1 };
    expect(toJs(jsToLua(builder, null, [shared, shared], false))).toEqual([{ a: 1 }, { a: 1 }]);
  });
});

describe('the conversion policy, host functions (over a fake engine)', () => {
  const UNWIND = Symbol('unwind');
  const io = (args: Fake[], pushed: unknown[][], raised: string[]): HostCallIO<null> => ({
    top: () => args.length,
    arg: (_L, i, mode) => luaToJs(reader, null, args[i - 1] as Fake, mode, `argument #${i}`),
    push: (_L, values) => void pushed.push(values),
    isUnwind: (err) => err === UNWIND,
    raise: (_L, message) => {
      raised.push(message);
      throw UNWIND;
    },
  });

  it('converts arguments in the function\'s mode, pushes a LuaMulti as several values', () => {
    const pushed: unknown[][] = [];
    const body = hostFunctionBody(io([tbl([])], pushed, []), hostFn((v: unknown) => multi(JSON.stringify(v), 2), { argMode: 'serde' }));
    expect(body(null)).toBe(2);
    expect(pushed).toEqual([['{}', 2]]);
    expect(hostFunctionBody(io([tbl([])], pushed, []), (v: unknown) => JSON.stringify(v))(null)).toBe(1);
    expect(pushed[1]).toEqual(['[]']);
    expect(hostFunctionBody(io([], pushed, []), () => undefined)(null)).toBe(0);
  });

  it('relays a thrown error as a Lua error carrying its message, and lets the engine\'s own unwinding pass', () => {
    const raised: string[] = [];
    const fail = (err: unknown) => () => {
      throw err;
    };
    expect(() => hostFunctionBody(io([], [], raised), fail(new LuaError('no 100%')))(null)).toThrow();
    expect(() => hostFunctionBody(io([{ t: T_FUNCTION }], [], raised), (f: unknown) => f)(null)).toThrow();
    expect(() => hostFunctionBody(io([], [], raised), fail('plain'))(null)).toThrow();
    expect(raised).toEqual(['no 100%', 'cannot convert a Lua function at argument #1', 'plain']);
    expect(() => hostFunctionBody(io([], [], raised), fail(UNWIND))(null)).toThrow();
    expect(raised).toHaveLength(3);
    expect(new ConversionError('x')).toBeInstanceOf(Error);
  });
});

// ---- the same policy through this project's engine ------------------------------------------------------------

const state = bareState;
const run = runBare;

describe(`Lua -> JS (${ENGINE_NAME}; docs/aipack.md section 7.0)`, () => {
  it('serde mode: tables with a length are arrays (extra keys dropped), others objects, empty {} an object', () => {
    expect(run('return { l = {1, 2, x = 3}, o = { a = 1 }, e = {}, n = null, b = true, s = "x" }')).toEqual({
      l: [1, 2],
      o: { a: 1 },
      e: {},
      n: null,
      b: true,
      s: 'x',
    });
  });

  it('serde mode: a nil hole inside a list is null in the JSON, not a missing item', () => {
    // mlua serialises elements 1..#t, so a hole below the border is a JSON null (an undefined would be dropped by JSON)
    expect(run('return { l = {1, nil, 3}, s = {"a", nil, "c"} }')).toStrictEqual({ l: [1, null, 3], s: ['a', null, 'c'] });
  });

  it('serde mode: NaN and infinities become null, as serde_json makes them', () => {
    expect(run('return { a = 0/0, b = 1/0, c = -1/0, d = 1.5 }')).toEqual({ a: null, b: null, c: null, d: 1.5 });
  });

  it('aip mode: only keys 1..n make a list, and an empty table is []', () => {
    expect(run('return { l = {1, 2}, gap = {[1] = "a", [3] = "c"}, e = {} }', 'aip')).toEqual({ l: [1, 2], gap: { 1: 'a', 3: 'c' }, e: [] });
  });

  it('keeps a JSON [] as [] across a round trip (the array metatable)', () => {
    expect(run('return input', 'serde', { input: { list: [], obj: {} } })).toEqual({ list: [], obj: {} });
  });

  it('rejects functions, cycles and runaway nesting with the path in the message', () => {
    expect(() => run('return { f = function() end }')).toThrow(/cannot convert a Lua function at value\.f/);
    expect(() => run('local t = {} t.me = t return t')).toThrow(/cycle at value\.me/);
    expect(() => run('local t = {} local c = t for i = 1, 200 do c.n = {} c = c.n end return t')).toThrow(/nested deeper than 128 levels/);
  });

  it('stops converting a value whose shared tables expand past the node limit', () => {
    // 2^22 paths through 22 tables: more than the 2M elements one conversion may visit
    expect(() => run('local t = {} for i = 1, 22 do t = { t, t } end return t', 'aip')).toThrow(/cannot convert a value of more than 2000000 elements/);
  });
});

describe(`JS -> Lua (${ENGINE_NAME})`, () => {
  it('top-level null is nil for stage variables, nested null is the null sentinel, undefined items are nil holes', () => {
    expect(run('return { top = input == nil }', 'serde', { input: null })).toEqual({ top: true });
    expect(run('return { nested = input.v == null, hole = input.l[2] == nil, n = #input.l >= 1 }', 'serde', { input: { v: null, l: [1, undefined, 3] } })).toEqual({
      nested: true,
      hole: true,
      n: true,
    });
  });

  it('strings keep their bytes across the bridge, whatever their size, and equal strings stay equal keys', () => {
    const big = 'é'.repeat(40_000) + 'x';
    expect(run('return { n = #input.big, eq = input.big == input.again, last = input.big:sub(-1), t = ({ [input.big] = 1 })[input.again] }', 'serde', { input: { big, again: big.slice(0) } })).toEqual({
      n: 80_001,
      eq: true,
      last: 'x',
      t: 1,
    });
    expect(run('return input', 'serde', { input: { big, s: 'plain', u: 'ünï' } })).toEqual({ big, s: 'plain', u: 'ünï' });
    // invalid UTF-8 becomes U+FFFD on the way out, whatever the size
    expect(run('return { ("\\255"):rep(3), ("\\255"):rep(20000) }')).toEqual(['\uFFFD'.repeat(3), '\uFFFD'.repeat(20000)]);
  });
});

describe(`host functions (${ENGINE_NAME})`, () => {
  it('receive converted arguments, return several values, and raise catchable Lua errors', () => {
    const s = state();
    s.setGlobal('host', {
      sum: (a: number, b: number) => a + b,
      pair: () => multi('a', 2),
      fail: () => {
        throw new LuaError('host said no');
      },
      shape: hostFn((v: unknown) => JSON.stringify(v), { argMode: 'serde' }),
    });
    expect(s.runChunk('local a, b = host.pair() local ok, err = pcall(host.fail) return { host.sum(1, 2), a, b, ok, err, host.shape({}) }', 't.lua', 1, {}, 'serde')).toEqual([
      3,
      'a',
      2,
      false,
      'host said no',
      '{}',
    ]);
  });
});
