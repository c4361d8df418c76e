import { Command, CommanderError } from 'commander';
import { readText } from '../support/host-fs.ts';
import pc from 'picocolors';
import { terminalSafe } from '../support/terminal-text.ts';
import { UsageError } from './errors.ts';
import { COMMANDS, loadCommands } from './commands/index.ts';

const pkg = JSON.parse(readText(new URL('../../package.json', import.meta.url))) as { version: string };

/** The command a run names (the first argument that is not an option), when it is a known one. */
function commandOf(argv: string[]): string | undefined {
  const first = argv.slice(2).find((a) => !a.startsWith('-'));
  return first !== undefined && Object.hasOwn(COMMANDS, first) ? first : undefined;
}

/**
 * Makes every text chunk written to stdout and stderr safe for a terminal while `fn` runs: agents' errors, file
 * and case names reach the output from many places, so they are escaped where they leave (JSON and XML reports
 * hold no raw control character, so they pass unchanged).
 */
async function withSafeOutput<T>(fn: () => Promise<T>): Promise<T> {
  const streams = [process.stdout, process.stderr] as const;
  const saved = streams.map((s) => s.write);
  streams.forEach((s, i) => {
    const write = saved[i]!;
    s.write = ((chunk: unknown, ...rest: unknown[]) =>
      (write as (...a: unknown[]) => boolean).call(s, typeof chunk === 'string' ? terminalSafe(chunk, pc.isColorSupported) : chunk, ...rest)) as typeof s.write;
  });
  try {
    return await fn();
  } finally {
    streams.forEach((s, i) => {
      s.write = saved[i]!;
    });
  }
}

/** Runs the CLI; resolves to the process exit code (0 ok, 1 failed run/check, 2 bad usage). */
export function main(argv: string[]): Promise<number> {
  return withSafeOutput(() => runMain(argv));
}

async function runMain(argv: string[]): Promise<number> {
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
    const code = err instanceof CommanderError ? (err.exitCode === 0 ? 0 : 2) : err instanceof UsageError ? 2 : 1;
    if (code === 0) return 0; // --help and --version exit through here
    const message = err instanceof CommanderError ? err.message.replace(/^error: /, '') : messageOf(err);
    if (!(err instanceof CommanderError)) process.stderr.write(`error: ${message}\n`);
    // --json promises one object on stdout, also when the command never got to print it
    const reporterJson = argv.includes('--reporter=json') || (argv.includes('--reporter') && argv[argv.indexOf('--reporter') + 1] === 'json');
    if (argv.includes('--json') || reporterJson) process.stdout.write(JSON.stringify({ error: message, exit_code: code }, null, 2) + '\n');
    return code;
  }
}

const SYSTEM_ERRORS: Record<string, string> = {
  ENAMETOOLONG: 'a file name in the path is too long',
  ENOENT: 'no such file or directory',
  EACCES: 'permission denied',
  EPERM: 'operation not permitted',
  ENOTDIR: 'a part of the path is a file, not a directory',
  EISDIR: 'it is a directory',
  EEXIST: 'it already exists',
  ENOSPC: 'no space left on the device',
  EROFS: 'the file system is read-only',
  ELOOP: 'too many symlinks (a symlink loop?)',
};

/** One line for any error: a Node system error says what it did, on which path, and why in words. */
function messageOf(err: unknown): string {
  if (!(err instanceof Error)) return String(err);
  const e = err as NodeJS.ErrnoException;
  if (e.code && SYSTEM_ERRORS[e.code] && e.syscall) {
    const path = e.path ? ` ${e.path.length > 120 ? e.path.slice(0, 60) + '...' + e.path.slice(-40) : e.path}` : '';
    return `cannot ${e.syscall}${path}: ${SYSTEM_ERRORS[e.code]} (${e.code})`;
  }
  return err.message;
}
