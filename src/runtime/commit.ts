/**
 * Writing a run's changes to the workspace (`--write`): all checked first, then each file written to a temporary
 * file beside it and renamed over the old one, so an interrupted write (kill -9, power loss) leaves every file
 * either as it was or as the run left it, never torn.
 */
import fs from 'node:fs';
import nodePath from 'node:path';
import { isInside } from '../support/paths.ts';

/** One change: new content, or null for a delete. Paths absolute. */
export type Change = readonly [abs: string, content: Uint8Array | null];

export class CommitError extends Error {
  constructor(
    /** one line per change that cannot be written: `<workspace-relative path>: <why>` */
    readonly failures: string[],
  ) {
    super(
      `${failures.length === 1 ? 'a change' : `${failures.length} changes`} cannot be written, so nothing was written:\n  ` +
        failures.join('\n  '),
    );
    this.name = 'CommitError';
  }
}

/** Longest file name most file systems take (bytes) and Linux's PATH_MAX. */
const NAME_MAX = 255;
const PATH_MAX = 4096;
/** Temporary files are named `.<name>.<TEMP_TAG>-<pid>-<n>` beside their target. */
const TEMP_TAG = 'coder-subagents-tmp';

function lstat(abs: string): fs.Stats | undefined {
  try {
    return fs.lstatSync(abs, { throwIfNoEntry: false });
  } catch {
    return undefined;
  }
}

function stat(abs: string): fs.Stats | undefined {
  try {
    return fs.statSync(abs, { throwIfNoEntry: false });
  } catch {
    return undefined;
  }
}

/**
 * Where a change of `abs` really lands (symlinks followed), or why it cannot be made. `protectedDirs` are refused
 * whatever the disk says (e.g. `<workspace>/.aipack/pack`: a run must not plant the pack the next run would use).
 */
function plan(abs: string, deleting: boolean, workspace: string, realWs: string, protectedDirs: readonly string[]): { target: string } | { why: string } {
  if (!isInside(abs, workspace) || abs === workspace) return { why: 'outside the workspace' };
  for (const dir of protectedDirs) {
    if (isInside(abs, dir)) return { why: `inside ${nodePath.relative(workspace, dir)}/, which a simulated run does not write` };
  }
  if (Buffer.byteLength(abs) > PATH_MAX) return { why: `the path is longer than ${PATH_MAX} bytes` };
  // the temp file name adds a dot, the tag and the pid to the name
  const max = NAME_MAX - TEMP_TAG.length - 20;
  const long = nodePath.relative(workspace, abs).split('/').find((seg) => Buffer.byteLength(seg) > max);
  if (long !== undefined) return { why: `the name '${long.slice(0, 40)}...' is ${Buffer.byteLength(long)} bytes long (at most ${max})` };
  // the nearest existing ancestor must be a directory (followed), and really inside the workspace
  let probe = nodePath.dirname(abs);
  while (!lstat(probe)) probe = nodePath.dirname(probe);
  const st = stat(probe);
  const shown = nodePath.relative(workspace, probe) || '.';
  if (!st) return { why: `'${shown}' is a dangling symlink` };
  if (!st.isDirectory()) return { why: `'${shown}' is a file, not a directory` };
  const realDir = fs.realpathSync(probe);
  if (!isInside(realDir, realWs)) return { why: `its directory resolves to '${realDir}', outside the workspace` };
  const own = lstat(abs);
  if (own?.isSymbolicLink() && !deleting) {
    // a link is written through (the rename then replaces its target), when the target is inside the workspace
    if (!stat(abs)) return { why: 'it is a dangling symlink' };
    const real = fs.realpathSync(abs);
    if (!isInside(real, realWs)) return { why: `it is a symlink to '${real}', outside the workspace` };
    if (stat(real)?.isDirectory()) return { why: 'it is a directory' };
    return { target: real };
  }
  if (own?.isDirectory()) return { why: 'it is a directory' };
  return { target: abs };
}

let tempCounter = 0;
const TEMP_NAME = new RegExp(`^\\..+\\.${TEMP_TAG}-(\\d+)-\\d+$`);

/** Removes temp files a killed run left in these dirs (their pid is gone); never those of a live process. */
function sweepStaleTemps(dirs: Set<string>): void {
  for (const dir of dirs) {
    let names: string[];
    try {
      names = fs.readdirSync(dir);
    } catch {
      continue;
    }
    for (const name of names) {
      const pid = Number(TEMP_NAME.exec(name)?.[1]);
      if (!pid || pid === process.pid) continue;
      try {
        process.kill(pid, 0);
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code === 'ESRCH') fs.rmSync(nodePath.join(dir, name), { force: true });
      }
    }
  }
}

/** Writes `data` to a temp file beside `abs`, flushes it, and renames it over `abs`. */
function writeFileAtomic(abs: string, data: Uint8Array | string): void {
  const tmp = nodePath.join(nodePath.dirname(abs), `.${nodePath.basename(abs)}.${TEMP_TAG}-${process.pid}-${tempCounter++}`);
  let mode: number | undefined;
  try {
    mode = fs.statSync(abs).mode & 0o7777;
  } catch {
    mode = undefined;
  }
  const fd = fs.openSync(tmp, 'wx', mode ?? 0o666);
  try {
    try {
      fs.writeFileSync(fd, data);
      fs.fsyncSync(fd);
    } finally {
      fs.closeSync(fd);
    }
    fs.renameSync(tmp, abs);
  } catch (err) {
    fs.rmSync(tmp, { force: true });
    throw err;
  }
}

/**
 * Writes the changes of a run below `workspace`: every change is checked first (paths, protections, name
 * lengths, symlinks, files in the way) and a CommitError lists those that cannot be written, before anything is
 * written; then each file is replaced atomically. `dirs` are empty directories the run created.
 */
export function writeChanges(workspace: string, changes: readonly Change[], dirs: readonly string[] = [], protectedDirs: readonly string[] = []): void {
  if (changes.length === 0 && dirs.length === 0) return;
  const ws = nodePath.resolve(workspace);
  fs.mkdirSync(ws, { recursive: true });
  const realWs = fs.realpathSync(ws);
  const failures: string[] = [];
  const planned: Change[] = [];
  for (const [abs, data] of changes) {
    const p = plan(abs, data === null, ws, realWs, protectedDirs);
    if ('why' in p) failures.push(`${nodePath.relative(ws, abs) || abs}: ${p.why}`);
    else planned.push([p.target, data]);
  }
  for (const d of dirs) {
    const p = plan(nodePath.join(d, 'x'), false, ws, realWs, protectedDirs);
    if ('why' in p) failures.push(`${nodePath.relative(ws, d)}/: ${p.why}`);
  }
  if (failures.length > 0) throw new CommitError(failures);

  for (const d of dirs) fs.mkdirSync(d, { recursive: true });
  sweepStaleTemps(new Set(planned.map(([abs]) => nodePath.dirname(abs))));
  for (const [abs, data] of planned) {
    if (data === null) {
      if (lstat(abs)) fs.unlinkSync(abs);
    } else {
      fs.mkdirSync(nodePath.dirname(abs), { recursive: true });
      writeFileAtomic(abs, data);
    }
  }
}
