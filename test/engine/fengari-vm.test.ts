/**
 * What fengari-vm.ts changes in fengari: string keys are their bytes (fengari's own hex keys collided and misordered),
 * no closure cache (Lua 5.4 has none, and prototypes are shared across states here), and the big-string hook.
 */
import { describe, expect, it } from 'vitest';
import { getEngine } from '../../src/engine/index.ts';

const run = (code: string, budget = 1e7) =>
  getEngine('fengari')
    .createState({ budget, budgetMessage: 'budget', moduleDirs: [], readFile: () => undefined, loadRoots: ['/nowhere'], baseDir: '/nowhere', print: () => {}, displayPath: (p) => p })
    .runChunk(code, 't.lua', 1, {}, 'serde');

describe('fengari as fengari-vm.ts loads it', () => {
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

  it('a function expression makes a new closure each time it is evaluated (5.4 has no closure cache)', () => {
    expect(run('local t = {} for i = 1, 2 do t[i] = function() end end return t[1] == t[2]')).toBe(false);
  });

  it('sees every big string as it is made, charged by size: a doubling loop of .. ends on the budget', () => {
    // 16 doublings of 64 KiB make 4 GiB of copies in a few hundred instructions: only the string hook charges them
    expect(() => run('local s = ("x"):rep(65536) for i = 1, 16 do s = s .. s end return #s', 1e6)).toThrow(/budget$/);
  });
});
