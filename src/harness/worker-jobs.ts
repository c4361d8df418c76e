/**
 * The job a worker of runIsolated (isolate/isolate.ts) runs for `coder-subagents test` (see run-job.ts): the contract
 * cases of a suite. Arguments and results cross the thread boundary by structured clone, so they are plain data:
 * values Lua produced are made clonable first. (The CLI's `run` job lives with its command: cli/simulate-job.ts.)
 */
import nodePath from 'node:path';
import type { CaseResult } from './run-case.ts';
import { runContractFiles, type SuiteOptions } from './suite.ts';
import type { CaseStart, SuiteResult } from './suite-result.ts';
import { defaultEngineName, loadEngine } from '../engine/index.ts';
import { clonable, serializeError, type Port } from '../isolate/isolate.ts';
import { checkRenderable } from '../support/json-size.ts';

// the worker reports a job's error with the jobs module's serializeError
export { serializeError };

/**
 * A plain-data copy of a case result: no readFile, the trace as its events. The copy is written out in full to the
 * main thread, so a stage run whose values would take more than MAX_RENDERED_BYTES written out (one big string held
 * many times) is left out, and the case fails saying why, instead of the copy filling the heap.
 */
function plainCase(c: CaseResult): CaseResult {
  if (!c.result) return c;
  const result = { ...c.result, readFile: undefined, trace: { events: c.result.trace.events } };
  try {
    checkRenderable(result, 'the stage run (its result, inputs and trace)');
  } catch (err) {
    const { result: _dropped, ...rest } = c;
    return { ...rest, status: 'failed', message: [c.message, (err as Error).message].filter(Boolean).join('\n') };
  }
  return { ...c, result } as unknown as CaseResult;
}

/** A share of a suite's cases (SuiteOptions.claim): the counter its workers take positions from. */
export interface SuiteShare {
  /** an Int32Array's one slot: the position of the next case to hand out */
  counter: SharedArrayBuffer;
  /** the first share also prepares the files that have no selected case */
  first: boolean;
  /** files an earlier worker of this share ran cases of (absolute): prepared again for their results */
  seen: string[];
}

/** What the suite job answers: the result without its cases (they came one by one), and where its errors arose. */
export type SuiteJobResult = SuiteResult & { errorAt: [number, number][] };

/**
 * The contract cases of `coder-subagents test` (runContractFiles), telling which case runs. Each case's result
 * is sent as it ends, so the final result leaves them out: thousands of cases are not copied twice at the end.
 */
export async function suite(arg: { files: string[]; options: SuiteOptions; share?: SuiteShare }, port: Port): Promise<SuiteJobResult> {
  await loadEngine(arg.options.engine ?? defaultEngineName());
  const errorAt: [number, number][] = [];
  let starting: CaseStart | undefined;
  let claim: SuiteOptions['claim'];
  if (arg.share) {
    const counter = new Int32Array(arg.share.counter);
    const { first } = arg.share;
    const seen = new Set(arg.share.seen);
    claim = { next: () => Atomics.add(counter, 0, 1), prepare: (file, hasCases) => (first && !hasCases) || seen.has(file.file) };
  }
  const r = runContractFiles(arg.files, {
    ...arg.options,
    claim,
    onError: (_message, at) => errorAt.push(at),
    timeoutMs: 0, // the worker's deadline governs
    // a case's start travels with its step (one message where there were two); a case that takes no step (skipped,
    // todo) sends it with its result
    onCaseStart: (start) => {
      starting = start;
    },
    onCase: (name, file) => {
      port.at(`case "${name}" of ${nodePath.relative(process.cwd(), file) || file}`, starting && { start: starting });
      starting = undefined;
    },
    // each case as it ends: if a later case passes its deadline, the worker dies, and these are what is left
    onCaseDone: (done) => {
      port.send({ ...(starting && { start: starting }), done: clonable(plainCase(done)) });
      starting = undefined;
    },
  });
  return clonable({ ...r, cases: [], files: r.files.map((f) => ({ ...f, cases: [] })), errorAt });
}

export type Jobs = { suite: typeof suite };
export type JobName = keyof Jobs;
