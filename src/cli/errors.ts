import { existsSync, statSync } from 'node:fs';

/** Bad command-line usage: the CLI exits with code 2. */
export class UsageError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'UsageError';
  }
}

export type SetExit = (code: number) => void;

/** A directory the user named with `flag` must exist: a UsageError otherwise (never created by mistake). */
export function requireDir(flag: string, given: string, abs: string): void {
  if (!existsSync(abs)) throw new UsageError(`${flag} ${given}: no such directory`);
  if (!statSync(abs).isDirectory()) throw new UsageError(`${flag} ${given}: not a directory`);
}
