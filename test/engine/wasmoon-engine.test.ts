/**
 * What wasmoon-engine.ts does for lua54: an allocator that holds the run tree to its memory cap, compiled chunks
 * shared between states, and the library guard's direct path for string.sub/byte.
 */
import { describe, expect, it } from 'vitest';
import { loadEngine } from '../../src/engine/index.ts';
import { stateAtW } from '../helpers/engine.ts';
import { createLimits } from '../../src/engine/limits.ts';

const lua54 = await loadEngine('lua54');
function state(memoryMax = 512 * 1024 * 1024, limits = createLimits(1e9, memoryMax)) {
  return stateAtW(lua54, {}, { budget: 1e9, limits, moduleDirs: [] });
}
const run = (code: string, s = state()) => s.runChunk(code, '/w/t.lua', 1, {}, 'serde');

describe('the lua54 engine', () => {
  it('closes a pooled state the pool drops to make room; the run it counted in ends at 0 bytes', () => {
    const limits = createLimits(1e9, 512 * 1024 * 1024);
    const made = Array.from({ length: 6 }, (_, i) => stateAtW(lua54, {}, { budget: 1e9, limits, moduleDirs: [], template: { key: `evicted-${i}`, install: () => {} } }));
    for (const s of made) s.close();
    // four are pooled; the two given first made room and were closed for good
    expect(made.map((s) => (s as unknown as { closed: boolean }).closed)).toEqual([true, true, false, false, false, false]);
    expect(limits.memoryUsed).toBe(0);
  });

  it('refuses allocations past the memory cap, even under pcall, and says so', () => {
    const s = state(32 * 1024 * 1024);
    expect(() => run('local t = {} pcall(function() for i = 1, 1e8 do t[i] = i end end) return #t', s)).toThrow('memory limit exceeded');
  });

  it('a state goes back to the pool without the big garbage of its stage: the next run tree is not charged for it', () => {
    const first = createLimits(1e9, 512 * 1024 * 1024);
    const s = state(undefined, first);
    const setUp = first.memoryUsed;
    // ~3 MiB of tables, unreachable once the chunk returns
    expect(run('local t = {} for i = 1, 50000 do t[i] = { i } end return #t', s)).toBe(50000);
    expect(first.memoryUsed - setUp).toBeGreaterThan(2 * 1024 * 1024);
    s.close();
    const next = createLimits(1e9, 512 * 1024 * 1024);
    const taken = state(undefined, next);
    // a pooled state may keep a little garbage for Lua's own collector, never the stage's megabytes
    expect(next.memoryUsed).toBeGreaterThan(0);
    expect(next.memoryUsed).toBeLessThan(setUp + 512 * 1024);
    taken.close();
  });

  it('runs the same chunk in two states from one compilation, each with its own globals', () => {
    const code = 'counter = (counter or 0) + 1';
    const a = state();
    const b = state();
    a.exec(code, '=counter');
    a.exec(code, '=counter');
    b.exec(code, '=counter');
    expect([run('return counter', a), run('return counter', b)]).toEqual([2, 1]);
  });

  it('string.sub and string.byte give Lua\'s results on the direct path and off it', () => {
    expect(run('local s = "hello" return { s:sub(2, 3), s:sub(-3), s:sub(0), s:sub(9), s:byte(1), s:byte(2, 3), select("#", s:byte(9)) }')).toEqual([
      'el',
      'llo',
      'hello',
      '',
      104,
      101,
      0,
    ]);
  });
});
