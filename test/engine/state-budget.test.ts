/**
 * The budget policy of the engine core (state-budget.ts) on the engine of this vitest project: a loop is stopped
 * whatever coroutine or pcall it hides in, and pcall and xpcall keep their results within budget.
 */
import { describe, expect, it } from 'vitest';
import { bareState, ENGINE_NAME, runBare } from '../helpers/engine.ts';

const state = bareState;
const run = runBare;

describe(`budget across coroutines and pcall (${ENGINE_NAME})`, () => {
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
});
