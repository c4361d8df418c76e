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

  it('Lua integers past 2^53 come out as the nearest double, as Number() of the integer rounds it', () => {
    const big = ['9007199254740993', '9223372036854775807', '-9223372036854775808', '-9007199254740993', '9007199254740995'];
    const out = run(`return { ${big.map((n) => (n === "-9223372036854775808" ? "math.mininteger" : n)).join(', ')} }`, null) as number[];
    expect(out).toEqual(big.map((n) => Number(BigInt(n))));
  });

  it('short strings decode to themselves however their decoded copies collide (4096 slots, 20000 strings, twice)', () => {
    const code = `local out = {} for i = 1, 20000 do out[i] = string.format("k%05d", i) .. string.rep("x", i % 20) end
      out[20001] = "é" out[20002] = "" out[20003] = string.rep("a", 32) out[20004] = string.rep("a", 33) return out`;
    const want = Array.from({ length: 20000 }, (_, i) => `k${String(i + 1).padStart(5, '0')}${'x'.repeat((i + 1) % 20)}`).concat(['é', '', 'a'.repeat(32), 'a'.repeat(33)]);
    expect(run(code, null)).toEqual(want);
    expect(run(code, null)).toEqual(want);
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
