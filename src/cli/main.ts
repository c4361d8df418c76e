import { Command, CommanderError } from 'commander';
import { readFileSync } from 'node:fs';
import { UsageError } from './errors.ts';
import * as commands from './commands/index.ts';

const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string };

/** Runs the CLI; resolves to the process exit code (0 ok, 1 failed run/check, 2 bad usage). */
export async function main(argv: string[]): Promise<number> {
  const program = new Command('coder-subagents')
    .description('Build, check, simulate and contract-test the pro@coder pack and its sub-agents')
    .version(pkg.version)
    .exitOverride()
    .configureOutput({ writeErr: (s) => process.stderr.write(s) });
  let exitCode = 0;
  const setExit = (code: number) => {
    exitCode = code;
  };
  for (const register of Object.values(commands)) register(program, setExit);
  try {
    await program.parseAsync(argv);
    return exitCode;
  } catch (err) {
    if (err instanceof CommanderError) {
      // --help and --version exit through here with code 0
      return err.exitCode === 0 ? 0 : 2;
    }
    if (err instanceof UsageError) {
      process.stderr.write(`error: ${err.message}\n`);
      return 2;
    }
    process.stderr.write(`error: ${err instanceof Error ? err.message : String(err)}\n`);
    return 1;
  }
}
