import { exists, isDirectory } from '../support/host-fs.ts';
import { parseTimeoutSeconds } from '../isolate/isolate.ts';

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
  if (!exists(abs)) throw new UsageError(`${flag} ${given}: no such directory`);
  if (!isDirectory(abs)) throw new UsageError(`${flag} ${given}: not a directory`);
}

/** The largest count a flag takes: past it numbers lose integer precision. */
export const MAX_COUNT = Number.MAX_SAFE_INTEGER;
/** The longest deadline a timer can wait (setTimeout takes at most 2^31-1 ms, about 24.8 days). */
export const MAX_TIMEOUT_SECONDS = Math.floor((2 ** 31 - 1) / 1000);

/** A positive whole number given with `flag`, at most `max`; the message says what was expected. */
export function positiveIntFlag(flag: string, given: string, max = MAX_COUNT): number {
  const n = Number(given);
  if (given.trim() === '' || !Number.isInteger(n) || n <= 0) throw new UsageError(`${flag} ${given}: expected a positive integer`);
  if (n > max) throw new UsageError(`${flag} ${given}: at most ${max}`);
  return n;
}

/** `--timeout <seconds>` in ms (0 = no deadline). Throws UsageError. */
export function timeoutOf(o: { timeout?: string }): number {
  const ms = parseTimeoutSeconds(o.timeout ?? '60');
  if (ms === undefined) throw new UsageError(`--timeout ${o.timeout}: expected a number of seconds (0 = no deadline)`);
  if (ms > MAX_TIMEOUT_SECONDS * 1000) throw new UsageError(`--timeout ${o.timeout}: at most ${MAX_TIMEOUT_SECONDS} seconds (about 24.8 days; 0 = no deadline)`);
  return ms;
}
