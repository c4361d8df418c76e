import type { Command } from 'commander';
import { resolve } from 'node:path';
import { requireDir, type SetExit } from '../errors.ts';
import { PROJECT_ROOT } from '../../pack/build.ts';
import { installPack } from '../../pack/archive.ts';
import { findWorkspace } from '../../runtime/workspace.ts';

/** `coder-subagents install [--workspace DIR] [--force]`: copies the pack into `.aipack/pack/custom/pro/coder/`. */
export function register(program: Command, _setExit: SetExit): void {
  program
    .command('install')
    .description('install the rendered pack into <workspace>/.aipack/pack/custom/pro/coder/ (where it overrides an installed pro@coder)')
    .option('-w, --workspace <dir>', 'workspace directory (default: nearest ancestor with .aipack/, else the current directory)')
    .option('-f, --force', 'replace a different version already there')
    .option('--root <dir>', 'project root holding package.json and lua/ (a clone) or pack/ (the package)', PROJECT_ROOT)
    .action((opts: { workspace?: string; force?: boolean; root: string }) => {
      const workspace = opts.workspace !== undefined ? resolve(opts.workspace) : findWorkspace(process.cwd());
      // a typo in --workspace must not create a new directory tree
      if (opts.workspace !== undefined) requireDir('--workspace', opts.workspace, workspace);
      const r = installPack(resolve(opts.root), workspace, { force: opts.force === true });
      const { namespace, name, version } = r.identity;
      const was = r.previousVersion !== undefined && r.previousVersion !== version ? ` (replaced ${r.previousVersion})` : '';
      if (r.written.length === 0 && r.removed.length === 0) {
        process.stdout.write(`${namespace}@${name} ${version} at ${r.dir} is up to date\n`);
        return;
      }
      process.stdout.write(`installed ${namespace}@${name} ${version} into ${r.dir}${was}\n`);
      for (const f of r.written) process.stdout.write(`  wrote ${f}\n`);
      for (const f of r.removed) process.stdout.write(`  removed ${f}\n`);
    });
}
