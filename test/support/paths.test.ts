import nodePath from 'node:path';
import { describe, expect, it } from 'vitest';
import { relativeToCwd } from '../../src/support/paths.ts';

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
