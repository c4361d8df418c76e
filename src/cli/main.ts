import { Command, CommanderError } from 'commander';
import { readFileSync } from 'node:fs';
import { UsageError } from './errors.ts';
import { COMMANDS, loadCommands } from './commands/index.ts';

const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string };

/** The command a run names (the first argument that is not an option), when it is a known one. */
function commandOf(argv: string[]): string | undefined {
  const first = argv.slice(2).find((a) => !a.startsWith('-'));
  return first !== undefined && Object.hasOwn(COMMANDS, first) ? first : undefined;
}

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
  try {
    const args = argv.slice(2);
    const versionOnly = args.length === 1 && (args[0] === '--version' || args[0] === '-V');
    // load only the command being run; --help and unknown commands need them all (for the list and suggestions)
    const name = commandOf(argv);
    if (!versionOnly) for (const register of await loadCommands(name ? [name] : undefined)) register(program, setExit);
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
