import nodePath from 'node:path';
import { compareVersions as compareVersion, DEFAULT_AIPACK_VERSION } from '../aip/catalog.ts';
import type { StageEnv } from '../aip/types.ts';
import type { EngineName, LuaEngine, LuaState, StateOptions } from '../engine/engine.ts';
import { defaultEngineName, getEngine } from '../engine/index.ts';
import type { RunOutcome, RunRequest, SimulatorOptions } from './simulator-options.ts';
import { createLimits, DEFAULT_MEMORY_MAX, DEFAULT_RUN_TIMEOUT_MS, spent, type RunLimits } from '../engine/limits.ts';
import { isPlainObject, LuaError, LuaRuntimeError, luaTypeName } from '../engine/values.ts';
import { hasTaskStages, parseAgentDocCached, stageChunk, type AgentOptions, type LuaScript } from './agent-doc.ts';
import { configOptions, ConfigTomlError, mergeOptions, STOCK_OPTIONS } from './option-layers.ts';
import { ScriptedAi, type AiAnswer } from './ai.ts';
import { AgentNotFoundError, findPackDir, resolveAgent, type PackLocation, type ResolvedAgent } from './resolve.ts';
import { runAfterAll } from './lifecycle/after-all.ts';
import { callAi } from './lifecycle/ai.ts';
import { runBeforeAll } from './lifecycle/before-all.ts';
import { runData } from './lifecycle/data.ts';
import { AgentRunError, RunLimitError, type Frame, type StageHost } from './lifecycle/agent-run.ts';
import { runWithRedos } from './redo.ts';
import { runOutput } from './lifecycle/output.ts';
import { REPO_PACK } from './packs.ts';
import { guardReads, hideDisk, offDiskRoots, readPolicy, ReadRefused, type ReadPolicy } from './read-guard.ts';
import { summarize, Trace } from '../aip/support/trace.ts';
import type { LifecycleStage } from '../aip/support/lifecycle-stage.ts';
import { withBaseLayer } from './base-vfs.ts';
import { runPool, taskOrder, type PoolClock } from './task-pool.ts';
import { capReads, changesRunReads, countWrites, createOverlayVfs, watchWrites } from './vfs.ts';
import { stageLabel, WriteStamps } from './stage-writes.ts';
import { checkMocksAt, luaMocksCode } from './mocks.ts';
import { buildCtx, type CtxSession } from './ctx.ts';
import { parseRunAgentOptions } from './agent-call-options.ts';
import { resolvePath } from '../aip/support/paths.ts';
import { bindStage, setStageCtx, stageTemplate } from './stage-globals.ts';
import type { Vfs } from '../support/vfs.ts';
import { relativeToCwd } from '../support/paths.ts';

const DEFAULT_BUDGET = 100_000_000;
const MAX_AGENT_DEPTH = 8;
const DEPTH_LIMIT_RE = /aip\.agent\.run nested deeper than \d+ levels: [^\n]*/;

export type { RunOutcome, RunRequest, SimulatorOptions } from './simulator-options.ts';
export { AgentRunError, RunLimitError };
export { resolveModel } from './option-layers.ts';

/** The simulated AIPack: resolves and runs agents with their Lua stages on a fresh Lua state per stage. */
export class Simulator implements StageHost {
  readonly trace: Trace;
  readonly vfs: Vfs;
  readonly workspaceDir: string;
  readonly aipackVersion: string;
  private readonly engine: LuaEngine;
  private readonly packs: PackLocation[];
  private readonly ai: ScriptedAi;
  private readonly budget: number;
  /** the limits of the run tree in progress (set by `run`, shared by every nested run) */
  private limits?: RunLimits;
  private readonly dirs: StageEnv['dirs'];
  private readonly sessionUid: string;
  private readonly session: CtxSession;
  private uidCounter = 0;
  private runCounter = 0;
  /** CTX.RUN_FLOW_REDO_COUNT of the current top-level run (the redo loop of run()) */
  private flowRedoCount = 0;
  /** the stage of the top-level run each write happened in (`--write` writes stage by stage, as AIPack) */
  readonly writeStamps = new WriteStamps();
  private configCache?: { text: string | undefined; options: AgentOptions };
  /** within a run (run()): agents found and files read by readOnce, until the run writes a file */
  private runReads?: { agents: Map<string, ResolvedAgent>; texts: Map<string, string | undefined> };
  /** since()'s answers, by version */
  private readonly sinceAnswers = new Map<string, boolean>();
  /** what every read of a run may reach: the workspace, the simulated home, the packs (real paths) */
  private readonly readPolicy: ReadPolicy;
  /** the Vfs behind that policy: agent and pack lookup, `require`/`dofile`, `aip.file.*` all read through it */
  private readonly readVfs: Vfs;
  private readonly aipackBase?: string;
  private readonly mocksLua: string;
  private readonly mocksKey: string;
  /** the virtual clock of the model latency (simulatedLatencyMs) and of the task schedule */
  private readonly clock: PoolClock = { now: 0 };
  /** the run in progress has tasks in flight beside each other (AIPack before 0.8.17 could freeze on nested runs) */
  private concurrentTasks = 0;

  constructor(private readonly opts: SimulatorOptions) {
    this.trace = new Trace(opts.traceKinds && new Set(opts.traceKinds));
    this.workspaceDir = nodePath.resolve(opts.workspaceDir);
    this.aipackBase = opts.aipackBase === undefined ? undefined : nodePath.resolve(opts.aipackBase);
    this.vfs = opts.vfs ?? createOverlayVfs(this.workspaceDir);
    this.aipackVersion = opts.aipackVersion ?? DEFAULT_AIPACK_VERSION;
    if (opts.mocks) checkMocksAt(opts.mocks, this.aipackVersion);
    this.mocksLua = opts.mocks ? luaMocksCode(opts.mocks) : '';
    // states with mocks are this simulator's own; without, any simulator of the version may reuse them
    this.mocksKey = opts.mocks ? `mocks ${nextMocksKey++}` : '';
    this.engine = typeof opts.engine === 'object' ? opts.engine : getEngine(opts.engine ?? defaultEngineName());
    // this repo's pack is always there as pro@coder, after any pack the caller puts first (listed once)
    const given = opts.packs ?? [];
    this.packs = given.some((p) => p.dir === REPO_PACK.dir) ? [...given] : [...given, REPO_PACK];
    this.ai = opts.ai ?? ScriptedAi.fromList([]);
    this.budget = opts.budget ?? DEFAULT_BUDGET;
    this.sessionUid = this.nextUid();
    // A sibling of the workspace that never exists on disk: writes under `~` fail AIPack's protection, except
    // in `~/.aipack-base`, whose writes stay in the base layer.
    const home = `${this.workspaceDir}.sim-home`;
    this.dirs = {
      workspace: this.workspaceDir,
      workspaceAipack: nodePath.join(this.workspaceDir, '.aipack'),
      baseAipack: this.aipackBase ?? nodePath.join(home, '.aipack-base'),
      home,
      tmp: nodePath.join(this.workspaceDir, '.aipack', '.session', this.sessionUid, 'tmp'),
    };
    const realRoots = [this.workspaceDir, ...(this.aipackBase ? [this.aipackBase] : []), ...this.packs.map((p) => p.dir), ...(opts.readRoots ?? [])];
    // the home is never read from the disk: a sibling folder (or symlink) a repository ships by that name is not it;
    // nor are the folders the caller's Vfs keeps off the disk (a contract case's sandbox)
    this.readPolicy = readPolicy(this.workspaceDir, realRoots, [home, ...offDiskRoots(realRoots, this.vfs.diskless ?? [])], this.vfs.keptRealPath?.bind(this.vfs));
    // base-dir writes (allowed by AIPack) live in a layer of their own, never in this.vfs's changes or commit
    // the bytes a run's saves hold (overlay and base layer) count against the tree's memory cap, with its Lua memory
    const held = countWrites(withBaseLayer(hideDisk(this.writeStamps.watch(this.vfs), home), this.dirs.baseAipack), (delta, total) =>
      this.chargeHeld(delta, total),
    );
    // a write may make, change or remove an agent or the config: what the run read is read again
    const watched = watchWrites(held, (event) => {
      if (!this.runReads || !changesRunReads(event, this.runReads.texts)) return;
      this.runReads.agents.clear();
      this.runReads.texts.clear();
    });
    // a file larger than what the run tree may still hold is refused before it is read
    this.readVfs = capReads(guardReads(watched, this.readPolicy), () => this.readAllowance());
    this.session = { workspaceDir: this.workspaceDir, sessionUid: this.sessionUid, dirs: this.dirs, aipackVersion: this.aipackVersion, since: (v) => this.since(v) };
  }

  /** Bytes a read may bring into memory now: the run tree's memory cap less its Lua memory. */
  private readAllowance(): number {
    const limits = this.limits;
    return limits ? limits.memoryMax - limits.memoryUsed : this.opts.memoryMax ?? DEFAULT_MEMORY_MAX;
  }

  /** Refuses a write that would take the files held in memory plus the Lua memory of the run tree over its cap. */
  private chargeHeld(delta: number, total: number): void {
    const limits = this.limits;
    if (delta <= 0 || !limits) return;
    if (limits.memoryExceeded || total + limits.memoryUsed > limits.memoryMax) {
      limits.memoryExceeded = true;
      const mib = (n: number) => `${Math.ceil(n / 1048576)} MiB`;
      throw new LuaError(`memory limit exceeded: the files saved by this run would hold ${mib(total)} (the run tree may hold ${mib(limits.memoryMax)}, files and Lua memory together)`);
    }
  }

  /** true when the simulated AIPack version is `version` or later */
  since(version: string): boolean {
    // asked several times a stage (CTX, options): the answer never changes for a simulator
    let answer = this.sinceAnswers.get(version);
    if (answer === undefined) {
      answer = compareVersion(this.aipackVersion, version) >= 0;
      this.sinceAnswers.set(version, answer);
    }
    return answer;
  }

  /** Deterministic UUID-shaped ids, so traces and outputs are reproducible. */
  private nextUid(): string {
    this.uidCounter += 1;
    return `00000000-0000-7000-8000-${this.uidCounter.toString(16).padStart(12, '0')}`;
  }

  /** Runs an agent as the top-level `aip run` would. Throws AgentRunError when the run fails. */
  run(request: RunRequest): RunOutcome {
    const outer = this.limits;
    const first = createLimits(this.budget, this.opts.memoryMax ?? DEFAULT_MEMORY_MAX, this.opts.timeoutMs ?? DEFAULT_RUN_TIMEOUT_MS);
    // every stage reads its agent and the workspace config: one realpath per path for the run (read-guard.ts)
    const release = this.readPolicy.hold();
    const outerReads = this.runReads;
    this.runReads ??= { agents: new Map(), texts: new Map() };
    try {
      return runWithRedos(request.name, this.trace, (redoCount) => {
        this.flowRedoCount = (this.opts.flowRedoBase ?? 0) + redoCount;
        // each redo is a new run in AIPack (new budget and memory), but the command's deadline stays the first one's
        this.limits = redoCount === 0 ? first : { ...createLimits(first.budget, first.memoryMax, first.timeoutMs), deadline: first.deadline };
        return this.runAgent(request, [], undefined);
      });
    } catch (err) {
      // callers tell a spent tree from an agent's own failure: no pcall inside the tree could catch it
      if (err instanceof AgentRunError && this.limits && spent(this.limits)) throw new RunLimitError(err);
      throw err;
    } finally {
      release();
      this.runReads = outerReads;
      this.flowRedoCount = 0;
      this.limits = outer;
    }
  }

  /** virtual milliseconds spent so far with the task schedule of `input_concurrency` and `simulatedLatencyMs` */
  get virtualMs(): number {
    return this.clock.now;
  }

  /** the engine this simulator runs Lua on */
  get engineName(): EngineName {
    return this.engine.name;
  }

  private runAgent(request: RunRequest, chain: string[], parentRunUid: string | undefined): RunOutcome {
    const depth = chain.length;
    const resolved = this.resolveAgent(request.name, request.baseDir ?? this.workspaceDir);
    const content = this.readOnce(resolved.file);
    if (content === undefined) throw new AgentNotFoundError(`cannot read ${resolved.file}`);
    const doc = parseAgentDocCached(content, resolved.file);
    this.runCounter += 1;
    const frame: Frame = {
      name: request.name,
      resolved,
      doc,
      depth,
      chain: [...chain, request.name],
      runUid: this.nextUid(),
      runNum: this.runCounter,
      parentRunUid,
      flowRedoCount: depth === 0 ? this.flowRedoCount : 0,
    };
    const t0 = this.trace.now();
    this.trace.record({ kind: 'agent_start', depth, agent: request.name, file: resolved.file, inputs: request.inputs?.length ?? 0 });
    try {
      const outcome = this.lifecycle(frame, request);
      const status = outcome.skipped !== undefined ? 'skipped' : outcome.redoRequested ? 'redo' : 'completed';
      this.trace.record({ kind: 'agent_end', depth, agent: request.name, ms: this.trace.now() - t0, status, reason: outcome.skipped });
      return outcome;
    } catch (err) {
      this.trace.record({ kind: 'agent_end', depth, agent: request.name, ms: this.trace.now() - t0, status: 'failed', reason: (err as Error).message });
      throw err;
    }
  }

  /**
   * Agents run only from the workspace, the simulated home and the packs: lookups elsewhere are not even tried, so
   * a sub-agent can neither run nor probe the host's `.aip` files.
   */
  private resolveAgent(name: string, baseDir: string): ResolvedAgent {
    const key = `${name}\0${baseDir}`;
    const known = this.runReads?.agents.get(key);
    if (known) return known;
    try {
      const resolved = resolveAgent(this.readVfs, this.packs, name, baseDir, this.aipackBase);
      this.runReads?.agents.set(key, resolved);
      return resolved;
    } catch (err) {
      if (err instanceof AgentNotFoundError && !name.includes('@')) {
        const abs = nodePath.resolve(baseDir, name);
        if (!this.readPolicy.allows(abs)) {
          throw new AgentNotFoundError(
            `The agent path '${name}' (${abs}) is outside the workspace '${this.workspaceDir}' and the packs (symlinks resolved): ` +
              'a simulated run only runs agents from them',
          );
        }
      }
      throw err;
    }
  }

  private agentOptions(frame: Frame, runOptions: AgentOptions | undefined): AgentOptions {
    return mergeOptions(STOCK_OPTIONS, this.workspaceOptions(frame.name), frame.doc.options, runOptions ?? {});
  }

  /**
   * A file the simulator itself reads at every agent run (the agent, the workspace config), read once a run: the
   * disk does not change under a run, and the run's own writes (which could rewrite an agent) forget all.
   */
  private readOnce(abs: string): string | undefined {
    const texts = this.runReads?.texts;
    if (!texts) return this.readVfs.readFile(abs);
    if (texts.has(abs)) return texts.get(abs);
    const text = this.readVfs.readFile(abs);
    texts.set(abs, text);
    return text;
  }

  /** `[options]` of `<workspace>/.aipack/config.toml`, parsed again only when its text changed (every run reads it). */
  private workspaceOptions(agent: string): AgentOptions {
    const configFile = nodePath.join(this.workspaceDir, '.aipack', 'config.toml');
    const text = this.readOnce(configFile);
    if (this.configCache && this.configCache.text === text) return this.configCache.options;
    let options: AgentOptions;
    try {
      options = configOptions(text, configFile);
    } catch (err) {
      if (err instanceof ConfigTomlError) throw new AgentRunError(err.message, agent);
      throw err;
    }
    this.configCache = { text, options };
    return options;
  }

  // docs/aipack.md section 2: Before All -> tasks (Data -> prompt -> AI -> Output) -> After All.
  private lifecycle(frame: Frame, request: RunRequest): RunOutcome {
    const requested = request.inputs && request.inputs.length > 0 ? request.inputs.map(withDisplay) : undefined;
    const before = runBeforeAll(this, frame, requested, this.agentOptions(frame, request.options));
    if (before.kind === 'skip') return { outputs: undefined, afterAll: undefined, redoRequested: false, skipped: before.reason };
    if (before.kind === 'redo') return { outputs: undefined, afterAll: undefined, redoRequested: true };
    const { beforeAll, options } = before;
    let inputs = before.inputs?.map(withDisplay);

    let outputs: unknown[] | undefined;
    if ((inputs && inputs.length > 0) || hasTaskStages(frame.doc)) {
      // AIPack replaces nil or empty inputs by [null] before the tasks, so After All sees that list too
      if (!inputs || inputs.length === 0) inputs = [null];
      outputs = this.runTasks(frame, inputs, beforeAll, options);
    }

    const after = runAfterAll(this, frame, { inputs, outputs, beforeAll, options });
    return { outputs, afterAll: after.afterAll, redoRequested: after.redoRequested };
  }

  /** The tasks of a run, scheduled as AIPack does with the run's `input_concurrency` (task-pool.ts). */
  private runTasks(frame: Frame, inputs: unknown[], beforeAll: unknown, options: AgentOptions): unknown[] {
    const width = Math.min(Math.max(1, options.input_concurrency ?? 1), inputs.length);
    if (width > 1) this.concurrentTasks += 1;
    try {
      const order = taskOrder(this.opts.taskOrder?.(frame.name, inputs.length), inputs.length);
      const pool = runPool(inputs.length, width, this.clock, (k) => this.runTask(frame, inputs[order[k]], order[k] + 1, beforeAll, options));
      const slots = pool.slots.map((s, k) => ({ ...s, num: order[k] + 1 }));
      this.trace.record({ kind: 'tasks', depth: frame.depth, agent: frame.name, concurrency: width, slots });
      const outputs: unknown[] = new Array<unknown>(inputs.length);
      pool.outputs.forEach((out, k) => (outputs[order[k]] = out));
      return outputs;
    } finally {
      if (width > 1) this.concurrentTasks -= 1;
    }
  }

  /** One task; returns its output (null for a skip or a nil output). */
  private runTask(frame: Frame, input: unknown, num: number, beforeAll: unknown, runOptions: AgentOptions): unknown {
    try {
      const data = runData(this, frame, num, input, beforeAll, runOptions);
      if (data.kind === 'skip') return null;
      const answer = this.callAi(frame, num, { data: data.data, input: data.input, before_all: beforeAll }, data.attachments, data.options);
      return runOutput(this, frame, num, { input: data.input, data: data.data, beforeAll, options: data.options }, answer);
    } catch (err) {
      // the option exists since 0.8.17, which dropped the failed task's output; {error} outputs since 0.8.18
      if (runOptions.allow_run_on_task_fail && err instanceof AgentRunError && this.since('0.8.17')) {
        return this.since('0.8.18') ? { error: err.message } : null;
      }
      throw err;
    }
  }

  callAi(frame: Frame, taskNum: number, root: { data: unknown; input: unknown; before_all: unknown }, attachments: unknown[], options: AgentOptions): AiAnswer | undefined {
    // attachments resolve as any AIPack path: workspace-relative, home, absolute or a pack's
    const env = { dirs: this.dirs, findPackDir: (ns: string, name: string) => findPackDir(this.readVfs, this.packs, ns, name, this.aipackBase) };
    const resolve = (p: string) => resolvePath(env, p);
    const answer = callAi({ ai: this.ai, trace: this.trace, vfs: this.readVfs, resolve }, frame, taskNum, root, attachments, options);
    if (answer) this.clock.now += this.opts.simulatedLatencyMs ?? 0;
    return answer;
  }

  /** Runs one Lua stage on a fresh state (AIPack makes a new state per stage and per task). */
  runStage(frame: Frame, stage: LifecycleStage, script: LuaScript, scope: Record<string, unknown>, taskNum?: number): unknown {
    const env = this.stageEnv(frame, stage, taskNum);
    this.opts.onStage?.(`${frame.name} ${stage}${taskNum !== undefined ? ` (task ${taskNum})` : ''}`);
    if (frame.depth === 0) this.writeStamps.begin(stageLabel(stage, taskNum, frame.flowRedoCount ?? 0));
    const packDir = frame.resolved.pack?.dir;
    const options: StateOptions = {
      template: stageTemplate(env, this.opts.mocks, this.mocksLua, this.mocksKey),
      budget: this.budget,
      limits: this.limits,
      budgetMessage: `instruction budget exceeded in ${frame.name} ${stage}`,
      memoryMessage: `memory limit exceeded in ${frame.name} ${stage}`,
      timeoutMessage: `timed out after ${(this.limits?.timeoutMs ?? 0) / 1000} s in ${frame.name} ${stage} (the run was stopped; raise the timeout if it needs longer)`,
      // <PACK_DIR>/lua is searched since 0.8.18 (docs/aipack.md section 6)
      moduleDirs: [nodePath.join(env.agent.dir, 'lua'), ...(packDir && packDir !== env.agent.dir && this.since('0.8.18') ? [nodePath.join(packDir, 'lua')] : [])],
      // a refused read is a missing file to `require`/`dofile`, whose path checks already name the reason;
      // bytes, as Lua reads source files
      readFile: (abs) => {
        try {
          return this.readVfs.readBytes(abs);
        } catch (err) {
          if (err instanceof ReadRefused) return undefined;
          throw err;
        }
      },
      loadRoots: [this.workspaceDir, ...(packDir ? [packDir] : [])],
      baseDir: this.workspaceDir,
      print: env.print,
      displayPath: (abs) => this.displayPath(abs),
    };
    const t0 = this.trace.now();
    let error: string | undefined;
    let state: LuaState | undefined;
    try {
      // the template's set-up (the `aip` table, the prelude, the mocks) may fail: a failure of the stage too
      state = this.engine.createState(options);
      bindStage(state, env);
      setStageCtx(state, buildCtx(this.session, frame, stage, taskNum));
      const ret = state.runChunk(stageChunk(script), frame.doc.path, 1, scope, 'serde');
      // a returned error value (pcall's second result) fails the stage with its message, as in AIPack (prelude.lua)
      if (isPlainObject(ret) && typeof ret.__aip_error === 'string' && Object.keys(ret).length === 1) throw new LuaRuntimeError(ret.__aip_error, '');
      return ret;
    } catch (err) {
      if (err instanceof LuaRuntimeError) {
        error = err.message;
        throw new AgentRunError(`Lua error:\n${err.message}`, frame.name, stage, err.traceback);
      }
      error = (err as Error).message;
      throw err;
    } finally {
      this.trace.record({ kind: 'stage', depth: frame.depth, agent: frame.name, stage, task: taskNum, ms: this.trace.now() - t0, instructions: state?.instructionsUsed() ?? 0, error });
      if (state) {
        bindStage(state, undefined);
        state.close();
      }
    }
  }

  private displayPath(abs: string): string {
    return relativeToCwd(abs);
  }

  private stageEnv(frame: Frame, stage: LifecycleStage, taskNum: number | undefined): StageEnv {
    const file = frame.resolved.file;
    return {
      vfs: this.readVfs,
      dirs: this.dirs,
      findPackDir: (ns, name) => findPackDir(this.readVfs, this.packs, ns, name, this.aipackBase),
      scripted: { commands: this.ai.commands, web: this.ai.web },
      stage,
      taskNum,
      agent: { name: frame.name, filePath: file, dir: nodePath.dirname(file), packDir: frame.resolved.pack?.dir },
      aipackVersion: this.aipackVersion,
      depth: frame.depth,
      trace: this.trace,
      runAgent: (name, options) => this.subAgentCall(frame, name, options),
      print: (text) => {
        this.trace.record({ kind: 'print', depth: frame.depth, agent: frame.name, text });
        this.opts.onPrint?.(text, frame.name);
      },
    };
  }

  /** `aip.agent.run(name, options)` from Lua (docs/aipack.md section 4); errors are raised as Lua errors. */
  private subAgentCall(frame: Frame, name: unknown, rawOptions: unknown): unknown {
    if (typeof name !== 'string') throw new LuaError(`aip.agent.run: agent name must be a string, got ${luaTypeName(name)}`);
    const callerDir = frame.resolved.file ? nodePath.dirname(frame.resolved.file) : this.workspaceDir;
    const { inputs, options, baseDir } = parseRunAgentOptions(name, rawOptions, { callerDir, workspaceDir: this.workspaceDir, since: (v) => this.since(v) });
    if (frame.depth + 1 > MAX_AGENT_DEPTH) {
      throw new LuaError(`aip.agent.run nested deeper than ${MAX_AGENT_DEPTH} levels: ${[...frame.chain, name].join(' -> ')}`);
    }
    if (this.concurrentTasks > 0 && !this.since('0.8.17')) {
      // fixed in AIPack 0.8.17 ("nested task/run freeze on core limit"); the simulator cannot freeze, so it says so
      this.trace.record({ kind: 'note', depth: frame.depth, agent: frame.name, topic: 'warning', data: `aip.agent.run('${name}') inside a task of a run with input_concurrency > 1 can freeze AIPack before 0.8.17 (current: ${this.aipackVersion})` });
    }
    const t0 = this.trace.now();
    const policy = this.opts.traceValues ?? 'top';
    const full = policy === 'full' || (policy === 'top' && frame.depth === 0);
    const keep = <T>(v: T): T => (full ? v : (summarize(v) as T));
    const record = (outcome?: RunOutcome, error?: string) => {
      // no summaries of values are made for an event that is not kept
      if (!this.trace.keeps('agent_call')) return;
      this.trace.record({
        kind: 'agent_call',
        depth: frame.depth,
        caller: frame.name,
        agent: name,
        ms: this.trace.now() - t0,
        inputs: keep(inputs),
        outputs: keep(outcome?.outputs),
        afterAll: keep(outcome?.afterAll),
        error,
      });
    };
    let outcome: RunOutcome;
    try {
      outcome = this.runAgent({ name, inputs: inputs.length > 0 ? inputs : undefined, options, baseDir }, frame.chain, frame.runUid);
    } catch (err) {
      // the depth limit is reported once, as raised, not wrapped again by every level it went up through
      const depthLimit = DEPTH_LIMIT_RE.exec((err as Error).message)?.[0];
      const message =
        err instanceof AgentNotFoundError
          ? `Failed to find agent '${name}': ${err.message}`
          : (depthLimit ?? `Failed to run agent '${name}': ${(err as Error).message}`);
      record(undefined, message);
      throw new LuaError(message);
    }
    record(outcome);
    // top-level nulls become nil holes for the caller (docs/aipack.md section 4); redo_requested exists since 0.8.17
    return {
      outputs: outcome.outputs?.map((v) => (v === null ? undefined : v)),
      after_all: outcome.afterAll === null ? undefined : outcome.afterAll,
      redo_requested: this.since('0.8.17') ? outcome.redoRequested : undefined,
    };
  }
}

/** numbers the simulators that have mocks (their states are not shared, see mocksKey) */
let nextMocksKey = 1;

function withDisplay(input: unknown): unknown {
  if (isPlainObject(input) && (input._type === 'FileInfo' || input._type === 'FileRecord') && input._display === undefined) {
    return { ...input, _display: input.path };
  }
  return input;
}
