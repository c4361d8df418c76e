import type { Command } from 'commander';
import nodePath from 'node:path';
import { SHIPPED_TYPES_DIR, writeLuaDefinitions, writeLuarc } from '../../check/luals.ts';
import type { SetExit } from '../errors.ts';

/** `dir` as written in .luarc.json: relative to the project root when inside it, `/`-separated. */
function libraryPath(root: string, dir: string): string {
  const rel = nodePath.relative(root, dir);
  return rel === '' ? '.' : rel.startsWith('..') || nodePath.isAbsolute(rel) ? dir : rel.split(nodePath.sep).join('/');
}

/** `coder-subagents types`: LuaLS definitions of aip.*, CTX, the globals and the sub-agent contract. */
export function register(program: Command, _setExit: SetExit): void {
  program
    .command('types')
    .description(
      'write Lua language server definitions (---@meta) of aip.*, CTX, the AIPack globals and the sub_agents contract, and a .luarc.json that uses them',
    )
    .option('--dir <dir>', 'directory for the definition files', SHIPPED_TYPES_DIR)
    .action((o: { dir: string }) => {
      const root = process.cwd();
      const dir = nodePath.resolve(root, o.dir);
      const files = writeLuaDefinitions(dir);
      const lib = libraryPath(root, dir);
      const luarc = writeLuarc(root, lib);
      for (const f of files) process.stdout.write(`wrote ${libraryPath(root, f)}\n`);
      process.stdout.write(
        luarc === 'unchanged' ? `.luarc.json already uses ${lib}\n` : `${luarc} .luarc.json (workspace.library: ${lib})\n`,
      );
    });
}
