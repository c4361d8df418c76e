import fs from 'node:fs';
import nodePath from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { fileAccess } from '../../src/aip/file-access.ts';
import { fileList } from '../../src/aip/file-list.ts';
import { fileOps } from '../../src/aip/file-ops.ts';
import { LuaError, LuaMulti } from '../../src/engine/values.ts';
import { useFileWorkspace, type HostFns } from '../helpers/file-workspace.ts';
import { makeStageEnv } from '../helpers/stage-env.ts';
import { withArgChecks } from '../../src/aip/arg-checks.ts';

const w = useFileWorkspace();
let env: typeof w.env;
let ws: string;
let root: string;
let f: HostFns;
const diskState = () => w.diskState();
const paths = (list: { path: string }[]) => list.map((x) => x.path);

beforeEach(() => {
  env = w.env;
  ws = w.ws;
  root = w.root;
  const access = fileAccess(env);
  // list observes what the operations did
  // behind the namespace's argument checks, as file.ts hands them out
  f = withArgChecks('file', { ...fileOps(access), ...fileList(access) }) as HostFns;
});

describe('aip.file.load', () => {
  it('returns a FileRecord with the path as given and times in microseconds', () => {
    const rec = f.load('./src/main.ts');
    const st = fs.statSync(nodePath.join(ws, 'src', 'main.ts'));
    expect(rec).toMatchObject({
      _type: 'FileRecord',
      path: './src/main.ts',
      dir: './src',
      name: 'main.ts',
      stem: 'main',
      ext: 'ts',
      size: st.size,
      content: 'console.log(1);\n',
      is_likely_text: true,
    });
    expect(rec.mtime).toBe(Math.round(st.mtimeMs * 1000));
    expect(Number.isInteger(rec.ctime)).toBe(true);
  });

  it('resolves against base_dir (relative or pack ref)', () => {
    expect(f.load('util.ts', { base_dir: 'src/lib' }).content).toBe('export const x = 1;\n');
    expect(f.load('main.aip', { base_dir: 'demo@proof' })).toMatchObject({ path: 'main.aip', content: '# Data' });
    expect(f.load('demo@proof/doc/guide.md').content).toBe('guide');
  });

  it('raises for missing files and directories', () => {
    expect(() => f.load('nope.md')).toThrow(/aip.file.load - Fail to read file 'nope.md' \(resolved to '.*nope.md'\): file not found/);
    expect(() => f.load('src')).toThrow(/it is a directory/);
  });

  it('marks binary content as not likely text', () => {
    env.vfs.writeFile(nodePath.join(ws, 'data.dat'), new Uint8Array([1, 0, 2]));
    expect(f.load('data.dat').is_likely_text).toBe(false);
  });
});

describe('aip.file.save / append / delete keep the disk untouched', () => {
  it('writes only to the overlay, traces, and returns a FileInfo', () => {
    const before = diskState();
    const info = f.save('./notes/../notes/a.md', 'hello');
    expect(info).toMatchObject({ _type: 'FileInfo', path: 'notes/a.md', dir: 'notes', name: 'a.md', size: 5 });
    expect(typeof info.mtime).toBe('number');
    expect(f.append('notes/a.md', ' world').size).toBe(11);
    expect(f.load('notes/a.md').content).toBe('hello world');
    expect(f.delete('README.md')).toBe(true);
    expect(f.delete('README.md')).toBe(false);
    expect(f.exists('README.md')).toBe(false);

    expect(diskState()).toEqual(before);
    expect(env.vfs.changes()).toEqual({ created: ['notes/a.md'], changed: [], deleted: ['README.md'] });
    expect(env.trace.of('file').map((e) => [e.op, e.path])).toEqual([
      ['write', 'notes/a.md'],
      ['append', 'notes/a.md'],
      ['delete', 'README.md'],
    ]);
  });

  it('applies save options in order: trim_start, trim_end, single_trailing_newline', () => {
    f.save('a.txt', '   Leading.\n', { trim_start: true });
    expect(f.load('a.txt').content).toBe('Leading.\n');
    f.save('b.txt', 'Content.   \n\t', { trim_end: true });
    expect(f.load('b.txt').content).toBe('Content.');
    f.save('c.txt', 'Multi\n\n\n', { single_trailing_newline: true });
    expect(f.load('c.txt').content).toBe('Multi\n');
    f.save('d.txt', 'None', { single_trailing_newline: true });
    expect(f.load('d.txt').content).toBe('None\n');
    f.save('e.txt', '   All.  \n\n', { trim_start: true, trim_end: true, single_trailing_newline: true });
    expect(f.load('e.txt').content).toBe('All.\n');
    f.save('f.txt', 'x', []); // an empty Lua table arrives as []
    expect(f.load('f.txt').content).toBe('x');
  });

  it('refuses to save outside the workspace, with the AIPack message', () => {
    const outsideAbs = nodePath.join(root, 'evil.txt');
    const msg =
      `Save file protection - The path \`../evil.txt\` does not belong to the workspace dir \`${ws}\` or to the .aipack-base.\n` +
      'Cannot save file out of workspace or aipack base at this point';
    expect(() => f.save(outsideAbs, 'x')).toThrow(new LuaError(msg));
    expect(() => f.save('../evil.txt', 'x')).toThrow(new LuaError(msg));
    expect(() => f.save('src/../../evil.txt', 'x')).toThrow(new LuaError(msg));
    expect(() => f.append('../evil.txt', 'x')).toThrow(/Save file protection/);
    expect(() => f.save('/etc/passwd', 'x')).toThrow(/Save file protection - The path `\.\.\/.*etc\/passwd`/);
    expect(() => f.save('~/x.txt', 'x')).toThrow(/Save file protection/);
    expect(() => f.ensure_exists('../e.txt')).toThrow(/Save file protection/);
    expect(() => f.ensure_dir('../d')).toThrow(/Save file protection/);
    expect(() => f.save_changes('../c.txt', 'x')).toThrow(/Save file protection/);
    expect(fs.existsSync(outsideAbs)).toBe(false);
    expect(env.vfs.readFile(outsideAbs)).toBeUndefined();
  });

  it('allows saving to the simulated .aipack-base, which never reaches the disk', () => {
    const info = f.save('demo@proof$base/cache/x.txt', 'cached');
    expect(info.path).toBe('~/.aipack-base/support/pack/demo/proof/cache/x.txt');
    expect(f.load('~/.aipack-base/support/pack/demo/proof/cache/x.txt').content).toBe('cached');
    env.vfs.commit();
    expect(fs.existsSync(env.dirs.home)).toBe(false);
  });

  it('refuses deletes outside the workspace and in .aipack-base', () => {
    fs.writeFileSync(nodePath.join(root, 'keep.txt'), 'keep');
    expect(() => f.delete('../keep.txt')).toThrow(
      new LuaError(
        `Delete file protection - The path \`../keep.txt\` does not belong to the workspace dir \`${ws}\`.\n` +
          'Cannot delete files outside the workspace',
      ),
    );
    f.save('~/.aipack-base/x.txt', 'x');
    expect(() => f.delete('~/.aipack-base/x.txt')).toThrow(
      new LuaError('Delete file protection - Deleting files from the `.aipack-base` folder is not allowed'),
    );
    expect(fs.readFileSync(nodePath.join(root, 'keep.txt'), 'utf8')).toBe('keep');
  });

  it('refuses a directory before 0.8.14, then removes it whole as AIPack trashes it (files deleted on commit)', () => {
    const old = fileOps(fileAccess(makeStageEnv(ws, { aipackVersion: '0.8.13' }))) as HostFns;
    expect(() => old.delete('src')).toThrow(/aip.file.delete - Cannot delete 'src': it is a directory/);

    expect(f.delete('src/lib')).toBe(true);
    expect(f.exists('src/lib')).toBe(false);
    expect(f.exists('src/lib/util.ts')).toBe(false);
    expect(paths(f.list('src/**/*.ts'))).toEqual(['src/main.ts']);
    expect(f.delete('src/lib')).toBe(false);
    expect(() => f.delete('.')).toThrow(/Delete file protection \(simulator\) - '\.' is the workspace dir/);
    // it can be made again, holding only what is written now
    f.save('src/lib/new.ts', 'new');
    expect(paths(f.list('src/lib/**/*.*'))).toEqual(['src/lib/new.ts']);
    env.vfs.commit();
    expect(Object.keys(diskState()).filter((p) => p.startsWith('src/'))).toEqual(['src/lib/new.ts', 'src/main.ts']);
  });

  it('raises for a non-string content', () => {
    expect(() => f.save('a.txt', undefined)).toThrow(new LuaError("aip.file.save: expected 'content' to be a string, got nil"));
  });
});

describe('aip.file.copy / move', () => {
  it('copies and moves files in the overlay', () => {
    expect(f.copy('README.md', 'docs/README.md')).toMatchObject({ path: 'docs/README.md', size: 9 });
    expect(f.move('docs/README.md', 'docs/INDEX.md').path).toBe('docs/INDEX.md');
    expect(f.exists('docs/README.md')).toBe(false);
    expect(f.load('docs/INDEX.md').content).toBe('# Readme\n');
    expect(env.trace.of('file').map((e) => [e.op, e.path])).toEqual([
      ['copy', 'docs/README.md'],
      ['move', 'docs/INDEX.md'],
    ]);
  });

  it('refuses to overwrite unless asked', () => {
    expect(() => f.copy('README.md', 'src/main.ts')).toThrow(
      new LuaError(
        'Copy file failed - Destination `src/main.ts` already exists and overwrite is set to false.\n' +
          'Use `aip.file.copy(src_path, dst_path,{overwrite = true}` to allow overwrite.',
      ),
    );
    expect(() => f.move('README.md', 'src/main.ts')).toThrow(/Move file failed - Destination `src\/main.ts` already exists/);
    f.copy('README.md', 'src/main.ts', { overwrite: true });
    expect(f.load('src/main.ts').content).toBe('# Readme\n');
  });

  it('checks the move source (delete rule) and destination (write rule)', () => {
    expect(() => f.move('missing.md', 'x.md')).toThrow(new LuaError('Move file failed - Source `missing.md` does not exist'));
    expect(() => f.move('README.md', '../x.md')).toThrow(/Save file protection/);
    fs.writeFileSync(nodePath.join(root, 'out.md'), 'o');
    expect(() => f.move('../out.md', 'in.md')).toThrow(/Delete file protection/);
    expect(f.copy('../out.md', 'in.md').path).toBe('in.md'); // reads are unrestricted
    expect(() => f.copy('missing.md', 'x.md')).toThrow(/Fail to open source file `missing.md` for copy/);
  });
});

describe('aip.file.exists / info / ensure_exists / ensure_dir', () => {
  it('exists sees files and dirs, and is false on unresolvable paths', () => {
    expect(f.exists('src')).toBe(true);
    expect(f.exists('./src/lib/util.ts')).toBe(true);
    expect(f.exists('demo@proof/main.aip')).toBe(true);
    expect(f.exists('nope@missing/file.txt')).toBe(false);
  });

  it('info is nil for nil, blank, dirs and missing files', () => {
    expect(f.info(undefined)).toBeUndefined();
    expect(f.info('  ')).toBeUndefined();
    expect(f.info('src')).toBeUndefined();
    expect(f.info('nope.txt')).toBeUndefined();
    expect(f.info('./README.md')).toMatchObject({ _type: 'FileInfo', path: './README.md', name: 'README.md', size: 9 });
  });

  it('ensure_exists creates once, and refills empty files only when asked', () => {
    expect(f.ensure_exists('new/file.md', 'first').path).toBe('new/file.md');
    f.ensure_exists('new/file.md', 'second');
    expect(f.load('new/file.md').content).toBe('first');
    f.save('blank.md', '  \n');
    f.ensure_exists('blank.md', 'filled');
    expect(f.load('blank.md').content).toBe('  \n');
    f.ensure_exists('blank.md', 'filled', { content_when_empty: true });
    expect(f.load('blank.md').content).toBe('filled');
    expect(f.ensure_exists('empty.md').size).toBe(0);
  });

  it('ensure_dir tells whether it created the dir', () => {
    expect(f.ensure_dir('a/b/c')).toBe(true);
    expect(f.ensure_dir('a/b/c')).toBe(false);
    expect(f.ensure_dir('src')).toBe(false);
    expect(() => f.ensure_dir('README.md')).toThrow(/already exists and is not a directory/);
    expect(env.vfs.isDir(nodePath.join(ws, 'a', 'b', 'c'))).toBe(true);
  });
});

describe('aip.file.save_changes', () => {
  const call = (p: string, changes: string) => (f.save_changes(p, changes) as LuaMulti).values as [Record<string, unknown>, unknown];

  it('writes the text as is for a missing file', () => {
    const [info, changes] = call('new.ts', 'const a = 1;\n');
    expect(info).toMatchObject({ _type: 'FileInfo', path: 'new.ts', size: 13 });
    expect(changes).toEqual({ changed_count: 1 });
    expect(f.load('new.ts').content).toBe('const a = 1;\n');
  });

  it('replaces the whole content when there is no SEARCH line', () => {
    const [, changes] = call('src/main.ts', 'whole new\n');
    expect(changes).toEqual({ changed_count: 1 });
    expect(f.load('src/main.ts').content).toBe('whole new\n');
  });

  it('applies blocks in order to the first occurrence, collecting misses', () => {
    f.save('x.ts', 'a\nb\nc\nb\n');
    const changes = [
      '<<<<<<< SEARCH',
      'b',
      '=======',
      'B',
      '>>>>>>> REPLACE',
      '',
      '<<<<<<< SEARCH',
      'B',
      'c',
      '=======',
      'C',
      '>>>>>>> REPLACE',
      '<<<<<<< SEARCH',
      'zzz',
      '=======',
      'y',
      '>>>>>>> REPLACE',
    ].join('\n');
    const [info, res] = call('x.ts', changes);
    expect(f.load('x.ts').content).toBe('a\nC\nb\n');
    expect(res).toEqual({
      changed_count: 2,
      failed_changes: [{ search: 'zzz', replace: 'y', reason: 'Search block not found in content' }],
    });
    expect(info.path).toBe('x.ts');
    expect(env.trace.of('file').at(-1)).toMatchObject({ op: 'write', path: 'x.ts' });
  });

  it('raises on malformed text outside blocks and on unterminated blocks', () => {
    f.save('m.ts', 'a\n');
    expect(() => call('m.ts', 'stray\n<<<<<<< SEARCH\na\n=======\nb\n>>>>>>> REPLACE\n')).toThrow(
      /aip.file.save_changes - Malformed change blocks for 'm.ts' at line 1: text outside a '<<<<<<< SEARCH' ... '>>>>>>> REPLACE' block: 'stray'/,
    );
    expect(() => call('m.ts', '<<<<<<< SEARCH\na\n=======\nb\n')).toThrow(/unterminated block, expected '>>>>>>> REPLACE'/);
    expect(f.load('m.ts').content).toBe('a\n');
  });

  it('keeps everything in the overlay', () => {
    const before = diskState();
    call('src/main.ts', '<<<<<<< SEARCH\nconsole.log(1);\n=======\nconsole.log(2);\n>>>>>>> REPLACE');
    expect(f.load('src/main.ts').content).toBe('console.log(2);\n');
    expect(diskState()).toEqual(before);
    expect(env.vfs.changes().changed).toEqual(['src/main.ts']);
  });
});
