import { isDirectory } from '../support/host-fs.ts';
import nodePath from 'node:path';

/** AIPack's workspace: the nearest ancestor of `from` holding a `.aipack/` dir, else `from` itself. */
export function findWorkspace(from: string): string {
  let dir = nodePath.resolve(from);
  for (;;) {
    const marker = nodePath.join(dir, '.aipack');
    if (isDirectory(marker)) return dir;
    const parent = nodePath.dirname(dir);
    if (parent === dir) return nodePath.resolve(from);
    dir = parent;
  }
}
