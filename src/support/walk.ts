import nodePath from 'node:path';
import { listNames, realPathOf, statOf } from './host-fs.ts';

/** Dependency and tool folders (node_modules, .git, .aipack, ...) a search for the user's files skips. */
const isToolingDir = (name: string): boolean => name === 'node_modules' || name.startsWith('.');

/**
 * Absolute paths of the files below `dir`, in name order at each level, not entering directories for which
 * `skipDir(name)` is true. `check(abs)`, when given, sees every file and directory before it is taken and may throw.
 * Each real directory is walked once, so a symlink to a parent cannot loop. A missing or unreadable directory gives
 * no files, a dangling symlink is passed over.
 */
export function walkFiles(dir: string, skipDir: (name: string) => boolean = isToolingDir, check?: (abs: string) => void): string[] {
  const out: string[] = [];
  const seen = new Set<string>();
  const visit = (abs: string) => {
    const real = realPathOf(abs);
    if (seen.has(real)) return;
    seen.add(real);
    const names = listNames(abs);
    for (const name of names) {
      const p = nodePath.join(abs, name);
      const st = statOf(p);
      if (!st) continue;
      if (st.isDirectory()) {
        if (skipDir(name)) continue;
        check?.(p);
        visit(p);
      } else if (st.isFile()) {
        check?.(p);
        out.push(p);
      }
    }
  };
  visit(dir);
  return out;
}
