/**
 * Contract cases under a wall-clock deadline per case, in a worker thread (isolate/isolate.ts): a sub-agent that
 * hangs, or a bug that would hang or crash, stops the run with a message naming the case, instead of hanging the
 * CLI or the test process. `coder-subagents test` uses it; runContractFiles (suite.ts) stays the in-process API.
 */
import { DeadlineError, formatMs, IsolateCrashError, runIsolated, type IsolateOptions } from '../isolate/isolate.ts';
import { Trace } from '../runtime/trace.ts';
import type { CaseResult } from './run-case.ts';
import type { SuiteOptions, SuiteResult } from './suite.ts';

/** A suite run that was stopped: its deadline passed or its worker died, in the named case. */
export class SuiteStoppedError extends Error {}

/**
 * runContractFiles in a worker, each case under `isolate.timeoutMs` (default 60 s; the deadline restarts at each
 * case). Results carry the stage runs' data and traces; their `readFile` only sees the files the stage changed.
 * Rejects with a SuiteStoppedError naming the case when a case passes the deadline.
 */
export async function runContractFilesIsolated(
  files: string[],
  options: SuiteOptions = {},
  isolate: Pick<IsolateOptions, 'timeoutMs' | 'maxMemoryMb'> = {},
): Promise<SuiteResult> {
  const { onCase: _onCase, ...plain } = options; // functions cannot cross to the worker
  try {
    const r = await runIsolated('suite', { files, options: plain }, { ...isolate, restartOnProgress: true });
    return { ...r, cases: r.cases.map(revive), files: r.files.map((f) => ({ ...f, cases: f.cases.map(revive) })) };
  } catch (err) {
    if (err instanceof DeadlineError) {
      throw new SuiteStoppedError(`${err.where ?? 'a case'} timed out after ${formatMs(err.ms)} (the case was stopped, the run ended; raise --timeout if it needs longer)`);
    }
    if (err instanceof IsolateCrashError) throw new SuiteStoppedError(err.message);
    throw err;
  }
}

/** A case result back from the worker: its trace a Trace again, its readFile reading the changed files. */
function revive(c: CaseResult): CaseResult {
  if (!c.result) return c;
  const trace = new Trace();
  trace.events.push(...(c.result.trace as unknown as { events: Trace['events'] }).events);
  const files = c.result.files;
  return { ...c, result: { ...c.result, trace, readFile: (p: string) => files[p] ?? undefined } };
}
