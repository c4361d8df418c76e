/**
 * The human report while the suite runs, as vitest's and jest's default reporters do it: each case's lines as soon
 * as it ends, and on a terminal one progress line kept under them (`▸ 120/10000 cases · 3 failed · 12 s`),
 * redrawn in place and erased before the summary. No progress line when the output is not a terminal, or with
 * NO_COLOR or CI set: logs and CI get the case lines only.
 */
import pc from 'picocolors';
import type { CaseResult } from '../run-case.ts';
import { formatCase, type FormatOptions } from './human.ts';

export interface LiveOptions extends FormatOptions {
  /** where the lines go (process.stdout) */
  out: { write(s: string): unknown; isTTY?: boolean };
  /** the environment that decides the progress line (process.env) */
  env?: Record<string, string | undefined>;
  /** how many cases the run selects (an upper bound), for the progress line */
  total?: number;
  /** the clock of the progress line's elapsed time (ms) */
  now?: () => number;
}

/** Erases the current terminal line (the progress line) before something else is written over it. */
const ERASE = '\r\x1b[2K';

/** Whether a progress line may be drawn: a terminal, and neither NO_COLOR nor CI set. */
export function wantsProgress(out: { isTTY?: boolean }, env: Record<string, string | undefined>): boolean {
  return out.isTTY === true && !env.NO_COLOR && !env.CI;
}

export interface LiveReport {
  /** a case ended: its lines now, then the progress line again */
  onCase(c: CaseResult): void;
  /** erase the progress line (before the summary) */
  end(): void;
}

export function liveReport(o: LiveOptions): LiveReport {
  const progress = wantsProgress(o.out, o.env ?? process.env);
  const now = o.now ?? Date.now;
  const started = now();
  let done = 0;
  let failed = 0;
  let drawn = false;
  const line = () => {
    const total = o.total !== undefined && o.total >= done ? `/${o.total}` : '';
    const secs = Math.round((now() - started) / 1000);
    return `${pc.cyan('▸')} ${done}${total} cases${failed ? ` · ${pc.red(`${failed} failed`)}` : ''} · ${secs} s`;
  };
  return {
    onCase(c) {
      done++;
      if (c.status === 'failed') failed++;
      const text = formatCase(c, o).join('\n') + '\n';
      o.out.write(progress && drawn ? ERASE + text : text);
      if (progress) {
        o.out.write(line());
        drawn = true;
      }
    },
    end() {
      if (progress && drawn) o.out.write(ERASE);
      drawn = false;
    },
  };
}
