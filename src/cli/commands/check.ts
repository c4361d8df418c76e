import type { EngineName } from '../../engine/engine.ts';
import type { Command } from 'commander';
import { exists } from '../../support/host-fs.ts';
import { isValidVersion } from '../../aip/catalog.ts';
import { CheckPathError, IGNORE_FILE, runCheckDetailed } from '../../check/index.ts';
import { MIN_AIPACK_VERSION } from '../../contract/index.ts';
import { UsageError, type SetExit } from '../errors.ts';

export function register(program: Command, setExit: SetExit): void {
  program
    .command('check')
    .description(
      'check that pack/ is what `build` writes, and lint the Lua of lua/, pack/lua/ and every .aip under the paths (default: pack/ and fixtures/)',
    )
    .argument('[paths...]', 'directories or files whose .aip agents are checked')
    .option('--min-aipack-version <version>', 'oldest AIPack version the code must run on', MIN_AIPACK_VERSION)
    .option('--json', 'print the result as JSON')
    .option('--engine <name>', "engine your agents target: fengari (default: flags Lua 5.4 syntax and integers past 32 bits) or lua54")
    .action(async (paths: string[], opts: { minAipackVersion: string; json?: boolean; engine?: string }) => {
      if (opts.engine !== undefined && opts.engine !== 'fengari' && opts.engine !== 'lua54') {
        throw new UsageError(`--engine ${opts.engine}: expected fengari or lua54`);
      }
      if (!isValidVersion(opts.minAipackVersion)) {
        throw new UsageError(`--min-aipack-version: '${opts.minAipackVersion}' is not a version like 0.8.15`);
      }
      let result;
      try {
        result = await runCheckDetailed({ root: process.cwd(), paths, minAipackVersion: opts.minAipackVersion, engine: opts.engine as EngineName | undefined });
      } catch (err) {
        // a missing explicit path is a usage error
        if (err instanceof CheckPathError) throw new UsageError(err.message);
        throw err;
      }
      const { findings, files, notes } = result;
      if (files.length === 0 && findings.length === 0) {
        // passing on nothing would hide a wrong directory or path
        const where = paths.length > 0 ? paths.join(', ') : 'pack/ and fixtures/ (the defaults)';
        const unlisted = exists(IGNORE_FILE) ? ` that ${IGNORE_FILE} does not list` : '';
        throw new UsageError(
          `nothing to check: no .aip or .lua file${unlisted} under ${where}; name your agents' directory, e.g. npx coder-subagents check my-agents`,
        );
      }
      const errors = findings.filter((f) => f.severity !== 'warning');
      const warnings = findings.length - errors.length;
      if (errors.length > 0) setExit(1);
      if (opts.json) {
        process.stdout.write(`${JSON.stringify({ ok: errors.length === 0, files: files.length, findings, notes }, null, 2)}\n`);
        return;
      }
      for (const n of notes) process.stderr.write(`note: ${n}\n`);
      for (const f of findings) {
        const kind = f.severity === 'warning' ? `warning ${f.rule}` : f.rule;
        process.stdout.write(`${f.file}:${f.line}:${f.column}: ${kind}: ${f.message}\n`);
      }
      const s = (n: number) => (n === 1 ? '' : 's');
      const warned = warnings > 0 ? ` and ${warnings} warning${s(warnings)}` : '';
      if (errors.length > 0) {
        const withFindings = new Set(findings.map((f) => f.file)).size;
        process.stdout.write(`${errors.length} finding${s(errors.length)}${warned} in ${withFindings} file${s(withFindings)}\n`);
      } else process.stdout.write(`check passed (${files.length} file${s(files.length)})${warnings > 0 ? ` with ${warnings} warning${s(warnings)}` : ''}\n`);
    });
}
