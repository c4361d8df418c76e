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
 *
 * This module is the layer's one entry; each part lives in the file named for its job: host-paths.ts (what a path
 * is), host-reads.ts, host-writes.ts, host-write-all.ts (all-or-nothing writes), host-process.ts (whether a writer
 * still runs), host-write-faults.ts (the tests' fault seam).
 */
export { HostFsError, checkUtf8Name, exists, isDirectory, isFile, isInside, lstatOf, realPathOf, statOf } from './host-paths.ts';
export { injectWriteFault } from './host-write-faults.ts';
export { listEntries, listNames, readBytes, readConfined, readDirNames, readIfFile, readNoFollow, readText, readUnder, statPath } from './host-reads.ts';
export { processAlive } from './host-process.ts';
export {
  TEMP_TAG,
  createExclusive,
  isTempName,
  makeDirs,
  makeTempDir,
  makeUserDir,
  mtimeOf,
  removeFile,
  sweepStaleTemps,
  syncTree,
  writeFileAtomic,
  writeFileBelow,
  writeOutputFile,
  writeUserFile,
  type SyncResult,
} from './host-writes.ts';
export { WriteAllError, writeAllOrNothing, type PlannedChange } from './host-write-all.ts';
