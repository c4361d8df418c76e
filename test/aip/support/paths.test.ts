import nodePath from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import {
  checkAccessDelete,
  checkAccessWrite,
  collapse,
  fileInfoOf,
  isPlainRelative,
  packRefDir,
  renderHome,
  resolvePackRef,
  resolvePath,
  rustFileName,
  rustParent,
} from '../../../src/aip/support/paths.ts';
import { LuaError } from '../../../src/engine/values.ts';
import { useFileWorkspace } from '../../helpers/file-workspace.ts';
import type { TestStageEnv } from '../../helpers/stage-env.ts';

const w = useFileWorkspace();
let ws: string;
let env: TestStageEnv;

beforeEach(() => {
  ws = w.ws;
  env = w.env;
});

describe('resolvePath with a base dir', () => {
  it('resolves against a base dir, itself resolved from the workspace', () => {
    expect(resolvePath(env, 'main.rs', 'src')).toBe(nodePath.join(ws, 'src', 'main.rs'));
    expect(resolvePath(env, '/abs.txt', 'src')).toBe('/abs.txt');
    expect(resolvePath(env, 'main.aip', 'demo@proof')).toBe(nodePath.join(ws, '.aipack', 'pack', 'custom', 'demo', 'proof', 'main.aip'));
  });
});

describe('packRefDir', () => {
  it('gives what resolvePackRef gives, and undefined where it raises', () => {
    expect(packRefDir(env, 'demo@proof/sub')).toBe(resolvePackRef(env, 'demo@proof/sub'));
    expect(packRefDir(env, 'demo@proof$base/x')).toBe(resolvePackRef(env, 'demo@proof$base/x'));
    for (const ref of ['.aipack/.prompt/pro@coder/', 'a@b@c', 'nope@missing']) {
      expect(packRefDir(env, ref)).toBeUndefined();
      expect(() => resolvePackRef(env, ref)).toThrow(LuaError);
    }
    expect(() => resolvePackRef(env, 'nope@missing')).toThrow(/pack 'nope@missing' is not installed/);
    expect(() => resolvePackRef(env, 'a@b@c', 'shown')).toThrow("Cannot resolve path 'shown': Invalid pack reference 'a@b@c': expected exactly one '@'");
  });
});

describe('path helpers', () => {
  it('isPlainRelative: relative in the AIPack sense (not ~, absolute, $tmp or a pack ref)', () => {
    expect(['a/b', './x@y', '.hidden'].map(isPlainRelative)).toEqual([true, true, true]);
    expect(['~', '~/a', '/a', '$tmp/x', 'ns@pack/x'].map(isPlainRelative)).toEqual([false, false, false, false, false]);
  });

  it('collapse normalises .., . and slashes', () => {
    expect(collapse('/a//b/../c/./')).toBe('/a/c');
    expect(collapse('/')).toBe('/');
  });

  it('rustParent / rustFileName follow Rust Path', () => {
    expect([rustParent('a/b.txt'), rustParent('b.txt'), rustParent('/a'), rustParent('/'), rustParent('')]).toEqual(['a', '', '/', undefined, undefined]);
    expect([rustFileName('a/b.txt'), rustFileName('a/..'), rustFileName('')]).toEqual(['b.txt', undefined, undefined]);
  });

  it('renderHome shows paths under the simulated home with ~/', () => {
    expect(renderHome(env, nodePath.join(env.dirs.home, 'n', 'a.md'))).toBe('~/n/a.md');
    expect(renderHome(env, nodePath.join(ws, 'a.md'))).toBe(nodePath.join(ws, 'a.md'));
  });

  it('fileInfoOf builds a FileInfo, times in microseconds, binary extensions not likely text', () => {
    expect(fileInfoOf('src/a.tar.gz', { size: 3, mtimeMs: 1.5, ctimeMs: 2 })).toEqual({
      _type: 'FileInfo', path: 'src/a.tar.gz', dir: 'src', name: 'a.tar.gz', stem: 'a.tar', ext: 'gz', ctime: 2000, mtime: 1500, size: 3, is_likely_text: false,
    });
    expect(fileInfoOf('.bashrc')).toEqual({ _type: 'FileInfo', path: '.bashrc', dir: '', name: '.bashrc', stem: '.bashrc', ext: '', is_likely_text: true });
  });
});

describe('checkAccessWrite / checkAccessDelete (docs/aipack.md section 10)', () => {
  it('allow the workspace and refuse outside with the exact AIPack messages', () => {
    expect(() => checkAccessWrite(env, nodePath.join(ws, 'a', 'b.txt'))).not.toThrow();
    const outside = nodePath.join(nodePath.dirname(ws), 'other', 'x.txt');
    expect(() => checkAccessWrite(env, outside)).toThrow(
      new LuaError(
        `Save file protection - The path \`../other/x.txt\` does not belong to the workspace dir \`${ws}\` or to the .aipack-base.\n` +
          'Cannot save file out of workspace or aipack base at this point',
      ),
    );
    expect(() => checkAccessDelete(env, outside)).toThrow(
      new LuaError(
        `Delete file protection - The path \`../other/x.txt\` does not belong to the workspace dir \`${ws}\`.\n` +
          'Cannot delete files outside the workspace',
      ),
    );
  });

  it('allow writes but never deletes under .aipack-base', () => {
    const inBase = nodePath.join(env.dirs.baseAipack, 'support', 'x.txt');
    expect(() => checkAccessWrite(env, inBase)).not.toThrow();
    expect(() => checkAccessDelete(env, inBase)).toThrow(
      new LuaError('Delete file protection - Deleting files from the `.aipack-base` folder is not allowed'),
    );
    expect(() => checkAccessDelete(env, nodePath.join(ws, '.aipack-base', 'x'))).toThrow(/Deleting files from the `.aipack-base`/);
  });
});
