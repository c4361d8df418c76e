import type { Command } from 'commander';
import { resolve } from 'node:path';
import type { SetExit } from '../errors.ts';
import { PROJECT_ROOT } from '../../pack/build.ts';
import { writeArchive } from '../../pack/archive.ts';

/** `coder-subagents pack [--out DIR]`: writes `pro@coder-v<version>.aipack` from the rendered pack. */
export function register(program: Command, _setExit: SetExit): void {
  program
    .command('pack')
    .description('build the pro@coder-v<version>.aipack archive from the rendered pack (as `aip pack` would)')
    .option('-o, --out <dir>', 'directory to write the archive into', '.')
    .option('--root <dir>', 'project root holding package.json and lua/ (a clone) or pack/ (the package)', PROJECT_ROOT)
    .action((opts: { out: string; root: string }) => {
      const built = writeArchive(resolve(opts.root), resolve(opts.out));
      process.stdout.write(`wrote ${built.path} (${built.bytes.length} bytes, ${built.files.length} files)\n`);
      for (const f of built.files) process.stdout.write(`  ${f}\n`);
    });
}
