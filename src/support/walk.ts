import { readdirSync, statSync } from 'node:fs';
import nodePath from 'node:path';

/** Dependency and tool folders (node_modules, .git, .aipack, ...) a search for the user's files skips. */
const isToolingDir = (name: string): boolean => name === 'node_modules' || name.startsWith('.');

/**
 * Absolute paths of the files below `dir`, in name order at each level, not entering directories for which
 * `skipDir(name)` is true. A missing or unreadable directory gives no files.
 */
export function walkFiles(dir: string, skipDir: (name: string) => boolean = isToolingDir): string[] {
  const out: string[] = [];
  const visit = (abs: string) => {
    let names: string[];
    try {
      names = readdirSync(abs).sort();
    } catch {
      return;
    }
    for (const name of names) {
      const p = nodePath.join(abs, name);
      let st;
      try {
        st = statSync(p);
      } catch {
        continue;
      }
      if (st.isDirectory()) {
        if (!skipDir(name)) visit(p);
      } else if (st.isFile()) out.push(p);
    }
  };
  visit(dir);
  return out;
}
