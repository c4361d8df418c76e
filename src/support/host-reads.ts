/** Host reads and listings: followed where the caller says so, never through an unexpected symlink otherwise. */
import fs from 'node:fs';
import nodePath from 'node:path';
import { HostFsError, isFile, isInside, realPathOf, statOf } from './host-paths.ts';

const { O_NOFOLLOW, O_NONBLOCK, O_RDONLY } = fs.constants;

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
 * Reads the regular file at `abs` and tells `confine` the real path and size of the file it opened, before reading
 * a byte: `confine` throws to refuse it. The path is checked as it is opened, not before, so a file swapped for a
 * symlink (or a directory on the way swapped for one) between a check and the read is judged where it really
 * leads. The opened file's path comes from the kernel (Linux), else from realpath confirmed by the descriptor's
 * device and inode. undefined when there is no regular file there.
 */
export function readConfined(abs: string, confine: (real: string, size: number) => void): Uint8Array | undefined {
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
    confine(real, st.size);
    return readOpened(fd, st.size);
  } finally {
    fs.closeSync(fd);
  }
}

/**
 * The bytes of an open regular file of `size` bytes (its stat's), read into one array: what fs.readFileSync(fd)
 * reads, without its second stat and copy. A file that shrank meanwhile gives what is left.
 */
function readOpened(fd: number, size: number): Uint8Array {
  // a file whose stat says 0 bytes may still have some (procfs and the like report 0): read to its end
  if (size === 0) return new Uint8Array(fs.readFileSync(fd));
  const bytes = new Uint8Array(size);
  let at = 0;
  while (at < size) {
    const n = fs.readSync(fd, bytes, at, size - at, null);
    if (n === 0) return bytes.subarray(0, at);
    at += n;
  }
  return bytes;
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
