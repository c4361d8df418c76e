/**
 * The lock of a workspace during `--write`: a file holding the pid of the run that writes. A second writing run
 * on the same workspace fails at once with a clear message instead of both reporting success while one answer is
 * lost; a lock left by a process that no longer exists (kill -9) is taken over.
 */
import nodePath from 'node:path';
import { createExclusive, makeUserDir, mtimeOf, processAlive, readNoFollow, removeFile } from '../support/host-fs.ts';

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

/** Test seams: `onStale` runs after a stale lock was seen and before it is taken over. */
export interface LockHooks {
  onStale?: () => void;
}

/** A takeover guard left by a process killed inside the few microseconds it holds one is cleared after this. */
const GUARD_STALE_MS = 10_000;

/** Takes the write lock of `workspaceDir` (in its `.aipack/`); returns the function that releases it. */
export function lockWorkspace(workspaceDir: string, hooks: LockHooks = {}): () => void {
  const dir = nodePath.join(workspaceDir, '.aipack');
  makeUserDir(dir);
  const file = nodePath.join(dir, LOCK_NAME);
  const mine = `${process.pid}\n`;
  let pid = 0;
  for (let attempt = 0; attempt < 50; attempt++) {
    if (createExclusive(file, mine)) return release(file, mine);
    // a link or a directory in the lock's place is not the tool's lock: it is read as a stale one and removed
    const text = readNoFollow(file)?.toString('utf8') ?? '?';
    pid = Number.parseInt(text, 10);
    if (Number.isInteger(pid) && pid > 0 && processAlive(pid)) throw new WorkspaceLockedError(file, pid);
    // empty: its writer is between creating and writing it, try again; else stale (kill -9): take it over
    if (text !== '' || attempt >= 40) {
      hooks.onStale?.();
      removeIfStill(file, text, mine);
    }
  }
  throw new WorkspaceLockedError(file, pid);
}

/**
 * Removes the stale lock `file` if it still holds `stale`. Two runs may find the same stale lock at once: without
 * care the slower one would delete the lock the faster one has just created, and both would write. So a takeover
 * happens under a guard file (created exclusively, held for a read and an unlink), and the content is checked
 * again under it: a lock that changed since it was judged stale is left alone.
 */
function removeIfStill(file: string, stale: string, mine: string): void {
  const guard = `${file}.takeover`;
  if (!createExclusive(guard, mine)) {
    const at = mtimeOf(guard);
    if (at !== undefined && Date.now() - at > GUARD_STALE_MS) removeFile(guard);
    return; // another run is taking over: look again
  }
  try {
    if ((readNoFollow(file)?.toString('utf8') ?? '?') === stale) removeFile(file);
  } finally {
    removeFile(guard);
  }
}

function release(file: string, mine: string): () => void {
  return () => {
    if (readNoFollow(file)?.toString('utf8') === mine) removeFile(file);
  };
}
