import { describe, expect, it } from 'vitest';
import { code } from '../../src/aip/code.ts';
import type { StageEnv } from '../../src/aip/types.ts';

const c = code({} as StageEnv) as Record<string, (...args: unknown[]) => unknown>;

describe('aip.code.comment_line', () => {
  it('uses the comment syntax of the extension', () => {
    expect(c.comment_line('rs', 'TODO: Refactor')).toBe('// TODO: Refactor');
    expect(c.comment_line('ts', 'file: src/a.ts')).toBe('// file: src/a.ts');
    expect(c.comment_line('py', 'Add validation')).toBe('# Add validation');
    expect(c.comment_line('yaml', 'x')).toBe('# x');
    expect(c.comment_line('lua', 'Fix this later')).toBe('-- Fix this later');
    expect(c.comment_line('sql', 'x')).toBe('-- x');
    expect(c.comment_line('html', 'Main content')).toBe('<!-- Main content -->');
    expect(c.comment_line('md', 'x')).toBe('<!-- x -->');
    expect(c.comment_line('css', 'x')).toBe('/* x */');
  });
  it('is case-insensitive, accepts a leading dot, and falls back to //', () => {
    expect(c.comment_line('PY', 'x')).toBe('# x');
    expect(c.comment_line('.lua', 'x')).toBe('-- x');
    expect(c.comment_line('unknownext', 'x')).toBe('// x');
  });
  it('requires strings', () => {
    expect(() => c.comment_line(undefined, 'x')).toThrow(/aip\.code\.comment_line: expected 'lang_ext' to be a string, got nil/);
  });
});
