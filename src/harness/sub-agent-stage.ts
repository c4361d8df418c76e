/**
 * Runs one sub-agent in one stage through the pack's own pipeline code, in a fresh sandbox.
 *
 * The sandbox is a simulated AIPack (src/runtime) whose workspace is a purely virtual directory: it holds the
 * case's files, the agent under test (copied from disk to the same path relative to the workspace as it has
 * relative to the case file, so its configured name resolves exactly as written) with its `lua/` dir, and the
 * case file's `support` paths. A driver agent (driver.ts) is added as a virtual file inside the coder pack's
 * directory and runs the stage through the coder's own stage code (its Before All, Data, Output and After All
 * modules), so the pipeline state is built once, in the pack's Lua.
 */
import type { EngineName } from '../engine/engine.ts';
import { exists as existsSync, HostFsError, isDirectory, isInside, readUnder, realPathOf } from '../support/host-fs.ts';
import { findWorkspace } from '../runtime/workspace.ts';
import { checkMocksAt, MockError, parseMocks, type Mocks } from '../runtime/mocks.ts';
import nodePath from 'node:path';
import { z } from 'zod';
import { ENTRY_KEYS, EVENT_GLOB_DEFAULT_KEYS, GLOB_DEFAULT_KEYS, GROUP_KEYS, configStages, messages, normalizeEntry, PARALLEL_AGENT, paramsFromLua, type SubAgentStage } from '../contract/index.ts';
import { analyzeEffect, effectWarnings, pickResponse, stringList, type StageEffect } from '../effects/effects.ts';
import { suggest } from '../support/suggest.ts';
import { ScriptedAi, ScriptedAiError, type ScriptedResponse } from '../runtime/ai.ts';
import { REPO_PACK } from '../runtime/packs.ts';
import { AgentNotFoundError, resolveAgent, type PackLocation } from '../runtime/resolve.ts';
import { DEFAULT_AIPACK_VERSION } from '../aip/catalog.ts';
import { AgentRunError, RunLimitError, Simulator } from '../runtime/simulator.ts';
import { Trace, type TraceEvent } from '../aip/support/trace.ts';
import { isEmptyTable } from '../contract/lua-values.ts';
import { compareVersions } from '../aip/catalog.ts';
import { createOverlayVfs } from '../runtime/vfs.ts';
import { readBelow, readPolicy } from '../runtime/read-guard.ts';
import { walkFiles } from '../support/walk.ts';
import {
  CaseFileError,
  caseProblem,
  caseTarget,
  chainRoot,
  configEvent,
  stageInputShape,
  unknownKeysMessage,
  type AiAnswer,
  type CaseTask,
  type CoderResponseInput,
  type PrevItem,
  type ResponsesItem,
} from './case-file.ts';
import { DRIVER_AIP, DRIVER_FILE } from './driver.ts';

/**
 * Where sandboxes live: an ordinary-looking path (an agent must not be able to tell it runs under test from
 * CTX.WORKSPACE_DIR), which the sandbox never looks up on disk, so the workspace holds only virtual files.
 */
export const SANDBOX_ROOT = '/home/user';
/** The sandbox workspace (nested one `w` dir deeper per `..` the agent's files climb). */
export const SANDBOX_WS = `${SANDBOX_ROOT}/project`;

/** The AIPack version that brought CTX.RUN_FLOW_REDO_COUNT. */
const REDO_COUNT_SINCE = '0.8.22';

/** The model name a simulated coder answer reports (the simulator's stock model). */
const SIM_MODEL = 'sim-model';

export interface HarnessOptions {
  /** the coder pack whose pipeline runs the sub-agent (default: this repo's built `pack/`, as pro@coder) */
  pack?: PackLocation;
  /** simulated AIPack version (default: the simulator's) */
  aipackVersion?: string;
  /** instruction budget of the run tree (the case's agent run and every aip.agent.run below it) */
  budget?: number;
  /** wall-clock milliseconds one stage run may take (default 60 s; 0: none) */
  timeoutMs?: number;
  /** the Lua engine: 'fengari' (default) or 'lua54' (load it first: `await loadEngine('lua54')`) */
  engine?: EngineName;
  /** the order a parallel group's members run in (0-based member indexes; default member order) */
  memberOrder?: number[];
}

/** The inputs of one stage run, as a case gives them (every field optional). */
export interface StageInput {
  stage?: SubAgentStage;
  /** the event form: the event dispatched to the agent (`start`, `end`, or an emitted `ns::name`), instead of stage */
  on?: string;
  /** an emitted event: the dispatch chain it is emitted in (default start) */
  during?: 'start' | 'end';
  /** CTX.RUN_FLOW_REDO_COUNT of the run: the input's coder_redo_count (default 0) */
  redo_count?: number;
  /** scripted aip.cmd.exec / aip.web answers (aip/support/scripted-io.ts) */
  commands?: Record<string, unknown>[];
  web?: Record<string, unknown>[];
  /** aip.* stubs (runtime/mocks.ts) */
  mocks?: Record<string, unknown>;
  /** the coder_prompts before the stage (default `{ prompt }`, and `{ "" }` without either) */
  prompts?: string[];
  prompt?: string;
  /** the coder params before the stage (without sub_agents) */
  params?: Record<string, unknown>;
  /** extra keys of the sub-agent's entry; `name` and `stages` are set by the harness */
  config?: Record<string, unknown>;
  /** workspace files present during the run (workspace-relative path -> content) */
  files?: Record<string, string>;
  /** answers for the sub-agent's own AI calls, in order */
  ai?: AiAnswer[];
  /** pre_task / post_task: `coder_task` (num and count default to 1, working_files to {}) */
  task?: CaseTask;
  /** post_task: the coder's AI answer */
  response?: CoderResponseInput;
  /** post: `coder_responses` */
  responses?: ResponsesItem[];
  /** sub-agents run before this one in the stage run: seeds `sub_agents_prev` with their `agent_result` */
  prev?: PrevItem[];
}

export interface StageRequest extends StageInput, HarnessOptions {
  /** the sub-agent: a path relative to `baseDir`, an absolute path, or `ns@pack/name` */
  agent: string;
  /** resolves a relative `agent` and `support` (default: the current directory) */
  baseDir?: string;
  /** more files or dirs (relative to `baseDir`) the agent needs, copied into the sandbox */
  support?: string[];
}

export interface StageResult {
  stage: SubAgentStage;
  /** an event-form stage run: the event dispatched to the agent */
  event?: string;
  /** event form: the events the sub-agent emitted (its emit_events: the non-empty names, in order) */
  emitted?: string[];
  /** event form: the events its entry listens to after the stage (agent_on applied) */
  agentOn?: string[];
  /** event form, at post: whether it asked for a redo, whether the pack starts one, and the pack's pin when not */
  redo?: { requested: boolean; started: boolean; pin?: string };
  /** the stage succeeded (the pipeline reported no failure) */
  ok: boolean;
  /** the pipeline's failure message (sandbox paths written relative to the base dir, as the agent is named) */
  error?: string;
  /** the params after the stage, without sub_agents (the params before it when it failed) */
  params: Record<string, unknown>;
  /** the prompt segments after the stage */
  prompts: string[];
  /** the prompts joined as the instruction: `table.concat(prompts, "\n\n")` */
  prompt: string;
  /** post_task: the text the coder applies (the AI's answer or the sub-agent's replacement) */
  response?: string;
  /** what the sub-agent returned (After All value, else first output; undefined for nil) */
  rawResponse: unknown;
  /** the params, prompts and (post_task) coder answer as the stage began: what `unchanged` compares with */
  before: { params: Record<string, unknown>; prompts: string[]; response?: string };
  /** the prompts the sub-agent (and agents it called) sent to the model, in order: trimmed, sandbox paths workspace-relative */
  aiPrompts: string[];
  /** the input table the sub-agent received (undefined when it never ran) */
  input: unknown;
  /** what the response does (undefined when the sub-agent never ran, e.g. a bad config) */
  effect?: StageEffect;
  /** allowed but suspicious things: dropped params, unknown keys, ignored fields, unused AI answers */
  warnings: string[];
  /** workspace files the stage created or changed (content), or deleted (null) */
  files: Record<string, string | null>;
  /** a workspace file as the stage left it (workspace-relative path), undefined when absent */
  readFile(path: string): string | undefined;
  /** the sub-agent's part of the simulated run */
  trace: Trace;
  /** wall time of the simulated run */
  ms: number;
  /** a group: each member's outcome, in member order (its agent_result, or its error) */
  members?: MemberOutcome[];
}

/** One member of a group under test, as the group's run reported it. */
export interface MemberOutcome {
  name: string;
  ok: boolean;
  agent_result?: unknown;
  error?: string;
}

// ---------------------------------------------------------------------------------------------------------------
// The agent under test

/** The agent under test, read from disk once and reusable for many stage runs. */
export interface AgentUnderTest {
  /** the name as written (what the sub_agents entry and every message use) */
  name: string;
  /** the resolved .aip file (absolute) */
  file: string;
  /** files to place in the sandbox, keyed relative to the base dir (may start with `../`) */
  files: Map<string, Uint8Array>;
  /** how many `..` the keys climb at most (the sandbox workspace is nested that deep) */
  depth: number;
  /** packs the simulated runtime knows: the coder pack first, then custom packs found near the base dir */
  packs: PackLocation[];
  /** the coder pack */
  pack: PackLocation;
  /** files and dirs whose change should re-run the agent's cases */
  watch: string[];
  /** a parallel group under test (group.ts): its entry as the pipeline gets it; `name` is then a label */
  group?: { entry: Record<string, unknown> };
}


const toPosix = (p: string) => p.split(nodePath.sep).join('/');

/**
 * The files below `dir` (skipping node_modules and .git; an agent's own dot-dirs are copied), each checked with the
 * simulator's read guard against `root`; `outside` makes the error for the first entry leading out.
 */
function guardedWalk(dir: string, root: string, outside: (abs: string) => Error): string[] {
  const policy = readPolicy(root, [root]);
  return walkFiles(dir, (name) => name === 'node_modules' || name === '.git', (abs) => {
    if (!policy.allows(abs)) throw outside(abs);
  });
}

/** The custom pack `<ws>/.aipack/pack/custom/<ns>/<name>` of the nearest workspace above `dir` that has it. */
function customPack(dir: string, namespace: string, name: string): PackLocation | undefined {
  let cur = nodePath.resolve(dir);
  for (;;) {
    const candidate = nodePath.join(cur, '.aipack', 'pack', 'custom', namespace, name);
    if (isDirectory(candidate)) {
      // the pack folder becomes a read root of the run: one reached through a symlink could open the whole host
      const real = realPathOf(candidate);
      if (real !== candidate) {
        throw new CaseFileError(`the custom pack ${candidate} resolves to '${real}' through a symlink; the harness reads packs only from real folders (replace the link by the folder)`, candidate, undefined, 'agent');
      }
      return { namespace, name, dir: candidate };
    }
    const parent = nodePath.dirname(cur);
    if (parent === cur) return undefined;
    cur = parent;
  }
}

/**
 * Resolves and reads the agent under test. `where` names the file (or `runStage`) in errors.
 * Throws CaseFileError (key `agent` or `support[i]`) when something is missing.
 */
export function prepareAgent(agent: string, base: string, support: string[] = [], options: HarnessOptions = {}, where = 'runStage'): AgentUnderTest {
  const baseDir = nodePath.resolve(base);
  const pack = options.pack ?? REPO_PACK;
  const fail = (key: string, what: string) => new CaseFileError(`${where}: ${key}: ${what}`, where, undefined, key);
  const pipeline = nodePath.join(pack.dir, 'lua', 'utils_sub_agent.lua');
  if (!existsSync(pipeline)) {
    throw new CaseFileError(
      `the coder pack at ${pack.dir} has no lua/utils_sub_agent.lua: build it first (npx coder-subagents build)`,
      where,
    );
  }
  const packs: PackLocation[] = [pack];
  const disk = createOverlayVfs(baseDir);
  const files = new Map<string, Uint8Array>();
  const watch: string[] = [];
  let depth = 0;

  // what is copied into the sandbox must lie, symlinks resolved, below the folder it was named by: a symlink in an
  // agent's folder (as cloned repos have) must not carry host files into the sandbox, where the agent reads them
  const addTree = (abs: string, root = abs, key = 'agent') => {
    const paths = isDirectory(abs) ? guardedWalk(abs, root, (out) => fail(key, `${toPosix(nodePath.relative(baseDir, out))} is a symlink leading outside ${root} (the harness copies only an agent's own files; nothing is read through it)`)) : [abs];
    for (const p of paths) {
      const rel = toPosix(nodePath.relative(baseDir, p));
      let data: Uint8Array;
      try {
        data = new Uint8Array(readUnder(root, p, toPosix(nodePath.relative(baseDir, p))));
      } catch (err) {
        if (err instanceof HostFsError) throw fail(key, `${err.message} (the harness copies only an agent's own files)`);
        throw err;
      }
      files.set(rel, data);
      depth = Math.max(depth, rel.split('/').filter((s) => s === '..').length);
    }
  };

  let file: string;
  if (agent.includes('@')) {
    const m = /^([^@/$]+)@([^/$]+)/.exec(agent);
    if (m && !(m[1] === pack.namespace && m[2] === pack.name)) {
      const custom = customPack(baseDir, m[1], m[2]);
      if (custom) packs.push(custom);
    }
    try {
      const resolved = resolveAgent(disk, packs, agent, baseDir);
      file = resolved.file;
      watch.push(file);
      if (resolved.pack) watch.push(nodePath.join(resolved.pack.dir, 'lua'));
    } catch (err) {
      if (err instanceof AgentNotFoundError) throw fail('agent', `'${agent}' not found: ${err.message}`);
      throw err;
    }
  } else {
    try {
      file = resolveAgent(disk, [], agent, baseDir).file;
    } catch (err) {
      if (err instanceof AgentNotFoundError) throw fail('agent', `'${agent}' not found (${err.message.split('\n').map((l) => l.trim()).join(' ')})`);
      throw err;
    }
    watch.push(file);
    if (!nodePath.isAbsolute(agent)) {
      addTree(file);
      const luaDir = nodePath.join(nodePath.dirname(file), 'lua');
      if (isDirectory(luaDir)) {
        addTree(luaDir, nodePath.dirname(file));
        watch.push(luaDir);
      }
    }
  }
  // support files come from the case file's project (its workspace), never from elsewhere on the host
  const project = findWorkspace(baseDir);
  const realProject = realPathOf(project);
  support.forEach((s, i) => {
    const abs = nodePath.resolve(baseDir, s);
    if (!existsSync(abs)) throw fail(`support[${i + 1}]`, `'${s}' not found (looked for ${abs})`);
    if (!isInside(abs, project) || !isInside(realPathOf(abs), realProject)) {
      throw fail(`support[${i + 1}]`, `'${s}' leads to ${realPathOf(abs)}, outside the project ${project} (symlinks resolved); the harness copies only the project's files`);
    }
    addTree(abs, abs, `support[${i + 1}]`);
    watch.push(abs);
  });
  return { name: agent, file, files, depth, packs, pack, watch };
}

// ---------------------------------------------------------------------------------------------------------------
// One stage run

/** The sandbox workspace for an agent: nested as deep as its files climb with `..`. */
function sandboxDir(agent: AgentUnderTest): string {
  return [SANDBOX_WS, ...Array<string>(agent.depth).fill('w')].join('/');
}

function coderResponse(r: CoderResponseInput | undefined): Record<string, unknown> {
  const given = typeof r === 'string' ? { content: r } : r ?? { content: '' };
  return {
    content: given.content,
    model_name: given.model_name ?? SIM_MODEL,
    usage: {
      prompt_tokens: given.usage?.prompt_tokens ?? 0,
      completion_tokens: given.usage?.completion_tokens ?? 0,
    },
  };
}

function scripted(ai: AiAnswer[], view: (text: string) => string, io: { commands?: unknown[]; web?: unknown[] } = {}): ScriptedAi {
  const list: ScriptedResponse[] = ai.map((a) => (typeof a === 'string' ? { content: a } : { ...a }));
  return ScriptedAi.fromList(list, 'ai', io, view);
}

/** The case's mocks, checked; a bad name is a case-file error. */
function mocksOf(raw: Record<string, unknown> | undefined, agent: string, version: string): Mocks | undefined {
  if (raw === undefined) return undefined;
  try {
    const mocks = parseMocks(raw, 'mocks');
    checkMocksAt(mocks, version);
    return mocks;
  } catch (err) {
    if (err instanceof MockError) throw new CaseFileError(err.message, agent, undefined, 'mocks');
    throw err;
  }
}

/** A Lua long string holding `text` (a level no `]=...=]` in it closes). */
function longString(text: string): string {
  let eq = '';
  while (text.includes(`]${eq}]`)) eq += '=';
  return `[${eq}[\n${text}]${eq}]`;
}

/** A stand-in for a sub-agent that ran earlier in the stage run: it only returns its agent_result. */
function prevStub(item: PrevItem, emits?: string): string {
  const fields = [
    ...(item.agent_result === undefined ? [] : [`agent_result = aip.json.parse(${longString(JSON.stringify(item.agent_result))})`]),
    ...(emits === undefined ? [] : [`emit_events = { ${JSON.stringify(emits)} }`]),
  ];
  const body = fields.length === 0 ? 'return nil' : `return { ${fields.join(', ')} }`;
  return `# Description\n\nStand-in for an earlier sub-agent of the stage run (contract case \`prev\`).\n\n# Output\n\n\`\`\`lua\n${body}\n\`\`\`\n`;
}

const plain = (v: unknown): Record<string, unknown> => {
  if (typeof v !== 'object' || v === null) return {};
  if (Array.isArray(v)) return Object.fromEntries(v.map((x, i) => [String(i + 1), x]));
  return { ...(v as Record<string, unknown>) };
};

/**
 * Where a case runs: its stage and, in the event form, the event dispatched there. A config giving upstream's `on`
 * with a case `stage` must map to that stage. An invalid config `on` is left to the pipeline, which fails the stage
 * with the message naming the entry, as the pack does.
 */
function targetOf(agent: AgentUnderTest, input: StageInput): { stage: SubAgentStage; event?: string } {
  if (agent.group && input.on === undefined) {
    // a group's config `on` picks the event, never the stage
    const stage = caseTarget({ stage: input.stage }).stage;
    const event = configEvent(input.config, stage);
    return event === undefined ? { stage } : { stage, event };
  }
  const target = caseTarget(input);
  const on = input.config?.on;
  if (on === undefined || input.on !== undefined) return target;
  const r = normalizeEntry({ ...input.config, name: agent.name }, 'config');
  if (!r.ok) return target;
  const stages = configStages(r.config);
  if (!stages.includes(target.stage)) {
    throw new CaseFileError(
      `config.on ${JSON.stringify(on)} runs the agent in ${stages.join(', ')}, not in the case's stage ${target.stage}`,
      agent.name,
      undefined,
      'stage',
    );
  }
  return target;
}

/**
 * Warnings about the case's own inputs: params the coder does not act on (unknown or upstream-only keys), and
 * config keys that look like a misspelt contract key (other config keys are the agent's documented settings).
 */
function inputWarnings(input: StageInput, group: boolean): string[] {
  const out = messages.paramWarnings(input.params ?? {});
  // a group's config may set its own keys (on_error, concurrency)
  const known = group ? [...ENTRY_KEYS, ...GROUP_KEYS] : ENTRY_KEYS;
  for (const key of Object.keys(input.config ?? {}).sort()) {
    if (known.includes(key)) continue;
    const near = suggest(key, known);
    if (near !== undefined) out.push(`${messages.unknownEntryKey('config', key)}; did you mean '${near}'?`);
  }
  return out;
}

/** One stage run in the making: the sandbox, its simulator and the names the driver runs under. */
interface Sandbox {
  ws: string;
  vfs: ReturnType<typeof createOverlayVfs>;
  sim: Simulator;
  ai: ScriptedAi;
  driverName: string;
  runnerName: string;
  view: (text: string) => string;
}

/** The sandbox of one stage run: the agent's and the case's files, the driver, `prev` stand-ins, the scripted AI. */
function buildSandbox(agent: AgentUnderTest, input: StageInput, options: HarnessOptions): Sandbox {
  const version = options.aipackVersion ?? DEFAULT_AIPACK_VERSION;
  if (input.redo_count !== undefined && compareVersions(version, REDO_COUNT_SINCE) < 0) {
    throw new CaseFileError(
      `redo_count: CTX.RUN_FLOW_REDO_COUNT exists from AIPack ${REDO_COUNT_SINCE} on; this run simulates ${version} (set aipack_version, or --aipack-version)`,
      agent.name,
      undefined,
      'redo_count',
    );
  }
  const ws = sandboxDir(agent);
  const pack = agent.pack;
  const driverName = `${pack.namespace}@${pack.name}/${DRIVER_FILE.replace(/\.aip$/, '')}`;
  const runnerName = `${pack.namespace}@${pack.name}/${PARALLEL_AGENT}`;
  const files: Record<string, string | Uint8Array> = { [nodePath.join(pack.dir, DRIVER_FILE)]: DRIVER_AIP };
  for (const [rel, content] of agent.files) files[nodePath.join(ws, rel)] = content;
  for (const [rel, content] of Object.entries(input.files ?? {})) files[nodePath.join(ws, rel)] = content;
  const chain = prevChain(input, targetOf(agent, input));
  for (const [i, item] of (input.prev ?? []).entries()) {
    if (item.name === agent.name) throw new CaseFileError(`prev[${i + 1}].name: '${item.name}' is the agent under test; prev lists the sub-agents that ran before it`, agent.name);
    files[nodePath.join(ws, item.name)] = prevStub(item, i === chain.emitter ? chain.event : undefined);
  }
  const vfs = createOverlayVfs(ws, { files, readOnlyRoots: [pack.dir], diskless: [SANDBOX_ROOT] });
  const view = (text: string) => unsandbox(text, ws);
  let ai: ScriptedAi;
  try {
    ai = scripted(input.ai ?? [], view, { commands: input.commands, web: input.web });
  } catch (err) {
    if (err instanceof ScriptedAiError) throw new CaseFileError(err.message, agent.name, undefined, 'commands');
    throw err;
  }
  const mocks = mocksOf(input.mocks, agent.name, options.aipackVersion ?? DEFAULT_AIPACK_VERSION);
  const sim = new Simulator({
    mocks,
    workspaceDir: ws,
    vfs,
    packs: agent.packs,
    ai,
    aipackVersion: options.aipackVersion,
    budget: options.budget,
    timeoutMs: options.timeoutMs,
    engine: options.engine,
    flowRedoBase: input.redo_count ?? 0,
    ...(options.memberOrder ? { taskOrder: (name: string, count: number) => (name === runnerName && count === options.memberOrder!.length ? options.memberOrder : undefined) } : {}),
    // the agent may sit above the workspace (named '../agents/x.aip'): the whole virtual sandbox is readable
    readRoots: [nodePath.dirname(sandboxDir({ ...agent, depth: 0 }))],
  });
  return { ws, vfs, sim, ai, driverName, runnerName, view };
}

/**
 * How the case's dispatch chain begins: an emitted event with prevs that ran at the chain's root starts from the root,
 * its last root prev emitting the event (`emitter`, 0-based); otherwise the case's event is dispatched first.
 */
function prevChain(input: StageInput, target: { stage: SubAgentStage; event?: string }): { root?: string; emitter?: number; event?: string } {
  const { event } = target;
  if (event === undefined) return {};
  const root = chainRoot(target.stage);
  const atRoot = (input.prev ?? []).map((p, i) => (event !== root && p.event === root ? i : -1)).filter((i) => i >= 0);
  if (atRoot.length === 0) return { root: event };
  return { root, emitter: atRoot[atRoot.length - 1], event };
}

/** The driver's input (driver.ts): the case's state before the stage, in the shapes the pack's stage code takes. */
function driverInputOf(agent: AgentUnderTest, input: StageInput, target: { stage: SubAgentStage; event?: string }, ws: string): Record<string, unknown> {
  const { stage, event } = target;
  const pack = agent.pack;
  const num = input.task?.num ?? 1;
  // a prev stand-in runs in the same dispatch as the agent: it listens to the case's event, or lists its stage
  const chain = prevChain(input, target);
  const prevEntry = (p: PrevItem) => ({ ...(p.config ?? {}), name: p.name, ...(event !== undefined ? { on: [p.event ?? event] } : { stages: [stage] }) });
  const out: Record<string, unknown> = {
    stage,
    params: input.params ?? {},
    prompts: input.prompts ?? [input.prompt ?? ''],
    prompt_dir: nodePath.join(ws, '.aipack', '.prompt', `${pack.namespace}@${pack.name}`),
    entries: [...(input.prev ?? []).map(prevEntry), subjectEntry(agent, input, target)],
  };
  if (chain.root !== undefined) out.event = chain.root;
  if (stage === 'pre_task' || stage === 'post_task') {
    out.task = { num, count: input.task?.count ?? Math.max(num, 1), working_files: input.task?.working_files ?? [] };
  }
  if (stage === 'post_task') out.response = coderResponse(input.response);
  if (stage === 'post') {
    out.responses = (input.responses ?? []).map((r) => ({ ...r, files_changed: r.files_changed ?? [], files_failed: r.files_failed ?? [] }));
  }
  return out;
}

/** Runs the driver: its output as a plain table, and the wall time. Throws CaseFileError for a harness problem. */
function runDriver(box: Sandbox, agent: AgentUnderTest, driverInput: Record<string, unknown>): { result: Record<string, unknown>; ms: number } {
  const t0 = performance.now();
  let out: unknown;
  try {
    out = box.sim.run({ name: box.driverName, inputs: [driverInput] }).outputs?.[0];
  } catch (err) {
    // a spent run tree fails the case with the limit's own message (the agent under test spent it, or a case
    // gave it too little): the pipeline could not catch it, so it is no harness problem
    if (err instanceof RunLimitError) out = { ok: false, error: err.message };
    else {
      const detail = err instanceof AgentRunError && err.traceback ? `\n${err.traceback}` : '';
      throw new CaseFileError(`the contract driver failed (a harness or pack problem): ${(err as Error).message}${detail}`, agent.name);
    }
  }
  const ms = performance.now() - t0;
  const result = plain(out);
  if (typeof result.ok !== 'boolean') {
    throw new CaseFileError(`the contract driver returned no result (got ${JSON.stringify(out)})`, agent.name);
  }
  return { result, ms };
}

/** The agent under test's part of the driver's run: its call (or the group runner's), and what it answered. */
function subjectRun(box: Sandbox, agent: AgentUnderTest, stage: SubAgentStage) {
  // the driver's calls: prev stand-ins run before the agent, sub_agents_next tails after it
  const driverCalls = box.sim.trace.of('agent_call').filter((e) => e.caller === box.driverName && e.depth === 0);
  const call = agent.group ? undefined : driverCalls.find((e) => e.agent === agent.name);
  const runner = agent.group ? driverCalls.find((e) => e.agent === box.runnerName) : undefined;
  const members = runner ? memberOutcomes(runner, box.ws) : undefined;
  const subInput = call?.inputs[0];
  const rawResponse = call && call.error === undefined ? pickResponse(call) : undefined;
  const effect = call ? analyzeEffect(stage, subInput, rawResponse, call.error !== undefined ? { raised: call.error } : {}) : undefined;
  // the stage's starting point: what its first sub-agent (a prev stand-in, or the agent) was given; the group
  // runner's inputs wrap each member's input
  const first = driverCalls[0];
  const firstInput = (first?.agent === box.runnerName ? plain(first.inputs[0]).input : first?.inputs[0]) as Record<string, unknown> | undefined;
  return { subInput, rawResponse, effect, members, firstInput };
}

/** Allowed but suspicious things about a stage run: the case's inputs, the response, unused or unaddressed AI answers. */
function stageWarnings(agent: AgentUnderTest, input: StageInput, effect: StageEffect | undefined, ai: ScriptedAi): string[] {
  const warnings = [...inputWarnings(input, agent.group !== undefined), ...(effect ? effectWarnings(effect) : [])];
  const unused = ai.remaining().length;
  if (unused > 0) warnings.push(`${unused} scripted AI answer${unused === 1 ? ' was' : 's were'} not used (ai has ${input.ai?.length ?? 0})`);
  if (agent.group) {
    (input.ai ?? []).forEach((a, i) => {
      if (typeof a === 'string' || (a.agent === undefined && a.match === undefined)) {
        warnings.push(`ai[${i + 1}]: in a group case give each answer the member it is for (agent = "<name>") or a match: otherwise it goes to whichever member asks first`);
      }
    });
  }
  return warnings;
}

/** The sub-agent's events of the simulated run (not the driver's own lifecycle), with the paths the user knows. */
function sandboxTrace(box: Sandbox): Trace {
  const trace = new Trace();
  for (const e of box.sim.trace.events) {
    if (isDriverEvent(e, box.driverName)) continue;
    const copy: Record<string, unknown> = { ...e };
    for (const key of ['file', 'error', 'reason'] as const) {
      const v = copy[key];
      if (typeof v === 'string') copy[key] = unsandbox(v, box.ws);
    }
    trace.record(copy as TraceEvent);
  }
  return trace;
}

/** The event form's outcome: events emitted, what the entry listens to afterwards, the redo the pack would start. */
function eventOutcome(agent: AgentUnderTest, box: Sandbox, result: Record<string, unknown>, rawResponse: unknown): Pick<StageResult, 'emitted' | 'agentOn' | 'redo'> {
  const response = plain(rawResponse);
  // upstream keeps the non-empty names
  const emitted = Array.isArray(response.emit_events) ? response.emit_events.filter((e): e is string => typeof e === 'string' && e !== '') : [];
  const configs = Object.values(plain(result.configs)).map(plain);
  const own = agent.group ? undefined : configs.find((c) => c.name === agent.name);
  const out: Pick<StageResult, 'emitted' | 'agentOn' | 'redo'> = { emitted };
  if (own !== undefined) out.agentOn = stringList(own.on);
  if (result.redo !== undefined) {
    const redo = plain(result.redo);
    // the pin the pack showed when it started none
    const pin = box.sim.trace.of('pin').filter((p) => p.agent === box.driverName && p.iden.startsWith('coder_redo_') && p.iden !== 'coder_redo_requested').pop();
    const pinText = pin ? plain(pin.content).content : undefined;
    out.redo = { requested: redo.requested === true, started: redo.started === true, ...(typeof pinText === 'string' ? { pin: pinText } : {}) };
  }
  return out;
}

/**
 * The params an event-form stage began with, from the view its first sub-agent got (section 7): at pre the view
 * adds the upstream-only glob lists ({} when absent), which are no params of the run; at post params never change.
 */
function eventStartParams(stage: SubAgentStage, view: Record<string, unknown>, given: Record<string, unknown>, final: Record<string, unknown>): Record<string, unknown> {
  if (stage === 'post') return paramsFromLua(final);
  const out = paramsFromLua(view);
  for (const key of EVENT_GLOB_DEFAULT_KEYS) {
    if ((GLOB_DEFAULT_KEYS as readonly string[]).includes(key) || key in given) continue;
    if (isEmptyTable(out[key])) delete out[key];
  }
  return out;
}

const withoutSubAgents = (t: Record<string, unknown>): Record<string, unknown> => {
  const copy = { ...t };
  delete copy.sub_agents;
  return copy;
};

/**
 * The stage's starting point, what `unchanged` compares with: what its first sub-agent (a prev stand-in, or the
 * agent) was given, else the case's inputs.
 */
function stageStart(
  input: StageInput,
  target: { stage: SubAgentStage; event?: string },
  firstInput: Record<string, unknown> | undefined,
  finalParams: Record<string, unknown>,
  prompts: string[],
  coderText: string | undefined,
): StageResult['before'] {
  const given = input.params ?? {};
  const start = withoutSubAgents(firstInput !== undefined ? plain(firstInput.coder_params) : given);
  return {
    params: target.event === undefined ? paramsFromLua(start) : eventStartParams(target.stage, start, given, finalParams),
    prompts: firstInput !== undefined ? stringList(firstInput.coder_prompts) : prompts,
    ...(coderText !== undefined ? { response: coderText } : {}),
  };
}

/** Runs the agent under test in one stage, in a fresh sandbox. Throws CaseFileError for a harness problem. */
export function runPreparedStage(agent: AgentUnderTest, input: StageInput, options: HarnessOptions = {}): StageResult {
  const target = targetOf(agent, input);
  const { stage } = target;
  const box = buildSandbox(agent, input, options);
  const driverInput = driverInputOf(agent, input, target, box.ws);
  const { result, ms } = runDriver(box, agent, driverInput);
  const { subInput, rawResponse, effect, members, firstInput } = subjectRun(box, agent, stage);
  const warnings = stageWarnings(agent, input, effect, box.ai);

  const ok = result.ok === true;
  const prompts = driverInput.prompts as string[];
  // the params the agent was given: what a failed stage leaves
  const paramsBefore = withoutSubAgents(subInput !== undefined ? plain((subInput as Record<string, unknown>).coder_params) : input.params ?? {});
  const coderText = stage === 'post_task' ? (coderResponse(input.response).content as string) : undefined;
  const before = stageStart(input, target, firstInput, ok ? plain(result.params) : paramsBefore, prompts, coderText);
  const finalPrompts = ok ? stringList(result.prompts) : effect?.prompts.before ?? prompts;

  return {
    stage,
    ...(target.event !== undefined ? { event: target.event, ...eventOutcome(agent, box, result, rawResponse) } : {}),
    ok,
    ...(ok ? {} : { error: unsandbox(explainMissingAgent(String(result.error), box.ws, agent), box.ws) }),
    // lists the contract knows are arrays, also when empty, so a user's toEqual works without luaEqual
    params: paramsFromLua(ok ? plain(result.params) : paramsBefore),
    prompts: finalPrompts,
    prompt: finalPrompts.join('\n\n'),
    ...(coderText !== undefined ? { response: ok && typeof result.response === 'string' ? result.response : coderText } : {}),
    rawResponse,
    before,
    aiPrompts: box.sim.trace.of('ai').map((e) => box.view(e.prompt).trim()),
    input: subInput,
    effect,
    warnings,
    files: Object.fromEntries(box.vfs.snapshot()),
    readFile: (path: string) => readBelow(box.vfs, box.ws, path),
    trace: sandboxTrace(box),
    ms,
    ...(members ? { members } : {}),
  };
}

/** The entry of the agent (or group) under test: it listens to the case's event, or lists the case's stage. */
function subjectEntry(agent: AgentUnderTest, input: StageInput, target: { stage: SubAgentStage; event?: string }): Record<string, unknown> {
  const base: Record<string, unknown> = agent.group ? { ...agent.group.entry, ...(input.config ?? {}) } : { ...(input.config ?? {}), name: agent.name };
  // a config's own `on` stays as written (the pipeline maps it, or fails on it)
  if (base.on !== undefined) return base;
  return target.event !== undefined && input.on !== undefined ? { ...base, on: [target.event] } : { ...base, stages: [target.stage] };
}

/** Each member's outcome from the group runner's outputs (`{ ok, response }` or `{ ok = false, error }`). */
function memberOutcomes(runner: Extract<TraceEvent, { kind: 'agent_call' }>, ws: string): MemberOutcome[] {
  return runner.inputs.map((raw, i) => {
    const name = String(plain(raw).name);
    const out = plain(runner.outputs?.[i]);
    if (out.ok !== true) return { name, ok: false, error: unsandbox(String(out.error), ws) };
    const response = plain(out.response);
    const result = response.agent_result !== undefined ? { agent_result: response.agent_result } : {};
    if (response.success === false || typeof response.error_msg === 'string') {
      return { name, ok: false, error: typeof response.error_msg === 'string' ? response.error_msg : 'success = false', ...result };
    }
    return { name, ok: true, ...result };
  });
}

const SANDBOX_PATH = new RegExp(`${SANDBOX_WS.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}(?:/[^\\s:'"()\\]]*)?(?![\\w.-])`, 'g');

/**
 * A message with the sandbox's paths written as the case file names them (relative to its directory), so that a
 * Lua error reads `refiner.aip:19: ...` and not `/home/user/project/refiner.aip:19: ...`.
 */
export function unsandbox(text: string, ws: string): string {
  return text.replace(SANDBOX_PATH, (p) => nodePath.posix.relative(ws, p) || '.');
}

/**
 * An agent the sub-agent runs (`aip.agent.run`) that is not in the sandbox: its `full path` is said as the path on
 * disk it stands for, with how to bring it in (only the agent and its `support` files are copied into a case).
 */
function explainMissingAgent(text: string, ws: string, agent: AgentUnderTest): string {
  const hostBase = agent.file.endsWith(agent.name) ? agent.file.slice(0, -agent.name.length) : undefined;
  return text.replace(/\(full path: (\S+)\)/g, (all, p: string) => {
    if (hostBase === undefined || !p.startsWith(ws + '/')) return all;
    const onDisk = nodePath.join(hostBase, nodePath.posix.relative(ws, p));
    const fix = existsSync(onDisk)
      ? 'it exists there, but a case only holds the agent and its support files: list it in the contract file\'s `support` (runStage: `support`)'
      : 'no such file; a helper agent must exist and be listed in the contract file\'s `support` (runStage: `support`)';
    return `(full path: ${onDisk}: ${fix})`;
  });
}

/** The driver's own lifecycle events (its agent_call and prints stay: they are the sub-agent's story). */
function isDriverEvent(e: TraceEvent, driverName: string): boolean {
  return (e.kind === 'agent_start' || e.kind === 'agent_end' || e.kind === 'stage') && e.agent === driverName;
}

const StageRequestSchema = z.strictObject({
  agent: z.string().min(1),
  baseDir: z.string().optional(),
  support: z.array(z.string()).optional(),
  pack: z.object({ namespace: z.string(), name: z.string(), dir: z.string() }).optional(),
  aipackVersion: z.string().optional(),
  budget: z.number().int().positive().optional(),
  engine: z.enum(['fengari', 'lua54']).optional(),
  ...stageInputShape,
});

/**
 * Runs a sub-agent in one stage through the pack's pipeline, in a fresh sandbox (the library form of a case):
 *
 *   const r = runStage({ agent: 'agents/refiner.aip', stage: 'pre', prompt: 'Fix it', config: { focus: 'auth' } });
 *   expect(r.prompts).toEqual(['Fix it', 'Focus: auth']);
 *
 * A bad request throws CaseFileError naming the key; a failing stage is `ok: false` with the pipeline's message.
 */
export function runStage(request: StageRequest): StageResult {
  const parsed = StageRequestSchema.safeParse(request);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    if (issue.code === 'unrecognized_keys') {
      const message = unknownKeysMessage(issue.keys, Object.keys(StageRequestSchema.shape));
      throw new CaseFileError(`runStage: ${message}`, 'runStage', undefined, issue.keys[0]);
    }
    const key = issue.path.map(String).join('.');
    throw new CaseFileError(`runStage: ${key || 'request'}: ${issue.message}`, 'runStage', undefined, key);
  }
  const problem = caseProblem(parsed.data);
  if (problem) throw new CaseFileError(`runStage: ${problem[0]}: ${problem[1]}`, 'runStage', undefined, problem[0]);
  const baseDir = nodePath.resolve(request.baseDir ?? process.cwd());
  const agent = prepareAgent(request.agent, baseDir, request.support ?? [], request, 'runStage');
  return runPreparedStage(agent, request, request);
}
