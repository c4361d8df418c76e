/**
 * The overlay file system of a simulated run (its interface is in support/vfs.ts).
 *
 * Three layers, top wins: the overlay (writes and deletes of this run), the baseline (`opts.files`: virtual files
 * present from the start, never written anywhere), the real disk (read only). Only `commit()` touches the disk,
 * and only inside the workspace.
 */
import type fs from 'node:fs';
import nodePath from 'node:path';
import { readTooBig } from '../aip/file-access.ts';
import { appendInto } from '../support/append-room.ts';
import { FilesBelow, type NameCount } from '../support/files-below.ts';
import { isInside, listEntries, readConfined, readIfFile, statOf } from '../support/host-fs.ts';
import type { SealedReads } from './sealed-reads.ts';
import { writeChanges, type Change } from './commit.ts';
import type { Confine, DirEntry, FileChanges, FileStat, Vfs } from '../support/vfs.ts';
import { delegateTo, filesUnder } from '../support/vfs.ts';

export interface OverlayVfsOptions {
  /** virtual files present from the start (absolute or workspace-relative keys); they count as the initial state */
  files?: Record<string, string | Uint8Array>;
  /** absolute dirs in which writes, deletes and mkdirp are refused (e.g. the pack under test) */
  readOnlyRoots?: string[];
  /**
   * absolute dirs whose writes stay in memory even when inside the workspace (e.g. a simulated home placed under
   * `.aipack/`); paths with a `.aipack-base` segment are always treated so
   */
  virtualRoots?: string[];
  /** absolute dirs never looked up on the real disk (a sandbox whose made-up path may exist on this machine) */
  diskless?: string[];
  /** files read from the disk once for many runs (sealed-reads.ts): a suite's pack */
  sealed?: SealedReads;
}

interface FileEntry {
  data: Uint8Array;
  mtimeMs: number;
  ctimeMs: number;
  /** what `data` is the start of, with room after it for appends (appendFile) */
  room?: Uint8Array;
}

/** Overlay value: a file, or `null` for a deleted file. */
type OverlayEntry = FileEntry | null;

const encoder = new TextEncoder();
const decoder = new TextDecoder('utf-8');

const toBytes = (content: string | Uint8Array): Uint8Array =>
  typeof content === 'string' ? encoder.encode(content) : new Uint8Array(content);

function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}


/** Parent dirs of an absolute path, nearest first, root last. */
function ancestors(abs: string): string[] {
  const out: string[] = [];
  let cur = abs;
  for (;;) {
    const parent = nodePath.dirname(cur);
    if (parent === cur) break;
    out.push(parent);
    cur = parent;
  }
  return out;
}

// ENOTDIR, EACCES, loops: all read as missing
const diskStat = statOf;
const diskReadFile = readIfFile;

export function createOverlayVfs(workspaceDir: string, opts: OverlayVfsOptions = {}): Vfs {
  const norm = (p: unknown, fn: string): string => {
    if (typeof p !== 'string' || !nodePath.isAbsolute(p) || p.includes('\0')) {
      throw new Error(`Vfs.${fn}: expected an absolute path, got '${String(p)}'`);
    }
    return nodePath.resolve(p);
  };

  const workspace = norm(workspaceDir, 'create');
  const readOnlyRoots = (opts.readOnlyRoots ?? []).map((r) => norm(r, 'create'));
  const virtualRoots = (opts.virtualRoots ?? []).map((r) => norm(r, 'create'));
  /** What commit() may write: inside the workspace, and not simulated-only. */
  const committable = (abs: string): boolean =>
    abs !== workspace &&
    isInside(abs, workspace) &&
    !abs.split('/').includes('.aipack-base') &&
    !virtualRoots.some((r) => isInside(abs, r));
  const diskless = (opts.diskless ?? []).map((r) => nodePath.resolve(r));
  const offDisk = (abs: string): boolean => diskless.some((r) => isInside(abs, r));
  const dStat = (abs: string) => (offDisk(abs) ? undefined : diskStat(abs));
  const sealed = opts.sealed;
  const confined = (abs: string, confine: Confine) => (sealed?.covers(abs) ? sealed.read(abs, confine, readConfined) : readConfined(abs, confine));
  const dReadFile = (abs: string, confine?: Confine) => (offDisk(abs) ? undefined : confine ? confined(abs, confine) : diskReadFile(abs));
  const createdAt = Date.now();

  // -- baseline layer (virtual "disk" content)
  const baseline = new Map<string, FileEntry>();
  for (const [key, content] of Object.entries(opts.files ?? {})) {
    baseline.set(nodePath.resolve(workspace, key), { data: toBytes(content), mtimeMs: createdAt, ctimeMs: createdAt });
  }
  const baselineDirs = new Set<string>();
  for (const abs of baseline.keys()) for (const a of ancestors(abs)) baselineDirs.add(a);
  // the baseline's files and folders by the folders they lie in (listDir)
  const baselineBelow = new FilesBelow();
  for (const abs of baseline.keys()) baselineBelow.count(abs, 1);
  const baselineDirsBelow = new FilesBelow();
  for (const abs of baselineDirs) baselineDirsBelow.count(abs, 1);

  // -- overlay layer
  const overlay = new Map<string, OverlayEntry>();
  const overlayDirs = new Set<string>();
  // the overlay's folders by the folders they lie in (listDir)
  const dirsBelow = new FilesBelow();
  const addOverlayDir = (abs: string): void => {
    if (overlayDirs.has(abs)) return;
    overlayDirs.add(abs);
    dirsBelow.count(abs, 1);
  };
  const dropOverlayDir = (abs: string): void => {
    if (overlayDirs.delete(abs)) dirsBelow.count(abs, -1);
  };
  /** dirs removed by deleteDir: the lower layers' dirs below them are hidden (their files are deleted one by one) */
  const removedDirs = new Set<string>();
  const hidden = (abs: string): boolean => {
    for (const d of removedDirs) if (isInside(abs, d)) return true;
    return false;
  };

  // lower = baseline over disk
  const lowerFile = (abs: string, confine?: Confine): Uint8Array | undefined => baseline.get(abs)?.data ?? dReadFile(abs, confine);
  const lowerIsFile = (abs: string): boolean => baseline.has(abs) || (dStat(abs)?.isFile() ?? false);
  const lowerIsDir = (abs: string): boolean => !hidden(abs) && (baselineDirs.has(abs) || (dStat(abs)?.isDirectory() ?? false));

  const isFile = (abs: string): boolean => {
    const e = overlay.get(abs);
    if (e !== undefined) return e !== null;
    return lowerIsFile(abs);
  };

  // the folders the overlay's files (not its deletions) lie in: isDir asks at every write of a new file
  const filesBelow = new FilesBelow();
  // the overlay's deletions of lower files (listDir)
  const deletionsBelow = new FilesBelow();
  /** The overlay's entry for `abs` set (a file, or null: a lower file deleted) or dropped (undefined). */
  const putOverlay = (abs: string, entry: OverlayEntry | undefined): void => {
    const was = overlay.get(abs);
    const wasFile = was !== undefined && was !== null;
    const isFileNow = entry !== undefined && entry !== null;
    if (entry === undefined) overlay.delete(abs);
    else overlay.set(abs, entry);
    if (isFileNow !== wasFile) filesBelow.count(abs, isFileNow ? 1 : -1);
    if ((was === null) !== (entry === null)) deletionsBelow.count(abs, entry === null ? 1 : -1);
  };

  const isDir = (abs: string): boolean => {
    const e = overlay.get(abs);
    if (e) return false;
    if (overlayDirs.has(abs)) return true;
    if (lowerIsDir(abs)) return true;
    return filesBelow.has(abs);
  };

  const guardWritable = (abs: string, fn: string): void => {
    for (const root of readOnlyRoots) {
      if (isInside(abs, root)) throw new Error(`Vfs.${fn}: refusing to change '${abs}': it is inside the read-only dir '${root}'`);
    }
  };

  /**
   * Parents must be dirs (or missing), never files. The nearest of the run's own dirs ends the check: addDirs made
   * it below dirs, and a dir is never written over, so none above it is a file. Above a dir on the disk the disk
   * holds dirs too: only the run's layers are looked at there.
   */
  const guardParents = (abs: string, fn: string): void => {
    let diskDirBelow = false;
    for (let a = nodePath.dirname(abs), below = abs; a !== below; below = a, a = nodePath.dirname(a)) {
      if (overlayDirs.has(a)) return;
      const e = overlay.get(a);
      let file: boolean;
      if (e !== undefined) file = e !== null;
      else if (baseline.has(a)) file = true;
      else if (diskDirBelow) file = false;
      else {
        const st = dStat(a);
        file = st?.isFile() ?? false;
        diskDirBelow = st?.isDirectory() ?? false;
      }
      if (file) throw new Error(`Vfs.${fn}: cannot create '${abs}': '${a}' is a file, expected a directory`);
    }
  };

  /** Records missing parent dirs, so they keep existing if the file is deleted again (as on a real disk). */
  const addDirs = (dir: string): void => {
    for (let d = dir, below = ''; d !== below; below = d, d = nodePath.dirname(d)) {
      if (overlayDirs.has(d) || lowerIsDir(d)) break;
      addOverlayDir(d);
    }
  };

  const statAt = (abs: string): FileStat | undefined => {
    const e = overlay.get(abs) ?? (overlay.has(abs) ? null : baseline.get(abs));
    if (e === null) return undefined;
    if (e) return { size: e.data.length, mtimeMs: e.mtimeMs, ctimeMs: e.ctimeMs };
    const st = hidden(abs) ? undefined : dStat(abs);
    if (st && (st.isFile() || st.isDirectory())) {
      // ctime here means creation time (AIPack's `created`), so prefer birthtime where the OS has one
      return { size: st.isFile() ? st.size : 0, mtimeMs: st.mtimeMs, ctimeMs: st.birthtimeMs || st.ctimeMs };
    }
    if (isDir(abs)) return { size: 0, mtimeMs: createdAt, ctimeMs: createdAt };
    return undefined;
  };

  const vfs: Vfs = {
    workspaceDir: workspace,
    ...(diskless.length > 0 ? { diskless } : {}),
    // a read of a path the overlay, the baseline or a diskless folder answers does not come from the sealed bytes;
    // the sealed root is the folder they were read below
    ...(sealed
      ? {
          keptRealPath: (p: string) => {
            const abs = nodePath.resolve(p);
            return overlay.has(abs) || baseline.has(abs) || offDisk(abs) ? undefined : sealed.realOf(abs);
          },
        }
      : {}),

    readBytes(p, confine) {
      const abs = norm(p, 'readBytes');
      const e = overlay.get(abs);
      if (e !== undefined) return e === null ? undefined : new Uint8Array(e.data);
      // the baseline's bytes are shared by every read; a disk read makes its own, which the caller may keep
      const base = baseline.get(abs);
      return base ? new Uint8Array(base.data) : dReadFile(abs, confine);
    },

    readFile(p, confine) {
      const bytes = vfs.readBytes(norm(p, 'readFile'), confine);
      return bytes === undefined ? undefined : decoder.decode(bytes);
    },

    stat: (p) => statAt(norm(p, 'stat')),

    isFile: (p) => isFile(norm(p, 'isFile')),
    isDir: (p) => isDir(norm(p, 'isDir')),

    listDir(p): DirEntry[] {
      const abs = norm(p, 'listDir');
      if (!isDir(abs)) return [];
      const entries = new Map<string, boolean>();
      const st = hidden(abs) ? undefined : dStat(abs);
      if (st?.isDirectory()) {
        const dirents: fs.Dirent[] = offDisk(abs) ? [] : listEntries(abs);
        for (const d of dirents) {
          // symlinks are reported as what they point to (a dangling link reads as a file)
          const dirLike = d.isDirectory() || (d.isSymbolicLink() && (dStat(nodePath.join(abs, d.name))?.isDirectory() ?? false));
          entries.set(d.name, dirLike);
        }
      }
      // a layer's paths in this folder (dirLike: they are folders) and below it (their first name is a folder)
      const addChildren = (names: ReadonlyMap<string, NameCount> | undefined, dirLike: boolean): void => {
        if (!names) return;
        for (const [name, c] of names) {
          if (c.self > 0) entries.set(name, dirLike || (entries.get(name) ?? false));
          if (c.below > 0) entries.set(name, true);
        }
      };
      addChildren(baselineBelow.in(abs), false);
      addChildren(baselineDirsBelow.in(abs), true);
      for (const [name, c] of deletionsBelow.in(abs) ?? []) if (c.self > 0 && entries.get(name) === false) entries.delete(name);
      for (const [name, dirLike] of entries) if (dirLike && !isDir(nodePath.join(abs, name))) entries.delete(name);
      addChildren(filesBelow.in(abs), false);
      addChildren(dirsBelow.in(abs), true);
      return [...entries.entries()]
        .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
        .map(([name, dirLike]) => ({ name, isDir: dirLike }));
    },

    writeFile(p, content) {
      const abs = norm(p, 'writeFile');
      guardWritable(abs, 'writeFile');
      if (isDir(abs)) throw new Error(`Vfs.writeFile: cannot write '${abs}': it is a directory, expected a file path`);
      guardParents(abs, 'writeFile');
      const now = Date.now();
      const prev = statAt(abs);
      addDirs(nodePath.dirname(abs));
      putOverlay(abs, { data: toBytes(content), mtimeMs: now, ctimeMs: prev?.ctimeMs ?? now });
    },

    appendFile(p, bytes) {
      const abs = norm(p, 'appendFile');
      const e = overlay.get(abs);
      if (!e) return false;
      guardWritable(abs, 'appendFile');
      const { data, room } = appendInto(e.data, e.room, bytes);
      overlay.set(abs, { data, room, mtimeMs: Date.now(), ctimeMs: e.ctimeMs });
      return true;
    },

    deleteFile(p) {
      const abs = norm(p, 'deleteFile');
      guardWritable(abs, 'deleteFile');
      if (!isFile(abs)) return false;
      putOverlay(abs, lowerIsFile(abs) ? null : undefined);
      return true;
    },

    deleteDir(p) {
      const abs = norm(p, 'deleteDir');
      guardWritable(abs, 'deleteDir');
      if (!isDir(abs)) return false;
      for (const f of filesUnder(vfs, abs)) vfs.deleteFile(f);
      for (const d of [...overlayDirs]) if (isInside(d, abs)) dropOverlayDir(d);
      removedDirs.add(abs);
      return true;
    },

    mkdirp(p) {
      const abs = norm(p, 'mkdirp');
      guardWritable(abs, 'mkdirp');
      if (isFile(abs)) throw new Error(`Vfs.mkdirp: cannot create dir '${abs}': a file exists there`);
      guardParents(abs, 'mkdirp');
      addDirs(abs);
    },

    changes(): FileChanges {
      const created: string[] = [];
      const changed: string[] = [];
      const deleted: string[] = [];
      for (const [abs, e] of overlay) {
        if (!committable(abs)) continue;
        const rel = nodePath.relative(workspace, abs).split(nodePath.sep).join('/');
        const before = lowerFile(abs);
        if (e === null) {
          if (before !== undefined) deleted.push(rel);
        } else if (before === undefined) {
          created.push(rel);
        } else if (!sameBytes(before, e.data)) {
          changed.push(rel);
        }
      }
      return { created: created.sort(), changed: changed.sort(), deleted: deleted.sort() };
    },

    snapshot() {
      const { created, changed, deleted } = vfs.changes();
      const out = new Map<string, string | null>();
      for (const rel of [...created, ...changed].sort()) {
        const e = overlay.get(nodePath.join(workspace, rel));
        out.set(rel, e ? decoder.decode(e.data) : null);
      }
      for (const rel of deleted) out.set(rel, null);
      return out;
    },

    pending() {
      const changes: Change[] = [...overlay.entries()]
        .filter(([abs]) => committable(abs))
        .map(([abs, e]) => [abs, e === null ? null : new Uint8Array(e.data)] as const);
      return { changes, dirs: [...overlayDirs].filter(committable) };
    },

    commit() {
      const { changes, dirs } = vfs.pending();
      // all checked before anything is written, each file replaced atomically (commit.ts)
      writeChanges(workspace, changes, dirs, [nodePath.join(workspace, '.aipack', 'pack')]);
      // the disk now holds these; the overlay keeps only what never reaches it (outside the workspace)
      for (const [abs] of changes) {
        putOverlay(abs, undefined);
        if (baseline.delete(abs)) baselineBelow.count(abs, -1); // the disk is now the truth for this path
      }
      for (const d of dirs) dropOverlayDir(d);
      // a removed folder's deletions are on the disk now, and the folder itself stays there (emptied, or holding
      // what the run wrote in it since): the disk shows it again
      for (const d of [...removedDirs]) if (committable(d)) removedDirs.delete(d);
    },
  };
  return vfs;
}

/** What `watchWrites` reports: the path a write, delete or mkdirp is about to change, or the whole tree (commit). */
export type WriteEvent = { kind: 'file' | 'dir'; abs: string } | { kind: 'all' };

/**
 * `vfs` calling `changed(event)` before each write, delete, mkdirp or commit (for readers that keep what they
 * read: they forget what the event can change).
 */
export function watchWrites(vfs: Vfs, changed: (event: WriteEvent) => void): Vfs {
  return {
    ...delegateTo(vfs),
    writeFile: (abs, content) => (changed({ kind: 'file', abs }), vfs.writeFile(abs, content)),
    appendFile: (abs, bytes) => (changed({ kind: 'file', abs }), vfs.appendFile(abs, bytes)),
    deleteFile: (abs) => (changed({ kind: 'file', abs }), vfs.deleteFile(abs)),
    deleteDir: (abs) => (changed({ kind: 'dir', abs }), vfs.deleteDir(abs)),
    mkdirp: (abs) => (changed({ kind: 'dir', abs }), vfs.mkdirp(abs)),
    commit: () => (changed({ kind: 'all' }), vfs.commit()),
  };
}

/**
 * `vfs` with the bytes written through it counted: what a run's saves, copies and appends hold in memory (the
 * overlay and the base layer keep every written file until the run ends). `charge(delta)` is told every change
 * of that total (a rewrite counts its new size less its old one, a delete gives the bytes back) before the write
 * is made, and may throw to refuse it.
 */
export function countWrites(vfs: Vfs, charge: (delta: number, total: number) => void): Vfs {
  const sizes = new Map<string, number>();
  let total = 0;
  const account = (abs: string, size: number) => {
    const delta = size - (sizes.get(abs) ?? 0);
    charge(delta, total + delta);
    total += delta;
    if (size === 0) sizes.delete(abs);
    else sizes.set(abs, size);
  };
  return {
    ...delegateTo(vfs),
    writeFile(abs, content) {
      const size = typeof content === 'string' ? Buffer.byteLength(content) : content.byteLength;
      account(abs, size);
      try {
        vfs.writeFile(abs, content);
      } catch (err) {
        account(abs, 0);
        throw err;
      }
    },
    appendFile(abs, bytes) {
      // only a file written through here can be held below; its new size is charged as its rewrite would be
      const before = sizes.get(abs);
      if (before === undefined) return false;
      account(abs, before + bytes.byteLength);
      let appended: boolean;
      try {
        appended = vfs.appendFile(abs, bytes);
      } catch (err) {
        account(abs, 0);
        throw err;
      }
      if (!appended) account(abs, before);
      return appended;
    },
    deleteFile(abs) {
      const removed = vfs.deleteFile(abs);
      if (removed && sizes.has(abs)) account(abs, 0);
      return removed;
    },
    deleteDir(abs) {
      const removed = vfs.deleteDir(abs);
      if (removed) for (const p of [...sizes.keys()]) if (isInside(p, abs)) account(p, 0);
      return removed;
    },
  };
}

/**
 * `vfs` whose reads refuse, before reading a byte, a file larger than `allowance()` (what the run tree may still
 * hold: its memory cap less its Lua memory): every `aip.file` reader, the agent and module loaders read through
 * it, so a huge or sparse file gives a Lua error instead of filling the process. A file on the disk is measured as
 * it is opened (the read's `confine`), which costs no stat of its own; one the run holds in memory (it wrote it) is
 * measured once read, as its bytes are in memory already.
 */
export function capReads(vfs: Vfs, allowance: () => number): Vfs {
  const fits = (abs: string, size: number): void => {
    const left = allowance();
    if (size > left) throw readTooBig(`'${abs}'`, size, left);
  };
  const capped =
    <T>(read: (abs: string, confine: Confine) => T | undefined) =>
    (abs: string, confine?: Confine): T | undefined => {
      let opened = false;
      const value = read(abs, (real, size) => {
        confine?.(real, size);
        opened = true;
        fits(abs, size);
      });
      if (value !== undefined && !opened) {
        const size = vfs.stat(abs)?.size;
        if (size !== undefined) fits(abs, size);
      }
      return value;
    };
  return {
    ...delegateTo(vfs),
    readFile: capped((abs, confine) => vfs.readFile(abs, confine)),
    readBytes: capped((abs, confine) => vfs.readBytes(abs, confine)),
    // an append to a file held in memory reads nothing, but is refused where reading the file would be
    appendFile(abs, bytes) {
      const size = vfs.stat(abs)?.size;
      if (size !== undefined) fits(abs, size);
      return vfs.appendFile(abs, bytes);
    },
    readLimit: allowance,
  };
}

/**
 * Whether a write can change what a run keeps of its reads: a file it read (an agent, the config), an agent file
 * (a new `.aip` can change how a name resolves), a pack's `pack.toml`, a removed folder, or a commit. Anything
 * else (a sub-agent's notes, a record, an answer) cannot, and a run that appends a line per step keeps its reads.
 */
export function changesRunReads(event: WriteEvent, texts: ReadonlyMap<string, string | undefined>): boolean {
  if (event.kind === 'all') return true;
  if (event.kind === 'dir') return event.abs !== '' && [...texts.keys()].some((p) => p.startsWith(event.abs + nodePath.sep));
  const name = nodePath.basename(event.abs);
  return texts.has(event.abs) || name.endsWith('.aip') || name === 'pack.toml';
}
