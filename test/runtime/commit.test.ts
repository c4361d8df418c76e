import fs from 'node:fs';
import nodePath from 'node:path';
import { describe, expect, it } from 'vitest';
import { CommitError, isToolFile, writeChanges } from '../../src/runtime/commit.ts';
import { LOCK_NAME } from '../../src/runtime/workspace-lock.ts';
import { tmpDir } from '../harness/helpers.ts';

const bytes = (s: string) => new TextEncoder().encode(s);

function workspace() {
  const root = fs.realpathSync(tmpDir());
  const ws = nodePath.join(root, 'ws');
  fs.mkdirSync(nodePath.join(ws, '.aipack', 'pack'), { recursive: true });
  fs.writeFileSync(nodePath.join(ws, 'keep.txt'), 'K');
  return { root, ws, at: (rel: string) => nodePath.join(ws, rel) };
}

describe('writeChanges', () => {
  it('writes new, changed and deleted files and the empty directories a run created', () => {
    const { ws, at } = workspace();
    writeChanges(ws, [[at('a/b.txt'), bytes('B')], [at('keep.txt'), null]], [at('empty/dir')]);
    expect(fs.readFileSync(at('a/b.txt'), 'utf8')).toBe('B');
    expect(fs.existsSync(at('keep.txt'))).toBe(false);
    expect(fs.statSync(at('empty/dir')).isDirectory()).toBe(true);
  });

  it('checks every change first: one it cannot write means nothing is written, each one named with why', () => {
    const { root, ws, at } = workspace();
    fs.symlinkSync(root, at('out'));
    const changes = [
      [at('fine.txt'), bytes('F')],
      [nodePath.join(root, 'x.txt'), bytes('X')],
      [at('out/y.txt'), bytes('Y')],
      [at('.aipack/pack/main.aip'), bytes('P')],
      [at(`.aipack/${LOCK_NAME}`), bytes('L')],
    ] as const;
    let error: CommitError | undefined;
    try {
      writeChanges(ws, changes, [], [at('.aipack/pack')]);
    } catch (e) {
      error = e as CommitError;
    }
    expect(error).toBeInstanceOf(CommitError);
    expect(error!.failures).toEqual([
      '../x.txt: outside the workspace',
      `out/y.txt: its directory resolves to '${root}', outside the workspace`,
      '.aipack/pack/main.aip: inside .aipack/pack/, which a simulated run does not write',
      `.aipack/${LOCK_NAME}: it is a file of the tool itself (its write lock or a temp file), which a run does not write`,
    ]);
    expect(error!.message).toMatch(/^4 changes cannot be written, so nothing was written:\n {2}\.\.\/x\.txt/);
    expect(fs.existsSync(at('fine.txt'))).toBe(false);
  });

  it('refuses a file that is a symlink leading out of the workspace, with its own message; nothing is written anywhere', () => {
    const { root, ws, at } = workspace();
    fs.writeFileSync(nodePath.join(root, 'outside.txt'), 'O');
    fs.symlinkSync(nodePath.join(root, 'outside.txt'), at('link.txt'));
    fs.mkdirSync(nodePath.join(root, 'elsewhere'));
    fs.symlinkSync(nodePath.join(root, 'elsewhere', 'new.txt'), at('dangling.txt'));
    fs.writeFileSync(at(`.aipack/${LOCK_NAME}`), '1');
    fs.symlinkSync(at(`.aipack/${LOCK_NAME}`), at('to-lock'));
    fs.symlinkSync(at('.aipack/pack/main.aip'), at('to-pack'));
    fs.writeFileSync(at('.aipack/pack/main.aip'), 'P');
    const before = (dir: string) => fs.readdirSync(dir).sort();
    const rootBefore = before(root);
    let error: CommitError | undefined;
    try {
      writeChanges(ws, [[at('link.txt'), bytes('X')], [at('dangling.txt'), bytes('D')], [at('to-lock'), bytes('L')], [at('to-pack'), bytes('Q')], [at('fine.txt'), bytes('F')]], [], [at('.aipack/pack')]);
    } catch (e) {
      error = e as CommitError;
    }
    expect(error?.failures).toEqual([
      `link.txt: it is a symlink to '${nodePath.join(root, 'outside.txt')}', outside the workspace`,
      'dangling.txt: it is a dangling symlink',
      'to-lock: it is a symlink to a file of the tool itself',
      'to-pack: inside .aipack/pack/, which a simulated run does not write',
    ]);
    expect(fs.readFileSync(nodePath.join(root, 'outside.txt'), 'utf8')).toBe('O');
    expect(fs.readdirSync(nodePath.join(root, 'elsewhere'))).toEqual([]);
    expect(before(root)).toEqual(rootBefore);
    expect(fs.readFileSync(at('.aipack/pack/main.aip'), 'utf8')).toBe('P');
    expect(fs.existsSync(at('fine.txt'))).toBe(false);
    expect(fs.readdirSync(ws).filter((n) => n.includes('coder-subagents-tmp'))).toEqual([]);
  });

  it('writes through a symlink whose target is inside the workspace', () => {
    const { ws, at } = workspace();
    fs.symlinkSync(at('keep.txt'), at('alias.txt'));
    writeChanges(ws, [[at('alias.txt'), bytes('NEW')]]);
    expect(fs.readFileSync(at('keep.txt'), 'utf8')).toBe('NEW');
    expect(fs.lstatSync(at('alias.txt')).isSymbolicLink()).toBe(true);
  });

  it('isToolFile knows the lock and the temp files', () => {
    expect(isToolFile(`/ws/.aipack/${LOCK_NAME}`, '/ws')).toBe(true);
    expect(isToolFile(`/ws/src/${LOCK_NAME}`, '/ws')).toBe(false);
    expect(isToolFile('/ws/.a.txt.new.coder-subagents-tmp-12-3', '/ws')).toBe(true);
  });
});
