import type { Command } from 'commander';
import nodePath from 'node:path';
import { SHIPPED_TYPES_DIR, writeLuaDefinitions, writeLuarc } from '../../check/luals.ts';
import type { SetExit } from '../errors.ts';
import { relativeToCwd } from '../../support/paths.ts';


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
      const lib = relativeToCwd(dir, root);
      const luarc = writeLuarc(root, lib);
      for (const f of files) process.stdout.write(`wrote ${relativeToCwd(f, root)}\n`);
      process.stdout.write(
        luarc === 'unchanged' ? `.luarc.json already uses ${lib}\n` : `${luarc} .luarc.json (workspace.library: ${lib})\n`,
      );
    });
}
