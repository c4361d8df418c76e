import { describe, expect, it } from 'vitest';
import { nextFence, rustLines, type Fence } from '../../src/support/lines.ts';

describe('rustLines', () => {
  it('splits as Rust str::lines: one CR before LF dropped, no empty last line, a bare final CR kept', () => {
    expect(rustLines('')).toEqual([]);
    expect(rustLines('a\r\nb\n')).toEqual(['a', 'b']);
    expect(rustLines('a\n\nb')).toEqual(['a', '', 'b']);
    expect(rustLines('a\r')).toEqual(['a\r']);
  });
});

describe('nextFence', () => {
  it('``` opens and closes; a fence of the other length does not close it', () => {
    const walk = (lines: string[]) => lines.reduce<Fence[]>((acc, l) => [...acc, nextFence(acc.at(-1) ?? 'out', l)], []);
    expect(walk(['```lua', 'x', '```'])).toEqual(['in3', 'in3', 'out']);
    expect(walk(['````md', '```', '```', '````'])).toEqual(['in4', 'in4', 'in4', 'out']);
    expect(walk(['```', '````', '```'])).toEqual(['in3', 'in3', 'out']);
    expect(walk([' ```', 'text'])).toEqual(['out', 'out']);
  });
});
