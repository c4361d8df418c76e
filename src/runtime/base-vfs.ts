/**
 * The AIPack base dir of a simulated run, split off the run's Vfs.
 *
 * AIPack lets agents save under `.aipack-base` (its `check_access_write`), so the simulator accepts those writes
 * too, but keeps them in a memory layer of their own over the caller's Vfs: whatever Vfs the caller gave, whether
 * the base is the simulated one or a real `--aipack-base` dir (even one inside the workspace), a base write never
 * reaches `changes()`, `pending()` or `commit()`, so no run can touch the user's base dir on disk.
 */
import nodePath from 'node:path';
import { appendInto } from '../support/append-room.ts';
import { FilesBelow } from '../support/files-below.ts';
import { isInside } from '../support/host-fs.ts';
import { delegateTo, filesUnder } from '../support/vfs.ts';
import type { Confine, DirEntry, FileStat, Vfs } from '../support/vfs.ts';

interface Entry {
  data: Uint8Array;
  mtimeMs: number;
  ctimeMs: number;
  /** what `data` is the start of, with room after it for appends */
  room?: Uint8Array;
}

const encoder = new TextEncoder();
const decoder = new TextDecoder('utf-8');

export function withBaseLayer(main: Vfs, baseDir: string): Vfs {
  const root = nodePath.resolve(baseDir);
  /** base writes of this run; null = deleted */
  const layer = new Map<string, Entry | null>();
  // the folders the layer's files lie in (isDir, listDir), and its deletions (listDir)
  const filesBelow = new FilesBelow();
  const deletionsBelow = new FilesBelow();
  const put = (abs: string, entry: Entry | null): void => {
    const was = layer.get(abs);
    layer.set(abs, entry);
    if ((was ? 1 : 0) !== (entry ? 1 : 0)) filesBelow.count(abs, entry ? 1 : -1);
    if ((was === null) !== (entry === null)) deletionsBelow.count(abs, entry === null ? 1 : -1);
  };
  const dirs = new Set<string>();
  const dirsBelow = new FilesBelow();
  const inBase = (abs: string) => isInside(abs, root);

  const isFile = (abs: string): boolean => {
    const e = layer.get(abs);
    return e !== undefined ? e !== null : main.isFile(abs);
  };
  const isDir = (abs: string): boolean => {
    if (layer.get(abs)) return false;
    if (dirs.has(abs) || main.isDir(abs)) return true;
    return filesBelow.has(abs);
  };
  const addDirs = (dir: string): void => {
    for (let d = dir; inBase(d) && !dirs.has(d); d = nodePath.dirname(d)) {
      dirs.add(d);
      dirsBelow.count(d, 1);
    }
  };
  const readBytes = (abs: string, confine?: Confine): Uint8Array | undefined => {
    const e = layer.get(abs);
    if (e === null) return undefined;
    return e ? new Uint8Array(e.data) : main.readBytes(abs, confine);
  };

  const base = {
    readBytes,
    readFile(abs: string, confine?: Confine) {
      const b = readBytes(abs, confine);
      return b === undefined ? undefined : decoder.decode(b);
    },
    stat(abs: string): FileStat | undefined {
      const e = layer.get(abs);
      if (e === null) return undefined;
      if (e) return { size: e.data.length, mtimeMs: e.mtimeMs, ctimeMs: e.ctimeMs };
      const st = main.stat(abs);
      if (st) return st;
      if (isDir(abs)) return { size: 0, mtimeMs: Date.now(), ctimeMs: Date.now() };
      return undefined;
    },
    isFile,
    isDir,
    listDir(abs: string): DirEntry[] {
      if (!isDir(abs)) return [];
      const entries = new Map(main.listDir(abs).map((e) => [e.name, e.isDir]));
      // the layer's deletions and files in this folder, then the names that lead to its files and folders below
      for (const [name, c] of deletionsBelow.in(abs) ?? []) if (c.self > 0) entries.delete(name);
      for (const [name, c] of filesBelow.in(abs) ?? []) entries.set(name, c.below > 0);
      for (const [name] of dirsBelow.in(abs) ?? []) entries.set(name, true);
      return [...entries].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([name, d]) => ({ name, isDir: d }));
    },
    writeFile(abs: string, content: string | Uint8Array) {
      if (isDir(abs)) throw new Error(`Vfs.writeFile: cannot write '${abs}': it is a directory, expected a file path`);
      const now = Date.now();
      const prev = base.stat(abs);
      addDirs(nodePath.dirname(abs));
      const data = typeof content === 'string' ? encoder.encode(content) : new Uint8Array(content);
      put(abs, { data, mtimeMs: now, ctimeMs: prev?.ctimeMs ?? now });
    },
    appendFile(abs: string, bytes: Uint8Array): boolean {
      const e = layer.get(abs);
      if (!e) return false;
      const { data, room } = appendInto(e.data, e.room, bytes);
      layer.set(abs, { data, room, mtimeMs: Date.now(), ctimeMs: e.ctimeMs });
      return true;
    },
    deleteFile(abs: string) {
      if (!isFile(abs)) return false;
      put(abs, null);
      return true;
    },
    deleteDir(abs: string): boolean {
      if (!isDir(abs)) return false;
      for (const f of filesUnder(base, abs)) base.deleteFile(f);
      return true;
    },
    mkdirp(abs: string) {
      if (isFile(abs)) throw new Error(`Vfs.mkdirp: cannot create dir '${abs}': a file exists there`);
      addDirs(abs);
    },
  };

  // the base layer is never part of what a run changed or may commit: changes, snapshot, pending and commit are main's
  return {
    ...delegateTo(main),
    readFile: (abs, confine) => (inBase(abs) ? base.readFile(abs, confine) : main.readFile(abs, confine)),
    readBytes: (abs, confine) => (inBase(abs) ? base.readBytes(abs, confine) : main.readBytes(abs, confine)),
    stat: (abs) => (inBase(abs) ? base.stat(abs) : main.stat(abs)),
    isFile: (abs) => (inBase(abs) ? base.isFile(abs) : main.isFile(abs)),
    isDir: (abs) => (inBase(abs) ? base.isDir(abs) : main.isDir(abs)),
    listDir: (abs) => (inBase(abs) ? base.listDir(abs) : main.listDir(abs)),
    writeFile: (abs, content) => (inBase(abs) ? base.writeFile(abs, content) : main.writeFile(abs, content)),
    appendFile: (abs, bytes) => (inBase(abs) ? base.appendFile(abs, bytes) : main.appendFile(abs, bytes)),
    deleteFile: (abs) => (inBase(abs) ? base.deleteFile(abs) : main.deleteFile(abs)),
    deleteDir: (abs) => (inBase(abs) ? base.deleteDir(abs) : main.deleteDir(abs)),
    mkdirp: (abs) => (inBase(abs) ? base.mkdirp(abs) : main.mkdirp(abs)),
  };
}
