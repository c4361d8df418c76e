import { describe, expect, it } from 'vitest';
import { fengariEngine } from '../../src/lua/fengari-engine.ts';
import { LuaError, LuaRuntimeError, hostFn, multi, type ConvertMode } from '../../src/lua/values.ts';
import { AgentRunError } from '../../src/runtime/simulator.ts';
import { runLua } from '../helpers/lua.ts';

function state() {
  const printed: string[] = [];
  const s = fengariEngine.createState({
    budget: 1e7,
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

describe('Lua -> JS (RUNTIME.md 7.0)', () => {
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

  it('integers past 32 bits stay floats (fengari has 32-bit integers)', () => {
    expect(run('return { math.type(input.small), math.type(input.big) }', 'serde', { input: { small: 7, big: 3_000_000_000 } })).toEqual(['integer', 'float']);
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
