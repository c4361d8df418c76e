/**
 * The jobs a worker of runIsolated (isolate.ts) can run. Arguments and results cross the thread boundary by
 * structured clone, so they are plain data: values Lua produced are made clonable first.
 */
import nodePath from 'node:path';
import { CaseFileError, loadContractFile, type ContractFile } from '../harness/case-file.ts';
import { matchesFilter, runCase, type CaseResult, type RunOptions } from '../harness/run-case.ts';
import { prepareAgent, type AgentUnderTest } from '../harness/stage.ts';
import { ScriptedAi } from '../runtime/ai.ts';
import type { PackLocation } from '../runtime/resolve.ts';
import { Simulator, type RunOutcome, type RunRequest } from '../runtime/simulator.ts';
import type { TraceEvent } from '../runtime/trace.ts';
import type { FileChanges } from '../runtime/vfs-types.ts';
import type { SerializedError } from './isolate.ts';

export interface Port {
  /** where the job is now (agent and stage, or case), named by a DeadlineError */
  at(where: string): void;
  /** a partial result (e.g. one case file's results) */
  send(value: unknown): void;
}

/** A Simulator as plain data (SimulatorOptions minus what cannot cross threads). */
export interface SimSpec {
  workspaceDir: string;
  /** scripted AI responses: the TOML text and its file name for messages */
  ai?: { text: string; file: string };
  aipackVersion?: string;
  budget?: number;
  packs?: PackLocation[];
}

export interface SimulateResult {
  outcome?: RunOutcome;
  error?: SerializedError;
  events: TraceEvent[];
  files: FileChanges;
  /** what --write would write (absolute paths; null = delete), handed to writeChanges by the caller */
  pending: { changes: Array<readonly [string, Uint8Array | null]>; dirs: string[] };
}

/** One run of an agent (the CLI's `run` and `run-agent`). Failures of the run are part of the result. */
export function simulate(arg: { sim: SimSpec; request: RunRequest }, port: Port): SimulateResult {
  const { sim: spec, request } = arg;
  const sim = new Simulator({
    workspaceDir: spec.workspaceDir,
    ai: spec.ai ? ScriptedAi.fromToml(spec.ai.text, spec.ai.file) : undefined,
    aipackVersion: spec.aipackVersion,
    budget: spec.budget,
    packs: spec.packs,
    onStage: (where) => port.at(where),
  });
  port.at(request.name);
  let outcome: RunOutcome | undefined;
  let error: SerializedError | undefined;
  try {
    outcome = sim.run(request);
  } catch (err) {
    error = serializeError(err);
  }
  return clonable({ outcome, error, events: sim.trace.events, files: sim.vfs.changes(), pending: error ? { changes: [], dirs: [] } : sim.vfs.pending() });
}

/** What the contractFiles job sends: a file's start, each case's result (plain data), or a file's harness error. */
export type ContractPart =
  | { kind: 'file'; file: string; agent: string; watch: string[] }
  | { kind: 'case'; file: string; result: CaseResult }
  | { kind: 'error'; file: string; error: string };

/**
 * Runs case files one by one (as runContractFile), sending each case's result as it ends, so that a deadline
 * stopping one case keeps the others. `resume` skips the cases of the first file up to a 1-based index.
 */
export function contractFiles(arg: { files: string[]; options: RunOptions; resume?: { file: string; after: number } }, port: Port): void {
  const { options } = arg;
  for (const path of arg.files) {
    port.at(JSON.stringify({ file: path }));
    let file: ContractFile;
    let agent: AgentUnderTest;
    try {
      file = loadContractFile(path);
      agent = prepareAgent(file.agent, file.dir, file.support, options, path);
    } catch (err) {
      if (err instanceof CaseFileError) {
        port.send({ kind: 'error', file: path, error: err.message } satisfies ContractPart);
        continue;
      }
      throw err;
    }
    port.send({ kind: 'file', file: path, agent: file.agent, watch: [file.file, ...agent.watch.map((p) => nodePath.resolve(p))] } satisfies ContractPart);
    const skipUpTo = arg.resume?.file === path ? arg.resume.after : 0;
    for (const c of file.cases) {
      if (c.index <= skipUpTo || !matchesFilter(path, c.name, options.filter)) continue;
      port.at(JSON.stringify({ file: path, name: c.name, index: c.index, stage: c.stage, absFile: file.file }));
      const r = runCase(file, c, options, agent);
      const result = r.result && { ...r.result, readFile: undefined, trace: { events: r.result.trace.events } };
      port.send(clonable({ kind: 'case', file: path, result: { ...r, result } }) as unknown as ContractPart);
    }
  }
}

export function serializeError(err: unknown): SerializedError {
  if (!(err instanceof Error)) return { name: 'Error', message: String(err), fields: {} };
  const fields: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(err)) fields[k] = v;
  return { name: err.name, message: err.message, fields: clonable(fields) };
}

/** A deep copy that structured clone accepts: functions and other host objects become strings, cycles are cut. */
export function clonable<T>(value: T): T {
  const seen = new Map<object, unknown>();
  const walk = (v: unknown): unknown => {
    if (v === null || typeof v !== 'object') return typeof v === 'function' || typeof v === 'symbol' ? `[${typeof v}]` : v;
    if (v instanceof Uint8Array) return v;
    if (seen.has(v)) return seen.get(v);
    if (Array.isArray(v)) {
      const out: unknown[] = [];
      seen.set(v, out);
      for (let i = 0; i < v.length; i++) out[i] = walk(v[i]);
      return out;
    }
    const out: Record<string, unknown> = {};
    seen.set(v, out);
    for (const [k, x] of Object.entries(v)) out[k] = walk(x);
    return out;
  };
  return walk(value) as T;
}

export type Jobs = { simulate: typeof simulate; contractFiles: typeof contractFiles };
export type JobName = keyof Jobs;
