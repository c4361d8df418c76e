/** Host writes: temp files beside their target, renamed over it; directories made without following a link. */
import fs from 'node:fs';
import os from 'node:os';
import nodePath from 'node:path';
import { HostFsError, lstatOf } from './host-paths.ts';
import { listEntries, listNames, readNoFollow } from './host-reads.ts';
import { processAlive } from './host-process.ts';
import { writeOp } from './host-write-faults.ts';

const { O_CREAT, O_EXCL, O_NOFOLLOW, O_WRONLY } = fs.constants;

// ---------------------------------------------------------------------------------------------------------------
// writes

/** Temp files are named `.<name>.<TEMP_TAG>-<pid>-<n>` beside their target. */
export const TEMP_TAG = 'coder-subagents-tmp';
const TEMP_NAME = new RegExp(`^\\..+\\.${TEMP_TAG}-(\\d+)-\\d+$`);
let tempCounter = 0;

/** true for the name of a temp file this tool writes (no run may create one). */
export const isTempName = (name: string): boolean => TEMP_NAME.test(name);

export function tempBeside(abs: string, kind = 'new'): string {
  const base = nodePath.basename(abs).slice(0, 120);
  return nodePath.join(nodePath.dirname(abs), `.${base}.${kind}.${TEMP_TAG}-${process.pid}-${tempCounter++}`);
}

/** Removes temp files a killed run left in `dir` (their pid is gone); never those of a live process. */
export function sweepStaleTemps(dir: string): void {
  for (const e of listEntries(dir)) {
    const pid = Number(TEMP_NAME.exec(e.name)?.[1]);
    if (!pid || pid === process.pid || processAlive(pid)) continue;
    if (e.isFile() || e.isSymbolicLink()) removeQuietly(nodePath.join(dir, e.name));
  }
}

export function removeQuietly(abs: string): void {
  try {
    fs.unlinkSync(abs);
  } catch {
    // already gone
  }
}

/** Creates `tmp` exclusively (never through a link) with `data`, flushed. */
export function writeTemp(tmp: string, data: Uint8Array | string, mode: number): void {
  writeOp(`creating ${tmp}`);
  const fd = fs.openSync(tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW, mode);
  try {
    writeOp(`writing ${tmp}`);
    fs.writeFileSync(fd, data);
    fs.fsyncSync(fd);
  } catch (err) {
    fs.closeSync(fd);
    removeQuietly(tmp);
    throw err;
  }
  fs.closeSync(fd);
}

/** The real directory `dir` resolves to right now; throws when it is no longer `expected`. */
export function checkDir(dir: string, expected: string): void {
  let real: string;
  try {
    real = fs.realpathSync.native(dir);
  } catch {
    throw new HostFsError(`'${dir}' disappeared while it was written`);
  }
  if (real !== expected) throw new HostFsError(`'${dir}' now leads to '${real}' (changed while it was written); nothing was written through it`);
}

/**
 * Makes `rel` (a `/`-separated path below `root`) a real directory, one segment at a time. A segment that is a
 * symlink or a file is refused, unless `replace` is set, then the link or file itself is removed and a directory
 * made in its place (for trees the tool owns whole, e.g. an installed pack). Returns the created dirs, outermost first.
 */
export function makeDirs(root: string, rel: string, options: { replace?: boolean; what?: string; created?: string[] } = {}): string[] {
  // filled as it goes, so a caller undoing a failed call sees the dirs made before the failure
  const created: string[] = options.created ?? [];
  let cur = root;
  for (const seg of rel.split('/').filter((s) => s !== '' && s !== '.')) {
    if (seg === '..') throw new HostFsError(`'${rel}' climbs out of ${root} with '..'`);
    cur = nodePath.join(cur, seg);
    const st = lstatOf(cur);
    if (st?.isDirectory()) continue;
    if (st) {
      const kind = st.isSymbolicLink() ? `a symlink (to '${safeReadlink(cur)}')` : 'not a directory';
      if (!options.replace) throw new HostFsError(`${cur} is ${kind}; ${options.what ?? 'the tool'} does not write through it (remove it and try again)`);
      writeOp(`removing ${cur}`);
      if (st.isSymbolicLink() || !st.isDirectory()) fs.unlinkSync(cur);
    }
    writeOp(`creating the directory ${cur}`);
    fs.mkdirSync(cur);
    created.push(cur);
  }
  return created;
}

function safeReadlink(abs: string): string {
  try {
    return fs.readlinkSync(abs);
  } catch {
    return '?';
  }
}

/**
 * Writes `data` to `abs` atomically: a temp file in its (real) directory, renamed over it. A symlink at `abs`
 * is replaced (rename never follows one), never written through. The directory must exist.
 */
export function writeFileAtomic(abs: string, data: Uint8Array | string): void {
  const dir = nodePath.dirname(abs);
  const realDir = fs.realpathSync.native(dir);
  const target = nodePath.join(realDir, nodePath.basename(abs));
  const st = lstatOf(target);
  if (st?.isDirectory()) throw new HostFsError(`${abs} is a directory, expected a file`);
  const mode = st?.isFile() ? st.mode & 0o7777 : 0o666;
  const tmp = tempBeside(target);
  writeTemp(tmp, data, mode);
  try {
    checkDir(dir, realDir);
    writeOp(`renaming ${tmp}`);
    fs.renameSync(tmp, target);
  } catch (err) {
    removeQuietly(tmp);
    throw err;
  }
}

/** Writes a file the user named as output (e.g. `pack --out`): its directory created, the file replaced atomically. */
export function writeOutputFile(abs: string, data: Uint8Array | string): void {
  fs.mkdirSync(nodePath.dirname(abs), { recursive: true });
  writeFileAtomic(abs, data);
}

/** Creates a file only when nothing is there (O_EXCL, no link followed); false when something is. */
export function createExclusive(abs: string, data: string): boolean {
  let fd: number;
  try {
    fd = fs.openSync(abs, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW, 0o644);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw err;
  }
  try {
    fs.writeFileSync(fd, data);
  } finally {
    fs.closeSync(fd);
  }
  return true;
}

/** Removes a file or link (never what a link points to); false when nothing was there. */
export function removeFile(abs: string): boolean {
  try {
    fs.unlinkSync(abs);
    return true;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return false;
    throw err;
  }
}

/** mtime of a path (links not followed), or undefined. */
export const mtimeOf = (abs: string): number | undefined => lstatOf(abs)?.mtimeMs;

/** A new private directory under the system's temp dir (`prefix` then random characters): nobody else's path. */
export function makeTempDir(prefix: string): string {
  return fs.mkdtempSync(nodePath.join(os.tmpdir(), prefix));
}

/** Creates `dir` (and its parents) where the user asked for it; no checks beyond the OS's. */
export function makeUserDir(dir: string): void {
  fs.mkdirSync(dir, { recursive: true });
}

/**
 * Writes a file that a repository's own settings name (a report's `output_file`) only below `root`: a path that
 * climbs out is refused, its directories are made one segment at a time and a symlink among them is refused (a
 * repository can ship one leading anywhere), and a link at the file itself is replaced, never written through.
 */
export function writeFileBelow(root: string, abs: string, data: Uint8Array | string, what = 'the report'): void {
  const rel = nodePath.relative(nodePath.resolve(root), nodePath.resolve(abs));
  if (rel === '' || rel === '..' || rel.startsWith('..' + nodePath.sep) || nodePath.isAbsolute(rel)) {
    throw new HostFsError(`${what} '${abs}' is outside ${root}`);
  }
  const realRoot = fs.realpathSync.native(root);
  const parts = rel.split(nodePath.sep);
  makeDirs(realRoot, parts.slice(0, -1).join('/'), { what });
  writeFileAtomic(nodePath.join(realRoot, ...parts), data);
}

/** Writes a file the user named (init, reports): symlinks followed as the user set them up; `exclusive` fails if it exists. */
export function writeUserFile(abs: string, data: string | Uint8Array, options: { exclusive?: boolean } = {}): void {
  fs.writeFileSync(abs, data, options.exclusive ? { flag: 'wx' } : undefined);
}

export interface SyncResult {
  /** files created or changed (unchanged files are not rewritten) */
  written: string[];
  /** stale files removed */
  removed: string[];
}

const byCodeUnit = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

/**
 * Makes the real directory `dir` hold exactly `files` (`/`-separated relative paths): writes what differs (each
 * file atomically), removes the rest and directories left empty. The tree is the tool's own: a symlink found in it
 * is removed (the link, never its target) and replaced by the real file or directory; nothing is read or written
 * through one. `dir` itself must be a real directory (no link in it).
 */
export function syncTree(dir: string, files: Map<string, string | Uint8Array>): SyncResult {
  const st = lstatOf(dir);
  if (!st?.isDirectory()) throw new HostFsError(`${dir} is not a directory (a symlink is not followed)`);
  const written: string[] = [];
  const removed: string[] = [];
  for (const [rel, content] of files) {
    if (rel.split('/').some((s) => s === '..' || s === '')) throw new HostFsError(`'${rel}' is not a plain relative path`);
    makeDirs(dir, nodePath.posix.dirname(rel), { replace: true });
    const abs = nodePath.join(dir, ...rel.split('/'));
    const bytes = typeof content === 'string' ? Buffer.from(content, 'utf8') : Buffer.from(content);
    const now = readNoFollow(abs);
    if (now?.equals(bytes)) continue;
    const here = lstatOf(abs);
    if (here?.isDirectory()) fs.rmSync(abs, { recursive: true }); // rm never follows links below it
    writeFileAtomic(abs, bytes);
    written.push(rel);
  }
  const walk = (abs: string) => {
    for (const e of listEntries(abs)) {
      const p = nodePath.join(abs, e.name);
      const rel = nodePath.relative(dir, p).split(nodePath.sep).join('/');
      if (e.isDirectory()) {
        walk(p);
        if (listNames(p).length === 0) fs.rmdirSync(p);
        continue;
      }
      if (!files.has(rel) || e.isSymbolicLink()) {
        fs.unlinkSync(p);
        removed.push(rel);
      }
    }
  };
  walk(dir);
  return { written: written.sort(byCodeUnit), removed: removed.sort(byCodeUnit) };
}
