import { describe, expect, it } from 'vitest';
import { formatRustFloat } from '../../../src/aip/support/rust-float.ts';

describe('formatRustFloat', () => {
  it('writes floats as Rust Display does: no exponent, no trailing .0', () => {
    expect([3, 0.5, -2.25, 1e20, 1.5e-7, 123456.789].map(formatRustFloat)).toEqual([
      '3', '0.5', '-2.25', '100000000000000000000', '0.00000015', '123456.789',
    ]);
    expect([0, -0, NaN, Infinity, -Infinity].map(formatRustFloat)).toEqual(['0', '-0', 'NaN', 'inf', '-inf']);
    expect(formatRustFloat(0.1 + 0.2)).toBe('0.30000000000000004');
  });
});
