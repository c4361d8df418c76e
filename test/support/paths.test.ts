import nodePath from 'node:path';
import { describe, expect, it } from 'vitest';
import { relativeKeyProblem, relativeToCwd } from '../../src/support/paths.ts';

describe('relativeToCwd', () => {
  const cwd = nodePath.resolve('/home/user/project');
  it('shows a path inside cwd relative to it, with / separators', () => {
    expect(relativeToCwd(nodePath.join(cwd, 'a', 'b.aip'), cwd)).toBe('a/b.aip');
    expect(relativeToCwd(cwd, cwd)).toBe('.');
  });
  it('keeps the absolute path of anything outside cwd, never ../', () => {
    expect(relativeToCwd(nodePath.resolve('/home/user/other/x.aip'), cwd)).toBe(nodePath.resolve('/home/user/other/x.aip'));
    expect(relativeToCwd(nodePath.resolve('/work'), cwd)).toBe(nodePath.resolve('/work'));
  });
  it('takes a name that only starts with two dots as inside', () => {
    expect(relativeToCwd(nodePath.join(cwd, '..notes', 'x'), cwd)).toBe('..notes/x');
  });
});

describe('relativeKeyProblem', () => {
  it('accepts a path that stays below its root as written', () => {
    for (const key of ['a.md', 'src/a.ts', './x', 'a/./b', '..a/b..', 'a..b']) expect(relativeKeyProblem(key)).toBeUndefined();
  });
  it('refuses absolute paths, any separator or drive, and .. segments', () => {
    for (const key of ['/etc/passwd', '\\etc', 'C:/x', 'c:x', '..', '../x', 'a/../../x', 'a\\..\\x']) {
      expect(relativeKeyProblem(key)).toBe('expected a workspace-relative path (no leading /, no ..)');
    }
  });
  it('refuses an empty key and one holding NUL', () => {
    expect(relativeKeyProblem('')).toMatch(/empty name or a NUL byte/);
    expect(relativeKeyProblem('a\0b')).toMatch(/empty name or a NUL byte/);
  });
});
