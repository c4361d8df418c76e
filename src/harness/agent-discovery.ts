/**
 * Finds the agent under test of a case (a path, or `ns@pack/name` in the coder pack or a custom pack found above the
 * case file) and reads, once, the files a sandbox of it holds: the agent, its `lua/` dir and the case's `support`
 * paths, each checked to lie below the folder it was named by.
 */
import { exists as existsSync, HostFsError, isDirectory, isInside, readUnder, realPathOf } from '../support/host-fs.ts';
import { findWorkspace } from '../runtime/workspace.ts';
import nodePath from 'node:path';
import { REPO_PACK } from '../runtime/packs.ts';
import { AgentNotFoundError, resolveAgent, type PackLocation } from '../runtime/resolve.ts';
import { createOverlayVfs } from '../runtime/vfs.ts';
import { readPolicy } from '../runtime/read-guard.ts';
import { walkFiles } from '../support/walk.ts';
import { CaseFileError } from './case-file.ts';

/** Where the agent's coder pack is (the options of a stage run that finding the agent reads). */
export interface DiscoveryOptions {
  /** the coder pack whose pipeline runs the sub-agent (default: this repo's built `pack/`, as pro@coder) */
  pack?: PackLocation;
}

/** The agent under test, read from disk once and reusable for many stage runs. */
export interface AgentUnderTest {
  /** the name as written (what the sub_agents entry and every message use) */
  name: string;
  /** the resolved .aip file (absolute) */
  file: string;
  /** files to place in the sandbox, keyed relative to the base dir (may start with `../`) */
  files: Map<string, Uint8Array>;
  /** how many `..` the keys climb at most (the sandbox workspace is nested that deep) */
  depth: number;
  /** packs the simulated runtime knows: the coder pack first, then custom packs found near the base dir */
  packs: PackLocation[];
  /** the coder pack */
  pack: PackLocation;
  /** files and dirs whose change should re-run the agent's cases */
  watch: string[];
  /** a parallel group under test (group.ts): its entry as the pipeline gets it; `name` is then a label */
  group?: { entry: Record<string, unknown> };
}


const toPosix = (p: string) => p.split(nodePath.sep).join('/');

/**
 * The files below `dir` (skipping node_modules and .git; an agent's own dot-dirs are copied), each checked with the
 * simulator's read guard against `root`; `outside` makes the error for the first entry leading out.
 */
function guardedWalk(dir: string, root: string, outside: (abs: string) => Error): string[] {
  const policy = readPolicy(root, [root]);
  return walkFiles(dir, (name) => name === 'node_modules' || name === '.git', (abs) => {
    if (!policy.allows(abs)) throw outside(abs);
  });
}

/** The custom pack `<ws>/.aipack/pack/custom/<ns>/<name>` of the nearest workspace above `dir` that has it. */
function customPack(dir: string, namespace: string, name: string): PackLocation | undefined {
  let cur = nodePath.resolve(dir);
  for (;;) {
    const candidate = nodePath.join(cur, '.aipack', 'pack', 'custom', namespace, name);
    if (isDirectory(candidate)) {
      // the pack folder becomes a read root of the run: one reached through a symlink could open the whole host
      const real = realPathOf(candidate);
      if (real !== candidate) {
        throw new CaseFileError(`the custom pack ${candidate} resolves to '${real}' through a symlink; the harness reads packs only from real folders (replace the link by the folder)`, candidate, undefined, 'agent');
      }
      return { namespace, name, dir: candidate };
    }
    const parent = nodePath.dirname(cur);
    if (parent === cur) return undefined;
    cur = parent;
  }
}

/**
 * Resolves and reads the agent under test. `where` names the file (or `runStage`) in errors.
 * Throws CaseFileError (key `agent` or `support[i]`) when something is missing.
 */
export function prepareAgent(agent: string, base: string, support: string[] = [], options: DiscoveryOptions = {}, where = 'runStage'): AgentUnderTest {
  const baseDir = nodePath.resolve(base);
  const pack = options.pack ?? REPO_PACK;
  const fail = (key: string, what: string) => new CaseFileError(`${where}: ${key}: ${what}`, where, undefined, key);
  const pipeline = nodePath.join(pack.dir, 'lua', 'utils_sub_agent.lua');
  if (!existsSync(pipeline)) {
    throw new CaseFileError(
      `the coder pack at ${pack.dir} has no lua/utils_sub_agent.lua: build it first (npx coder-subagents build)`,
      where,
    );
  }
  const packs: PackLocation[] = [pack];
  const disk = createOverlayVfs(baseDir);
  const files = new Map<string, Uint8Array>();
  const watch: string[] = [];
  let depth = 0;

  // what is copied into the sandbox must lie, symlinks resolved, below the folder it was named by: a symlink in an
  // agent's folder (as cloned repos have) must not carry host files into the sandbox, where the agent reads them
  const addTree = (abs: string, root = abs, key = 'agent') => {
    const paths = isDirectory(abs) ? guardedWalk(abs, root, (out) => fail(key, `${toPosix(nodePath.relative(baseDir, out))} is a symlink leading outside ${root} (the harness copies only an agent's own files; nothing is read through it)`)) : [abs];
    for (const p of paths) {
      const rel = toPosix(nodePath.relative(baseDir, p));
      let data: Uint8Array;
      try {
        data = new Uint8Array(readUnder(root, p, toPosix(nodePath.relative(baseDir, p))));
      } catch (err) {
        if (err instanceof HostFsError) throw fail(key, `${err.message} (the harness copies only an agent's own files)`);
        throw err;
      }
      files.set(rel, data);
      depth = Math.max(depth, rel.split('/').filter((s) => s === '..').length);
    }
  };

  let file: string;
  if (agent.includes('@')) {
    const m = /^([^@/$]+)@([^/$]+)/.exec(agent);
    if (m && !(m[1] === pack.namespace && m[2] === pack.name)) {
      const custom = customPack(baseDir, m[1], m[2]);
      if (custom) packs.push(custom);
    }
    try {
      const resolved = resolveAgent(disk, packs, agent, baseDir);
      file = resolved.file;
      watch.push(file);
      if (resolved.pack) watch.push(nodePath.join(resolved.pack.dir, 'lua'));
    } catch (err) {
      if (err instanceof AgentNotFoundError) throw fail('agent', `'${agent}' not found: ${err.message}`);
      throw err;
    }
  } else {
    try {
      file = resolveAgent(disk, [], agent, baseDir).file;
    } catch (err) {
      if (err instanceof AgentNotFoundError) throw fail('agent', `'${agent}' not found (${err.message.split('\n').map((l) => l.trim()).join(' ')})`);
      throw err;
    }
    watch.push(file);
    if (!nodePath.isAbsolute(agent)) {
      addTree(file);
      const luaDir = nodePath.join(nodePath.dirname(file), 'lua');
      if (isDirectory(luaDir)) {
        addTree(luaDir, nodePath.dirname(file));
        watch.push(luaDir);
      }
    }
  }
  // support files come from the case file's project (its workspace), never from elsewhere on the host
  const project = findWorkspace(baseDir);
  const realProject = realPathOf(project);
  support.forEach((s, i) => {
    const abs = nodePath.resolve(baseDir, s);
    if (!existsSync(abs)) throw fail(`support[${i + 1}]`, `'${s}' not found (looked for ${abs})`);
    if (!isInside(abs, project) || !isInside(realPathOf(abs), realProject)) {
      throw fail(`support[${i + 1}]`, `'${s}' leads to ${realPathOf(abs)}, outside the project ${project} (symlinks resolved); the harness copies only the project's files`);
    }
    addTree(abs, abs, `support[${i + 1}]`);
    watch.push(abs);
  });
  return { name: agent, file, files, depth, packs, pack, watch };
}
