import fs from 'node:fs';
import nodePath from 'node:path';
import { LuaError } from '../engine/values.ts';
import { isInside } from '../support/paths.ts';
import type { Vfs } from '../support/vfs.ts';

/**
 * The real path of `abs`: symlinks of its longest existing prefix resolved, the missing rest appended as written.
 * A path that exists only in the overlay (or nowhere) is judged by where its existing part really is.
 */
function realPathOf(abs: string): string {
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

export class ReadRefused extends LuaError {}

/** Decides whether a path may be read: its real path (symlinks resolved) must lie below one of the roots. */
export interface ReadPolicy {
  readonly roots: readonly string[];
  allows(abs: string): boolean;
  /** raises the protection error for `abs` */
  refuse(abs: string): never;
}

export function readPolicy(workspaceDir: string, roots: readonly string[]): ReadPolicy {
  // roots are compared both as written and resolved, so a root reached through a symlink still matches
  const realRoots = [...new Set(roots.flatMap((r) => [nodePath.resolve(r), realPathOf(r)]))];
  const allows = (abs: string): boolean => {
    if (typeof abs !== 'string' || !nodePath.isAbsolute(abs)) return false;
    const norm = nodePath.resolve(abs);
    // judge the normalised path first: "<root>/../x" is outside even though it starts with the root
    if (!realRoots.some((r) => isInside(norm, r))) return false;
    const real = realPathOf(norm);
    return realRoots.some((r) => isInside(real, r));
  };
  return {
    roots: realRoots,
    allows,
    refuse(abs) {
      throw new ReadRefused(
        `Read protection (simulator) - The path \`${abs}\` is outside the workspace \`${workspaceDir}\` and the packs ` +
          '(symlinks resolved); a simulated run does not read it',
      );
    },
  };
}

/**
 * The Vfs as the simulator and its Lua code see it: reads only below the policy's roots (the workspace, the packs,
 * the simulated home), judged on real paths so a symlink cannot lead out. AIPack itself reads anywhere; the
 * simulator does not, so an untrusted sub-agent cannot read the host's files. Existence checks answer false
 * outside (no probing); reads raise a Lua error saying why; listings leave out entries that lead outside.
 */
export function guardReads(vfs: Vfs, rootsOrPolicy: string[] | ReadPolicy): Vfs {
  const policy = Array.isArray(rootsOrPolicy) ? readPolicy(vfs.workspaceDir, rootsOrPolicy) : rootsOrPolicy;
  const allowed = policy.allows;
  const refuse = (abs: string) => policy.refuse(abs);
  return {
    get workspaceDir() {
      return vfs.workspaceDir;
    },
    readFile: (abs) => (allowed(abs) ? vfs.readFile(abs) : refuse(abs)),
    readBytes: (abs) => (allowed(abs) ? vfs.readBytes(abs) : refuse(abs)),
    stat: (abs) => (allowed(abs) ? vfs.stat(abs) : undefined),
    isFile: (abs) => allowed(abs) && vfs.isFile(abs),
    isDir: (abs) => allowed(abs) && vfs.isDir(abs),
    listDir: (abs) => (allowed(abs) ? vfs.listDir(abs).filter((e) => allowed(nodePath.join(abs, e.name))) : refuse(abs)),
    writeFile: (abs, content) => vfs.writeFile(abs, content),
    deleteFile: (abs) => vfs.deleteFile(abs),
    deleteDir: (abs) => vfs.deleteDir(abs),
    mkdirp: (abs) => vfs.mkdirp(abs),
    changes: () => vfs.changes(),
    snapshot: () => vfs.snapshot(),
    pending: () => vfs.pending(),
    commit: () => vfs.commit(),
  };
}
