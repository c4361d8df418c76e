import type { Command } from 'commander';
import { isValidVersion } from '../../aip/catalog.ts';
import { apiStatusAt } from '../../aip/api-status.ts';
import { DEFAULT_AIPACK_VERSION } from '../../aip/catalog.ts';
import { UsageError, type SetExit } from '../errors.ts';

/** `coder-subagents api`: every aip.* function of an AIPack version and what the simulator does with it. */
export function register(program: Command, _setExit: SetExit): void {
  program
    .command('api')
    .description('list every aip.* function of the simulated AIPack version with its status: simulated, scripted, stricter, not simulated')
    .option('--aipack-version <version>', 'AIPack version', DEFAULT_AIPACK_VERSION)
    .option('--status <status>', 'only the functions with this status')
    .option('--json', 'print one JSON array')
    .action((o: { aipackVersion: string; status?: string; json?: boolean }) => {
      if (!isValidVersion(o.aipackVersion)) throw new UsageError(`--aipack-version ${o.aipackVersion}: expected MAJOR.MINOR.PATCH, e.g. 0.8.15`);
      const all = apiStatusAt(o.aipackVersion);
      const statuses = ['simulated', 'scripted', 'stricter', 'not simulated'];
      if (o.status !== undefined && !statuses.includes(o.status)) throw new UsageError(`--status ${o.status}: expected one of ${statuses.join(', ')}`);
      const rows = o.status ? all.filter((r) => r.status === o.status) : all;
      if (o.json) {
        process.stdout.write(JSON.stringify(rows, null, 2) + '\n');
        return;
      }
      const width = Math.max(...rows.map((r) => r.path.length), 4);
      for (const r of rows) process.stdout.write(`${r.path.padEnd(width)}  ${r.status.padEnd(13)}  since ${r.since}${r.kind === 'constant' ? '  (constant)' : ''}\n`);
      const count = (s: string) => all.filter((r) => r.status === s).length;
      process.stdout.write(`\n${all.length} functions at AIPack ${o.aipackVersion}: ${statuses.map((s) => `${count(s)} ${s}`).join(', ')}\n`);
    });
}
