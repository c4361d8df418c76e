import { exists, readText } from '../support/host-fs.ts';
import { checkMocksAt, MockError, parseMocksToml, type Mocks } from '../runtime/mocks.ts';
import nodePath from 'node:path';
import type { Command } from 'commander';
import { DEFAULT_AIPACK_VERSION, isValidVersion, resolveVersionAlias } from '../aip/catalog.ts';
import { ScriptedAi, ScriptedAiError } from '../runtime/ai.ts';
import { REPO_PACK } from '../runtime/packs.ts';
import { DeadlineError, IsolateCrashError, runIsolated, siblingModule, type IsolateOptions, type SerializedError } from '../isolate/isolate.ts';
import type { SimSpec, SimulateJobs, SimulateResult } from './simulate-job.ts';
import { CommitError, writeChanges } from '../runtime/commit.ts';
import { AgentRunError } from '../runtime/lifecycle/agent-run.ts';
import type { RunOutcome, RunRequest } from '../runtime/simulator.ts';
import { Trace } from '../aip/support/trace.ts';
import type { LifecycleStage } from '../aip/support/lifecycle-stage.ts';
import type { FileChanges } from '../support/vfs.ts';
import { lockWorkspace, WorkspaceLockedError } from '../runtime/workspace-lock.ts';
import { findWorkspace } from '../runtime/workspace.ts';
import { addEngineOption, engineOf } from './engine-flag.ts';
import { positiveIntFlag, requireDir, timeoutOf, UsageError } from './errors.ts';

/** Options shared by the commands that run agents on the simulated runtime. */
export interface SimCliOptions {
  workspace?: string;
  ai?: string;
  aipackVersion: string;
  write?: boolean;
  json?: boolean;
  trace?: boolean;
  budget?: string;
  mocks?: string;
  aipackBase?: string;
  timeout?: string;
  engine?: string;
  report?: string;
}

export function addSimOptions(cmd: Command): Command {
  return addEngineOption(cmd)
    .option('--workspace <dir>', 'workspace directory (the one holding .aipack/)', undefined)
    .option('--ai <file>', 'TOML file of scripted AI responses')
    .option('--aipack-version <version>', `simulated AIPack version (CTX.AIPACK_VERSION); "oldest" and "newest" name the oldest supported and the newest known`, resolveVersionAlias, DEFAULT_AIPACK_VERSION)
    .option('--write', 'write the files the run created, changed or deleted to the workspace (default: report only)')
    .option('--json', 'print one JSON object')
    .option('--trace', 'print the trace of the run (stages, agent calls, AI calls, pins, files)')
    .option('--budget <instructions>', 'instruction budget of a run (the agent and every agent it runs)')
    .option('--mocks <file>', 'TOML file of aip.* stubs: "aip.ns.fn" = value, or = { lua = "<function body>" }')
    .option('--aipack-base <dir>', 'an AIPack base dir (like ~/.aipack-base): its packs, CTX.BASE_AIPACK_DIR; saves there stay in memory, the dir is only read (default: none)')
    .option('--timeout <seconds>', 'wall-clock deadline of the run: stopped and failed after it (0 = none)', '60')
    .option('--report <file.html>', 'also write the run as one self-contained HTML page: timeline, each call and its diffs, model calls with sizes and tokens, files');
}

/** The simulator the options describe, as plain data for the run's worker (simulate-job.ts). Throws UsageError. */
function makeSimSpec(o: SimCliOptions): SimSpec {
  const workspaceDir = o.workspace ? nodePath.resolve(o.workspace) : findWorkspace(process.cwd());
  if (o.workspace) requireDir('--workspace', o.workspace, workspaceDir);
  if (!isValidVersion(o.aipackVersion)) throw new UsageError(`--aipack-version ${o.aipackVersion}: expected MAJOR.MINOR.PATCH, e.g. 0.8.15`);
  let ai: SimSpec['ai'];
  if (o.ai) {
    if (!exists(o.ai)) throw new UsageError(`--ai ${o.ai}: file not found`);
    ai = { text: readText(o.ai), file: o.ai };
    try {
      ScriptedAi.fromToml(ai.text, ai.file); // checked here, so a bad file is a usage error before any run
    } catch (err) {
      if (err instanceof ScriptedAiError) throw new UsageError(err.message);
      throw err;
    }
  }
  let budget: number | undefined;
  if (o.budget !== undefined) {
    budget = positiveIntFlag('--budget', o.budget);
  }
  let mocks: Mocks | undefined;
  if (o.mocks !== undefined) {
    if (!exists(o.mocks)) throw new UsageError(`--mocks ${o.mocks}: file not found`);
    try {
      mocks = parseMocksToml(readText(o.mocks), o.mocks);
      checkMocksAt(mocks, o.aipackVersion);
    } catch (err) {
      if (err instanceof MockError) throw new UsageError(`--mocks ${err.message}`);
      throw err;
    }
  }
  let aipackBase: string | undefined;
  if (o.aipackBase !== undefined) {
    aipackBase = nodePath.resolve(o.aipackBase);
    requireDir('--aipack-base', o.aipackBase, aipackBase);
  }
  return { workspaceDir, ai, aipackVersion: o.aipackVersion, packs: [REPO_PACK], budget, mocks, aipackBase, engine: engineOf(o.engine), traceValues: o.trace ? 'full' : 'top' };
}

/** A finished simulated run as the CLI reports it. */
export interface CliRun {
  workspaceDir: string;
  outcome?: RunOutcome;
  error?: Error;
  trace: Trace;
  files: FileChanges;
  /** the files the run would write; written by writeRun */
  batches: SimulateResult['batches'];
}

const SIMULATE_JOB = siblingModule(import.meta.url, './simulate-job');

/** Runs the simulate job (simulate-job.ts) in an isolated worker; only its types are loaded on this thread. */
export function simulateInWorker(arg: Parameters<SimulateJobs['simulate']>[0], options?: IsolateOptions): Promise<SimulateResult> {
  return runIsolated<SimulateJobs, 'simulate'>(SIMULATE_JOB, 'simulate', arg, options);
}

/**
 * Runs an agent in a worker under the `--timeout` deadline; a timeout or crash is the run's error. `traceKinds`:
 * the trace events the command reports (all by default; a long chain's every step costs a copy between threads).
 */
export async function simulateCli(o: SimCliOptions, request: RunRequest, traceKinds?: SimSpec['traceKinds']): Promise<CliRun> {
  const spec = { ...makeSimSpec(o), traceKinds };
  const timeoutMs = timeoutOf(o);
  const none = { created: [], changed: [], deleted: [] };
  try {
    const r = await simulateInWorker({ sim: spec, request }, { timeoutMs });
    const trace = new Trace();
    trace.events.push(...r.events);
    return { workspaceDir: spec.workspaceDir, outcome: r.outcome, error: r.error && rebuildError(r.error), trace, files: r.files, batches: r.batches };
  } catch (err) {
    if (err instanceof DeadlineError || err instanceof IsolateCrashError) {
      return { workspaceDir: spec.workspaceDir, error: err, trace: new Trace(), files: none, batches: [] };
    }
    throw err;
  }
}

/** The error of a run, with its class back when the CLI needs it (AgentRunError: agent, stage, traceback). */
function rebuildError(e: SerializedError): Error {
  if (e.name === 'AgentRunError') {
    const f = e.fields as { agent: string; stage?: LifecycleStage; traceback?: string };
    return new AgentRunError(e.message, f.agent, f.stage, f.traceback);
  }
  const err = new Error(e.message);
  err.name = e.name;
  return err;
}

/** What `--write` did: the files written, those not written (workspace-relative), and why not. */
export interface WriteOutcome {
  written: string[];
  notWritten: string[];
  /** the batch that could not be written: its stage and the error (later stages were not written either) */
  failed?: { stage: string; error: Error };
}

/**
 * `--write`: the run's changes in AIPack's order of effects, one batch per stage of the run (a failed run's
 * stages up to the failure included), each batch all checked and then written atomically (runtime/commit.ts).
 * When a batch cannot be written, nothing of it is, nor of the stages after it.
 */
export function writeRun(run: CliRun): WriteOutcome {
  const rel = (abs: string) => nodePath.relative(run.workspaceDir, abs).split(nodePath.sep).join('/');
  const out: WriteOutcome = { written: [], notWritten: [] };
  for (const batch of run.batches) {
    const paths = batch.changes.map(([abs]) => rel(abs));
    if (out.failed) {
      out.notWritten.push(...paths);
      continue;
    }
    try {
      writeChanges(run.workspaceDir, batch.changes, batch.dirs, [nodePath.join(run.workspaceDir, '.aipack', 'pack')]);
      out.written.push(...paths);
    } catch (err) {
      const error = err instanceof CommitError ? err : new Error(`cannot write the changes: ${(err as Error).message}`);
      out.failed = { stage: batch.stage, error };
      out.notWritten.push(...paths);
    }
  }
  out.written.sort();
  out.notWritten.sort();
  return out;
}

/** Holds the workspace's write lock while `fn` runs, when `write` is set. */
export async function withWriteLock<T>(write: boolean | undefined, workspaceDir: string, fn: () => Promise<T>): Promise<T> {
  if (!write) return fn();
  let release: () => void;
  try {
    release = lockWorkspace(workspaceDir);
  } catch (err) {
    if (err instanceof WorkspaceLockedError) throw new UsageError(err.message);
    throw err;
  }
  try {
    return await fn();
  } finally {
    release();
  }
}

/** The workspace `o` names, for the lock (the same rule as makeSimSpec). */
export function workspaceOf(o: SimCliOptions): string {
  const dir = o.workspace ? nodePath.resolve(o.workspace) : findWorkspace(process.cwd());
  if (o.workspace) requireDir('--workspace', o.workspace, dir);
  return dir;
}
