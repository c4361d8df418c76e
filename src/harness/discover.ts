/** Finding case files, and which of them a changed file affects (for `test --watch`). */
import { exists, statPath } from '../support/host-fs.ts';
import nodePath from 'node:path';
import picomatch from 'picomatch';
import { isInside } from '../support/host-fs.ts';
import { walkFiles } from '../support/walk.ts';

export const CASE_FILE_SUFFIX = '.contract.toml';

export class DiscoveryError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'DiscoveryError';
  }
}

export interface Discovered {
  /** case files, absolute, sorted, without duplicates */
  files: string[];
  /** agents (`.aip`) found under the directories and by the globs given, absolute, sorted */
  agents: string[];
}

const toPosix = (p: string) => p.split(nodePath.sep).join('/');

/** The files a glob argument matches: walked from its static base, matched as written (relative to `cwd`). */
function globFiles(pattern: string, cwd: string): string[] {
  const scan = picomatch.scan(pattern);
  const base = nodePath.resolve(cwd, scan.base || '.');
  const isMatch = picomatch(toPosix(pattern), { dot: false });
  const absolute = nodePath.isAbsolute(pattern);
  return walkFiles(base).filter((f) => isMatch(absolute ? toPosix(f) : toPosix(nodePath.relative(cwd, f))));
}

/**
 * What `test` runs for `paths` (files, directories or globs, resolved from `cwd`; default `.`). Directories are
 * searched recursively, skipping node_modules and dot-dirs; a file named explicitly is taken whatever its name,
 * except an agent (`x.aip`), which stands for its case file `x.contract.toml`. A glob (`'agents/*guard*'`) takes
 * the case files it matches and the case files of the agents it matches. A path that does not exist, or a glob
 * that matches nothing, is a DiscoveryError.
 */
export function discover(paths: string[], cwd = process.cwd()): Discovered {
  const out: string[] = [];
  const agents: string[] = [];
  const caseFileOf = (aip: string) => aip.slice(0, -'.aip'.length) + CASE_FILE_SUFFIX;
  for (const p of paths.length > 0 ? paths : ['.']) {
    const abs = nodePath.resolve(cwd, p);
    if (!exists(abs)) {
      if (!picomatch.scan(p).isGlob) throw new DiscoveryError(`${p}: no such file or directory`);
      const matched = globFiles(p, cwd);
      const cases = matched.filter((f) => f.endsWith(CASE_FILE_SUFFIX));
      const aips = matched.filter((f) => f.endsWith('.aip'));
      if (cases.length === 0 && aips.length === 0) throw new DiscoveryError(`${p}: no case file or agent matches this pattern`);
      out.push(...cases, ...aips.map(caseFileOf).filter((f) => exists(f)));
      agents.push(...aips);
    } else if (statPath(abs).isDirectory()) {
      const files = walkFiles(abs);
      out.push(...files.filter((f) => f.endsWith(CASE_FILE_SUFFIX)));
      agents.push(...files.filter((f) => f.endsWith('.aip')));
    } else if (abs.endsWith('.aip')) {
      // an agent named instead of its case file: take the case file next to it
      const cases = caseFileOf(abs);
      if (!exists(cases)) {
        const shown = p.slice(0, -'.aip'.length) + CASE_FILE_SUFFIX;
        throw new DiscoveryError(`${p} is an agent, not a case file, and ${shown} does not exist (npx coder-subagents init writes both)`);
      }
      out.push(cases);
      agents.push(abs);
    } else out.push(abs);
  }
  return { files: [...new Set(out)].sort(), agents: [...new Set(agents)].sort() };
}

/** The case files `test` runs for `paths` (see discover). */
export function findContractFiles(paths: string[], cwd = process.cwd()): string[] {
  return discover(paths, cwd).files;
}

/**
 * The case files to re-run when `changed` (absolute) changed: a case file itself (also a new one), and every case
 * file one of whose watched paths (its agent, the agent's lua/ dir, its support paths) is or contains `changed`.
 * `watched` maps each known case file to its watched paths (ContractFileResult.watch).
 */
export function affectedContractFiles(changed: string, watched: ReadonlyMap<string, readonly string[]>): string[] {
  const abs = nodePath.resolve(changed);
  const out = new Set<string>();
  if (abs.endsWith(CASE_FILE_SUFFIX)) out.add(abs);
  for (const [file, paths] of watched) {
    if (paths.some((p) => isInside(abs, nodePath.resolve(p)))) out.add(file);
  }
  return [...out].sort();
}
