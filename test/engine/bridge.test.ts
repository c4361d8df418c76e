import { describe, expect, it } from 'vitest';
import { defaultEngineName, getEngine } from '../../src/engine/index.ts';
import { MAX_REP_BYTES } from '../../src/engine/sandbox.ts';
import { LuaError, LuaRuntimeError, hostFn, multi, type ConvertMode } from '../../src/engine/values.ts';
import { AgentRunError } from '../../src/runtime/simulator.ts';
import { runLua } from '../helpers/lua.ts';

// Runs on the engine of the vitest project (fengari or lua54; test/helpers/load-engine.ts has loaded it).
const engine = getEngine(defaultEngineName());
const lua54 = engine.name === 'lua54';

function state(budget = 1e7) {
  const printed: string[] = [];
  const s = engine.createState({
    budget,
    budgetMessage: 'budget',
    moduleDirs: [],
    readFile: () => undefined,
    loadRoots: ['/nowhere'],
    baseDir: '/nowhere',
    print: (t) => printed.push(t),
    displayPath: (p) => p,
  });
  s.setGlobal('null', null);
  return s;
}

const run = (code: string, mode: ConvertMode = 'serde', scope: Record<string, unknown> = {}) => state().runChunk(code, 't.lua', 1, scope, mode);

describe('Lua -> JS (docs/aipack.md section 7.0)', () => {
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
});

describe('JS -> Lua', () => {
  it('top-level null is nil for stage variables, nested null is the null sentinel, undefined items are nil holes', () => {
    expect(run('return { top = input == nil }', 'serde', { input: null })).toEqual({ top: true });
    expect(run('return { nested = input.v == null, hole = input.l[2] == nil, n = #input.l >= 1 }', 'serde', { input: { v: null, l: [1, undefined, 3] } })).toEqual({
      nested: true,
      hole: true,
      n: true,
    });
  });

  it('integers JS holds exactly are Lua integers, past 32 bits only on lua54 (fengari has 32-bit integers)', () => {
    expect(run('return { math.type(input.small), math.type(input.big), math.type(input.half) }', 'serde', { input: { small: 7, big: 3_000_000_000, half: 1.5 } })).toEqual([
      'integer',
      lua54 ? 'integer' : 'float',
      'float',
    ]);
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

describe('host functions', () => {
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

describe('errors', () => {
  it('carry the file:line of the Lua code and a traceback', () => {
    let caught: unknown;
    try {
      run('local t = nil\nreturn t.x');
    } catch (err) {
      caught = err;
    }
    expect(caught).toBeInstanceOf(LuaRuntimeError);
    const e = caught as LuaRuntimeError;
    expect(e.message).toBe("t.lua:2: attempt to index a nil value (local 't')");
    expect(e.location).toBe('t.lua:2');
    expect(e.traceback).toMatch(/^stack traceback:\n\s+t\.lua:2: in main chunk/);
  });

  it('a failing stage keeps its traceback on the AgentRunError', () => {
    let caught: unknown;
    try {
      runLua('local function f() error("deep") end\nf()');
    } catch (err) {
      caught = err;
    }
    expect(caught).toBeInstanceOf(AgentRunError);
    expect((caught as AgentRunError).message).toMatch(/snippet\.aip:\d+: deep/);
    expect((caught as AgentRunError).traceback).toMatch(/in (local|function) 'f'/);
  });
});

describe('sandbox: budget, library amplifiers, loaders', () => {
  it('stops a budget-swallowing loop that runs its payload in a coroutine (hooks are per thread)', () => {
    // the main thread's loop period divides the hook interval, so before the fix its hook always fired inside the pcall
    const code = 'local body = function() while true do end end\nwhile true do\n  pcall(function()\n    local a = 1\n    local co = coroutine.wrap(body)\n    co()\n  end)\nend';
    expect(() => state(100_000).runChunk(code, 't.lua', 1, {}, 'serde')).toThrow(/budget$/);
  });

  it('stops a coroutine that caught an error with pcall (fengari turned its hooks off for good)', () => {
    const stop = (code: string) => expect(() => state(100_000).runChunk(code, 't.lua', 1, {}, 'serde')).toThrow(/budget$/);
    stop('coroutine.wrap(function() pcall(error) while true do end end)()');
    stop('coroutine.wrap(function() xpcall(error, print) while true do end end)()');
    stop('coroutine.wrap(function() while true do pcall(function() while true do end end) end end)()');
  });

  it('keeps pcall and xpcall results, and yields across them inside coroutines', () => {
    expect(run('return { pcall(function(a, b) return a + b, "x" end, 1, 2) }')).toEqual([true, 3, 'x']);
    expect(run('local ok, e = pcall(error, { code = 7 }) return { ok, e.code }')).toEqual([false, 7]);
    expect(run('return { xpcall(function() error("boom", 0) end, function(m) return "handled " .. m end) }')).toEqual([false, 'handled boom']);
    expect(run('local co = coroutine.wrap(function() local ok, v = pcall(function() return coroutine.yield(1) + 1 end) return v end) co() return co(41)')).toBe(42);
  });

  it('string.rep builds big strings fast, keeps Lua semantics, and refuses results over the limit', () => {
    expect(run('return { string.rep("ab", 3, ","), ("x"):rep(0), ("x"):rep(-1), string.rep("", 5), string.rep("a", 1), string.rep(12, 2) }')).toEqual([
      'ab,ab,ab',
      '',
      '',
      '',
      'a',
      '1212',
    ]);
    expect(run(`return #string.rep("x", ${MAX_REP_BYTES})`)).toBe(MAX_REP_BYTES);
    expect(run(`local ok, e = pcall(string.rep, "x", ${MAX_REP_BYTES + 1}) return e`)).toMatch(/^resulting string too large/);
    expect(run('local ok, e = pcall(string.rep, "xy", 2^30, ",") return e')).toMatch(/^resulting string too large/);
  });

  it('table.move charges each moved element to the budget (the library loops over any range in one call)', () => {
    expect(run('local t = table.move({ 1, 2, 3 }, 1, 3, 2) return { t, table.move({ 1, 2 }, 1, 2, 1, {}), table.move({}, 2, 1, 1) }')).toEqual([[1, 1, 2, 3], [1, 2], {}]);
    expect(() => state(100_000).runChunk('return table.move({ 1 }, 1, 2^30, 2)', 't.lua', 1, {}, 'serde')).toThrow(/budget$/);
    expect(run('local ok, e = pcall(function() table.move(nil, 1, 2, 1) end) return e')).toMatch(/:1: bad argument #1 to 'move' \(table expected, got nil\)$/);
  });

  it('string.char reports a code out of range with its argument number', () => {
    expect(run('local ok, e = pcall(string.char, 65, 256) return { string.char(104, 105), e }')).toEqual(['hi', "bad argument #2 to 'string.char' (value out of range)"]);
  });

  it('load keeps text chunks only, honours a mode without "t" and an explicit nil env', () => {
    expect(run('return { load("return 1", "c", "b") == nil, load(string.dump(function() end)) == nil, load("return 2", "c", "bt")() }')).toEqual([true, true, 2]);
    expect(run('local f = load("return x", "c", "t", nil) return (pcall(f))')).toBe(false);
    expect(run('_G.x = 5 return load("return x")()')).toBe(5);
  });

  it("does not read a '%' in a host error message as a format", () => {
    expect(run('local ok, e = pcall(dofile, "/x/%d%s") return e')).toBe('cannot open /x/%d%s: outside the workspace');
  });

  it('package.searchpath never probes the host, and the searcher rejects non-string names cleanly', () => {
    expect(run('return { package.searchpath("hostname", "/etc/?") }')).toEqual([null, "\n\tno file '/etc/hostname' (outside the workspace: not read)"]);
    expect(run('local ok, e = pcall(package.searchers[2], {}) return e')).toMatch(/bad argument #1 .*string expected, got table/);
  });

  it('stops converting a value whose shared tables expand past the node limit', () => {
    // 2^22 paths through 22 tables: more than the 2M elements one conversion may visit
    expect(() => run('local t = {} for i = 1, 22 do t = { t, t } end return t', 'aip')).toThrow(/cannot convert a value of more than 2000000 elements/);
  });
});

describe('Lua strings and closures as Lua 5.4 has them (AIPack)', () => {
  it('string keys are their bytes: no two strings share a key, and order is byte order', () => {
    // fengari's own keys were unpadded hex: "\1#" and "\18\3" were one key, and "\15" sorted after "\16"
    expect(run('local t = { ["\\1#"] = 1, ["\\18\\3"] = 2 } return { t["\\1#"], t["\\18\\3"], "\\15" < "\\16", "a" < "ab", "\\255" > "z" }')).toEqual([
      1,
      2,
      true,
      true,
      true,
    ]);
    expect(run('local t = { "b\\1", "b", "a\\200", "a\\16", "a\\2" } table.sort(t) return t')).toEqual(['a\u0002', 'a\u0010', 'a\uFFFD', 'b', 'b\u0001']);
  });

  it('package.loaded holds the standard libraries, which name themselves in argument errors', () => {
    // lua54 stored them in the wrong table once (luaopen_package leaves a table of its own on the stack)
    expect(run('return { package.loaded.string == string, package.loaded.table == table, require("math") == math, select(2, pcall(string.byte)) }')).toEqual([
      true,
      true,
      true,
      "bad argument #1 to 'string.byte' (string expected, got no value)",
    ]);
  });

  it('a function expression makes a new closure each time it is evaluated (5.4 has no closure cache)', () => {
    expect(run('local t = {} for i = 1, 2 do t[i] = function() end end return t[1] == t[2]')).toBe(false);
  });
});
