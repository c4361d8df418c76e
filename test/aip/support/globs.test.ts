import nodePath from 'node:path';
import { describe, expect, it } from 'vitest';
import { expandGlob, globMatcher, globsArg, listFiles, sortByGlobs } from '../../../src/aip/support/globs.ts';
import { LuaError } from '../../../src/engine/values.ts';
import { useFileWorkspace } from '../../helpers/file-workspace.ts';

const w = useFileWorkspace();
const list = (globs: string[], opts: Partial<Parameters<typeof listFiles>[2]> = {}) =>
  listFiles(w.env.vfs, globs, { baseDir: w.ws, ...opts }).map((f) => f.path);

describe('listFiles', () => {
  it('skips the special folders and always-excluded names unless asked otherwise', () => {
    expect(list(['**/*'])).toEqual(['README.md', 'src/lib/util.ts', 'src/main.ts']);
    expect(list(['node_modules/**/*.ts'])).toEqual(['node_modules/dep/index.ts']);
    expect(list(['src/lib/*'], { defaultExcludes: false })).toEqual(['src/lib/.DS_Store', 'src/lib/util.ts', 'src/lib/util.ts.swp']);
  });

  it('orders by the last glob that lists a file, then by path; ! globs exclude', () => {
    expect(list(['src/**/*.ts', '**/main.ts', 'README.md'])).toEqual(['src/lib/util.ts', 'src/main.ts', 'README.md']);
    expect(list(['**/*.ts', '!src/lib/**'])).toEqual(['src/main.ts']);
  });

  it('gives absolute paths when asked, and refuses globs going up', () => {
    expect(list(['*.md'], { absolute: true })).toEqual([nodePath.join(w.ws, 'README.md')]);
    expect(() => list(['../x/*'])).toThrow(/Glob '..\/x\/\*' starting with '..\/'/);
  });
});

describe('glob arguments', () => {
  it('globsArg takes a string or a list of strings', () => {
    expect(globsArg('*.ts', 'f')).toEqual(['*.ts']);
    expect(() => globsArg([1], 'f')).toThrow(new LuaError("f: expected 'globs' to be a string or a list of strings, got table"));
  });

  it('globMatcher names a refused glob', () => {
    expect(globMatcher('a/*')('a/b')).toBe(true);
    expect(() => globMatcher('{a')).toThrow("Invalid glob '{a': unclosed alternation: '{' without '}'");
  });

  it('expandGlob resolves ~/, pack refs and $tmp, and leaves other globs alone', () => {
    const env = w.env;
    expect(expandGlob(env, '~/n/*.md')).toBe(`${env.dirs.home}/n/*.md`);
    expect(expandGlob(env, 'demo@proof/**/*.md')).toBe(nodePath.join(w.ws, '.aipack/pack/custom/demo/proof') + '/**/*.md');
    expect(expandGlob(env, '$tmp/*.txt')).toBe(`${env.dirs.tmp}/*.txt`);
    expect(expandGlob(env, 'no@such/*.md')).toBe('no@such/*.md');
    expect(expandGlob(env, '.aipack/.prompt/pro@coder/*.md')).toBe('.aipack/.prompt/pro@coder/*.md');
  });
});

describe('sortByGlobs', () => {
  it('ranks by first matching glob (last when end-weighted), unmatched at the end or start', () => {
    const items = ['b.md', 'a.ts', './c.ts', 'z.txt'];
    expect(sortByGlobs(items, (x) => x, ['*.ts', '*.md'])).toEqual(['./c.ts', 'a.ts', 'b.md', 'z.txt']);
    expect(sortByGlobs(items, (x) => x, ['*', '*.ts'], { endWeighted: true })).toEqual(['b.md', 'z.txt', './c.ts', 'a.ts']);
    expect(sortByGlobs(items, (x) => x, ['*.md'], { noMatchPosition: 'start' })).toEqual(['./c.ts', 'a.ts', 'z.txt', 'b.md']);
  });
});
