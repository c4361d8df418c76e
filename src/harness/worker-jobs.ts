/**
 * The jobs a worker of runIsolated (isolate/isolate.ts) runs for the CLI and the contract tests (see run-job.ts). Arguments and results cross the thread boundary by
 * structured clone, so they are plain data: values Lua produced are made clonable first.
 */
import nodePath from 'node:path';
import type { Mocks } from '../runtime/mocks.ts';
import type { CaseResult } from './run-case.ts';
import { runContractFiles, type SuiteOptions } from './suite.ts';
import type { SuiteResult } from './suite-result.ts';
import { ScriptedAi } from '../runtime/ai.ts';
import type { PackLocation } from '../runtime/resolve.ts';
import type { WriteBatch } from '../runtime/stage-writes.ts';
import { Simulator, type RunOutcome, type RunRequest, type SimulatorOptions } from '../runtime/simulator.ts';
import type { EngineName } from '../engine/engine.ts';
import { defaultEngineName, loadEngine } from '../engine/index.ts';
import type { TraceEvent } from '../aip/support/trace.ts';
import type { FileChanges } from '../support/vfs.ts';
import { clonable, serializeError, type Port, type SerializedError } from '../isolate/isolate.ts';

// the worker reports a job's error with the jobs module's serializeError
export { serializeError };


/** A Simulator as plain data (SimulatorOptions minus what cannot cross threads). */
export interface SimSpec {
  workspaceDir: string;
  /** scripted AI responses: the TOML text and its file name for messages */
  ai?: { text: string; file: string };
  aipackVersion?: string;
  budget?: number;
  packs?: PackLocation[];
  engine?: EngineName;
  traceValues?: SimulatorOptions['traceValues'];
  /** the kinds of trace event the caller reports (all by default): only those are kept and sent back */
  traceKinds?: SimulatorOptions['traceKinds'];
  /** user stubs of aip.* functions (runtime/mocks.ts), already checked */
  mocks?: Mocks;
  /** --aipack-base: an AIPack base dir, only read (saves there stay in memory) */
  aipackBase?: string;
}

export interface SimulateResult {
  outcome?: RunOutcome;
  error?: SerializedError;
  events: TraceEvent[];
  files: FileChanges;
  /**
   * what --write would write (absolute paths; null = delete), one batch per stage of the run in stage order,
   * handed to writeChanges batch by batch by the caller; a failed run's batches hold what its stages wrote up to
   * the failure (AIPack writes each file when a stage saves it)
   */
  batches: WriteBatch[];
}

/** One run of an agent (the CLI's `run` and `run-agent`). Failures of the run are part of the result. */
export async function simulate(arg: { sim: SimSpec; request: RunRequest }, port: Port): Promise<SimulateResult> {
  const { sim: spec, request } = arg;
  const engine = spec.engine ?? defaultEngineName();
  await loadEngine(engine); // once per worker: lua54's WebAssembly module
  const sim = new Simulator({
    engine,
    traceValues: spec.traceValues,
    traceKinds: spec.traceKinds,
    workspaceDir: spec.workspaceDir,
    ai: spec.ai ? ScriptedAi.fromToml(spec.ai.text, spec.ai.file) : undefined,
    aipackVersion: spec.aipackVersion,
    budget: spec.budget,
    // the worker's deadline (the CLI's --timeout, or none) governs, not the library's default
    timeoutMs: 0,
    packs: spec.packs,
    mocks: spec.mocks,
    aipackBase: spec.aipackBase,
    onStage: (where) => port.note(where),
  });
  port.at(request.name);
  let outcome: RunOutcome | undefined;
  let error: SerializedError | undefined;
  try {
    outcome = sim.run(request);
  } catch (err) {
    error = serializeError(err);
  }
  return clonable({ outcome, error, events: sim.trace.events, files: sim.vfs.changes(), batches: sim.writeStamps.batches(sim.vfs.pending()) });
}

/** A plain-data copy of a case result: no readFile, the trace as its events. */
function plainCase(c: CaseResult): CaseResult {
  return c.result ? ({ ...c, result: { ...c.result, readFile: undefined, trace: { events: c.result.trace.events } } } as unknown as CaseResult) : c;
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
    onCase: (name, file) => port.at(`case "${name}" of ${nodePath.relative(process.cwd(), file) || file}`),
    // each case as it ends: if a later case passes its deadline, the worker dies, and these are what is left
    onCaseStart: (start) => port.send({ start }),
    onCaseDone: (done) => port.send({ done: clonable(plainCase(done)) }),
  });
  return clonable({ ...r, cases: [], files: r.files.map((f) => ({ ...f, cases: [] })), errorAt });
}

export type Jobs = { simulate: typeof simulate; suite: typeof suite };
export type JobName = keyof Jobs;
