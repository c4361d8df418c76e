/**
 * Finds `coder-subagents.config.toml`, and holds the names it may use: what `test` needs before its worker starts,
 * without the parser and the schema of config-parse.ts (zod, the engines), which load only when a config file
 * exists.
 */
import { exists } from '../support/host-fs.ts';
import nodePath from 'node:path';

export const CONFIG_FILE = 'coder-subagents.config.toml';

export const REPORTERS = ['default', 'json', 'junit', 'html'] as const;
export type ReporterName = (typeof REPORTERS)[number];

/** true when `dir` is a project root: it holds a package.json or a .git. */
const isProjectRoot = (dir: string): boolean => exists(nodePath.join(dir, 'package.json')) || exists(nodePath.join(dir, '.git'));

/** The project `dir` belongs to: the nearest directory at or above it that is a project root, else `dir` itself. */
export function projectRootOf(dir: string): string {
  for (let cur = nodePath.resolve(dir); ; ) {
    if (isProjectRoot(cur)) return cur;
    const parent = nodePath.dirname(cur);
    if (parent === cur) return nodePath.resolve(dir);
    cur = parent;
  }
}

/** The config file that applies in `cwd`, or undefined. */
export function findConfigFile(cwd = process.cwd()): string | undefined {
  let dir = nodePath.resolve(cwd);
  for (;;) {
    const candidate = nodePath.join(dir, CONFIG_FILE);
    if (exists(candidate)) return candidate;
    if (isProjectRoot(dir)) return undefined;
    const parent = nodePath.dirname(dir);
    if (parent === dir) return undefined;
    dir = parent;
  }
}
