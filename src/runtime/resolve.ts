import nodePath from 'node:path';
import type { Vfs } from './vfs-types.ts';

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

export class AgentNotFoundError extends Error {}

const IDENT = /^[a-zA-Z_][a-zA-Z0-9_-]*$/;

/**
 * Pack dir for `ns@name` (RUNTIME.md section 9): the workspace's custom packs first, then `<base>/pack/custom`
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

export interface PackRef {
  namespace: string;
  name: string;
  scope?: 'base' | 'workspace';
  subPath?: string;
}

/** `ns@name[$base|$workspace][/sub/path]` */
export function parsePackRef(ref: string): PackRef {
  const at = ref.indexOf('@');
  if (at < 0 || ref.indexOf('@', at + 1) >= 0) throw new AgentNotFoundError(`Invalid pack reference '${ref}': expected exactly one '@' (ns@name[/sub/path])`);
  const namespace = ref.slice(0, at);
  let rest = ref.slice(at + 1);
  let subPath: string | undefined;
  const slash = rest.indexOf('/');
  if (slash >= 0) {
    subPath = rest.slice(slash + 1);
    rest = rest.slice(0, slash);
  }
  let scope: PackRef['scope'];
  const dollar = rest.indexOf('$');
  if (dollar >= 0) {
    const s = rest.slice(dollar + 1);
    if (s !== 'base' && s !== 'workspace') throw new AgentNotFoundError(`Invalid pack reference '${ref}': scope must be $base or $workspace`);
    scope = s;
    rest = rest.slice(0, dollar);
  }
  if (!IDENT.test(namespace)) throw new AgentNotFoundError(`Invalid pack reference '${ref}': namespace '${namespace}' must match ${IDENT.source}`);
  if (!IDENT.test(rest)) throw new AgentNotFoundError(`Invalid pack reference '${ref}': name '${rest}' must match ${IDENT.source}`);
  if (subPath !== undefined && (subPath.includes('..') || subPath.includes('$'))) {
    throw new AgentNotFoundError(`Invalid pack reference '${ref}': '..' and '$' are not allowed in the sub path`);
  }
  return { namespace, name: rest, scope, subPath: subPath || undefined };
}

/** Candidate .aip files for a name (RUNTIME.md section 4: `.aip` optional, `dir/` -> `dir/main.aip`). */
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
