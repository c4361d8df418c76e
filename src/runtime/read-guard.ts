import nodePath from 'node:path';
import { LuaError } from '../engine/values.ts';
import { isInside } from './vfs.ts';
import type { Vfs } from './vfs-types.ts';


/**
 * The Vfs as a stage's Lua code sees it: reads only below `roots` (the workspace, the packs, the agent's own dir,
 * the simulated home). AIPack itself reads anywhere; the simulator does not, so an untrusted sub-agent cannot
 * read the host's files. Existence checks answer false outside; reads raise a Lua error saying why.
 */
export function guardReads(vfs: Vfs, roots: string[]): Vfs {
  // judge the normalised path: "<root>/../x" is outside even though it starts with the root
  const allowed = (abs: string) => nodePath.isAbsolute(abs) && roots.some((r) => isInside(nodePath.resolve(abs), r));
  const refuse = (abs: string): never => {
    throw new LuaError(`Read protection (simulator) - The path \`${abs}\` is outside the workspace \`${vfs.workspaceDir}\` and the packs; a simulated run does not read it`);
  };
  return {
    get workspaceDir() {
      return vfs.workspaceDir;
    },
    readFile: (abs) => (allowed(abs) ? vfs.readFile(abs) : refuse(abs)),
    readBytes: (abs) => (allowed(abs) ? vfs.readBytes(abs) : refuse(abs)),
    stat: (abs) => (allowed(abs) ? vfs.stat(abs) : undefined),
    isFile: (abs) => allowed(abs) && vfs.isFile(abs),
    isDir: (abs) => allowed(abs) && vfs.isDir(abs),
    listDir: (abs) => (allowed(abs) ? vfs.listDir(abs) : refuse(abs)),
    writeFile: (abs, content) => vfs.writeFile(abs, content),
    deleteFile: (abs) => vfs.deleteFile(abs),
    mkdirp: (abs) => vfs.mkdirp(abs),
    changes: () => vfs.changes(),
    snapshot: () => vfs.snapshot(),
    commit: () => vfs.commit(),
  };
}
