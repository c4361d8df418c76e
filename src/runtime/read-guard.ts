import nodePath from 'node:path';
import { LuaError } from '../engine/values.ts';
import { isInside, lstatOf, realPathOf } from '../support/host-fs.ts';
import { relativeKeyProblem } from '../support/paths.ts';
import { delegateTo, type Confine, type Vfs } from '../support/vfs.ts';

export class ReadRefused extends LuaError {}

/** Decides whether a path may be read: its real path (symlinks resolved) must lie below one of the roots. */
export interface ReadPolicy {
  readonly roots: readonly string[];
  allows(abs: string): boolean;
  /** raises the protection error for `abs` */
  refuse(abs: string): never;
  /**
   * The check of a read of `abs` as its file is opened: the real path of the opened file must lie below a root,
   * whatever the verdict held for `abs` says (a file swapped for a symlink since it was judged is refused).
   */
  confine(abs: string): Confine;
  /**
   * Keeps each path's verdict until the returned function is called (holds nest): one realpath per directory for a
   * run, and an lstat per path in it. A held verdict only lets a read through: the file the read opens is judged
   * again as it is opened (`confine`), so a file swapped for a symlink during the run is refused. Existence checks
   * and listings answer from it.
   */
  hold(): () => void;
}

/** verdicts (and directories' real paths) kept by a hold; past this many the oldest go (a run that lists a huge tree) */
const HELD_VERDICTS = 10_000;

/** Sets `key` in a map kept to HELD_VERDICTS entries (the oldest dropped). */
function keep<V>(map: Map<string, V>, key: string, value: V): V {
  if (map.size >= HELD_VERDICTS) map.delete(map.keys().next().value as string);
  map.set(key, value);
  return value;
}

/**
 * `roots` are compared both as written and resolved, so a root reached through a symlink still matches;
 * `virtualRoots` (dirs that never exist on disk for the run, e.g. the simulated home) only as written: a folder a
 * repository ships under that name, or a symlink to `/`, opens nothing; so do the `roots` below one. `keptReal`
 * (Vfs.keptRealPath): for a file whose reads are answered with the bytes of an earlier confined read, the real path
 * that read opened, and for the folder such files are kept below, its real path as found then; the policy judges
 * them by it without asking the disk again.
 */
export function readPolicy(
  workspaceDir: string,
  roots: readonly string[],
  virtualRoots: readonly string[] = [],
  keptReal?: (abs: string) => string | undefined,
): ReadPolicy {
  const virtual = virtualRoots.map((r) => nodePath.resolve(r));
  // a root below a virtual root is judged as written, as everything there is: what the disk has by its name (a link
  // to `/`, say) is not the run's. Any other root is often missing on the disk (a base dir no run made)
  const realOf = (abs: string) => (virtual.some((v) => isInside(abs, v)) ? [] : [keptReal?.(abs) ?? realPathOf(abs, true)]);
  const realRoots = [...new Set([...roots.map((r) => nodePath.resolve(r)).flatMap((abs) => [abs, ...realOf(abs)]), ...virtual])];
  let verdicts: Map<string, boolean> | undefined;
  /** real paths of the directories judged paths lie in, while held: glibc's realpath reads every segment's link */
  let realDirs: Map<string, string> | undefined;
  let holds = 0;
  // what realPathOf(norm) gives: the directory's real path (kept while held), then the name, unless it is a link
  const realPath = (norm: string): string => {
    const dir = nodePath.dirname(norm);
    if (realDirs === undefined || dir === norm || lstatOf(norm)?.isSymbolicLink()) return realPathOf(norm);
    const realDir = realDirs.get(dir) ?? keep(realDirs, dir, realPathOf(dir));
    return nodePath.join(realDir, nodePath.basename(norm));
  };
  const judge = (abs: string): boolean => {
    if (typeof abs !== 'string' || !nodePath.isAbsolute(abs)) return false;
    const norm = nodePath.resolve(abs);
    // judge the normalised path first: "<root>/../x" is outside even though it starts with the root
    if (!realRoots.some((r) => isInside(norm, r))) return false;
    // nothing below a virtual root comes from the disk: what is there on the disk, a link included, is not its
    if (virtual.some((r) => isInside(norm, r))) return true;
    const real = keptReal?.(norm) ?? realPath(norm);
    return realRoots.some((r) => isInside(real, r));
  };
  const allows = (abs: string): boolean => {
    if (verdicts === undefined || typeof abs !== 'string') return judge(abs);
    return verdicts.get(abs) ?? keep(verdicts, abs, judge(abs));
  };
  const refuse = (abs: string): never => {
    throw new ReadRefused(
      `Read protection (simulator) - The path \`${abs}\` is outside the workspace \`${workspaceDir}\` and the packs ` +
        '(symlinks resolved); a simulated run does not read it',
    );
  };
  return {
    roots: realRoots,
    allows,
    refuse,
    confine: (abs) => (real) => {
      if (!realRoots.some((r) => isInside(real, r))) refuse(abs);
    },
    hold() {
      if (holds++ === 0) {
        verdicts = new Map();
        realDirs = new Map();
      }
      let released = false;
      return () => {
        if (released) return;
        released = true;
        if (--holds === 0) verdicts = realDirs = undefined;
      };
    },
  };
}

/**
 * What of the read `roots` a Vfs keeps off the disk (its `diskless` folders): the roots inside such a folder and
 * such folders inside a root, as virtual roots of readPolicy. A diskless folder wider than the roots (a contract
 * case's sandbox home around its workspace) does not become readable: outside the roots stays refused.
 */
export function offDiskRoots(roots: readonly string[], diskless: readonly string[]): string[] {
  const r = roots.map((p) => nodePath.resolve(p));
  const d = diskless.map((p) => nodePath.resolve(p));
  return [...new Set([...r.filter((root) => d.some((dir) => isInside(root, dir))), ...d.filter((dir) => r.some((root) => isInside(dir, root)))])];
}

/**
 * The Vfs as the simulator and its Lua code see it: reads only below the policy's roots (the workspace, the packs,
 * the simulated home), judged on real paths so a symlink cannot lead out. AIPack itself reads anywhere; the
 * simulator does not, so an untrusted sub-agent cannot read the host's files. Existence checks answer false
 * outside (no probing); reads raise a Lua error saying why; listings leave out entries that lead outside.
 */
export function guardReads(vfs: Vfs, rootsOrPolicy: string[] | ReadPolicy): Vfs {
  const policy = Array.isArray(rootsOrPolicy) ? readPolicy(vfs.workspaceDir, rootsOrPolicy) : rootsOrPolicy;
  const refuse = (abs: string) => policy.refuse(abs);
  const filtered = filterReads(vfs, policy.allows, { read: refuse, stat: () => undefined, list: refuse });
  // the held verdict lets a read through; the file it opens is judged again as it is opened
  const both = (abs: string, outer: Confine | undefined): Confine => {
    const own = policy.confine(abs);
    return outer ? (real, size) => (own(real, size), outer(real, size)) : own;
  };
  return {
    ...filtered,
    readFile: (abs, confine) => filtered.readFile(abs, both(abs, confine)),
    readBytes: (abs, confine) => filtered.readBytes(abs, both(abs, confine)),
  };
}

/**
 * `vfs` with everything below `dir` hidden from its lower layers: nothing there is read from the disk (the
 * simulated home is a made-up path; a real folder or symlink by that name is not the run's). Writes pass on.
 */
export function hideDisk(vfs: Vfs, dir: string): Vfs {
  const root = nodePath.resolve(dir);
  return filterReads(vfs, (abs) => !isInside(nodePath.resolve(abs), root), { read: () => undefined, stat: () => undefined, list: () => [] });
}

/** What a filtered Vfs answers for a path it does not show. */
interface HiddenAnswers {
  read(abs: string): undefined;
  stat(abs: string): undefined;
  list(abs: string): [];
}

/** `vfs` with the paths `shown` rejects answered by `hidden` (existence checks say false); writes pass on. */
function filterReads(vfs: Vfs, shown: (abs: string) => boolean, hidden: HiddenAnswers): Vfs {
  return {
    ...delegateTo(vfs),
    readFile: (abs, confine) => (shown(abs) ? vfs.readFile(abs, confine) : hidden.read(abs)),
    readBytes: (abs, confine) => (shown(abs) ? vfs.readBytes(abs, confine) : hidden.read(abs)),
    stat: (abs) => (shown(abs) ? vfs.stat(abs) : hidden.stat(abs)),
    isFile: (abs) => shown(abs) && vfs.isFile(abs),
    isDir: (abs) => shown(abs) && vfs.isDir(abs),
    // a file it does not show is written whole, as when it is missing
    appendFile: (abs, bytes) => shown(abs) && vfs.appendFile(abs, bytes),
    listDir: (abs) => (shown(abs) ? vfs.listDir(abs).filter((e) => shown(nodePath.join(abs, e.name))) : hidden.list(abs)),
  };
}

/**
 * The text of the file `key` (a path relative to `root`, as a case names it) through `vfs`, read only below
 * `root`: a key that is absolute or climbs with `..` is refused before any lookup, and the read itself goes through
 * the read guard, so no key can reach a host file. undefined when there is no such file.
 */
export function readBelow(vfs: Vfs, root: string, key: string): string | undefined {
  const problem = relativeKeyProblem(key);
  if (problem) throw new ReadRefused(`Read protection (simulator) - ${JSON.stringify(key)}: ${problem}`);
  return guardReads(vfs, readPolicy(root, [], [root])).readFile(nodePath.join(root, key));
}
