import type { Command } from 'commander';
import { resolve } from 'node:path';
import type { SetExit } from '../errors.ts';
import { PACK_DIR, PROJECT_ROOT, requireSources, writePack } from '../../pack/build.ts';

/** `coder-subagents build`: renders pack/ from lua/ and the contract; prints what changed. */
export function register(program: Command, _setExit: SetExit): void {
  program
    .command('build')
    .description('render pack/ from the hand-written sources in lua/ plus the generated files (pack.toml, sub_agent_contract.lua)')
    .option('--root <dir>', 'project root holding package.json and lua/', PROJECT_ROOT)
    .action((opts: { root: string }) => {
      requireSources(resolve(opts.root));
      const { written, removed } = writePack(resolve(opts.root));
      for (const f of written) process.stdout.write(`wrote ${PACK_DIR}/${f}\n`);
      for (const f of removed) process.stdout.write(`removed ${PACK_DIR}/${f}\n`);
      if (written.length === 0 && removed.length === 0) process.stdout.write(`${PACK_DIR}/ is up to date\n`);
    });
}
