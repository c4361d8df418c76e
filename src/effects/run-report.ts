import { CoderSummarySchema, listsFromLua, STAGES, type SubAgentStage } from '../contract/index.ts';
import type { RunOutcome } from '../runtime/simulator.ts';
import type { PromptPartSent, Trace, TraceEvent } from '../aip/support/trace.ts';
import type { FileChanges } from '../support/vfs.ts';
import { analyzeEffect, pickResponse, type StageEffect } from './effects.ts';

/** One sub-agent call of a simulated coder run, with what it did. */
export interface SubAgentCall {
  stage: SubAgentStage;
  /** the task (pre_task / post_task) */
  task?: number;
  agent: string;
  ms: number;
  effect: StageEffect;
  /** the redo run it belongs to (aip.flow.redo_run), undefined in the first run */
  redo?: number;
  /** a parallel group (one step of the pipeline): its members side by side */
  group?: GroupStep;
  /** an event-form entry: the event it ran on (start, end, or an emitted one) */
  event?: string;
}

/** A parallel group's run: its place in `sub_agents`, its concurrency, and each member. */
export interface GroupStep {
  index: number;
  concurrency: number;
  members: GroupMember[];
}

export interface GroupMember {
  index: number;
  agent: string;
  /** wall time of the member's run */
  ms: number;
  /** the models of its (and its agents') model calls, in order */
  models: string[];
  /** why it failed (raised, success = false, error_msg) */
  error?: string;
  /** the agent_result it answered */
  result?: unknown;
}

const RUNNER = /\/parallel$/;

/** The members of the group run whose `agent_call` is at `at` in the trace events: the events of that run. */
function groupStep(trace: Trace, at: number, runner: string): GroupStep {
  const events = trace.events;
  let start = at;
  while (start > 0 && !(events[start]!.kind === 'agent_start' && events[start]!.depth === 1 && (events[start] as { agent: string }).agent === runner)) start--;
  const members: GroupMember[] = [];
  let models: string[] = [];
  let call: Extract<TraceEvent, { kind: 'agent_call' }> | undefined;
  let concurrency = 1;
  let sawTasks = false;
  for (let i = start; i < at; i++) {
    const e = events[i]!;
    if (e.kind === 'ai' && e.depth >= 2) models.push(e.model);
    else if (e.kind === 'agent_call' && e.depth === 1 && e.caller === runner) call = e;
    else if (e.kind === 'tasks' && e.depth === 1 && e.agent === runner) {
      concurrency = e.concurrency;
      sawTasks = true;
    }
    else if (e.kind === 'stage' && e.depth === 1 && e.agent === runner && e.stage === 'Output' && e.task !== undefined) {
      members.push({ index: e.task, agent: call?.agent ?? '?', ms: call?.ms ?? 0, models, ...(call?.error !== undefined ? { error: call.error } : {}) });
      models = [];
      call = undefined;
    }
  }
  const outer = events[at] as Extract<TraceEvent, { kind: 'agent_call' }>;
  // a member that never ended (the group's run stopped first: budget, deadline) is still one of the group
  outer.inputs.forEach((raw, i) => {
    if (members.some((m) => m.index === i + 1)) return;
    const name = (raw as { name?: unknown } | undefined)?.name;
    members.push({ index: i + 1, agent: typeof name === 'string' ? name : '?', ms: 0, models: [], error: `no result: the group's run stopped${outer.error ? `: ${outer.error}` : ''}` });
  });
  members.sort((a, b) => a.index - b.index);
  // the runner's tasks event is recorded when its tasks end; the pack also passes the concurrency with each member
  if (!sawTasks) {
    const given = (outer.inputs[0] as { concurrency?: unknown } | undefined)?.concurrency;
    if (typeof given === 'number') concurrency = given;
  }
  for (const m of members) {
    // a member that answered success = false or error_msg failed too
    const out = outer.outputs?.[m.index - 1] as { response?: { success?: unknown; error_msg?: unknown } } | undefined;
    const res = out?.response;
    const result = (res as { agent_result?: unknown } | undefined)?.agent_result;
    if (result !== undefined && result !== null) m.result = result;
    if (m.error === undefined && res && (res.success === false || typeof res.error_msg === 'string')) {
      m.error = typeof res.error_msg === 'string' ? res.error_msg : 'success = false';
    }
  }
  const index = Number((outer.inputs[0] as { group?: unknown } | undefined)?.group ?? 0);
  return { index, concurrency, members };
}

export interface AiCall {
  task: number;
  model: string;
  prompt: string;
  /** the message parts sent, with their cache marks */
  parts: PromptPartSent[];
  response: string;
}

/** What `coder-subagents run` reports; `--json` prints it as is. */
export interface CoderRunReport {
  status: 'completed' | 'skipped' | 'failed';
  /** the failure message, the skip reason, or the coder's own summary */
  message?: string;
  /** workspace-relative path of the prompt file, when the run got that far */
  prompt_file?: string;
  sub_agents: SubAgentCall[];
  ai_calls: AiCall[];
  /** the AI calls of the sub-agents (and of the agents they ran), in order: which agent, which model */
  sub_agent_ai_calls: { agent: string; model: string }[];
  files: FileChanges;
  /** the file changes of the AI answers that could not be applied: the file and the cause */
  failed_changes: FailedChange[];
  /** the warnings the pack printed (an upstream key it does not act on, an unknown entry key, ...) */
  warnings: string[];
  /** how many times the coder was run again after the first run (aip.flow.redo_run) */
  redos: number;
  /** the coder's pins as AIPack's terminal shows them: per run, in AIPack's order (see pinsOf) */
  pins: Pin[];
  after_all?: unknown;
}

/** A pin as AIPack shows it: its label (`Pin:` when it gave none) and content. */
export interface Pin {
  scope: 'run' | 'task';
  iden: string;
  priority?: number;
  label: string;
  content: string;
  /** the redo run it belongs to (0: the first run) */
  run: number;
}

/** AIPack's label and content of a pin given as a string or as `{ label?, content? }` (its uc::Marker). */
function pinText(content: unknown): { label: string; content: string } {
  if (typeof content === 'string') return { label: 'Pin:', content };
  const t = (typeof content === 'object' && content !== null ? content : {}) as { label?: unknown; content?: unknown };
  const str = (v: unknown) => (typeof v === 'string' ? v : typeof v === 'number' ? String(v) : undefined);
  return { label: str(t.label) ?? 'Pin:', content: str(t.content) ?? 'No Content' };
}

/**
 * The coder's own pins (aip.run.pin, aip.task.pin), as AIPack lists them: a run pin saved again under the same
 * iden replaces the earlier one in its place; then sorted by priority, pins without one
 * last, else in the order they were made. Each redo is a run of its own.
 */
export function pinsOf(trace: Trace, coderName: string): Pin[] {
  const out: Pin[] = [];
  let run = 0;
  for (const e of trace.events) {
    if (e.depth !== 0 || e.agent !== coderName) continue;
    if (e.kind === 'redo') run = e.num;
    if (e.kind !== 'pin') continue;
    const pin: Pin = { scope: e.scope, iden: e.iden, ...(e.priority !== undefined ? { priority: e.priority } : {}), ...pinText(e.content), run };
    // a task pin belongs to its task, which the trace does not name: each is kept
    const same = e.scope === 'run' ? out.findIndex((p) => p.run === run && p.scope === 'run' && p.iden === e.iden) : -1;
    if (same >= 0) out[same] = pin;
    else out.push(pin);
  }
  const order = out.map((p, i) => ({ p, i }));
  order.sort((a, b) => a.p.run - b.p.run || rank(a.p) - rank(b.p) || (a.p.priority ?? 0) - (b.p.priority ?? 0) || a.i - b.i);
  return order.map(({ p }) => p);
}

const rank = (p: Pin) => (p.priority === undefined ? 1 : 0);

export interface FailedChange {
  file: string;
  cause: string;
}

const WARNING = 'WARNING: ';

/** The pack pins each task's failed changes as `- <file> (<cause>)` lines under the `changes_failed` pin. */
function failedChanges(trace: Trace, coderName: string): FailedChange[] {
  const out: FailedChange[] = [];
  for (const pin of trace.of('pin')) {
    if (pin.agent !== coderName || pin.depth !== 0 || pin.iden !== 'changes_failed') continue;
    const text = (pin.content as { content?: unknown } | undefined)?.content;
    if (typeof text !== 'string') continue;
    for (const m of text.matchAll(/^- (.+?) \((.*)\)$/gm)) out.push({ file: m[1]!, cause: m[2]! });
  }
  return out;
}

const isStage = (v: unknown): v is SubAgentStage => typeof v === 'string' && (STAGES as readonly string[]).includes(v);

/** The sub-agent stage a traced agent call ran in (its input's `coder_stage`; a group's in the runner's input). */
export function subAgentStageOf(call: Extract<TraceEvent, { kind: 'agent_call' }>): SubAgentStage | undefined {
  const first = call.inputs[0] as { input?: Record<string, unknown>; coder_stage?: unknown } | undefined;
  const stage = RUNNER.test(call.agent) ? first?.input?.coder_stage : first?.coder_stage;
  return isStage(stage) ? stage : undefined;
}

/**
 * The positions in the trace of the coder's sub-agent calls, in order: its own traced `aip.agent.run` calls that
 * carry a sub-agent stage (a parallel group is one call of its runner). `coderRunReport`'s `sub_agents` follow them
 * one to one.
 */
export function subAgentCallsAt(events: readonly TraceEvent[], coderName: string): number[] {
  const out: number[] = [];
  events.forEach((e, at) => {
    if (e.kind === 'agent_call' && e.caller === coderName && e.depth === 0 && subAgentStageOf(e) !== undefined) out.push(at);
  });
  return out;
}

/** Builds the report of a coder run from its trace: every sub-agent call is a traced `aip.agent.run` of the coder. */
export function coderRunReport(args: {
  coderName: string;
  trace: Trace;
  files: FileChanges;
  outcome?: RunOutcome;
  error?: Error;
}): CoderRunReport {
  const { coderName, trace, files, outcome, error } = args;
  const subAgents: SubAgentCall[] = [];
  // which redo run each call belongs to
  const redoOf = new Map<unknown, number>();
  let redo = 0;
  for (const e of trace.events) {
    if (e.kind === 'redo' && e.depth === 0) redo = e.num;
    else if (e.kind === 'agent_call') redoOf.set(e, redo);
  }
  for (const at of subAgentCallsAt(trace.events, coderName)) {
    const call = trace.events[at] as Extract<TraceEvent, { kind: 'agent_call' }>;
    const stage = subAgentStageOf(call)!;
    if (RUNNER.test(call.agent)) {
      const input = (call.inputs[0] as { input?: Record<string, unknown> } | undefined)?.input;
      const group = groupStep(trace, at, call.agent);
      const task = (input?.coder_task as { num?: unknown } | undefined)?.num;
      subAgents.push({
        stage,
        task: typeof task === 'number' ? task : undefined,
        agent: `parallel group [${group.index}]`,
        ms: call.ms,
        effect: analyzeEffect(stage, input, undefined, call.error !== undefined ? { raised: call.error } : {}),
        group,
        ...(redoOf.get(call) ? { redo: redoOf.get(call) } : {}),
      });
      continue;
    }
    const input = call.inputs[0] as Record<string, unknown> | undefined;
    const response = pickResponse(call);
    const task = (input?.coder_task as { num?: unknown } | undefined)?.num;
    subAgents.push({
      stage,
      task: typeof task === 'number' ? task : undefined,
      ...(typeof input?.event === 'string' && (input.agent_config as { on?: unknown } | undefined)?.on !== undefined ? { event: input.event } : {}),
      agent: call.agent,
      ms: call.ms,
      effect: analyzeEffect(stage, input, response, call.error !== undefined ? { raised: call.error } : {}),
      ...(redoOf.get(call) ? { redo: redoOf.get(call) } : {}),
    });
  }
  const aiCalls = trace
    .of('ai')
    .filter((e) => e.agent === coderName && e.depth === 0)
    .map((e) => ({ task: e.task, model: e.model, prompt: e.prompt, parts: e.parts, response: e.response }));
  const afterAll = outcome?.afterAll as { prompt_file?: unknown; message?: unknown } | undefined;
  const promptFile =
    typeof afterAll?.prompt_file === 'string'
      ? afterAll.prompt_file
      : [...files.created, ...files.changed].find((p) => p.endsWith('coder-prompt.md'));
  return {
    status: error ? 'failed' : outcome?.skipped !== undefined ? 'skipped' : 'completed',
    message: error ? error.message : (outcome?.skipped ?? (typeof afterAll?.message === 'string' ? afterAll.message : undefined)),
    prompt_file: promptFile,
    sub_agents: subAgents,
    ai_calls: aiCalls,
    redos: outcome?.redos ?? 0,
    pins: pinsOf(trace, coderName),
    sub_agent_ai_calls: trace
      .of('ai')
      .filter((e) => e.depth > 0)
      .map((e) => ({ agent: e.agent, model: e.model })),
    files,
    failed_changes: failedChanges(trace, coderName),
    // one line each: a warning that quotes a whole message (an auto-fix call's error) keeps its first line;
    // a warning printed once per task is listed once
    warnings: [
      ...new Set(
        trace
          .of('print')
          .filter((e) => e.agent === coderName && e.depth === 0 && e.text.startsWith(WARNING))
          .map((e) => headline(e.text.slice(WARNING.length))),
      ),
    ],
    // the coder's tasks are coder_responses items: their file lists are arrays, also when empty
    after_all: listsFromLua(CoderSummarySchema, outcome?.afterAll),
  };
}

/**
 * What the built-in auto-fix did, from its agent_result `{ model, fixed, failed }`: it changes files, not the
 * pipeline, so its line names the files it fixed and those still failing.
 */
function autoFixResult(e: StageEffect): string | undefined {
  if (!/(^|\/)auto-fix$/.test(e.agent)) return undefined;
  const r = e.agentResult as { model?: unknown; fixed?: unknown; failed?: unknown } | undefined;
  if (!r || typeof r !== 'object') return undefined;
  const fixed = Array.isArray(r.fixed) ? r.fixed.filter((f): f is string => typeof f === 'string') : [];
  const failed = Array.isArray(r.failed) ? r.failed.map((f) => String((f as { path?: unknown }).path)) : [];
  const parts: string[] = [];
  if (fixed.length) parts.push(`fixed ${fixed.join(', ')}${typeof r.model === 'string' ? ` (${r.model})` : ''}`);
  if (failed.length) parts.push(`still failing: ${failed.join(', ')}`);
  return parts.length ? parts.join('; ') : undefined;
}

/** The short effect line of one sub-agent call: `params +a ~b -c; prompts changed; response replaced`. */
export function describeEffect(e: StageEffect): string {
  if (e.error) return `failed: ${failureReason(e.error, e.agent)}`;
  const parts: string[] = [];
  const p = e.params;
  if (p.added.length || p.changed.length || p.removed.length) {
    parts.push(
      'params ' +
        [...p.added.map((k) => `+${k}`), ...p.changed.map((k) => `~${k}`), ...p.removed.map((k) => `-${k}`)].join(' '),
    );
  }
  if (e.prompts.changed) parts.push(`prompts changed (${e.prompts.after.length} segment${e.prompts.after.length === 1 ? '' : 's'})`);
  if (e.coderResponse.replaced) parts.push('AI answer replaced');
  if (e.subAgentsNext) parts.push('replaced the rest of the pipeline (sub_agents_next)');
  if (e.emits.length) parts.push(`emits ${e.emits.join(', ')}`);
  if (e.agentOn) parts.push(`now listens to ${e.agentOn.join(', ')} (agent_on)`);
  if (e.redo) parts.push('asks for a new run (coder_redo)');
  if (e.ignored.length) parts.push(`ignored: ${e.ignored.join(', ')}`);
  if (e.unknownKeys.length) parts.push(`unknown keys: ${e.unknownKeys.map((k) => k.key + (k.suggestion ? ` (did you mean ${k.suggestion}?)` : '')).join(', ')}`);
  if (e.subAgentsInParams) parts.push('sub_agents in returned params (removed)');
  const fix = autoFixResult(e);
  if (fix) parts.push(fix);
  if (parts.length === 0) return e.response === 'nil' ? 'no change (nil response)' : 'no change';
  return parts.join('; ');
}

const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/**
 * The reason of a sub-agent failure on one line, without what the report line already says (the agent's name):
 * `Sub-agent [a.aip] failed: Failed to run agent 'a.aip': Lua error:\na.aip:3: boom` -> `Lua error: a.aip:3: boom`.
 */
export function failureReason(message: string, agent: string): string {
  const a = escape(agent);
  const text = message
    .replace(new RegExp(`^Sub-agent \\[${a}\\] (failed: )?`), '')
    .replace(new RegExp(`^Failed to run agent '${a}': `), '');
  return headline(text);
}

/** The first line of a message; a line ending in `:` (`Lua error:`) is said with the next one. */
export function headline(message: string): string {
  const [first, second] = message.split('\n');
  return first.trimEnd().endsWith(':') && second?.trim() ? `${first.trimEnd()} ${second.trim()}` : first;
}
