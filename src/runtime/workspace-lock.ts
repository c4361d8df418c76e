/**
 * The lock of a workspace during `--write`: a file holding the pid of the run that writes. A second writing run
 * on the same workspace fails at once with a clear message instead of both reporting success while one answer is
 * lost; a lock left by a process that no longer exists (kill -9) is taken over.
 */
import fs from 'node:fs';
import nodePath from 'node:path';

export class WorkspaceLockedError extends Error {
  constructor(
    readonly lockFile: string,
    readonly pid: number,
  ) {
    super(
      `another run with --write (pid ${pid}) is writing this workspace (lock file ${lockFile}); ` +
        'run again when it has finished (if no such process exists, delete the lock file)',
    );
    this.name = 'WorkspaceLockedError';
  }
}

export const LOCK_NAME = '.coder-subagents-write.lock';

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Takes the write lock of `workspaceDir` (in its `.aipack/`); returns the function that releases it. */
export function lockWorkspace(workspaceDir: string): () => void {
  const dir = nodePath.join(workspaceDir, '.aipack');
  fs.mkdirSync(dir, { recursive: true });
  const file = nodePath.join(dir, LOCK_NAME);
  const mine = `${process.pid}\n`;
  let pid = 0;
  for (let attempt = 0; attempt < 50; attempt++) {
    try {
      fs.writeFileSync(file, mine, { flag: 'wx' });
      return release(file, mine);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    }
    let text: string;
    try {
      text = fs.readFileSync(file, 'utf8');
    } catch {
      continue; // released meanwhile
    }
    pid = Number.parseInt(text, 10);
    if (Number.isInteger(pid) && pid > 0 && alive(pid)) throw new WorkspaceLockedError(file, pid);
    // empty: its writer is between creating and writing it, try again; else stale (kill -9): take it over
    if (text !== '' || attempt >= 40) fs.rmSync(file, { force: true });
  }
  throw new WorkspaceLockedError(file, pid);
}

function release(file: string, mine: string): () => void {
  return () => {
    try {
      if (fs.readFileSync(file, 'utf8') === mine) fs.rmSync(file, { force: true });
    } catch {
      // already gone
    }
  };
}
