import nodePath from 'node:path';
import type { Vfs } from '../support/vfs.ts';
import { AgentNotFoundError, parsePackRef } from '../aip/support/pack-ref.ts';

/** A pack the simulator knows besides the workspace's own `.aipack/pack/custom` (e.g. this repo's `pack/`). */
export interface PackLocation {
  namespace: string;
  name: string;
  dir: string;
}

export interface ResolvedAgent {
  /** absolute .aip path */
  file: string;
  pack?: { namespace: string; name: string; dir: string; subPath?: string; ref: string };
}

export { AgentNotFoundError };

/**
 * Pack dir for `ns@name` (docs/aipack.md section 9): the workspace's custom packs first, then `<base>/pack/custom`
 * when an AIPack base dir is given, then the simulator's packs (this repo's pack as pro@coder), then
 * `<base>/pack/installed`.
 */
export function findPackDir(vfs: Vfs, packs: readonly PackLocation[], namespace: string, name: string, baseAipackDir?: string): string | undefined {
  const custom = nodePath.join(vfs.workspaceDir, '.aipack', 'pack', 'custom', namespace, name);
  if (vfs.isDir(custom)) return custom;
  if (baseAipackDir) {
    const baseCustom = nodePath.join(baseAipackDir, 'pack', 'custom', namespace, name);
    if (vfs.isDir(baseCustom)) return baseCustom;
  }
  const known = packs.find((p) => p.namespace === namespace && p.name === name)?.dir;
  if (known) return known;
  if (baseAipackDir) {
    const installed = nodePath.join(baseAipackDir, 'pack', 'installed', namespace, name);
    if (vfs.isDir(installed)) return installed;
  }
  return undefined;
}

/** Candidate .aip files for a name (docs/aipack.md section 4: `.aip` optional, `dir/` -> `dir/main.aip`). */
function candidates(base: string, name: string): string[] {
  if (name.endsWith('.aip')) return [nodePath.join(base, name)];
  if (name.endsWith('/')) return [nodePath.join(base, name, 'main.aip')];
  return [nodePath.join(base, `${name}.aip`), nodePath.join(base, name, 'main.aip')];
}

/** Finds an agent file as AIPack's find_agent does; `baseDir` resolves relative local names. */
export function resolveAgent(vfs: Vfs, packs: readonly PackLocation[], name: string, baseDir: string, baseAipackDir?: string): ResolvedAgent {
  if (name.includes('@')) {
    const ref = parsePackRef(name);
    const dir = findPackDir(vfs, packs, ref.namespace, ref.name, baseAipackDir);
    const identity = `${ref.namespace}@${ref.name}`;
    if (!dir) throw new AgentNotFoundError(`No aipack matches for ${identity}.`);
    const files = ref.subPath ? candidates(dir, ref.subPath) : [nodePath.join(dir, 'main.aip')];
    const file = files.find((f) => vfs.isFile(f));
    if (!file) throw new AgentNotFoundError(`No agent files  matches for ${identity}${ref.subPath ? '/' + ref.subPath : ''}`);
    const subPath = ref.subPath?.replace(/\.aip$/, '').replace(/\/$/, '');
    return {
      file,
      pack: { namespace: ref.namespace, name: ref.name, dir, subPath, ref: subPath ? `${identity}/${subPath}` : identity },
    };
  }
  const abs = nodePath.isAbsolute(name) ? name : nodePath.join(baseDir, name);
  const files = nodePath.isAbsolute(name) ? candidates('/', name) : candidates(baseDir, name);
  const file = files.find((f) => vfs.isFile(f));
  if (!file) throw new AgentNotFoundError(`No agent found for local path: '${name}'\n   (full path: ${abs})`);
  return { file };
}
