import nodePath from 'node:path';
import { parse as parseToml } from 'smol-toml';
import { aipackGlobalsAt, compareVersions as compareVersion } from '../aip/catalog.ts';
import { buildAipTable, nullGlobalsAt, PRELUDE, PRELUDE_HELPERS, preludeFeatures } from '../aip/index.ts';
import type { StageEnv } from '../aip/types.ts';
import type { LuaEngine } from '../lua/engine.ts';
import { fengariEngine } from '../lua/fengari-engine.ts';
import { isPlainObject, LuaError, LuaRuntimeError, luaTypeName } from '../lua/values.ts';
import { hasTaskStages, mapScriptLine, parseAgentDoc, parseAgentOptions, type AgentDoc, type AgentOptions, type LuaScript } from './agent-doc.ts';
import { ScriptedAi } from './ai.ts';
import { renderPromptParts } from './handlebars.ts';
import { AgentNotFoundError, findPackDir, resolveAgent, type PackLocation, type ResolvedAgent } from './resolve.ts';
import { REPO_PACK } from './packs.ts';
import { guardReads } from './read-guard.ts';
import { Trace, type StageName } from './trace.ts';
import { createOverlayVfs } from './vfs.ts';
import type { Vfs } from './vfs-types.ts';

export const DEFAULT_AIPACK_VERSION = '0.8.15';
export const DEFAULT_BUDGET = 100_000_000;
export const MAX_AGENT_DEPTH = 8;
/** AIPack's stock config-default.toml sets a model and input_concurrency = 2; the simulator's model is scripted. */
const STOCK_OPTIONS: AgentOptions = { model: 'sim-model', input_concurrency: 2 };

export interface SimulatorOptions {
  workspaceDir: string;
  /** defaults to an overlay over `workspaceDir` (the disk is never written unless `vfs.commit()` is called) */
  vfs?: Vfs;
  /** packs besides `<workspace>/.aipack/pack/custom` (searched after it); this repo's `pack/` comes last */
  packs?: PackLocation[];
  ai?: ScriptedAi;
  aipackVersion?: string;
  engine?: LuaEngine;
  /** instruction budget of each Lua stage */
  budget?: number;
  /** Lua `print` output; by default it is only traced */
  onPrint?: (text: string, agent: string) => void;
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

/** What a run returns, as a parent agent would receive it (RUNTIME.md section 4), plus the skip reason. */
export interface RunOutcome {
  /** one entry per input, in input order; null for skipped inputs and nil outputs; undefined when no task ran */
  outputs: unknown[] | undefined;
  afterAll: unknown;
  redoRequested: boolean;
  /** the Before All skip reason ("" when none was given), or undefined when the run was not skipped */
  skipped?: string;
}

/** A run that failed: the message is what AIPack would report. */
export class AgentRunError extends Error {
  constructor(
    message: string,
    readonly agent: string,
    readonly stage?: StageName,
    readonly traceback?: string,
  ) {
    super(message);
    this.name = 'AgentRunError';
  }
}

interface Frame {
  name: string;
  resolved: ResolvedAgent;
  doc: AgentDoc;
  depth: number;
  chain: string[];
  runUid: string;
  runNum: number;
  parentRunUid?: string;
}

type Directive = { kind: string; data: unknown };

/** The simulated AIPack: resolves and runs agents with their Lua stages on a fresh Lua state per stage. */
export class Simulator {
  readonly trace = new Trace();
  readonly vfs: Vfs;
  readonly workspaceDir: string;
  readonly aipackVersion: string;
  private readonly engine: LuaEngine;
  private readonly packs: PackLocation[];
  private readonly ai: ScriptedAi;
  private readonly budget: number;
  private readonly dirs: StageEnv['dirs'];
  private readonly sessionUid: string;
  private uidCounter = 0;
  private runCounter = 0;
  private configCache?: { text: string | undefined; options: AgentOptions };

  constructor(private readonly opts: SimulatorOptions) {
    this.workspaceDir = nodePath.resolve(opts.workspaceDir);
    this.vfs = opts.vfs ?? createOverlayVfs(this.workspaceDir);
    this.aipackVersion = opts.aipackVersion ?? DEFAULT_AIPACK_VERSION;
    this.engine = opts.engine ?? fengariEngine;
    // this repo's pack is always there as pro@coder, after any pack the caller puts first
    this.packs = [...(opts.packs ?? []), REPO_PACK];
    this.ai = opts.ai ?? ScriptedAi.fromList([]);
    this.budget = opts.budget ?? DEFAULT_BUDGET;
    this.sessionUid = this.nextUid();
    // A sibling of the workspace that never exists on disk: writes under `~` fail AIPack's protection, except
    // in `~/.aipack-base`, which the overlay never commits.
    const home = `${this.workspaceDir}.sim-home`;
    this.dirs = {
      workspace: this.workspaceDir,
      workspaceAipack: nodePath.join(this.workspaceDir, '.aipack'),
      baseAipack: nodePath.join(home, '.aipack-base'),
      home,
      tmp: nodePath.join(this.workspaceDir, '.aipack', '.session', this.sessionUid, 'tmp'),
    };
  }

  /** true when the simulated AIPack version is `version` or later */
  private since(version: string): boolean {
    return compareVersion(this.aipackVersion, version) >= 0;
  }

  /** Deterministic UUID-shaped ids, so traces and outputs are reproducible. */
  private nextUid(): string {
    this.uidCounter += 1;
    return `00000000-0000-7000-8000-${this.uidCounter.toString(16).padStart(12, '0')}`;
  }

  /** Runs an agent as the top-level `aip run` would. Throws AgentRunError when the run fails. */
  run(request: RunRequest): RunOutcome {
    return this.runAgent(request, [], undefined);
  }

  private runAgent(request: RunRequest, chain: string[], parentRunUid: string | undefined): RunOutcome {
    const depth = chain.length;
    const resolved = resolveAgent(this.vfs, this.packs, request.name, request.baseDir ?? this.workspaceDir);
    const content = this.vfs.readFile(resolved.file);
    if (content === undefined) throw new AgentNotFoundError(`cannot read ${resolved.file}`);
    const doc = parseAgentDoc(content, resolved.file);
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

  private agentOptions(frame: Frame, runOptions: AgentOptions | undefined): AgentOptions {
    return mergeOptions(STOCK_OPTIONS, this.workspaceOptions(frame.name), frame.doc.options, runOptions ?? {});
  }

  /** `[options]` of `<workspace>/.aipack/config.toml`, parsed again only when its text changed (every run reads it). */
  private workspaceOptions(agent: string): AgentOptions {
    const configFile = nodePath.join(this.workspaceDir, '.aipack', 'config.toml');
    const text = this.vfs.readFile(configFile);
    if (this.configCache && this.configCache.text === text) return this.configCache.options;
    let options: AgentOptions = {};
    if (text !== undefined) {
      let parsed: Record<string, unknown>;
      try {
        parsed = parseToml(text) as Record<string, unknown>;
      } catch (err) {
        throw new AgentRunError(`${configFile}: invalid TOML: ${(err as Error).message}`, agent);
      }
      const table = parsed.options ?? parsed.default_options;
      if (table !== undefined) options = parseAgentOptions(table, `${configFile} [options]`);
    }
    this.configCache = { text, options };
    return options;
  }

  // RUNTIME.md section 2: Before All -> tasks (Data -> prompt -> AI -> Output) -> After All.
  private lifecycle(frame: Frame, request: RunRequest): RunOutcome {
    const { doc } = frame;
    let options = this.agentOptions(frame, request.options);
    let inputs: unknown[] | undefined = request.inputs && request.inputs.length > 0 ? request.inputs.map(withDisplay) : undefined;
    let beforeAll: unknown = null;

    if (doc.beforeAll) {
      const ret = this.runStage(frame, 'BeforeAll', doc.beforeAll, { inputs, options: optionsTable(options) });
      const d = directiveOf(ret, 'BeforeAll', frame);
      if (d?.kind === 'Skip') return { outputs: undefined, afterAll: undefined, redoRequested: false, skipped: skipReason(d) };
      if (d?.kind === 'Redo') return { outputs: undefined, afterAll: undefined, redoRequested: true };
      if (d?.kind === 'DataResponse') throw this.fail(frame, "Aipack custom 'DataResponse' not supported at the Before All stage", 'BeforeAll');
      if (d?.kind === 'BeforeAllResponse') {
        const r = parseBeforeAllResponse(d.data, frame, this);
        if (r.inputs !== undefined) inputs = r.inputs.map(withDisplay);
        beforeAll = r.beforeAll;
        if (r.options) options = mergeOptions(options, r.options);
      } else {
        beforeAll = ret ?? null;
      }
    }

    let outputs: unknown[] | undefined;
    if ((inputs && inputs.length > 0) || hasTaskStages(doc)) {
      // AIPack replaces nil or empty inputs by [null] before the tasks, so After All sees that list too
      if (!inputs || inputs.length === 0) inputs = [null];
      outputs = inputs.map((input, i) => this.runTask(frame, input, i + 1, beforeAll, options));
    }

    let afterAll: unknown;
    let redoRequested = false;
    if (doc.afterAll) {
      afterAll = this.runStage(frame, 'AfterAll', doc.afterAll, {
        inputs,
        outputs,
        before_all: beforeAll,
        options: optionsTable(options),
      });
      const d = directiveOf(afterAll, 'AfterAll', frame);
      if (d?.kind === 'Redo') redoRequested = true;
    }
    return { outputs, afterAll: afterAll ?? undefined, redoRequested };
  }

  /** One task; returns its output (null for a skip or a nil output). */
  private runTask(frame: Frame, input: unknown, num: number, beforeAll: unknown, runOptions: AgentOptions): unknown {
    try {
      return this.runTaskStages(frame, input, num, beforeAll, runOptions);
    } catch (err) {
      // the option exists since 0.8.17, which dropped the failed task's output; {error} outputs since 0.8.18
      if (runOptions.allow_run_on_task_fail && err instanceof AgentRunError && this.since('0.8.17')) {
        return this.since('0.8.18') ? { error: err.message } : null;
      }
      throw err;
    }
  }

  private runTaskStages(frame: Frame, input: unknown, num: number, beforeAll: unknown, runOptions: AgentOptions): unknown {
    const { doc } = frame;
    let data: unknown = null;
    let options = runOptions;
    let attachments: unknown[] = [];
    if (doc.data) {
      const ret = this.runStage(frame, 'Data', doc.data, { input, before_all: beforeAll, options: optionsTable(options) }, num);
      const d = directiveOf(ret, 'Data', frame);
      if (d?.kind === 'Skip') return null;
      if (d?.kind === 'Redo') {
        throw this.fail(frame, 'aip.flow.redo_run() can be returned only from # Before All or # After All stages. Returned from # Data stage.', 'Data');
      }
      if (d?.kind === 'BeforeAllResponse') throw this.fail(frame, "Aipack Custom 'BeforeAllResponse' is not supported at the Data stage", 'Data');
      if (d?.kind === 'DataResponse') {
        const r = parseDataResponse(d.data, frame, this);
        if (r.input !== undefined) input = r.input;
        data = r.data;
        attachments = r.attachments;
        if (r.options) options = mergeOptions(options, r.options);
      } else {
        data = ret ?? null;
      }
    }

    const aiResponse = this.callAi(frame, num, { data, input, before_all: beforeAll }, attachments, options);

    if (!doc.output) return aiResponse?.content ?? null;
    const ret = this.runStage(frame, 'Output', doc.output, {
      input,
      data,
      before_all: beforeAll,
      ai_response: aiResponse,
      options: optionsTable(options),
    }, num);
    const d = directiveOf(ret, 'Output', frame);
    if (d && d.kind !== 'Skip') {
      if (d.kind === 'Redo') throw this.fail(frame, 'aip.flow.redo_run() can be returned only from # Before All or # After All stages. Returned from # Output stage.', 'Output');
      throw this.fail(frame, `Aipack custom '${d.kind}' not supported at the Output stage`, 'Output');
    }
    // an Output-stage skip is not a skip: the directive table itself is the output (RUNTIME.md 2)
    return ret ?? null;
  }

  private callAi(frame: Frame, taskNum: number, root: { data: unknown; input: unknown; before_all: unknown }, attachments: unknown[], options: AgentOptions) {
    let messages: ReturnType<typeof renderPromptParts>;
    try {
      messages = renderPromptParts(frame.doc.parts, root);
    } catch (err) {
      throw this.fail(frame, `prompt rendering failed: ${(err as Error).message}`);
    }
    const attached = attachments.map((a) => this.attachmentMessage(a));
    const all = [...attached, ...messages];
    if (all.length === 0) return undefined;
    const model = resolveModel(options.model ?? '', options.model_aliases ?? {});
    const t0 = this.trace.now();
    let answer;
    try {
      answer = this.ai.answer({ agentName: frame.name, agentFile: frame.resolved.file, messages: all, model, temperature: options.temperature, top_p: options.top_p });
    } catch (err) {
      throw this.fail(frame, (err as Error).message);
    }
    this.trace.record({
      kind: 'ai',
      depth: frame.depth,
      agent: frame.name,
      task: taskNum,
      model: answer.model_name,
      prompt: all.map((m) => m.content).join('\n\n'),
      response: answer.content ?? '',
      ms: this.trace.now() - t0,
    });
    return answer;
  }

  private attachmentMessage(a: unknown): { role: 'user'; content: string; cache: boolean } {
    const att = isPlainObject(a) ? a : {};
    const source = typeof att.file_source === 'string' ? att.file_source : '';
    const abs = nodePath.resolve(this.workspaceDir, source);
    const exists = this.vfs.isFile(abs);
    const title = typeof att.title === 'string' ? ` (${att.title})` : '';
    return {
      role: 'user',
      content: exists ? `[attachment: ${source}${title}]` : `Error while attaching file '${source}': not found`,
      cache: false,
    };
  }

  /** Runs one Lua stage on a fresh state (AIPack makes a new state per stage and per task). */
  private runStage(frame: Frame, stage: StageName, script: LuaScript, scope: Record<string, unknown>, taskNum?: number): unknown {
    const env = this.stageEnv(frame, stage, taskNum);
    const packDir = frame.resolved.pack?.dir;
    const state = this.engine.createState({
      budget: this.budget,
      budgetMessage: `instruction budget exceeded in ${frame.name} ${stage}`,
      // <PACK_DIR>/lua is searched since 0.8.18 (RUNTIME.md section 6)
      moduleDirs: [nodePath.join(env.agent.dir, 'lua'), ...(packDir && packDir !== env.agent.dir && this.since('0.8.18') ? [nodePath.join(packDir, 'lua')] : [])],
      readFile: (abs) => this.vfs.readFile(abs),
      loadRoots: [this.workspaceDir, ...(packDir ? [packDir] : [])],
      baseDir: this.workspaceDir,
      print: env.print,
      displayPath: (abs) => this.displayPath(abs),
    });
    const t0 = this.trace.now();
    let error: string | undefined;
    try {
      const aip = buildAipTable(env);
      state.setGlobal('aip', aip);
      // `utils` is the legacy alias of `aip`; `aipack` (alias of aip.flow) existed up to 0.8.0
      state.execTrusted(aipackGlobalsAt(this.aipackVersion).includes('aipack') ? 'utils = aip\naipack = aip.flow' : 'utils = aip', '=setup');
      state.setGlobal('CTX', this.ctx(frame, stage, taskNum));
      for (const g of nullGlobalsAt(this.aipackVersion)) state.setGlobal(g, null);
      state.setGlobal('__features', preludeFeatures(this.aipackVersion));
      state.setGlobal('__helpers', PRELUDE_HELPERS);
      state.execTrusted(PRELUDE, '=prelude');
      return state.runChunk(layoutScript(script), frame.doc.path, 1, scope, 'serde');
    } catch (err) {
      if (err instanceof LuaRuntimeError) {
        error = err.message;
        throw new AgentRunError(`Lua error:\n${err.message}`, frame.name, stage, err.traceback);
      }
      error = (err as Error).message;
      throw err;
    } finally {
      this.trace.record({ kind: 'stage', depth: frame.depth, agent: frame.name, stage, task: taskNum, ms: this.trace.now() - t0, instructions: state.instructionsUsed(), error });
      state.close();
    }
  }

  private displayPath(abs: string): string {
    const rel = nodePath.relative(process.cwd(), abs);
    return rel && !rel.startsWith('..') && rel.length < abs.length ? rel : abs;
  }

  private stageEnv(frame: Frame, stage: StageName, taskNum: number | undefined): StageEnv {
    const file = frame.resolved.file;
    const readRoots = [this.workspaceDir, this.dirs.home, nodePath.dirname(file), ...this.packs.map((p) => p.dir)];
    return {
      vfs: guardReads(this.vfs, readRoots),
      dirs: this.dirs,
      findPackDir: (ns, name) => findPackDir(this.vfs, this.packs, ns, name),
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

  /** `aip.agent.run(name, options)` from Lua (RUNTIME.md section 4); errors are raised as Lua errors. */
  private subAgentCall(frame: Frame, name: unknown, rawOptions: unknown): unknown {
    if (typeof name !== 'string') throw new LuaError(`aip.agent.run: agent name must be a string, got ${luaTypeName(name)}`);
    // any Lua table is accepted (a list just has none of the keys); it arrives as an array or an object
    if (rawOptions !== undefined && rawOptions !== null && typeof rawOptions !== 'object') {
      throw new LuaError('RunAgentOptions argument must be nil or a table { inputs?, options? }');
    }
    const o = isPlainObject(rawOptions) ? rawOptions : {};
    const modern = compareVersion(this.aipackVersion, '0.8.15') >= 0; // `input` and `agent_base_dir` since 0.8.15
    if (o.inputs !== undefined && o.inputs !== null && !Array.isArray(o.inputs)) throw new LuaError("The 'inputs' field must be a Lua array");
    const inputs = [...(modern && o.input !== undefined ? [o.input] : []), ...((o.inputs as unknown[] | undefined) ?? [])];
    let options: AgentOptions | undefined;
    if (o.options !== undefined && o.options !== null) {
      if (!isPlainObject(o.options) && !(Array.isArray(o.options) && o.options.length === 0)) throw new LuaError('aip.agent.run: Agent Options must be a table');
      try {
        options = parseAgentOptions(isPlainObject(o.options) ? o.options : {}, `aip.agent.run('${name}') options`);
      } catch (err) {
        throw new LuaError((err as Error).message);
      }
    }
    let baseDir = frame.resolved.file ? nodePath.dirname(frame.resolved.file) : this.workspaceDir;
    if (modern && o.agent_base_dir !== undefined && o.agent_base_dir !== null) {
      if (typeof o.agent_base_dir !== 'string') throw new LuaError(`aip.agent.run: agent_base_dir must be a string, got ${luaTypeName(o.agent_base_dir)}`);
      baseDir = nodePath.resolve(this.workspaceDir, o.agent_base_dir);
    }
    if (frame.depth + 1 > MAX_AGENT_DEPTH) {
      throw new LuaError(`aip.agent.run nested deeper than ${MAX_AGENT_DEPTH} levels: ${[...frame.chain, name].join(' -> ')}`);
    }
    const t0 = this.trace.now();
    const record = (outcome?: RunOutcome, error?: string) =>
      this.trace.record({
        kind: 'agent_call',
        depth: frame.depth,
        caller: frame.name,
        agent: name,
        ms: this.trace.now() - t0,
        inputs,
        outputs: outcome?.outputs,
        afterAll: outcome?.afterAll,
        error,
      });
    let outcome: RunOutcome;
    try {
      outcome = this.runAgent({ name, inputs: inputs.length > 0 ? inputs : undefined, options, baseDir }, frame.chain, frame.runUid);
    } catch (err) {
      const message =
        err instanceof AgentNotFoundError
          ? `Failed to find agent '${name}': ${err.message}`
          : err instanceof LuaError && err.message.startsWith('aip.agent.run nested deeper')
            ? err.message
            : `Failed to run agent '${name}': ${(err as Error).message}`;
      record(undefined, message);
      throw new LuaError(message);
    }
    record(outcome);
    // top-level nulls become nil holes for the caller (RUNTIME.md section 4); redo_requested exists since 0.8.17
    return {
      outputs: outcome.outputs?.map((v) => (v === null ? undefined : v)),
      after_all: outcome.afterAll === null ? undefined : outcome.afterAll,
      redo_requested: this.since('0.8.17') ? outcome.redoRequested : undefined,
    };
  }

  private ctx(frame: Frame, stage: StageName, taskNum: number | undefined): Record<string, unknown> {
    const file = frame.resolved.file;
    const v = (since: string) => compareVersion(this.aipackVersion, since) >= 0;
    const pack = frame.resolved.pack;
    const inTask = stage === 'Data' || stage === 'Output';
    return {
      PWD: this.workspaceDir,
      SESSION_UID: this.sessionUid,
      TMP_DIR: this.dirs.tmp,
      AIPACK_VERSION: this.aipackVersion,
      WORKSPACE_DIR: this.workspaceDir,
      WORKSPACE_AIPACK_DIR: this.dirs.workspaceAipack,
      BASE_AIPACK_DIR: this.dirs.baseAipack,
      AGENT_NAME: frame.name,
      AGENT_FILE_NAME: nodePath.basename(file),
      AGENT_FILE_STEM: nodePath.basename(file, '.aip'),
      AGENT_FILE_PATH: file,
      AGENT_FILE_DIR: nodePath.dirname(file),
      PACK_NAMESPACE: pack?.namespace,
      PACK_NAME: pack?.name,
      PACK_SUB_PATH: pack?.subPath,
      PACK_REF: pack?.ref,
      PACK_IDENTITY: pack ? `${pack.namespace}@${pack.name}` : undefined,
      PACK_DIR: pack?.dir,
      PACK_WORKSPACE_SUPPORT_DIR: pack ? nodePath.join(this.dirs.workspaceAipack, 'support', 'pack', pack.namespace, pack.name) : undefined,
      PACK_BASE_SUPPORT_DIR: pack ? nodePath.join(this.dirs.baseAipack, 'support', 'pack', pack.namespace, pack.name) : undefined,
      RUN_UID: frame.runUid,
      RUN_NUM: v('0.8.12') ? frame.runNum : undefined,
      PARENT_RUN_UID: frame.parentRunUid,
      TASK_UID: inTask ? `${frame.runUid}-task-${taskNum}` : undefined,
      TASK_NUM: inTask && v('0.8.12') ? taskNum : undefined,
      STAGE: stage,
      // string-typed in Data/Output, as AIPack's code has it (RUNTIME.md section 5)
      RUN_FLOW_REDO_COUNT: v('0.8.22') ? (inTask ? '0' : 0) : undefined,
    };
  }

  fail(frame: Frame, message: string, stage?: StageName): AgentRunError {
    return new AgentRunError(message, frame.name, stage);
  }
}

/** Lays the script out so each code line sits at its .aip line (blocks of a repeated heading included). */
function layoutScript(script: LuaScript): string {
  const lines = script.code.split('\n');
  const out: string[] = [];
  lines.forEach((line, i) => {
    const target = mapScriptLine(script, i + 1);
    while (out.length < target - 1) out.push('');
    out.push(line);
  });
  return out.join('\n');
}

function withDisplay(input: unknown): unknown {
  if (isPlainObject(input) && (input._type === 'FileInfo' || input._type === 'FileRecord') && input._display === undefined) {
    return { ...input, _display: input.path };
  }
  return input;
}

function directiveOf(value: unknown, stage: StageName, frame: Frame): Directive | undefined {
  if (!isPlainObject(value) || !isPlainObject(value._aipack_)) return undefined;
  const kind = value._aipack_.kind;
  if (typeof kind !== 'string') return undefined;
  if (!['Skip', 'Redo', 'BeforeAllResponse', 'DataResponse'].includes(kind)) {
    if (stage === 'AfterAll') return undefined;
    throw new AgentRunError(`_aipack_ kind '${kind}' is not known.`, frame.name, stage);
  }
  return { kind, data: value._aipack_.data };
}

function skipReason(d: Directive): string {
  return isPlainObject(d.data) && typeof d.data.reason === 'string' ? d.data.reason : '';
}

function parseBeforeAllResponse(data: unknown, frame: Frame, sim: Simulator): { inputs?: unknown[]; beforeAll: unknown; options?: AgentOptions } {
  if (!isPlainObject(data)) return { beforeAll: null };
  for (const key of Object.keys(data)) {
    if (!['inputs', 'before_all', 'options'].includes(key)) {
      throw sim.fail(frame, `aip.flow.before_all_response(arg) - 'arg' can only have \`.inputs\`, \`.options\`, \`.before_all\`). But also contained: ${key}`, 'BeforeAll');
    }
  }
  let inputs: unknown[] | undefined;
  if (Array.isArray(data.inputs)) inputs = data.inputs;
  else if (isPlainObject(data.inputs) && Object.keys(data.inputs).length === 0) inputs = [];
  else if (data.inputs !== undefined && data.inputs !== null) {
    throw sim.fail(frame, `aip.flow.before_all_response(arg) - 'arg.inputs' must be a list, got ${luaTypeName(data.inputs)}`, 'BeforeAll');
  }
  const options = data.options === undefined || data.options === null ? undefined : parseStageOptions(data.options, frame, sim, 'BeforeAll', 'before_all_response');
  return { inputs, beforeAll: data.before_all ?? null, options };
}

function parseDataResponse(data: unknown, frame: Frame, sim: Simulator): { input?: unknown; data: unknown; attachments: unknown[]; options?: AgentOptions } {
  if (!isPlainObject(data)) return { data: null, attachments: [] };
  for (const key of Object.keys(data)) {
    if (!['input', 'data', 'attachments', 'options'].includes(key)) {
      throw sim.fail(frame, `aip.flow.data_response(arg) - 'arg' can only have \`.input\`, \`.data\`, \`.attachments\`, \`.options\`). But also contained: ${key}`, 'Data');
    }
  }
  const att = data.attachments;
  const attachments = att === undefined || att === null ? [] : Array.isArray(att) ? att : [att];
  const options = data.options === undefined || data.options === null ? undefined : parseStageOptions(data.options, frame, sim, 'Data', 'data_response');
  return { input: data.input === null ? undefined : data.input, data: data.data ?? null, attachments, options };
}

function parseStageOptions(value: unknown, frame: Frame, sim: Simulator, stage: StageName, fn: string): AgentOptions {
  // AIPack deserialises AgentOptions from it: a non-table cannot be read (a list just has no option keys)
  if (typeof value !== 'object' || value === null) {
    throw sim.fail(frame, `aip.flow.${fn}(arg) - 'arg.options' must be a table, got ${luaTypeName(value)}`, stage);
  }
  try {
    return parseAgentOptions(isPlainObject(value) ? value : {}, `aip.flow.${fn}(arg) options`);
  } catch (err) {
    throw sim.fail(frame, (err as Error).message, stage);
  }
}

function mergeOptions(...layers: AgentOptions[]): AgentOptions {
  const out: AgentOptions = {};
  for (const layer of layers) {
    for (const [k, v] of Object.entries(layer)) {
      if (v === undefined) continue;
      if (k === 'model_aliases') out.model_aliases = { ...(out.model_aliases ?? {}), ...(v as Record<string, string>) };
      else (out as Record<string, unknown>)[k] = v;
    }
  }
  return out;
}

function optionsTable(o: AgentOptions): Record<string, unknown> {
  return {
    model: o.model,
    resolved_model: o.model === undefined ? undefined : resolveModel(o.model, o.model_aliases ?? {}),
    temperature: o.temperature,
    top_p: o.top_p,
    input_concurrency: o.input_concurrency,
    allow_run_on_task_fail: o.allow_run_on_task_fail,
    model_aliases: o.model_aliases,
  };
}

const REASONING_SUFFIXES = ['-none', '-zero', '-minimal', '-low', '-medium', '-high', '-xhigh', '-max'];

/** AIPack's resolve_model: alias hit; else alias of the name without a reasoning suffix, suffix re-appended. */
export function resolveModel(model: string, aliases: Record<string, string>): string {
  // own keys only: a model named like an Object.prototype member ("constructor") is not an alias
  if (Object.hasOwn(aliases, model)) return aliases[model];
  for (const suffix of REASONING_SUFFIXES) {
    if (model.endsWith(suffix)) {
      const base = model.slice(0, -suffix.length);
      if (Object.hasOwn(aliases, base)) return aliases[base] + suffix;
    }
  }
  return model;
}
