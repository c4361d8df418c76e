/**
 * fengari's library functions replaced (fengari-libraries.ts), in fengari states: loops metered and results sized
 * first, and a random generator of each state's own.
 */
import { describe, expect, it } from 'vitest';
import { loadEngine } from '../../src/engine/index.ts';
import { stateAtW } from '../helpers/engine.ts';
import { createLimits } from '../../src/engine/limits.ts';

const fengari = await loadEngine('fengari');
function state(files: Record<string, string> = {}, budget = 1e7, memoryMax?: number) {
  return stateAtW(fengari, files, { budget, limits: memoryMax === undefined ? undefined : createLimits(budget, memoryMax) });
}
const run = (code: string, s = state()) => s.runChunk(code, '/w/t.lua', 1, {}, 'serde');

describe('the fengari library replacements', () => {
  it("type names every kind of value as Lua 5.3 does, its names are ordinary strings, and type() fails with Lua's message", () => {
    expect(run('return { type(nil), type(true), type(1), type(1.5), type("s"), type({}), type(print), type(function() end), type(coroutine.create(print)) }')).toEqual([
      'nil', 'boolean', 'number', 'number', 'string', 'table', 'function', 'function', 'thread',
    ]);
    expect(run('local t = { [type({})] = 1 } return { t.table, type(1) == "number", type(type) , #type("x") .. type(2):upper() }')).toEqual([1, true, 'function', '6NUMBER']);
    expect(run('local ok, err = pcall(type) return err')).toBe("bad argument #1 to 'type' (value expected)");
    expect(run('return select("#", type(nil, 2, 3))')).toBe(1);
  });

  it('table.unpack is charged by the values it returns', () => {
    expect(run('return select("#", table.unpack({}, 1, 5000))')).toBe(5000);
    expect(() => run('for i = 1, 100 do local n = select("#", table.unpack({}, 1, 50000)) end', state({}, 1_000_000))).toThrow(/budget$/);
  });

  it('table.concat sizes its result first: over half the memory cap it is refused before it is made', () => {
    expect(run('local t = {} for i = 1, 10 do t[i] = tostring(i) end return table.concat(t, ",", 2, 4)')).toBe('2,3,4');
    const s = state({}, 1e9, 64 * 1024 * 1024);
    expect(() => run('local t = {} local piece = ("x"):rep(1024 * 1024) for i = 1, 40 do t[i] = piece end return #table.concat(t)', s)).toThrow(/memory limit exceeded/);
  });

  it("math.random draws from the state's own generator: a seed in one state holds in no other", () => {
    const seeded = state();
    const other = state();
    const first = run('math.randomseed(7) return { math.random(1000), math.random(1000), math.random() }', seeded);
    expect(run('math.randomseed(7) return { math.random(1000), math.random(1000), math.random() }', other)).toEqual(first);
    run('math.randomseed(7)', seeded);
    // the other state's generator goes on from where it was, unaffected by the seed set in the first
    expect(run('return { math.random(1000), math.random(1000), math.random() }', other)).not.toEqual(first);
    expect(run('return { math.random(1000), math.random(1000), math.random() }', seeded)).toEqual(first);
    expect(run('local ok, e = pcall(math.random, 2, 1) return e', seeded)).toMatch(/interval is empty/);
  });
});
