/**
 * The shape of a stage run's result: what the pipeline left (params, prompts, the coder's answer), what the agent
 * under test was given and answered and what that does, the warnings, the files and the trace of its part, with the
 * sandbox's paths written as the user knows them.
 */
import nodePath from 'node:path';
import { ENTRY_KEYS, EVENT_GLOB_DEFAULT_KEYS, GLOB_DEFAULT_KEYS, GROUP_KEYS, messages, paramsFromLua, type SubAgentStage } from '../contract/index.ts';
import { analyzeEffect, effectWarnings, pickResponse, stringList, type StageEffect } from '../effects/effects.ts';
import { suggest } from '../support/suggest.ts';
import type { ScriptedAi } from '../runtime/ai.ts';
import { Trace, type TraceEvent } from '../aip/support/trace.ts';
import { isEmptyTable } from '../contract/lua-values.ts';
import { readBelow } from '../runtime/read-guard.ts';
import type { AgentUnderTest } from './agent-discovery.ts';
import { coderResponse, plain } from './driver.ts';
import { explainMissingAgent, unsandbox } from './sandbox-paths.ts';
import type { Sandbox } from './stage-sandbox.ts';
import type { StageInput, StageTarget } from './stage-request.ts';

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
  target: StageTarget,
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

/** Each member's outcome from the group runner's outputs (`{ ok, response }` or `{ ok = false, error }`). */
function memberOutcomes(runner: Extract<TraceEvent, { kind: 'agent_call' }>, ws: string): MemberOutcome[] {
  return runner.inputs.map((raw, i) => {
    const name = String(plain(raw).name);
    // the group's run stopped as a whole (budget, deadline): no member's answer reached the pipeline
    if (runner.outputs === undefined) return { name, ok: false, error: unsandbox(`no result: the group's run stopped: ${runner.error ?? 'unknown cause'}`, ws) };
    const out = plain(runner.outputs[i]);
    if (out.ok !== true) return { name, ok: false, error: unsandbox(String(out.error ?? 'no result from the parallel runner'), ws) };
    const response = plain(out.response);
    const result = response.agent_result !== undefined ? { agent_result: response.agent_result } : {};
    if (response.success === false || typeof response.error_msg === 'string') {
      return { name, ok: false, error: typeof response.error_msg === 'string' ? response.error_msg : 'success = false', ...result };
    }
    return { name, ok: true, ...result };
  });
}

/** The driver's own lifecycle events (its agent_call and prints stay: they are the sub-agent's story). */
function isDriverEvent(e: TraceEvent, driverName: string): boolean {
  return (e.kind === 'agent_start' || e.kind === 'agent_end' || e.kind === 'stage') && e.agent === driverName;
}

/**
 * The result of a stage run, from the driver's answer (`result`) and the simulated run: what the pipeline left,
 * what the agent under test was given and answered, and the warnings, files and trace of its part.
 */
export function stageResult(
  agent: AgentUnderTest,
  input: StageInput,
  target: StageTarget,
  box: Sandbox,
  driverInput: Record<string, unknown>,
  result: Record<string, unknown>,
  ms: number,
): StageResult {
  const { stage } = target;
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
