import nodePath from 'node:path';
import { readText } from '../support/host-fs.ts';
import type { StateOptions } from './engine.ts';
import { BYTES_PER_INSTRUCTION, CHARGE_FROM_BYTES } from './limits.ts';

/**
 * Largest string `string.rep` builds. Real Lua would try any size, but a huge repeat runs in one library call
 * that no instruction budget sees, so it is refused like an overflow (on both engines).
 */
export const MAX_REP_BYTES = 16 * 1024 * 1024;

/** The standard libraries every state opens, in order, by global name ('_G' is the base library). */
export const SANDBOX_LIBS = ['_G', 'package', 'coroutine', 'table', 'string', 'math', 'utf8', 'os'] as const;
export type SandboxLib = (typeof SANDBOX_LIBS)[number];
/** the name of a library's C opener (luaopen_base for '_G') */
export const openerName = (lib: SandboxLib): `luaopen_${string}` => (lib === '_G' ? 'luaopen_base' : `luaopen_${lib}`);

/** os functions removed from every state: only the clock functions stay (these reach the host). */
export const OS_REMOVED = ['execute', 'remove', 'rename', 'exit', 'getenv', 'tmpname', 'setlocale'];

const isBelow = (abs: string, roots: string[]) => roots.some((root) => abs === root || abs.startsWith(root + nodePath.sep));

/**
 * Lua's searchpath over the simulation: each `?` of each `;`-separated template is replaced by the name (with
 * `sep` turned into `dirsep`); relative files are taken from `baseDir`. Files outside the load roots and the
 * module dirs are never read, so they cannot be probed either. `emptyTemplates`: an empty template is listed as the
 * file '' (Lua 5.4), else skipped (5.3).
 */
export function searchPath(
  options: StateOptions,
  name: string,
  path: string,
  sep: string,
  dirsep: string,
  emptyTemplates = false,
): { file: string; abs: string; code: Uint8Array | string } | { tried: string } {
  const roots = [...options.loadRoots, ...options.moduleDirs];
  const sub = sep === '' ? name : name.split(sep).join(dirsep);
  let tried = '';
  for (const template of path.split(';')) {
    if (template === '') {
      // Lua 5.4 lists an empty template as the file '' (loadlib.c pusherrornotfound); 5.3 skips it
      if (emptyTemplates) tried += "\n\tno file ''";
      continue;
    }
    const file = template.split('?').join(sub);
    const abs = nodePath.resolve(options.baseDir, file);
    if (!isBelow(abs, roots)) {
      tried += `\n\tno file '${file}' (outside the workspace: not read)`;
      continue;
    }
    const code = options.readFile(abs);
    if (code !== undefined) return { file, abs, code };
    tried += `\n\tno file '${file}'`;
  }
  return { tried };
}

/** The absolute path `dofile`/`loadfile` may read, or the error message when it is outside the load roots. */
export function loadablePath(options: StateOptions, fname: string): { abs: string } | { error: string } {
  const abs = nodePath.resolve(options.baseDir, fname);
  return isBelow(abs, options.loadRoots) ? { abs } : { error: `cannot open ${fname}: outside the workspace` };
}

/** The default `package.path`: the module dirs, then Lua's "./?.lua;./?/init.lua" (relative to `baseDir`). */
export function packagePath(options: StateOptions): string {
  return [...options.moduleDirs.flatMap((d) => [`${d}/?.lua`, `${d}/?/init.lua`]), './?.lua', './?/init.lua'].join(';');
}

/**
 * The sandbox's Lua (sandbox.lua, beside this module): run in every fresh state after the libraries are opened, on
 * both engines, with SANDBOX_ARGS as its chunk arguments. What it replaces, and why, is written at its top.
 */
export const SANDBOX_LUA = readText(new URL('./sandbox.lua', import.meta.url));

/** sandbox.lua's chunk arguments: the size from which library calls are charged, bytes per instruction, MAX_REP_BYTES. */
export const SANDBOX_ARGS = [CHARGE_FROM_BYTES, BYTES_PER_INSTRUCTION, MAX_REP_BYTES] as const;

/** `local x <const>` / `<close>`: Lua 5.4 syntax that Lua 5.3 (fengari) cannot parse. */
const LUA54_ATTRIB = /\blocal\s+[A-Za-z_][\w\s,<>]*<\s*(?:const|close)\s*>/;

/** A syntax error of Lua 5.3 on code written for 5.4 gets a pointer to the engine that runs it. */
export function withLua54Hint(message: string, code: string | Uint8Array): string {
  const text = typeof code === 'string' ? code : Buffer.from(code).toString('latin1');
  return LUA54_ATTRIB.test(text) ? `Lua 5.4 syntax: run with --engine lua54 (fengari runs Lua 5.3)\n${message}` : message;
}
