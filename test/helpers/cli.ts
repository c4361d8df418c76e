import { spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { main } from '../../src/cli/main.ts';

// the sources through tsx (dist/ may be stale while editing; the packed package has its own test)
export const BIN = fileURLToPath(new URL('../../src/cli/bin.ts', import.meta.url));
/** tsx's loader by absolute path: `--import tsx` would be resolved from the child's cwd, often a temp dir. */
export const TSX = pathToFileURL(createRequire(import.meta.url).resolve('tsx')).href;

/** node arguments that run the CLI sources. */
export const cliArgs = (args: string[]) => ['--import', TSX, BIN, ...args];

export interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs the real CLI binary (as `npx coder-subagents` does) in `cwd`: slow, use for the entry point itself. */
export function spawnCli(args: string[], cwd: string): CliResult {
  const r = spawnSync(process.execPath, cliArgs(args), { cwd, encoding: 'utf8', env: { ...process.env, NO_COLOR: '1' } });
  return { code: r.status ?? -1, stdout: r.stdout, stderr: r.stderr };
}

/** Runs the CLI in this process with `cwd` as working directory, capturing what it prints. */
export async function runCli(args: string[], cwd: string): Promise<CliResult> {
  const out: string[] = [];
  const err: string[] = [];
  const write = { out: process.stdout.write, err: process.stderr.write };
  const prevCwd = process.cwd();
  process.stdout.write = ((chunk: string | Uint8Array) => (out.push(String(chunk)), true)) as typeof process.stdout.write;
  process.stderr.write = ((chunk: string | Uint8Array) => (err.push(String(chunk)), true)) as typeof process.stderr.write;
  process.chdir(cwd);
  try {
    const code = await main(['node', 'coder-subagents', ...args]);
    return { code, stdout: out.join(''), stderr: err.join('') };
  } finally {
    process.chdir(prevCwd);
    process.stdout.write = write.out;
    process.stderr.write = write.err;
  }
}
