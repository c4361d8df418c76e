/**
 * Contract cases under a wall-clock deadline per case, in a worker thread (isolate/isolate.ts): a sub-agent that
 * hangs, or a bug that would hang or crash, stops the run with a message naming the case, instead of hanging the
 * CLI or the test process. `coder-subagents test` uses it; runContractFiles (suite.ts) stays the in-process API.
 */
import { DeadlineError, formatMs, IsolateCrashError, type IsolateOptions } from '../isolate/isolate.ts';
import { prestartJobs, runJob } from './run-job.ts';
import { Trace } from '../aip/support/trace.ts';
import nodePath from 'node:path';
import os from 'node:os';
import { readText } from '../support/host-fs.ts';
import type { CaseResult, ContractFileResult } from './run-case.ts';
import type { SuiteJobResult } from './worker-jobs.ts';
import type { SuiteOptions } from './suite.ts';
import { caseKey, coverageOf, type CaseStart, type SuiteResult } from './suite-result.ts';

// a small young generation: thousands of cases make much short-lived garbage, and RSS follows its size
const SUITE_WORKER = { youngMb: 16 };

/**
 * Starts `count` workers of the next runContractFilesIsolated now, so that they load the runner while the caller
 * still reads its flags and finds the case files.
 */
export function prestartSuiteWorkers(count = 1): void {
  prestartJobs(SUITE_WORKER, count);
}

/**
 * From this many cases on, a suite is split over two workers, on a machine of SPLIT_FROM_CORES cores or more. A
 * second worker costs ~0.8 s of CPU before it runs its first case at full speed (loading the runner, its first Lua
 * state, the JIT compiling the engine again on V8's background threads) and doubles the heap a suite keeps. On 2
 * cores that CPU competes with the first worker: 100 cases took 2.7-2.9 s of CPU on two workers against 1.9-2.1 s
 * on one, and the wall time did not drop.
 */
export const SPLIT_FROM_CASES = 300;
export const SPLIT_FROM_CORES = 4;

/**
 * The cases a run of these case files selects, counted in the files' text (their `[[case]]` headers) rather than
 * parsed, so that the parser stays off the calling thread: every case, or its share of them with `shard`; `filter`
 * and `testNamePattern` are not applied (an upper bound).
 */
export function countCases(files: string[], options: Pick<SuiteOptions, 'shard'> = {}): number {
  let cases = 0;
  for (const file of files) {
    try {
      cases += readText(file).match(CASE_HEADER)?.length ?? 0;
    } catch {
      // an unreadable file is the run's error to report
    }
  }
  return options.shard ? Math.ceil(cases / options.shard.count) : cases;
}

/**
 * How many workers a run of `cases` cases (countCases of its files) is worth. A run that selects cases by name, or
 * stops at failures (`bail`), takes one.
 */
export function suiteWorkersFor(cases: number, options: SuiteOptions, cores = os.availableParallelism()): number {
  if (cores < SPLIT_FROM_CORES || options.bail !== undefined || options.filter || options.testNamePattern) return 1;
  return cases >= SPLIT_FROM_CASES ? 2 : 1;
}

const CASE_HEADER = /^[ \t]*\[\[[ \t]*case[ \t]*\]\]/gm;

/** A suite run that was stopped: its deadline passed or its worker died, outside any case. */
export class SuiteStoppedError extends Error {}

/** What runContractFilesIsolated takes besides the suite's options: the worker's limits and how many workers. */
export interface IsolatedSuiteOptions extends Pick<IsolateOptions, 'timeoutMs' | 'maxMemoryMb' | 'youngMb'> {
  /**
   * workers the cases are split over (default 1; always 1 with `bail`, whose cut depends on the order the cases
   * run in). Each takes the next case from a shared counter, so a slow case or a late start balances itself.
   */
  workers?: number;
  /** called once, when the first case starts: the workers have loaded the runner */
  onStart?: () => void;
  /** told each case as it starts in a worker, and as it ends (a case stopped by its deadline included) */
  onCaseStart?: (c: CaseStart) => void;
  onCaseEnd?: (c: CaseResult) => void;
}

/**
 * runContractFiles in one or more workers, each case under `isolate.timeoutMs` (default 60 s; the deadline restarts
 * at each case). Results carry the stage runs' data and traces; their `readFile` only sees the files the stage
 * changed. A case that passes its deadline (or kills its worker) is reported failed with that cause; the cases
 * before it keep their results, and the cases after it run in a new worker. The result is the one a single run of
 * the files in order gives: the same cases, order, verdicts and errors. Rejects with a SuiteStoppedError only when
 * the run stops outside any case.
 */
export async function runContractFilesIsolated(files: string[], options: SuiteOptions = {}, isolate: IsolatedSuiteOptions = {}): Promise<SuiteResult> {
  const { onCase: _onCase, ...plain } = options; // functions cannot cross to the worker
  const { workers = 1, onStart, onCaseStart, onCaseEnd, ...limits } = isolate;
  let started = false;
  const lanes = options.bail === undefined ? Math.max(1, Math.floor(workers)) : 1;
  const counter = lanes > 1 ? new SharedArrayBuffer(4) : undefined;
  // every case as it ends, from every worker: the workers' own results leave them out
  const finished = new Map<string, CaseResult>();
  const agents = new Map<string, Pick<CaseStart, 'agent' | 'agentFile'>>();
  const abort = new AbortController();

  const lane = async (index: number): Promise<SuiteJobResult> => {
    // the case files this lane's workers ran cases of: a worker started after a deadline prepares them again
    const seen = new Set<string>();
    const mine = new Set<string>();
    for (;;) {
      let running: CaseStart | undefined;
      const onPart = (part: unknown) => {
        const m = part as { start?: CaseStart; done?: CaseResult };
        if (m.start) {
          running = m.start;
          agents.set(m.start.file, m.start);
          if (!started) {
            started = true;
            onStart?.();
          }
          onCaseStart?.(m.start);
        }
        if (m.done) {
          const key = caseKey(m.done);
          const done = revive(m.done);
          finished.set(key, done);
          mine.add(key);
          seen.add(m.done.file);
          running = undefined;
          onCaseEnd?.(done);
        }
      };
      const failedBefore = [...mine].filter((k) => finished.get(k)?.status === 'failed').length;
      try {
        return await runJob(
          'suite',
          {
            files,
            options: { ...plain, skipCases: [...mine], failedBefore },
            ...(counter ? { share: { counter, first: index === 0, seen: [...seen] } } : {}),
          },
          { ...SUITE_WORKER, ...limits, restartOnProgress: true, onPart, signal: abort.signal },
        );
      } catch (err) {
        if (!(err instanceof DeadlineError) && !(err instanceof IsolateCrashError)) throw err;
        if (running === undefined) {
          const message = err instanceof DeadlineError ? `${err.where ?? 'the run'} timed out after ${formatMs(err.ms)} (the run was stopped; raise --timeout if it needs longer)` : err.message;
          throw new SuiteStoppedError(message);
        }
        const c: CaseStart = running;
        const cause =
          err instanceof DeadlineError
            ? `timed out after ${formatMs(err.ms)} (the case was stopped; raise --timeout if it needs longer)`
            : err.message;
        const key = caseKey(c);
        const stopped: CaseResult = { file: c.file, name: c.name, index: c.index, stage: c.stage, ...(c.event !== undefined ? { event: c.event } : {}), status: 'failed', message: cause, warnings: [], ms: err instanceof DeadlineError ? err.ms : 0 };
        finished.set(key, stopped);
        mine.add(key);
        seen.add(c.file);
        onCaseEnd?.(stopped);
      }
    }
  };

  let results: SuiteJobResult[];
  try {
    results = await Promise.all(Array.from({ length: lanes }, (_, i) => lane(i)));
  } catch (err) {
    abort.abort(err); // the other workers stop too
    throw err;
  }
  return merge(files, results, finished, agents);
}

/**
 * The workers' results made one: the cases they sent, in file then case order; each file once; each error once,
 * in the order one run of the files meets them, the first of a file only (one run stops a file at its first
 * error), and no case of a file that failed while it ran (one run drops them with it).
 */
function merge(files: string[], results: SuiteJobResult[], finished: Map<string, CaseResult>, agents: Map<string, Pick<CaseStart, 'agent' | 'agentFile'>>): SuiteResult {
  const firstError = new Map<number, { position: number; message: string }>();
  for (const r of results) {
    r.errors.forEach((message, i) => {
      const [slot, position] = r.errorAt[i]!;
      const known = firstError.get(slot);
      if (!known || position < known.position) firstError.set(slot, { position, message });
    });
  }
  const slots = [...firstError.keys()].sort((a, b) => a - b);
  const absolute = files.map((p) => nodePath.resolve(p));
  const dropped = new Set(slots.filter((s) => s >= files.length).map((s) => absolute[s - files.length]));
  const byFile = new Map<string, ContractFileResult>();
  for (const r of results) for (const f of r.files) if (!byFile.has(f.file) && !dropped.has(f.file)) byFile.set(f.file, { ...f, cases: [] });
  for (const c of finished.values()) {
    if (dropped.has(c.file)) continue;
    let f = byFile.get(c.file);
    if (!f) {
      const agent = agents.get(c.file);
      f = { file: c.file, agent: agent?.agent ?? '', agentFile: agent?.agentFile ?? '', cases: [], watch: [c.file] };
      byFile.set(c.file, f);
    }
    f.cases.push(c);
  }
  const order = new Map(absolute.map((file, i) => [file, i] as const).reverse());
  const at = (file: string) => order.get(file) ?? files.length;
  const merged = [...byFile.values()].sort((a, b) => at(a.file) - at(b.file));
  for (const f of merged) f.cases.sort((a, b) => a.index - b.index);
  const cases = merged.flatMap((f) => f.cases);
  const count = (s: CaseResult['status']) => cases.filter((c) => c.status === s).length;
  const [first] = results as [SuiteJobResult];
  return {
    files: merged,
    cases,
    errors: slots.map((s) => firstError.get(s)!.message),
    passed: count('passed'),
    failed: count('failed'),
    skipped: count('skipped'),
    notRun: first.notRun,
    ...(first.bailedAt !== undefined ? { bailedAt: first.bailedAt } : {}),
    // untested: by none of the workers
    agentsWithoutContract: first.agentsWithoutContract.filter((a) => results.every((r) => r.agentsWithoutContract.includes(a))),
    coverage: coverageOf(merged),
  };
}

/** A case result back from the worker: its trace a Trace again, its readFile reading the changed files. */
function revive(c: CaseResult): CaseResult {
  if (!c.result) return c;
  const trace = new Trace();
  trace.events.push(...(c.result.trace as unknown as { events: Trace['events'] }).events);
  const files = c.result.files;
  return { ...c, result: { ...c.result, trace, readFile: (p: string) => (Object.hasOwn(files, p) ? files[p] ?? undefined : undefined) } };
}
