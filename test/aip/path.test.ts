import fs from 'node:fs';
import os from 'node:os';
import nodePath from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { path as pathNs } from '../../src/aip/path.ts';
import { LuaError, LuaMulti } from '../../src/engine/values.ts';
import { makeStageEnv, type TestStageEnv } from '../helpers/stage-env.ts';

let ws: string;
let env: TestStageEnv;
let p: Record<string, (...args: any[]) => any>;

beforeEach(() => {
  ws = fs.mkdtempSync(nodePath.join(os.tmpdir(), 'aip-path-'));
  fs.mkdirSync(nodePath.join(ws, 'src'));
  fs.writeFileSync(nodePath.join(ws, 'src', 'main.rs'), 'fn main() {}');
  fs.mkdirSync(nodePath.join(ws, '.aipack', 'pack', 'custom', 'demo', 'proof'), { recursive: true });
  fs.writeFileSync(nodePath.join(ws, '.aipack', 'pack', 'custom', 'demo', 'proof', 'main.aip'), '# Before All');
  env = makeStageEnv(ws);
  p = pathNs(env) as Record<string, (...args: any[]) => any>;
});

afterEach(() => {
  fs.rmSync(ws, { recursive: true, force: true });
});

const values = (m: unknown) => (m as LuaMulti).values;

describe('aip.path.split (docs/aipack.md section 7.3 examples)', () => {
  it.each([
    ['some/path/to_file.md', 'some/path', 'to_file.md'],
    ['justafile.md', '', 'justafile.md'],
    ['/file_at_root', '/', 'file_at_root'],
    ['trailing/slash/', 'trailing', 'slash'],
    ['folder/file.txt', 'folder', 'file.txt'],
  ])('split(%j) -> (%j, %j)', (input, parent, name) => {
    expect(values(p.split(input))).toEqual([parent, name]);
  });

  it('raises for a non-string path', () => {
    expect(() => p.split(undefined)).toThrow(new LuaError("aip.path.split: expected 'path' to be a string, got nil"));
  });
});

describe('aip.path.parent (Rust Path::parent)', () => {
  it.each([
    ['./sub/file.txt', './sub'],
    ['./sub/', '.'],
    ['./', ''],
    ['.', ''],
    ['file.txt', ''],
    ['some/path/file.txt', 'some/path'],
    ['/root/file', '/root'],
    ['./sub-dir', '.'],
  ])('parent(%j) == %j', (input, expected) => {
    expect(p.parent(input)).toBe(expected);
  });

  it('is nil for "/" and ""', () => {
    expect(p.parent('/')).toBeUndefined();
    expect(p.parent('')).toBeUndefined();
  });
});

describe('aip.path.join quirks', () => {
  it.each<[unknown[], string]>([
    [['a', 'b', 'c'], 'a/bc'],
    [['a/', 'b/', 'c/'], 'a/b/c/'],
    [['./', ['my-dir', 'file.txt']], './my-dir/file.txt'],
    [['', ['my-dir/', '//file.txt']], 'my-dir/file.txt'],
    [['', ['my-dir//', '///file.txt']], 'my-dir/file.txt'],
    [['dir1/', 'file1.txt'], 'dir1/file1.txt'],
    [['dir1', 'file1.txt'], 'dir1/file1.txt'],
    [['dir1/', ['subdir', 'file2.txt']], 'dir1/subdir/file2.txt'],
    [['dir1/', 'subdir/', 'file3.txt'], 'dir1/subdir/file3.txt'],
    [['dir1/', 'subdir', 'file3.txt'], 'dir1/subdirfile3.txt'],
    [['root/', ['user', 'docs'], 'projectA', ['report', 'final.pdf']], 'root/user/docsprojectAreport/final.pdf'],
  ])('join(%j) == %j', (args, expected) => {
    expect(p.join(...args)).toBe(expected);
  });

  it('raises on a part that is neither a string nor a string list', () => {
    expect(() => p.join('a', true)).toThrow(/aip.path.join: expected part 1 to be a string or a list of strings, got boolean/);
    expect(() => p.join(undefined, 'x')).toThrow(/aip.path.join: expected 'base' to be a string, got nil/);
  });
});

describe('aip.path.diff', () => {
  it.each([
    ['/a/b/c/file.txt', '/a/b/', 'c/file.txt'],
    ['/a/b/', '/a/b/c/file.txt', '../..'],
    ['/a/b/c', '/a/d/e', '../../b/c'],
    ['folder/file.txt', 'folder', 'file.txt'],
    ['folder/file.txt', 'folder/file.txt', ''],
    ['rel/x', '/abs', ''],
  ])('diff(%j, %j) == %j', (file, base, expected) => {
    expect(p.diff(file, base)).toBe(expected);
  });

  it('expands ~ on both sides', () => {
    expect(p.diff('~/notes/a.md', env.dirs.home)).toBe('notes/a.md');
  });
});

describe('aip.path.resolve', () => {
  it('resolves relative paths against the workspace, collapsing ..', () => {
    expect(p.resolve('src/../src/./main.rs')).toBe(nodePath.join(ws, 'src', 'main.rs'));
    expect(p.resolve('./')).toBe(ws);
    expect(p.resolve('../x')).toBe(nodePath.join(nodePath.dirname(ws), 'x'));
  });

  it('keeps absolute paths, expands ~ and $tmp', () => {
    expect(p.resolve('/etc/../etc/hosts')).toBe('/etc/hosts');
    expect(p.resolve('~/a/b')).toBe(nodePath.join(env.dirs.home, 'a', 'b'));
    expect(p.resolve('~')).toBe(env.dirs.home);
    expect(p.resolve('$tmp/x.txt')).toBe(nodePath.join(env.dirs.tmp, 'x.txt'));
  });

  it('resolves pack refs and their support dirs', () => {
    expect(p.resolve('demo@proof/main.aip')).toBe(nodePath.join(ws, '.aipack', 'pack', 'custom', 'demo', 'proof', 'main.aip'));
    expect(p.resolve('demo@proof')).toBe(nodePath.join(ws, '.aipack', 'pack', 'custom', 'demo', 'proof'));
    expect(p.resolve('demo@proof$base/extra/t.txt')).toBe(nodePath.join(env.dirs.baseAipack, 'support', 'pack', 'demo', 'proof', 'extra', 't.txt'));
    expect(p.resolve('demo@proof$workspace/x')).toBe(nodePath.join(ws, '.aipack', 'support', 'pack', 'demo', 'proof', 'x'));
  });

  it('raises for packs that are not installed and for invalid refs', () => {
    expect(() => p.resolve('nope@missing/x')).toThrow(/Cannot resolve path 'nope@missing\/x': pack 'nope@missing' is not installed/);
    expect(() => p.resolve('notes/me@home.md')).toThrow(/namespace 'notes\/me' must match/);
    expect(() => p.resolve('demo@proof/../../x')).toThrow(/'\.\.' and '\$' are not allowed in the sub path/);
    expect(() => p.resolve('demo@proof$other/x')).toThrow(/scope must be \$base or \$workspace/);
  });

  it('does not treat ./ paths with @ as pack refs', () => {
    expect(p.resolve('./me@home.md')).toBe(nodePath.join(ws, 'me@home.md'));
  });
});

describe('aip.path.exists / is_file / is_dir', () => {
  it('see the overlay, not only the disk', () => {
    env.vfs.writeFile(nodePath.join(ws, 'virtual', 'v.txt'), 'v');
    env.vfs.deleteFile(nodePath.join(ws, 'src', 'main.rs'));
    expect(p.exists('virtual/v.txt')).toBe(true);
    expect(p.is_file('virtual/v.txt')).toBe(true);
    expect(p.is_dir('virtual')).toBe(true);
    expect(p.exists('src/main.rs')).toBe(false);
    expect(p.is_dir('src')).toBe(true);
    expect(p.is_file('src')).toBe(false);
    expect(p.exists('./src/../src')).toBe(true);
    expect(p.exists('demo@proof/main.aip')).toBe(true);
  });

  it('answer false when the path cannot be resolved', () => {
    expect(p.exists('nope@missing/x')).toBe(false);
    expect(p.is_file('nope@missing/x')).toBe(false);
    expect(p.is_dir('nope@missing')).toBe(false);
  });
});

describe('aip.path.matches_glob', () => {
  it('matches with globset-like semantics', () => {
    expect(p.matches_glob('src/main.rs', '**/*.rs')).toBe(true);
    expect(p.matches_glob('README.md', ['*.md', '*.txt'])).toBe(true);
    expect(p.matches_glob('image.png', ['*.jpg', '*.gif'])).toBe(false);
    expect(p.matches_glob('src/a/b.ts', 'src/*.ts')).toBe(false);
    expect(p.matches_glob('src/.hidden.ts', 'src/*.ts')).toBe(true);
    expect(p.matches_glob('docs/x.md', '{docs,src}/*.md')).toBe(true);
    expect(p.matches_glob('x.md', '')).toBe(false);
    expect(p.matches_glob('x.md', [])).toBe(false);
  });

  it('is nil for a nil path', () => {
    expect(p.matches_glob(undefined, '*.rs')).toBeUndefined();
  });
});

describe('aip.path.parse', () => {
  it('builds a FileInfo without touching the file system', () => {
    expect(p.parse('some/folder/file.txt')).toEqual({
      _type: 'FileInfo',
      path: 'some/folder/file.txt',
      dir: 'some/folder',
      name: 'file.txt',
      stem: 'file',
      ext: 'txt',
      is_likely_text: true,
    });
    expect(p.parse('archive.tar.gz')).toMatchObject({ stem: 'archive.tar', ext: 'gz', dir: '', is_likely_text: false });
    expect(p.parse('.bashrc')).toMatchObject({ name: '.bashrc', stem: '.bashrc', ext: '' });
    expect(p.parse(undefined)).toBeUndefined();
  });
});

describe('aip.path.sort_by_globs', () => {
  const files = ['src/main.rs', 'README.md', 'src/lib.rs', 'Cargo.toml'];

  it('orders by first matching glob, then path; unmatched at the end, by path too (simple_fs)', () => {
    expect(p.sort_by_globs(files, ['*.toml', '*.md'])).toEqual(['Cargo.toml', 'README.md', 'src/lib.rs', 'src/main.rs']);
    expect(p.sort_by_globs(files, ['**/*.rs', '*.toml'])).toEqual(['src/lib.rs', 'src/main.rs', 'Cargo.toml', 'README.md']);
  });

  it('puts unmatched first with "start"', () => {
    expect(p.sort_by_globs(files, ['*.toml'], 'start')).toEqual(['README.md', 'src/lib.rs', 'src/main.rs', 'Cargo.toml']);
  });

  it('ranks by the last matching glob when end-weighted', () => {
    const items = ['src/main.rs', 'src/lib.rs'];
    expect(p.sort_by_globs(items, ['src/main.rs', 'src/*.rs'])).toEqual(['src/main.rs', 'src/lib.rs']);
    expect(p.sort_by_globs(items, ['src/main.rs', 'src/*.rs'], true)).toEqual(['src/lib.rs', 'src/main.rs']);
    expect(p.sort_by_globs(items, ['src/main.rs', 'src/*.rs'], { end_weighted: true })).toEqual(['src/lib.rs', 'src/main.rs']);
  });

  it('sorts tables by their path', () => {
    const infos = [{ path: 'b.md' }, { path: 'a.toml' }, { path: 'a.md' }];
    expect(p.sort_by_globs(infos, ['*.md'])).toEqual([{ path: 'a.md' }, { path: 'b.md' }, { path: 'a.toml' }]);
    expect(() => p.sort_by_globs([{ name: 'x' }], '*')).toThrow(/each file must be a string or a table with a string 'path'/);
    expect(() => p.sort_by_globs(files, '*', 'middle')).toThrow(/must be 'start' or 'end', got 'middle'/);
  });
});
