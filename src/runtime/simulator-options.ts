/** What a Simulator is given (its options), and what one run asks for and returns. Types only. */
import type { EngineName, LuaEngine } from '../engine/engine.ts';
import type { TraceEvent } from '../aip/support/trace.ts';
import type { ScriptedAi } from './ai.ts';
import type { AgentOptions } from './agent-doc.ts';
import type { Mocks } from './mocks.ts';
import type { PackLocation } from './resolve.ts';
import type { Vfs } from '../support/vfs.ts';

export interface SimulatorOptions {
  workspaceDir: string;
  /** defaults to an overlay over `workspaceDir` (the disk is never written unless `vfs.commit()` is called) */
  vfs?: Vfs;
  /** packs besides `<workspace>/.aipack/pack/custom` (searched after it); this repo's `pack/` comes last */
  packs?: PackLocation[];
  ai?: ScriptedAi;
  aipackVersion?: string;
  /** the Lua engine: 'fengari' (default, Lua 5.3) or 'lua54' (Lua 5.4 on wasmoon: `await loadEngine('lua54')` first) */
  engine?: EngineName | LuaEngine;
  /** instruction budget of a run tree (a top-level run and every aip.agent.run it makes) */
  budget?: number;
  /** bytes of Lua memory a run tree may hold */
  memoryMax?: number;
  /**
   * wall-clock milliseconds a run tree may take, checked as its Lua runs (default 60 s, as the CLI's `--timeout`;
   * 0: none, e.g. where a worker's own deadline applies)
   */
  timeoutMs?: number;
  /**
   * what the trace keeps of `aip.agent.run` inputs and results: 'top' (default) the calls made by the top-level
   * agent in full (what the effect analysis reads) and summaries deeper; 'full' everything; 'summary' none in full
   */
  traceValues?: 'top' | 'full' | 'summary';
  /** the kinds of trace event kept (all by default): a command that prints only some need not keep a run's every step */
  traceKinds?: readonly TraceEvent['kind'][];
  /** told where the run is at each Lua stage ("<agent> <stage> (task n)"), e.g. for a deadline's message */
  onStage?: (where: string) => void;
  /** more dirs a run may read and run agents from, besides the workspace and the packs (e.g. a case sandbox) */
  readRoots?: string[];
  /** Lua `print` output; by default it is only traced */
  onPrint?: (text: string, agent: string) => void;
  /** user stubs for aip.* functions (mocks.ts); names must exist at the simulated version */
  mocks?: Mocks;
  /**
   * an AIPack base dir (like `~/.aipack-base`): CTX.BASE_AIPACK_DIR, `~/.aipack-base/...` paths, and the packs
   * under its pack/custom and pack/installed. Writes there are allowed as in AIPack but stay in the run's memory
   * (base-vfs.ts): the dir on disk is only read. Default: none (a virtual, empty one), so runs stay deterministic.
   */
  aipackBase?: string;
  /**
   * a fixed latency (ms) every scripted model call is taken to wait, on a virtual clock (nothing sleeps): with it,
   * `virtualMs` says how long a run would take in AIPack with its `input_concurrency`. For benches; default 0.
   */
  simulatedLatencyMs?: number;
  /**
   * the order in which a run's tasks run (0-based input indexes), e.g. to try a parallel group's members in every
   * order; undefined keeps input order. Outputs stay in input order whatever the order.
   */
  taskOrder?: (agent: string, count: number) => number[] | undefined;
  /** CTX.RUN_FLOW_REDO_COUNT of the first top-level run (as if that many redos came before it; default 0) */
  flowRedoBase?: number;
}

export interface RunRequest {
  /** agent name as `aip run` or `aip.agent.run` would get it */
  name: string;
  inputs?: unknown[];
  /** run options (like `aip.agent.run`'s `options`) */
  options?: AgentOptions;
  /** resolves a relative local agent name (the CLI passes its cwd) */
  baseDir?: string;
}

/** What a run returns, as a parent agent would receive it (docs/aipack.md section 4), plus the skip reason. */
export interface RunOutcome {
  /** one entry per input, in input order; null for skipped inputs and nil outputs; undefined when no task ran */
  outputs: unknown[] | undefined;
  afterAll: unknown;
  redoRequested: boolean;
  /** top-level runs: how many redo runs came after the first (aip.flow.redo_run), the outcome being the last one's */
  redos?: number;
  /** the Before All skip reason ("" when none was given), or undefined when the run was not skipped */
  skipped?: string;
}
