import type { Command } from 'commander';
import type { SetExit } from '../errors.ts';

type Register = (program: Command, setExit: SetExit) => void;

/**
 * Every CLI command registers itself from its own module, loaded only when needed: a run loads the one command
 * it names (start-up time), `--help` loads them all. The order is the order of `--help`.
 */
export const COMMANDS: Record<string, () => Promise<{ register: Register }>> = {
  'run-agent': () => import('./run-agent.ts'),
  run: () => import('./run.ts'),
  schema: () => import('./schema.ts'),
  build: () => import('./build.ts'),
  check: () => import('./check.ts'),
  pack: () => import('./pack.ts'),
  install: () => import('./install.ts'),
  test: () => import('./test.ts'),
  init: () => import('./init.ts'),
  demo: () => import('./demo.ts'),
  types: () => import('./types.ts'),
  api: () => import('./api.ts'),
  record: () => import('./record.ts'),
  replay: () => import('./replay.ts'),
};

/** The register functions of the named commands (all of them when `names` is omitted), in COMMANDS order. */
export async function loadCommands(names?: readonly string[]): Promise<Register[]> {
  const wanted = Object.keys(COMMANDS).filter((n) => !names || names.includes(n));
  return Promise.all(wanted.map(async (n) => (await COMMANDS[n]()).register));
}
