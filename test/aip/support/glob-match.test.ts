import { describe, expect, it } from 'vitest';
import { compileGlob, GlobError } from '../../../src/aip/support/glob-match.ts';

const matches = (glob: string, paths: string[]) => paths.filter(compileGlob(glob));

describe('compileGlob', () => {
  it('* ? and [...] stay within a path component; dot files are not special', () => {
    expect(matches('src/*.ts', ['src/a.ts', 'src/.b.ts', 'src/x/a.ts', 'a.ts'])).toEqual(['src/a.ts', 'src/.b.ts']);
    expect(matches('a?c', ['abc', 'a/c', 'ac'])).toEqual(['abc']);
    expect(matches('[a-c]x', ['bx', 'dx', '/x'])).toEqual(['bx']);
    expect(matches('[!a]x', ['bx', 'ax'])).toEqual(['bx']);
  });

  it('** as a whole component spans components; elsewhere it is a *', () => {
    expect(matches('**/x.ts', ['x.ts', 'a/x.ts', 'a/b/x.ts', 'ax.ts'])).toEqual(['x.ts', 'a/x.ts', 'a/b/x.ts']);
    expect(matches('a/**/b', ['a/b', 'a/x/y/b', 'ab'])).toEqual(['a/b', 'a/x/y/b']);
    expect(matches('a**b', ['ab', 'axxb', 'a/b'])).toEqual(['ab', 'axxb']);
  });

  it('{a,b} alternation nests and holds wildcards; \\ escapes', () => {
    expect(matches('*.{ts,m{js,ts}}', ['a.ts', 'a.mjs', 'a.mts', 'a.js'])).toEqual(['a.ts', 'a.mjs', 'a.mts']);
    expect(matches('\\*.md', ['*.md', 'a.md'])).toEqual(['*.md']);
  });

  it('refuses unclosed or too deeply nested braces and overlong patterns', () => {
    expect(() => compileGlob('{a,b')).toThrow(new GlobError("unclosed alternation: '{' without '}'"));
    expect(() => compileGlob('{'.repeat(11) + '}'.repeat(11))).toThrow('alternations nested too deeply');
    expect(() => compileGlob('a'.repeat(5000))).toThrow(/longer than 4096/);
  });

  it('matches in linear time: a pattern that makes a backtracking matcher explode answers at once', () => {
    // counted in steps, not timed: the matcher visits each path character once per state at most
    const m = compileGlob('*a*a*a*a*a*a*a*a*b');
    expect(m('a'.repeat(2000))).toBe(false);
    expect(m('a'.repeat(20) + 'b')).toBe(true);
  });
});
