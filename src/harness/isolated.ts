/**
 * Contract cases under a wall-clock deadline per case, in a worker thread (isolate/isolate.ts): a case whose
 * sub-agent hangs, or a bug that would hang or crash, fails that case with a clear message; the other cases run.
 * This is what `coder-subagents test` uses; runContractFiles (suite.ts) stays the synchronous in-process API.
 */
import nodePath from 'node:path';
import { DeadlineError, formatMs, IsolateCrashError, runIsolated, type IsolateOptions } from '../isolate/isolate.ts';
import type { ContractPart } from '../isolate/jobs.ts';
import { Trace } from '../runtime/trace.ts';
import type { CaseResult, ContractFileResult, RunOptions } from './run-case.ts';
import type { SuiteResult } from './suite.ts';

interface Where {
  file: string;
  name?: string;
  index?: number;
  stage?: CaseResult['stage'];
  absFile?: string;
}

/**
 * Runs the given case files like runContractFiles, each case under `isolate.timeoutMs` (default 60 s).
 * Results carry the stage run's data and trace; their `readFile` only sees the files the stage changed.
 */
export async function runContractFilesIsolated(files: string[], options: RunOptions = {}, isolate: Pick<IsolateOptions, 'timeoutMs' | 'maxMemoryMb'> = {}): Promise<SuiteResult> {
  const { onCase: _onCase, ...plain } = options; // functions cannot cross to the worker
  const byFile = new Map<string, ContractFileResult>();
  const errors: string[] = [];
  let remaining = files;
  let resume: { file: string; after: number } | undefined;
  while (remaining.length > 0) {
    let where: Where | undefined;
    const seen = new Set<string>();
    const onPart = (v: unknown) => {
      const part = v as ContractPart;
      seen.add(part.file);
      if (part.kind === 'error') errors.push(part.error);
      else if (part.kind === 'file') {
        if (!byFile.has(part.file)) byFile.set(part.file, { file: part.file, agent: part.agent, cases: [], watch: part.watch });
      } else byFile.get(part.file)?.cases.push(revive(part.result));
    };
    try {
      await runIsolated('contractFiles', { files: remaining, options: plain, resume }, { ...isolate, onPart, onProgress: (w) => (where = JSON.parse(w) as Where), restartOnProgress: true });
      break;
    } catch (err) {
      if (!(err instanceof DeadlineError || err instanceof IsolateCrashError) || !where) throw err;
      const cause = err instanceof DeadlineError ? `timed out after ${formatMs(err.ms)} (the case was stopped; raise --timeout if it needs longer)` : err.message;
      const w: Where = where;
      if (w.name !== undefined && w.index !== undefined && w.stage !== undefined) {
        byFile.get(w.file)?.cases.push({ file: w.absFile ?? nodePath.resolve(w.file), name: w.name, index: w.index, stage: w.stage, status: 'failed', message: cause, warnings: [] });
        resume = { file: w.file, after: w.index };
        remaining = remaining.slice(remaining.indexOf(w.file));
      } else {
        errors.push(`${w.file}: ${cause}`);
        resume = undefined;
        remaining = remaining.slice(remaining.indexOf(w.file) + 1);
      }
    }
  }
  const results = files.flatMap((f) => byFile.get(f) ?? []);
  const cases = results.flatMap((r) => r.cases);
  const count = (s: CaseResult['status']) => cases.filter((c) => c.status === s).length;
  return { files: results, cases, errors, passed: count('passed'), failed: count('failed'), skipped: count('skipped') };
}

/** A case result back from the worker: its trace a Trace again, its readFile reading the changed files. */
function revive(c: CaseResult): CaseResult {
  if (!c.result) return c;
  const trace = new Trace();
  trace.events.push(...(c.result.trace as unknown as { events: Trace['events'] }).events);
  const files = c.result.files;
  return { ...c, result: { ...c.result, trace, readFile: (p: string) => files[p] ?? undefined } };
}
