import { describe, expect, it } from 'vitest';
import { int64 } from '../../src/engine/wasmoon-int64.ts';

describe('int64', () => {
  it('is BigInt(n) for every integer, inside the made-once range and out of it', () => {
    for (const n of [0, 1, 2, 100, 4095, 4096, 4097, -1, -4096, 2 ** 31, 2 ** 53 - 1, -(2 ** 53 - 1)]) expect(int64(n)).toBe(BigInt(n));
  });
});
