/**
 * Contract cases under a wall-clock deadline per case, in a worker thread (isolate/isolate.ts): a sub-agent that
 * hangs, or a bug that would hang or crash, stops the run with a message naming the case, instead of hanging the
 * CLI or the test process. `coder-subagents test` uses it; runContractFiles (suite.ts) stays the in-process API.
 */
import { DeadlineError, formatMs, IsolateCrashError, type IsolateOptions } from '../isolate/isolate.ts';
import { prestartJobs, runJob } from './run-job.ts';
import { Trace } from '../aip/support/trace.ts';
import nodePath from 'node:path';
import type { CaseResult, ContractFileResult } from './run-case.ts';
import type { SuiteOptions } from './suite.ts';
import { caseKey, coverageOf, type CaseStart, type SuiteResult } from './suite-result.ts';

// a small young generation: thousands of cases make much short-lived garbage, and RSS follows its size
const SUITE_WORKER = { youngMb: 16 };

/**
 * Starts the worker of the next runContractFilesIsolated now, so that it loads the runner while the caller still
 * reads its flags and finds the case files.
 */
export function prestartSuiteWorker(): void {
  prestartJobs(SUITE_WORKER);
}

/** A suite run that was stopped: its deadline passed or its worker died, outside any case. */
export class SuiteStoppedError extends Error {}

/**
 * runContractFiles in a worker, each case under `isolate.timeoutMs` (default 60 s; the deadline restarts at each
 * case). Results carry the stage runs' data and traces; their `readFile` only sees the files the stage changed.
 * A case that passes its deadline (or kills its worker) is reported failed with that cause; the cases before it
 * keep their results, and the cases after it run in a new worker. Rejects with a SuiteStoppedError only when the
 * run stops outside any case.
 */
export async function runContractFilesIsolated(
  files: string[],
  options: SuiteOptions = {},
  isolate: Pick<IsolateOptions, 'timeoutMs' | 'maxMemoryMb' | 'youngMb'> = {},
): Promise<SuiteResult> {
  const { onCase: _onCase, ...plain } = options; // functions cannot cross to the worker
  const finished = new Map<string, CaseResult>();
  const agents = new Map<string, Pick<CaseStart, 'agent' | 'agentFile'>>();
  for (;;) {
    let running: CaseStart | undefined;
    // this worker's finished cases: its own result holds them too, unless a deadline stops it
    const round = new Map<string, CaseResult>();
    const onPart = (part: unknown) => {
      const m = part as { start?: CaseStart; done?: CaseResult };
      if (m.start) {
        running = m.start;
        agents.set(m.start.file, m.start);
      }
      if (m.done) {
        round.set(caseKey(m.done), m.done);
        running = undefined;
      }
    };
    const failedBefore = [...finished.values()].filter((c) => c.status === 'failed').length;
    try {
      const r = await runJob(
        'suite',
        { files, options: { ...plain, skipCases: [...finished.keys()], failedBefore } },
        { ...SUITE_WORKER, ...isolate, restartOnProgress: true, onPart },
      );
      return merge(files, r, finished, agents);
    } catch (err) {
      if (!(err instanceof DeadlineError) && !(err instanceof IsolateCrashError)) throw err;
      for (const [key, c] of round) finished.set(key, revive(c));
      if (running === undefined) {
        const message = err instanceof DeadlineError ? `${err.where ?? 'the run'} timed out after ${formatMs(err.ms)} (the run was stopped; raise --timeout if it needs longer)` : err.message;
        throw new SuiteStoppedError(message);
      }
      const c: CaseStart = running;
      const cause =
        err instanceof DeadlineError
          ? `timed out after ${formatMs(err.ms)} (the case was stopped; raise --timeout if it needs longer)`
          : err.message;
      finished.set(caseKey(c), { file: c.file, name: c.name, index: c.index, stage: c.stage, status: 'failed', message: cause, warnings: [], ms: err instanceof DeadlineError ? err.ms : 0 });
    }
  }
}

/** The last worker's result with the cases earlier workers finished (or lost to a deadline) put back in order. */
function merge(files: string[], r: SuiteResult, finished: Map<string, CaseResult>, agents: Map<string, Pick<CaseStart, 'agent' | 'agentFile'>>): SuiteResult {
  if (finished.size === 0) return { ...r, cases: r.cases.map(revive), files: r.files.map((f) => ({ ...f, cases: f.cases.map(revive) })) };
  const byFile = new Map<string, ContractFileResult>(r.files.map((f) => [f.file, { ...f, cases: f.cases.map(revive) }]));
  for (const c of finished.values()) {
    let f = byFile.get(c.file);
    if (!f) {
      const agent = agents.get(c.file);
      f = { file: c.file, agent: agent?.agent ?? '', agentFile: agent?.agentFile ?? '', cases: [], watch: [c.file] };
      byFile.set(c.file, f);
    }
    f.cases.push(c);
  }
  const order = (file: string) => {
    const i = files.findIndex((p) => nodePath.resolve(p) === file);
    return i < 0 ? files.length : i;
  };
  const merged = [...byFile.values()].sort((a, b) => order(a.file) - order(b.file));
  for (const f of merged) f.cases.sort((a, b) => a.index - b.index);
  const cases = merged.flatMap((f) => f.cases);
  const count = (s: CaseResult['status']) => cases.filter((c) => c.status === s).length;
  return { ...r, files: merged, cases, passed: count('passed'), failed: count('failed'), skipped: count('skipped'), coverage: coverageOf(merged) };
}

/** A case result back from the worker: its trace a Trace again, its readFile reading the changed files. */
function revive(c: CaseResult): CaseResult {
  if (!c.result) return c;
  const trace = new Trace();
  trace.events.push(...(c.result.trace as unknown as { events: Trace['events'] }).events);
  const files = c.result.files;
  return { ...c, result: { ...c.result, trace, readFile: (p: string) => files[p] ?? undefined } };
}
