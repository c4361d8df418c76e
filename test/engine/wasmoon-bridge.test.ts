/**
 * lua54's side of the value bridge (wasmoon-bridge.ts): values through the C stack, with Lua 5.4's 64-bit
 * integers, and host functions registered per state.
 */
import { describe, expect, it } from 'vitest';
import { loadEngine } from '../../src/engine/index.ts';

const engine = await loadEngine('lua54');
const state = () =>
  engine.createState({ budget: 1e7, budgetMessage: 'budget', moduleDirs: [], readFile: () => undefined, loadRoots: ['/nowhere'], baseDir: '/nowhere', print: () => {}, displayPath: (p) => p });
const run = (code: string, input: unknown) => state().runChunk(code, 't.lua', 1, { input }, 'serde');

describe('wasmoon bridge', () => {
  it('integers JS holds exactly cross as Lua integers, past 32 bits too; others as floats', () => {
    expect(run('return { math.type(input.big), input.big, math.type(input.max), math.type(input.past), math.type(input.half) }', { big: 3_000_000_000, max: Number.MAX_SAFE_INTEGER, past: 2 ** 60, half: 1.5 })).toEqual([
      'integer',
      3_000_000_000,
      'integer',
      'float',
      'float',
    ]);
  });

  it('a key holding a NUL byte crosses whole (it cannot be a C string field name)', () => {
    expect(run('local n = 0 for _ in pairs(input) do n = n + 1 end return { n, input["a\\0b"], input.a }', { 'a\0b': 1, a: 2 })).toEqual([2, 1, 2]);
  });

  it('host functions of a closed state are released, and a new state works with its own', () => {
    for (let i = 0; i < 3; i++) {
      const s = state();
      s.setGlobal('f', (n: number) => n * 2);
      expect(s.runChunk('return f(21)', 't.lua', 1, {}, 'serde')).toBe(42);
      s.close();
    }
  });
});
