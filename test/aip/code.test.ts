import { describe, expect, it } from 'vitest';
import { code } from '../../src/aip/code.ts';
import type { StageEnv } from '../../src/aip/types.ts';

const c = code({} as StageEnv) as Record<string, (...args: unknown[]) => unknown>;

describe('aip.code.comment_line', () => {
  it('knows only lua/sql, html, css/pcss and py; everything else is //', () => {
    expect(c.comment_line('py', 'Add validation')).toBe('# Add validation');
    expect(c.comment_line('pcss', 'x')).toBe('/* x */');
    expect(c.comment_line('yaml', 'x')).toBe('// x');
    expect(c.comment_line('md', 'x')).toBe('// x');
  });
  it('is case-insensitive and trimmed, but a leading dot is not stripped', () => {
    expect(c.comment_line(' PY ', 'x')).toBe('# x');
    expect(c.comment_line('.lua', 'x')).toBe('// x');
  });
  it('requires strings', () => {
    expect(() => c.comment_line(undefined, 'x')).toThrow(/aip\.code\.comment_line: expected 'lang_ext' to be a string, got nil/);
  });
});
