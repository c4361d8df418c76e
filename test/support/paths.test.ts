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
  it('answers a path asked again for another cwd, or relative, for that cwd', () => {
    const file = nodePath.join(cwd, 'a', 'b.aip');
    expect(relativeToCwd(file, cwd)).toBe('a/b.aip');
    expect(relativeToCwd(file, nodePath.join(cwd, 'a'))).toBe('b.aip');
    expect(relativeToCwd(file, nodePath.resolve('/elsewhere'))).toBe(file);
    expect(relativeToCwd(file, cwd)).toBe('a/b.aip');
    // a relative path is taken from the process's cwd, which no memo of the given one may stand for
    expect(relativeToCwd('x.aip', process.cwd())).toBe('x.aip');
    expect(relativeToCwd('x.aip', nodePath.join(process.cwd(), 'sub'))).toBe('x.aip');
    expect(relativeToCwd('sub/x.aip', nodePath.join(process.cwd(), 'sub'))).toBe('x.aip');
  });
  it('keeps answering correctly past the number of paths it remembers', () => {
    for (let i = 0; i < 5000; i++) expect(relativeToCwd(nodePath.join(cwd, `f${i}`), cwd)).toBe(`f${i}`);
    expect(relativeToCwd(nodePath.join(cwd, 'f1'), cwd)).toBe('f1');
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
