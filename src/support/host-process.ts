/** Whether a process runs (the workspace lock and the temp files name their writer by pid). */
import fs from 'node:fs';

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
