/**
 * What a stage run is asked: the options of the run (pack, AIPack version, budget, engine), the case's inputs, and
 * the library's request (`runStage`), checked; and where a case runs (its stage, and its event in the event form).
 */
import type { EngineName } from '../engine/engine.ts';
import * as z from 'zod';
import { configStages, normalizeEntry, type SubAgentStage } from '../contract/index.ts';
import type { DiscoveryOptions, AgentUnderTest } from './agent-discovery.ts';
import {
  CaseFileError,
  caseProblem,
  caseTarget,
  configEvent,
  stageInputShape,
  unknownKeysMessage,
  type AiAnswer,
  type CaseTask,
  type CoderResponseInput,
  type PrevItem,
  type ResponsesItem,
} from './case-file.ts';

export interface HarnessOptions extends DiscoveryOptions {
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

/** Where a stage run happens: the stage, and the event dispatched there in the event form. */
export interface StageTarget {
  stage: SubAgentStage;
  event?: string;
}

/**
 * Where a case runs: its stage and, in the event form, the event dispatched there. A config giving upstream's `on`
 * with a case `stage` must map to that stage. An invalid config `on` is left to the pipeline, which fails the stage
 * with the message naming the entry, as the pack does.
 */
export function targetOf(agent: AgentUnderTest, input: StageInput): StageTarget {
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

/** The library's request checked: a bad one throws CaseFileError naming the key. */
export function checkStageRequest(request: StageRequest): void {
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
}
