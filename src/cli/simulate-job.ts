/**
 * The job a worker of runIsolated (isolate/isolate.ts) runs for the CLI's `run` and `run-agent` (simulate.ts starts
 * it): one run of an agent. Arguments and results cross the thread boundary by structured clone, so they are plain
 * data: values Lua produced are made clonable first.
 */
import type { Mocks } from '../runtime/mocks.ts';
import { ScriptedAi } from '../runtime/ai.ts';
import type { PackLocation } from '../runtime/resolve.ts';
import { Simulator, type RunOutcome, type RunRequest, type SimulatorOptions } from '../runtime/simulator.ts';
import type { WriteBatch } from '../runtime/stage-writes.ts';
import type { EngineName } from '../engine/engine.ts';
import { defaultEngineName, loadEngine } from '../engine/index.ts';
import type { TraceEvent } from '../aip/support/trace.ts';
import type { FileChanges } from '../support/vfs.ts';
import { clonable, serializeError, type Port, type SerializedError } from '../isolate/isolate.ts';
import { checkRenderable } from '../support/json-size.ts';

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
  // what goes back is written out in full (to the main thread, then as JSON): bounded at its written size, so a
  // result holding one big string many times is a clear error, not a heap the size of its expansion
  let events = sim.trace.events;
  try {
    checkRenderable({ outputs: outcome?.outputs, afterAll: outcome?.afterAll }, "the run's result");
  } catch (err) {
    outcome = undefined;
    error = serializeError(err);
  }
  try {
    checkRenderable(events, "the run's trace");
  } catch (err) {
    events = [];
    error ??= serializeError(err);
  }
  return clonable({ outcome, error, events, files: sim.vfs.changes(), batches: sim.writeStamps.batches(sim.vfs.pending()) });
}

export type SimulateJobs = { simulate: typeof simulate };
