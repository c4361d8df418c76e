/** What a host path is: its real path, whether it lies inside a root, whether its name reads as one name. */
import fs from 'node:fs';
import nodePath from 'node:path';

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
 * `oftenMissing`: `abs` itself is often missing on the disk, so a stat asks first (see below).
 */
export function realPathOf(abs: string, oftenMissing = false): string {
  let probe = nodePath.resolve(abs);
  const rest: string[] = [];
  for (let tries = 0; ; tries++) {
    // past the path itself, a missing ancestor is found by a stat, which does not throw: a failed realpath throws
    // (an error and its stack trace, ~0.1 ms), and walks the path from the root each time (a simulated
    // workspace's paths are missing on disk, a few deep)
    if ((tries === 0 && !oftenMissing) || statOf(probe) !== undefined) {
      try {
        const real = fs.realpathSync.native(probe);
        return rest.length ? nodePath.join(real, ...rest.reverse()) : real;
      } catch {
        // missing (or unreadable): its parent is tried
      }
    }
    const parent = nodePath.dirname(probe);
    if (parent === probe) return nodePath.resolve(abs);
    rest.push(nodePath.basename(probe));
    probe = parent;
  }
}
