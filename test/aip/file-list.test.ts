import fs from 'node:fs';
import nodePath from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { fileAccess } from '../../src/aip/file-access.ts';
import { fileList } from '../../src/aip/file-list.ts';
import { fileOps } from '../../src/aip/file-ops.ts';
import { LuaError } from '../../src/engine/values.ts';
import { useFileWorkspace, type HostFns } from '../helpers/file-workspace.ts';
import { makeStageEnv } from '../helpers/stage-env.ts';

const w = useFileWorkspace();
let env: typeof w.env;
let ws: string;
let f: HostFns;
const put = (rel: string, content: string) => w.put(rel, content);
const paths = (list: { path: string }[]) => list.map((x) => x.path);

beforeEach(() => {
  env = w.env;
  ws = w.ws;
  const access = fileAccess(env);
  f = { ...fileOps(access), ...fileList(access) } as HostFns;
});

describe('aip.file.list', () => {
  it('applies the default excludes and the always-excluded files', () => {
    expect(paths(f.list('**/*.ts'))).toEqual(['src/lib/util.ts', 'src/main.ts']);
    expect(paths(f.list('**/*'))).toEqual(['README.md', 'src/lib/util.ts', 'src/main.ts']);
  });

  it('lifts an exclude when an include glob names the folder', () => {
    expect(paths(f.list(['**/*.ts', 'node_modules/**/*.ts']))).toEqual(['src/lib/util.ts', 'src/main.ts', 'node_modules/dep/index.ts']);
    expect(paths(f.list('target/**/*.ts'))).toEqual(['target/debug/out.ts']);
    expect(paths(f.list('.git/*'))).toEqual(['.git/config']);
    expect(paths(f.list('**/.aipack/**/*.md'))).toEqual(['.aipack/pack/custom/demo/proof/doc/guide.md']);
    // still excluded where not named
    expect(paths(f.list(['**/*.ts', 'target/**/*.ts']))).not.toContain('node_modules/dep/index.ts');
  });

  it('sorts by the glob that listed the file, then by path', () => {
    expect(paths(f.list(['src/*.ts', '*.md', 'src/lib/*.ts']))).toEqual(['src/main.ts', 'README.md', 'src/lib/util.ts']);
    // end-weighted: a file matched by a later glob too sorts with that later glob
    expect(paths(f.list(['src/main.ts', 'src/**/*.ts']))).toEqual(['src/lib/util.ts', 'src/main.ts']);
  });

  it('returns FileInfo with meta, relative to base_dir or absolute', () => {
    const [util] = f.list('*.ts', { base_dir: 'src/lib', with_meta: false });
    expect(util).toMatchObject({ _type: 'FileInfo', path: 'util.ts', dir: '', name: 'util.ts', size: 20 });
    expect(typeof util.mtime).toBe('number');
    expect(paths(f.list('*.ts', { base_dir: 'src', absolute: true }))).toEqual([nodePath.join(ws, 'src', 'main.ts')]);
    expect(paths(f.list(nodePath.join(ws, 'src', 'lib', '*.ts'), { base_dir: 'src/lib' }))).toEqual(['util.ts']);
    // outside the base dir: absolute even without `absolute`
    expect(paths(f.list(nodePath.join(ws, '*.md'), { base_dir: 'src' }))).toEqual([nodePath.join(ws, 'README.md')]);
  });

  it('lists pack refs, overlay files, and not deleted files', () => {
    expect(paths(f.list('demo@proof/**/*.md'))).toEqual(['.aipack/pack/custom/demo/proof/doc/guide.md']);
    expect(paths(f.list('**/*.md', { base_dir: 'demo@proof' }))).toEqual(['doc/guide.md']);
    f.save('src/virtual.ts', 'v');
    f.delete('src/main.ts');
    expect(paths(f.list('src/**/*.ts'))).toEqual(['src/lib/util.ts', 'src/virtual.ts']);
  });

  it('supports braces, literal paths and ./ prefixes', () => {
    expect(paths(f.list('{src,docs}/*.ts'))).toEqual(['src/main.ts']);
    expect(paths(f.list('./src/main.ts'))).toEqual(['src/main.ts']);
    expect(paths(f.list('src'))).toEqual([]);
  });

  it('refuses globs starting with ../', () => {
    const msg = "Glob '../*.md' starting with '../'.\nStarting glob with '../' is not supported at the moment.";
    expect(() => f.list('../*.md')).toThrow(new LuaError(msg));
    expect(() => f.list('./../x')).toThrow(/starting with '\.\.\/'/);
    expect(() => f.list(undefined)).toThrow(/aip.file.list: expected 'globs' to be a string or a list of strings, got nil/);
  });

  it('does not walk excluded dirs', () => {
    // a listDir spy: node_modules and target must never be opened
    const opened: string[] = [];
    const listDir = env.vfs.listDir.bind(env.vfs);
    const spyEnv = makeStageEnv(ws, { vfs: { ...env.vfs, listDir: (p: string) => (opened.push(p), listDir(p)) } });
    (fileList(fileAccess(spyEnv)) as HostFns).list('**/*.ts');
    expect(opened.some((d) => d.includes('node_modules') || d.includes('target') || d.includes('.git'))).toBe(false);
    expect(opened).toContain(nodePath.join(ws, 'src', 'lib'));
  });
  it('a glob naming a file that merely starts like an excluded folder does not open that folder', () => {
    // only a glob that names the folder itself ("node_modules/") lifts its exclusion
    put('src/node_modules_shim.ts', 'shim');
    put('node_modules/dep/node_modules_shim.ts', 'dep shim');
    const opened: string[] = [];
    const listDir = env.vfs.listDir.bind(env.vfs);
    const spyEnv = makeStageEnv(ws, { vfs: { ...env.vfs, listDir: (p: string) => (opened.push(p), listDir(p)) } });
    const list = (fileList(fileAccess(spyEnv)) as HostFns).list('**/node_modules_shim.ts');
    expect(paths(list)).toEqual(['src/node_modules_shim.ts']);
    expect(opened.some((d) => d.includes(`${nodePath.sep}node_modules`))).toBe(false);
  });
});

describe('aip.file.list_load / first / stats', () => {
  it('list_load returns FileRecords', () => {
    const recs = f.list_load('src/**/*.ts');
    expect(recs.map((r: any) => [r._type, r.path, r.content])).toEqual([
      ['FileRecord', 'src/lib/util.ts', 'export const x = 1;\n'],
      ['FileRecord', 'src/main.ts', 'console.log(1);\n'],
    ]);
  });

  it('first does not apply the default excludes', () => {
    expect(f.first('**/index.ts')).toMatchObject({ path: 'node_modules/dep/index.ts' });
    expect(f.first('**/*.nothing')).toBeUndefined();
  });

  it('stats aggregates sizes and times; nil globs give nil', () => {
    const s = f.stats('src/**/*.ts');
    expect(s).toMatchObject({ _type: 'FileStats', number_of_files: 2, total_size: 16 + 20 });
    expect(s.mtime_first).toBeLessThanOrEqual(s.mtime_last);
    expect(f.stats(undefined)).toBeUndefined();
    expect(f.stats('*.nothing')).toMatchObject({ number_of_files: 0, total_size: 0, mtime_first: 0 });
  });
});
