/**
 * The engine core (sandboxed-state.ts) on the engine of this vitest project: chunk runs and their errors, values set
 * as globals, and the libraries the sandbox is installed over. Its layers have their own tests: the budget
 * (state-budget.test.ts), the host libraries (state-host-libraries.test.ts), the put-back (state-put-back.test.ts).
 */
import { describe, expect, it } from 'vitest';
import { LuaRuntimeError } from '../../src/engine/values.ts';
import { AgentRunError } from '../../src/runtime/simulator.ts';
import { bareState, ENGINE_NAME, runBare } from '../helpers/engine.ts';
import { runLua } from '../helpers/lua.ts';

const run = runBare;

describe(`errors (${ENGINE_NAME})`, () => {
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

  it('an error that is not a string reaches JS through tostring, the null sentinel by name', () => {
    expect(() => run('error(null)')).toThrow(/^error object is the null sentinel$/);
    expect(() => run('error(setmetatable({}, { __tostring = function() return "custom" end }))')).toThrow(/^custom$/);
    expect(() => run('error(42)')).toThrow(/^42$/);
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

describe(`values set and the libraries opened (${ENGINE_NAME})`, () => {
  it('setGlobal refuses a value that cannot cross, naming why', () => {
    const cyclic: Record<string, unknown> = {};
    cyclic.self = cyclic;
    expect(() => bareState().setGlobal('c', cyclic)).toThrow('cannot pass a cyclic value to Lua');
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
});
