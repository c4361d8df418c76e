/**
 * The contract driver: its agent (driver.aip), the input a case gives it, and its run. The agent is placed (as a
 * virtual file) inside the coder pack's directory, so it is a pack agent and `require` finds the pack's own `lua/`
 * modules. It holds no pipeline logic of its own: it calls the functions the coder's stages call (utils_before_all
 * `run_pre` / `prepare_run` / `build_inputs`, utils_data `prepare_task`, utils_output `run_post_task` /
 * `task_info`, utils_changes `answer_text`, utils_after_all `run_post` / `redo_or_nil`), so a case's sub-agent
 * gets the input the pack builds, and its answer is adopted as the pack adopts it.
 *
 * A `pre` case is Before All's `pre` run over the case's entries. A later stage begins from the case's params: Before
 * All runs no sub-agent there (the entries are only normalised, as it keeps them), then the stage under test runs
 * as the coder runs it.
 *
 * Its single input:
 *   { stage, event?, params, prompts, prompt_dir, entries, task?, response?, responses? }
 * (`entries`: the `prev` stand-ins of the case, then the entry under test; `event`: the root event of an
 * event-form case's dispatch; `responses[i]`: a task's answer as the case gives it)
 * Its output:
 *   { ok = true, params, prompts, response = <post_task: the text the coder applies> | nil, configs,
 *     redo = { requested, started } | nil }
 *   | { ok = false, error = message, raised = bool }
 */
import { readText } from '../support/host-fs.ts';
import nodePath from 'node:path';
import type { SubAgentStage } from '../contract/index.ts';
import type { PackLocation } from '../runtime/resolve.ts';
import { AgentRunError, RunLimitError, type Simulator } from '../runtime/simulator.ts';
import type { AgentUnderTest } from './agent-discovery.ts';
import { CaseFileError, chainRoot, type CoderResponseInput, type PrevItem } from './case-file.ts';
import type { StageInput, StageTarget } from './stage-request.ts';

/** File name of the driver inside the pack dir (a name no real pack file has). */
export const DRIVER_FILE = '__contract_driver__.aip';

/** The driver agent's file (driver.aip, beside this module): the case reaches it as the agent's `input`. */
export const DRIVER_AIP = readText(new URL('./driver.aip', import.meta.url));

/** The driver's agent name in the coder pack. */
export function driverName(pack: PackLocation): string {
  return `${pack.namespace}@${pack.name}/${DRIVER_FILE.replace(/\.aip$/, '')}`;
}

/** The model name a simulated coder answer reports (the simulator's stock model). */
const SIM_MODEL = 'sim-model';

/** A table's fields as a plain object (a Lua list's items keyed '1', '2', ...), {} for anything else. */
export const plain = (v: unknown): Record<string, unknown> => {
  if (typeof v !== 'object' || v === null) return {};
  if (Array.isArray(v)) return Object.fromEntries(v.map((x, i) => [String(i + 1), x]));
  return { ...(v as Record<string, unknown>) };
};

export function coderResponse(r: CoderResponseInput | undefined): Record<string, unknown> {
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

/**
 * How the case's dispatch chain begins: an emitted event with prevs that ran at the chain's root starts from the root,
 * its last root prev emitting the event (`emitter`, 0-based); otherwise the case's event is dispatched first.
 */
export function prevChain(input: StageInput, target: StageTarget): { root?: string; emitter?: number; event?: string } {
  const { event } = target;
  if (event === undefined) return {};
  const root = chainRoot(target.stage);
  const atRoot = (input.prev ?? []).map((p, i) => (event !== root && p.event === root ? i : -1)).filter((i) => i >= 0);
  if (atRoot.length === 0) return { root: event };
  return { root, emitter: atRoot[atRoot.length - 1], event };
}

/** The driver's input (see above): the case's state before the stage, in the shapes the pack's stage code takes. */
export function driverInputOf(agent: AgentUnderTest, input: StageInput, target: StageTarget, ws: string): Record<string, unknown> {
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

/** The entry of the agent (or group) under test: it listens to the case's event, or lists the case's stage. */
function subjectEntry(agent: AgentUnderTest, input: StageInput, target: StageTarget): Record<string, unknown> {
  const base: Record<string, unknown> = agent.group ? { ...agent.group.entry, ...(input.config ?? {}) } : { ...(input.config ?? {}), name: agent.name };
  // a config's own `on` stays as written (the pipeline maps it, or fails on it)
  if (base.on !== undefined) return base;
  return target.event !== undefined && input.on !== undefined ? { ...base, on: [target.event] } : { ...base, stages: [target.stage] };
}

/** Runs the driver: its output as a plain table, and the wall time. Throws CaseFileError for a harness problem. */
export function runDriver(sim: Simulator, name: string, agent: AgentUnderTest, driverInput: Record<string, unknown>): { result: Record<string, unknown>; ms: number } {
  const t0 = performance.now();
  let out: unknown;
  try {
    out = sim.run({ name, inputs: [driverInput] }).outputs?.[0];
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
