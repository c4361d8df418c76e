/**
 * The one layer through which the tool touches the host disk: install, build, pack, the commit of `--write`, the
 * harness's sandbox copies and the simulator's disk reads all come here.
 *
 * Rules, so that nothing a repository ships (a symlink, a `..`) can lead a write or a read elsewhere:
 * - paths are judged on their real path (symlinks resolved), and checked again when used;
 * - a symlink is never followed where the caller did not say it may be: reads that must not follow open with
 *   O_NOFOLLOW, walks use lstat, a link found where a directory or file of the tool's own tree belongs is replaced
 *   by the real thing (the link itself is removed, never what it points to);
 * - writes go to a temp file created exclusively (O_EXCL|O_NOFOLLOW) in the target's real directory, then renamed
 *   over the target: a reader sees the old file or the new one, never a torn one;
 * - `..` out of a root is refused.
 */
import fs from 'node:fs';
import os from 'node:os';
import nodePath from 'node:path';

const { O_CREAT, O_EXCL, O_NOFOLLOW, O_NONBLOCK, O_RDONLY, O_WRONLY } = fs.constants;

export class HostFsError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'HostFsError';
  }
}

/** true when `p` is `root` or below it (both normalised absolute paths). */
export function isInside(p: string, root: string): boolean {
  if (p === root) return true;
  return p.startsWith(root.endsWith('/') ? root : root + '/');
}

/** Path segments that are not valid UTF-8 reach Node as U+FFFD: two different names would read as one. */
export function checkUtf8Name(name: string, where: string): void {
  if (name.includes('\uFFFD')) {
    throw new HostFsError(`${where}: the file name '${name}' is not valid UTF-8 (rename it; the tool cannot tell such names apart)`);
  }
}

// ---------------------------------------------------------------------------------------------------------------
// fault injection (tests only: a plain function call, nothing a user's environment can switch on)

interface Fault {
  at: number;
  code: 'ENOSPC' | 'EACCES' | 'EIO';
  seen: number;
}
let fault: Fault | undefined;

/**
 * Test seam: the `at`-th write operation from now (1-based: a mkdir, a temp file, a link, a rename) fails with
 * `code`, once. `undefined` turns it off. Returns how many write operations ran since the last call.
 */
export function injectWriteFault(spec: { at: number; code: Fault['code'] } | undefined): number {
  const seen = fault?.seen ?? counted;
  counted = 0;
  fault = spec ? { ...spec, seen: 0 } : undefined;
  return seen;
}
let counted = 0;

function writeOp(what: string): void {
  counted++;
  if (!fault) return;
  fault.seen++;
  if (fault.seen === fault.at) {
    const err = new Error(`${fault.code}: injected fault, ${what}`) as NodeJS.ErrnoException;
    err.code = fault.code;
    throw err;
  }
}

// ---------------------------------------------------------------------------------------------------------------
// reads

export function lstatOf(abs: string): fs.Stats | undefined {
  try {
    return fs.lstatSync(abs, { throwIfNoEntry: false });
  } catch {
    return undefined; // ENOTDIR, EACCES, ELOOP: read as missing
  }
}

export function statOf(abs: string): fs.Stats | undefined {
  try {
    return fs.statSync(abs, { throwIfNoEntry: false });
  } catch {
    return undefined;
  }
}

export const exists = (abs: string): boolean => statOf(abs) !== undefined;
export const isDirectory = (abs: string): boolean => statOf(abs)?.isDirectory() ?? false;
export const isFile = (abs: string): boolean => statOf(abs)?.isFile() ?? false;

/**
 * The real path of `abs`: symlinks of its longest existing prefix resolved, the missing rest appended as written.
 */
export function realPathOf(abs: string): string {
  let probe = nodePath.resolve(abs);
  const rest: string[] = [];
  for (;;) {
    try {
      const real = fs.realpathSync.native(probe);
      return rest.length ? nodePath.join(real, ...rest.reverse()) : real;
    } catch {
      const parent = nodePath.dirname(probe);
      if (parent === probe) return nodePath.resolve(abs);
      rest.push(nodePath.basename(probe));
      probe = parent;
    }
  }
}

/** Reads a file the user named (config, case file, prompt) or one of the tool's own: symlinks followed. */
export function readBytes(abs: string | URL): Buffer {
  return fs.readFileSync(abs);
}

export function readText(abs: string | URL): string {
  return fs.readFileSync(abs, 'utf8');
}

/** stat of a path the user named (throws as fs.statSync does when it is missing). */
export function statPath(abs: string): fs.Stats {
  return fs.statSync(abs);
}

/** Names in a directory, unsorted, as the OS gives them (throws when it cannot be read). */
export function readDirNames(dir: string): string[] {
  return listEntriesStrict(dir).map((d) => d.name);
}

/** The file's bytes, or undefined when it is not a regular file (symlinks followed). */
export function readIfFile(abs: string): Uint8Array | undefined {
  if (!isFile(abs)) return undefined;
  try {
    return new Uint8Array(fs.readFileSync(abs));
  } catch {
    return undefined;
  }
}

/**
 * The path of the file behind an open descriptor, as the kernel knows it (Linux: /proc/self/fd); undefined where
 * there is no such place.
 */
function openedPath(fd: number): string | undefined {
  try {
    return fs.readlinkSync(`/proc/self/fd/${fd}`);
  } catch {
    return undefined;
  }
}

/**
 * Reads the regular file at `abs` and tells `confine` the real path of the file it opened, before reading a byte:
 * `confine` throws to refuse it. The path is checked as it is opened, not before, so a file swapped for a symlink
 * (or a directory on the way swapped for one) between a check and the read is judged where it really leads. The
 * opened file's path comes from the kernel (Linux), else from realpath confirmed by the descriptor's device and
 * inode. undefined when there is no regular file there.
 */
export function readConfined(abs: string, confine: (real: string) => void): Uint8Array | undefined {
  let fd: number;
  try {
    fd = fs.openSync(abs, O_RDONLY | O_NONBLOCK);
  } catch {
    return undefined; // missing, a dangling link, no permission: read as missing
  }
  try {
    const st = fs.fstatSync(fd);
    if (!st.isFile()) return undefined;
    let real = openedPath(fd);
    if (real === undefined) {
      const resolved = realPathOf(abs);
      const now = statOf(resolved);
      if (!now || now.ino !== st.ino || now.dev !== st.dev) throw new HostFsError(`'${abs}' changed while it was opened; it is not read`);
      real = resolved;
    }
    confine(real);
    return new Uint8Array(fs.readFileSync(fd));
  } finally {
    fs.closeSync(fd);
  }
}

/** Reads a regular file without following a symlink in its last segment; undefined when it is none. */
export function readNoFollow(abs: string): Buffer | undefined {
  let fd: number;
  try {
    fd = fs.openSync(abs, O_RDONLY | O_NOFOLLOW);
  } catch {
    return undefined;
  }
  try {
    if (!fs.fstatSync(fd).isFile()) return undefined;
    return fs.readFileSync(fd);
  } finally {
    fs.closeSync(fd);
  }
}

/**
 * Reads `abs` only when its real path lies below the real path of `root`: the real file is opened with
 * O_NOFOLLOW, so a link swapped in between the check and the open fails instead of leading out.
 */
export function readUnder(root: string, abs: string, what = 'a file'): Buffer {
  const realRoot = realPathOf(root);
  const real = realPathOf(abs);
  if (!isInside(nodePath.resolve(abs), nodePath.resolve(root)) && !isInside(nodePath.resolve(abs), realRoot)) {
    throw new HostFsError(`${what} '${abs}' is outside ${root}`);
  }
  if (!isInside(real, realRoot)) throw new HostFsError(`${what} '${abs}' leads to '${real}', outside ${root} (symlinks resolved)`);
  const data = readNoFollow(real);
  if (data === undefined) throw new HostFsError(`${what} '${abs}' is not a regular file (or changed while read)`);
  return data;
}

/** Names in a directory, sorted; [] when it cannot be read (names that are not UTF-8 refused, see listEntries). */
export function listNames(dir: string): string[] {
  return listEntries(dir)
    .map((d) => d.name)
    .sort();
}

const strictUtf8 = new TextDecoder('utf-8', { fatal: true });

/** A file name's bytes shown with its invalid bytes as `\xNN`. */
function showBytes(name: Buffer): string {
  let out = '';
  for (let i = 0; i < name.length; ) {
    let n = 1;
    for (; n <= 4 && i + n <= name.length; n++) {
      try {
        out += strictUtf8.decode(name.subarray(i, i + n));
        break;
      } catch {
        // not a whole character yet
      }
    }
    if (n > 4 || i + n > name.length) {
      out += `\\x${name[i]!.toString(16).padStart(2, '0')}`;
      n = 1;
    }
    i += n;
  }
  return out;
}

/**
 * Entries of a directory as lstat sees them (a symlink is a symlink); [] when it cannot be read. A name that is
 * not valid UTF-8 is refused by name: decoded, two such names would read as one and a write could hit the other.
 */
export function listEntries(dir: string): fs.Dirent[] {
  try {
    return listEntriesStrict(dir);
  } catch (err) {
    if (err instanceof HostFsError) throw err;
    return [];
  }
}

function listEntriesStrict(dir: string): fs.Dirent[] {
  const raw = fs.readdirSync(dir, { withFileTypes: true, encoding: 'buffer' });
  return raw.map((d) => {
    const name = d.name;
    let text: string;
    try {
      text = strictUtf8.decode(name);
    } catch {
      throw new HostFsError(`the file name '${showBytes(name)}' in ${dir} is not valid UTF-8; rename it (the tool cannot tell such names apart)`);
    }
    return Object.assign(d, { name: text }) as unknown as fs.Dirent;
  });
}

// ---------------------------------------------------------------------------------------------------------------
// processes (the lock and the temp files name their writer by pid)

/**
 * Whether process `pid` is running. A zombie (dead but not yet reaped, common in containers whose pid 1 does not
 * reap) answers `kill(pid, 0)`, so on Linux its state in /proc/<pid>/stat is checked too.
 */
export function processAlive(pid: number): boolean {
  if (!Number.isInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EPERM') return false;
  }
  let stat: string;
  try {
    stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return true; // no /proc (not Linux): kill's answer stands
  }
  // "<pid> (<comm>) <state> ...": comm may hold spaces and parentheses, the state follows the last ')'
  const state = stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3);
  return state !== 'Z' && state !== 'X';
}

// ---------------------------------------------------------------------------------------------------------------
// writes

/** Temp files are named `.<name>.<TEMP_TAG>-<pid>-<n>` beside their target. */
export const TEMP_TAG = 'coder-subagents-tmp';
const TEMP_NAME = new RegExp(`^\\..+\\.${TEMP_TAG}-(\\d+)-\\d+$`);
let tempCounter = 0;

/** true for the name of a temp file this tool writes (no run may create one). */
export const isTempName = (name: string): boolean => TEMP_NAME.test(name);

function tempBeside(abs: string, kind = 'new'): string {
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

function removeQuietly(abs: string): void {
  try {
    fs.unlinkSync(abs);
  } catch {
    // already gone
  }
}

/** Creates `tmp` exclusively (never through a link) with `data`, flushed. */
function writeTemp(tmp: string, data: Uint8Array | string, mode: number): void {
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
function checkDir(dir: string, expected: string): void {
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
