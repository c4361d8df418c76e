import nodePath from 'node:path';

/**
 * The file system a simulated run sees. Reads fall through to the real disk; writes and deletes land in an
 * in-memory overlay, so a run never touches the user's files unless the caller commits the overlay (`--write`).
 * All paths are absolute and normalised (no `..`, no trailing slash).
 */
export interface FileStat {
  size: number;
  /** milliseconds since epoch */
  mtimeMs: number;
  ctimeMs: number;
}

export interface DirEntry {
  name: string;
  isDir: boolean;
}

export interface FileChanges {
  /** workspace-relative paths, sorted */
  created: string[];
  changed: string[];
  deleted: string[];
}

/** Judges a file as it is opened for a read, by its real path and size, before a byte is read; throws to refuse it. */
export type Confine = (real: string, size: number) => void;

export interface Vfs {
  readonly workspaceDir: string;
  /**
   * `confine`, when given, is told the real path and size of a file read from the disk as it is opened, before its
   * bytes are read, and throws to refuse it (read-guard.ts: a file swapped for a symlink during a run is refused;
   * vfs.ts capReads: a file too large for the run's memory). A file the run holds in memory is not told.
   */
  readFile(abs: string, confine?: Confine): string | undefined;
  readBytes(abs: string, confine?: Confine): Uint8Array | undefined;
  stat(abs: string): FileStat | undefined;
  isFile(abs: string): boolean;
  isDir(abs: string): boolean;
  /** entries of a directory, overlay merged over disk, sorted by name; [] when missing */
  listDir(abs: string): DirEntry[];
  /** creates parent directories as needed */
  writeFile(abs: string, content: string | Uint8Array): void;
  /**
   * Adds `bytes` at the end of a file this Vfs holds in memory (the run wrote it), as writeFile of its content and
   * them would, and answers true; answers false, changing nothing, for any other path: the caller then reads the
   * file and writes it whole. A log appended line by line would otherwise cost its size at every line.
   */
  appendFile(abs: string, bytes: Uint8Array): boolean;
  /** true when a file was removed */
  deleteFile(abs: string): boolean;
  /**
   * removes a directory and everything below it from the run's view (true when it existed); the files count as
   * deleted, the emptied directories themselves stay on disk after commit()
   */
  deleteDir(abs: string): boolean;
  mkdirp(abs: string): void;
  /** what the overlay holds compared with the disk, for paths inside the workspace */
  changes(): FileChanges;
  /** the current content of every changed/created workspace file (workspace-relative keys), deleted -> null */
  snapshot(): Map<string, string | null>;
  /** what commit() would write: changed files (null = deleted) and created empty dirs, absolute paths */
  pending(): { changes: Array<readonly [string, Uint8Array | null]>; dirs: string[] };
  /**
   * writes the overlay to disk (workspace paths only, never `.aipack/pack/`): every change checked first (a
   * CommitError lists those that cannot be written, and nothing is), then each file replaced atomically
   */
  commit(): void;
  /**
   * bytes one read may still bring into memory (the run's memory cap less what its tree holds), when reads are
   * capped (runtime/vfs.ts capReads); a reader of many files at once checks their sum against it
   */
  readLimit?(): number;
  /** folders this Vfs never reads from the disk (runtime/vfs.ts `diskless`): the read guard judges paths there as written */
  readonly diskless?: readonly string[];
  /**
   * The real path the file at `abs` had when an earlier confined read opened it, when this Vfs answers a read of
   * `abs` with that read's bytes (runtime/sealed-reads.ts), or the real path of the folder such files are kept
   * below, as found then; undefined otherwise. The read guard judges such a path by it: the bytes it lets through
   * are those judged then.
   */
  keptRealPath?(abs: string): string | undefined;
}

/**
 * A Vfs that hands every call on to `vfs`: a wrapper spreads it and replaces only the methods it changes (a read
 * filter its reads, a write counter its writes), so none restates the rest.
 */
export function delegateTo(vfs: Vfs): Vfs {
  return {
    workspaceDir: vfs.workspaceDir,
    readFile: (abs, confine) => vfs.readFile(abs, confine),
    readBytes: (abs, confine) => vfs.readBytes(abs, confine),
    stat: (abs) => vfs.stat(abs),
    isFile: (abs) => vfs.isFile(abs),
    isDir: (abs) => vfs.isDir(abs),
    listDir: (abs) => vfs.listDir(abs),
    writeFile: (abs, content) => vfs.writeFile(abs, content),
    appendFile: (abs, bytes) => vfs.appendFile(abs, bytes),
    deleteFile: (abs) => vfs.deleteFile(abs),
    deleteDir: (abs) => vfs.deleteDir(abs),
    mkdirp: (abs) => vfs.mkdirp(abs),
    changes: () => vfs.changes(),
    snapshot: () => vfs.snapshot(),
    pending: () => vfs.pending(),
    commit: () => vfs.commit(),
    ...(vfs.readLimit ? { readLimit: () => vfs.readLimit!() } : {}),
    ...(vfs.diskless ? { diskless: vfs.diskless } : {}),
  };
}

/** Every file below `dir` in a Vfs, depth first (for deleting or moving a directory whole). */
export function filesUnder(vfs: Pick<Vfs, 'listDir'>, dir: string): string[] {
  return vfs.listDir(dir).flatMap((e) => (e.isDir ? filesUnder(vfs, nodePath.join(dir, e.name)) : [nodePath.join(dir, e.name)]));
}
