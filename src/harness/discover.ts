/** Finding case files, and which of them a changed file affects (for `test --watch`). */
import { existsSync, statSync } from 'node:fs';
import nodePath from 'node:path';
import { isInside } from '../runtime/vfs.ts';
import { walkFiles } from '../support/walk.ts';
import { CASE_FILE_SUFFIX } from './case-file.ts';

export class DiscoveryError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'DiscoveryError';
  }
}

/**
 * The case files (`*.contract.toml`) under `paths` (files or directories, resolved from `cwd`), absolute,
 * sorted, without duplicates. Directories are searched recursively, skipping node_modules and dot-dirs; a file
 * named explicitly is taken whatever its name, except an agent (`x.aip`), which stands for its case file
 * `x.contract.toml`. A path that does not exist is a DiscoveryError.
 */
export function findContractFiles(paths: string[], cwd = process.cwd()): string[] {
  const out: string[] = [];
  for (const p of paths.length > 0 ? paths : ['.']) {
    const abs = nodePath.resolve(cwd, p);
    if (!existsSync(abs)) throw new DiscoveryError(`${p}: no such file or directory`);
    if (statSync(abs).isDirectory()) out.push(...walkFiles(abs).filter((f) => f.endsWith(CASE_FILE_SUFFIX)));
    else if (abs.endsWith('.aip')) {
      // an agent named instead of its case file: take the case file next to it
      const cases = abs.slice(0, -'.aip'.length) + CASE_FILE_SUFFIX;
      if (!existsSync(cases)) {
        const shown = p.slice(0, -'.aip'.length) + CASE_FILE_SUFFIX;
        throw new DiscoveryError(`${p} is an agent, not a case file, and ${shown} does not exist (npx coder-subagents init writes both)`);
      }
      out.push(cases);
    } else out.push(abs);
  }
  return [...new Set(out)].sort();
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
