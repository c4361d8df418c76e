import fs from 'node:fs';
import nodePath from 'node:path';
import { describe, expect, it } from 'vitest';
import { LOCK_NAME, WorkspaceLockedError, lockWorkspace } from '../../src/runtime/workspace-lock.ts';
import { tmpDir } from '../harness/helpers.ts';

const lockOf = (ws: string) => nodePath.join(ws, '.aipack', LOCK_NAME);

describe('lockWorkspace', () => {
  it('holds the pid in .aipack/ until released; a second writer is refused naming it', () => {
    const ws = tmpDir();
    const release = lockWorkspace(ws);
    expect(fs.readFileSync(lockOf(ws), 'utf8')).toBe(`${process.pid}\n`);
    expect(() => lockWorkspace(ws)).toThrow(WorkspaceLockedError);
    expect(() => lockWorkspace(ws)).toThrow(`another run with --write (pid ${process.pid}) is writing this workspace`);
    release();
    expect(fs.existsSync(lockOf(ws))).toBe(false);
    lockWorkspace(ws)();
  });

  it('takes over a lock whose process is gone (kill -9)', () => {
    const ws = tmpDir();
    fs.mkdirSync(nodePath.join(ws, '.aipack'));
    fs.writeFileSync(lockOf(ws), '999999999\n');
    let stale = 0;
    const release = lockWorkspace(ws, { onStale: () => stale++ });
    expect(stale).toBe(1);
    expect(fs.readFileSync(lockOf(ws), 'utf8')).toBe(`${process.pid}\n`);
    release();
  });

  it('release leaves a lock that is no longer its own', () => {
    const ws = tmpDir();
    const release = lockWorkspace(ws);
    fs.writeFileSync(lockOf(ws), '42\n');
    release();
    expect(fs.readFileSync(lockOf(ws), 'utf8')).toBe('42\n');
  });
});
