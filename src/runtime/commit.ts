/**
 * Writing a run's changes to the workspace (`--write`): all checked first, then each file written to a temporary
 * file beside it and renamed over the old one, so an interrupted write (kill -9, power loss) leaves every file
 * either as it was or as the run left it, never torn.
 */
import nodePath from 'node:path';
import { HostFsError, isInside, isTempName, lstatOf, makeUserDir, realPathOf, statOf, TEMP_TAG, writeAllOrNothing, WriteAllError, type PlannedChange } from '../support/host-fs.ts';
import { LOCK_NAME } from './workspace-lock.ts';

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

/** Files of the tool itself in a workspace (its write lock and the lock's takeover guard): no run writes them. */
export function isToolFile(abs: string, workspace: string): boolean {
  const name = nodePath.basename(abs);
  if (isTempName(name) || name.includes(`.${TEMP_TAG}-`)) return true;
  return nodePath.dirname(abs) === nodePath.join(workspace, '.aipack') && name.startsWith(LOCK_NAME);
}

/**
 * Where a change of `abs` really lands (symlinks followed), or why it cannot be made. `protectedDirs` are refused
 * whatever the disk says, compared on real paths (e.g. `<workspace>/.aipack/pack`: a run must not plant the pack
 * the next run would use).
 */
function plan(abs: string, deleting: boolean, workspace: string, realWs: string, protectedDirs: readonly string[]): { target: string } | { why: string } {
  if (!isInside(abs, workspace) || abs === workspace) return { why: 'outside the workspace' };
  if (nodePath.relative(workspace, abs).split('/').some((seg) => seg.includes('\uFFFD'))) {
    return { why: 'the name is not valid UTF-8' };
  }
  if (isToolFile(abs, workspace)) return { why: 'it is a file of the tool itself (its write lock or a temp file), which a run does not write' };
  const realAbs = realPathOf(abs);
  for (const dir of protectedDirs) {
    const shown = `${nodePath.relative(workspace, dir)}/`;
    if (isInside(abs, dir) || isInside(realAbs, realPathOf(dir))) return { why: `inside ${shown}, which a simulated run does not write` };
  }
  if (Buffer.byteLength(abs) > PATH_MAX) return { why: `the path is longer than ${PATH_MAX} bytes` };
  // the temp file name adds a dot, a kind, the tag and the pid to the name
  const max = NAME_MAX - TEMP_TAG.length - 20;
  const long = nodePath.relative(workspace, abs).split('/').find((seg) => Buffer.byteLength(seg) > max);
  if (long !== undefined) return { why: `the name '${long.slice(0, 40)}...' is ${Buffer.byteLength(long)} bytes long (at most ${max})` };
  // the nearest existing ancestor must be a directory (followed), and really inside the workspace
  let probe = nodePath.dirname(abs);
  while (!lstatOf(probe)) probe = nodePath.dirname(probe);
  const st = statOf(probe);
  const shown = nodePath.relative(workspace, probe) || '.';
  if (!st) return { why: `'${shown}' is a dangling symlink` };
  if (!st.isDirectory()) return { why: `'${shown}' is a file, not a directory` };
  const realDir = realPathOf(probe);
  if (!isInside(realDir, realWs)) return { why: `its directory resolves to '${realDir}', outside the workspace` };
  const own = lstatOf(abs);
  if (own?.isSymbolicLink() && !deleting) {
    // a link is written through (the rename then replaces its target), when the target is inside the workspace
    if (!statOf(abs)) return { why: 'it is a dangling symlink' };
    const real = realPathOf(abs);
    if (!isInside(real, realWs)) return { why: `it is a symlink to '${real}', outside the workspace` };
    if (isToolFile(real, realWs)) return { why: 'it is a symlink to a file of the tool itself' };
    for (const dir of protectedDirs) if (isInside(real, realPathOf(dir))) return { why: 'it is a symlink into a directory a simulated run does not write' };
    if (statOf(real)?.isDirectory()) return { why: 'it is a directory' };
    return { target: real };
  }
  if (own?.isDirectory()) return { why: 'it is a directory' };
  // the rest of the path below the existing, real ancestor
  return { target: nodePath.join(realDir, nodePath.relative(probe, abs)) };
}

/**
 * Writes the changes of a run below `workspace`, all or nothing: every change is checked first (paths,
 * protections, name lengths, symlinks, files in the way) and a CommitError lists those that cannot be written;
 * then every new content is staged beside its target before any file is replaced (host-fs writeAllOrNothing), so
 * a full disk or a read-only folder leaves every file as it was. `dirs` are empty directories the run created.
 */
export function writeChanges(workspace: string, changes: readonly Change[], dirs: readonly string[] = [], protectedDirs: readonly string[] = []): void {
  if (changes.length === 0 && dirs.length === 0) return;
  const ws = nodePath.resolve(workspace);
  if (!lstatOf(ws)) makeUserDir(ws);
  if (!statOf(ws)?.isDirectory()) throw new CommitError([`${ws}: the workspace is not a directory`]);
  const realWs = realPathOf(ws);
  const failures: string[] = [];
  const planned: PlannedChange[] = [];
  for (const [abs, data] of changes) {
    const shown = nodePath.relative(ws, abs) || abs;
    const p = plan(abs, data === null, ws, realWs, protectedDirs);
    if ('why' in p) failures.push(`${shown}: ${p.why}`);
    else planned.push({ target: p.target, data, shown });
  }
  const realDirs: string[] = [];
  for (const d of dirs) {
    const p = plan(nodePath.join(d, 'x'), false, ws, realWs, protectedDirs);
    if ('why' in p) failures.push(`${nodePath.relative(ws, d)}/: ${p.why}`);
    else realDirs.push(nodePath.dirname(p.target));
  }
  if (failures.length > 0) throw new CommitError(failures);
  try {
    writeAllOrNothing(realWs, planned, realDirs);
  } catch (err) {
    if (err instanceof WriteAllError) throw new CommitError([`${err.failed}: ${err.cause}`]);
    if (err instanceof HostFsError) throw new CommitError([err.message]);
    throw err;
  }
}
