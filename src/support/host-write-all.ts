/** All-or-nothing writes (`--write`): every change lands, or every file is put back as it was. */
import fs from 'node:fs';
import nodePath from 'node:path';
import { HostFsError, lstatOf } from './host-paths.ts';
import { writeOp } from './host-write-faults.ts';
import { checkDir, makeDirs, removeQuietly, sweepStaleTemps, tempBeside, writeTemp } from './host-writes.ts';

// ---------------------------------------------------------------------------------------------------------------
// all-or-nothing writes (`--write`)

/** One change: new content, or null for a delete; `target` is the real path (its directory may not exist yet). */
export interface PlannedChange {
  target: string;
  data: Uint8Array | null;
  /** how the failure names it */
  shown: string;
}

export class WriteAllError extends HostFsError {
  constructor(
    readonly failed: string,
    readonly cause: string,
  ) {
    super(`${failed}: ${cause}`);
    this.name = 'WriteAllError';
  }
}

const why = (err: unknown): string => {
  const e = err as NodeJS.ErrnoException;
  if (e.code === 'ENOSPC') return 'no space left on the device';
  if (e.code === 'EACCES' || e.code === 'EPERM') return 'permission denied';
  if (e.code === 'EROFS') return 'read-only file system';
  return e instanceof Error ? e.message : String(err);
};

/**
 * Writes every change or none: each new content is first staged in a temp file beside its target (which proves
 * space and permissions), each existing target kept under a hard link; only then are the temp files renamed over
 * their targets and deleted files moved away. Any failure puts back every file already replaced, removes every
 * temp file and every directory it created, and throws a WriteAllError naming the change and the cause.
 * `dirs` are directories to create (real paths whose existing part was checked by the caller).
 */
export function writeAllOrNothing(root: string, changes: readonly PlannedChange[], dirs: readonly string[] = []): void {
  const realRoot = fs.realpathSync.native(root);
  const createdDirs: string[] = [];
  const temps: string[] = [];
  /** done renames, to undo in reverse: [target, backup or undefined when the target did not exist] */
  const done: Array<{ target: string; backup?: string; moved?: boolean }> = [];
  const backups: string[] = [];
  let current = '';
  const ensureDir = (dir: string) => {
    const rel = nodePath.relative(realRoot, dir);
    if (rel.startsWith('..') || nodePath.isAbsolute(rel)) throw new HostFsError(`${dir} is outside ${realRoot}`);
    makeDirs(realRoot, rel.split(nodePath.sep).join('/'), { what: '--write', created: createdDirs });
  };
  try {
    for (const d of dirs) {
      current = d;
      ensureDir(d);
    }
    const staged: Array<{ change: PlannedChange; tmp?: string; realDir: string }> = [];
    for (const change of changes) {
      current = change.shown;
      const dir = nodePath.dirname(change.target);
      if (change.data !== null) ensureDir(dir);
      const st = lstatOf(change.target);
      if (st?.isDirectory()) throw new HostFsError('it is a directory');
      if (change.data === null) {
        staged.push({ change, realDir: dir });
        continue;
      }
      sweepStaleTemps(dir);
      const tmp = tempBeside(change.target);
      temps.push(tmp);
      writeTemp(tmp, change.data, st?.isFile() ? st.mode & 0o7777 : 0o666);
      staged.push({ change, tmp, realDir: dir });
    }
    // every byte is on disk: switch them over, keeping the old files until all are in place
    for (const { change, tmp, realDir } of staged) {
      current = change.shown;
      const exists = lstatOf(change.target) !== undefined;
      if (tmp === undefined && !exists) continue;
      checkDir(realDir, realDir);
      let backup: string | undefined;
      if (exists) {
        backup = tempBeside(change.target, 'old');
        writeOp(`keeping ${change.target}`);
        fs.linkSync(change.target, backup);
        backups.push(backup);
      }
      if (tmp === undefined) {
        if (!exists) continue;
        writeOp(`deleting ${change.target}`);
        fs.unlinkSync(change.target);
        done.push({ target: change.target, backup, moved: true });
      } else {
        writeOp(`renaming ${tmp}`);
        fs.renameSync(tmp, change.target);
        temps.splice(temps.indexOf(tmp), 1);
        done.push({ target: change.target, backup });
      }
    }
  } catch (err) {
    // put back, in reverse: a replaced file gets its old bytes again, a created one goes, a deleted one returns
    for (const d of done.reverse()) {
      try {
        if (d.backup) fs.renameSync(d.backup, d.target);
        else fs.unlinkSync(d.target);
      } catch {
        // best effort; the backup stays for the user if this failed
      }
    }
    for (const b of backups) if (!done.some((d) => d.backup === b)) removeQuietly(b);
    for (const t of temps) removeQuietly(t);
    for (const d of createdDirs.reverse()) {
      try {
        fs.rmdirSync(d);
      } catch {
        // not empty: something else put a file there
      }
    }
    throw new WriteAllError(current, why(err));
  }
  for (const b of backups) removeQuietly(b);
}
