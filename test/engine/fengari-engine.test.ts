/**
 * What fengari-engine.ts does that lua54 does not need: library functions replaced so that their loops are
 * metered and their results sized first, no collectgarbage, and the Lua 5.4 hint on compile errors.
 */
import { describe, expect, it } from 'vitest';
import { getEngine } from '../../src/engine/index.ts';
import { createLimits } from '../../src/engine/limits.ts';

const fengari = getEngine('fengari');
function state(files: Record<string, string> = {}, budget = 1e7, memoryMax?: number) {
  return fengari.createState({
    budget,
    limits: memoryMax === undefined ? undefined : createLimits(budget, memoryMax),
    budgetMessage: 'budget',
    moduleDirs: ['/w'],
    readFile: (abs) => files[abs],
    loadRoots: ['/w'],
    baseDir: '/w',
    print: () => {},
    displayPath: (p) => p,
  });
}
const run = (code: string, s = state()) => s.runChunk(code, '/w/t.lua', 1, {}, 'serde');

describe('the fengari engine', () => {
  it('has no collectgarbage (fengari\'s throws on every call)', () => {
    expect(run('return collectgarbage == nil')).toBe(true);
  });

  it('points a Lua 5.4 attribute at --engine lua54, in a chunk and in a required module', () => {
    expect(() => run('local x <const> = 1 return x')).toThrow(/^Lua 5\.4 syntax: run with --engine lua54/);
    expect(run('local ok, e = pcall(require, "m") return e', state({ '/w/m.lua': 'local y <close> = nil' }))).toMatch(/^Lua 5\.4 syntax: run with --engine lua54 \(fengari runs Lua 5\.3\)\nerror loading module 'm'/);
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
});
