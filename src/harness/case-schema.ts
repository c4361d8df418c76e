/** The zod schema of a contract case file (`*.contract.toml`) and the types of its cases. */
import * as z from 'zod';
import { SubAgentStageSchema, type SubAgentStage } from '../contract/index.ts';

const Table = z.record(z.string(), z.unknown());
const StringList = z.array(z.string());
const FileMap = z.record(z.string(), z.string());

export const AiAnswerTableSchema = z.strictObject({
  content: z.string(),
  model: z.string().optional(),
  match: z.string().optional(),
  agent: z.string().optional(),
  reusable: z.boolean().optional(),
});

const AiAnswerSchema = z.union([z.string(), AiAnswerTableSchema], {
  error: 'expected a string, or a table { content, model?, match?, agent?, reusable? }',
});

export const TaskSchema = z.strictObject({
  num: z.number().int().min(1).optional(),
  count: z.number().int().min(1).optional(),
  working_files: StringList.optional(),
});

export const UsageSchema = z.strictObject({ prompt_tokens: z.number().optional(), completion_tokens: z.number().optional() });

export const CoderResponseTableSchema = z.strictObject({
  content: z.string(),
  model_name: z.string().optional(),
  usage: UsageSchema.optional(),
});

const CoderResponseSchema = z.union([z.string(), CoderResponseTableSchema], {
  error: 'expected a string, or a table { content, model_name?, usage? }',
});

/** The event form's own fields of a task's answer (content_extruded, file_changes_status, content_raw_path). */
export const EVENT_RESPONSE_FIELDS = ['content_extruded', 'file_changes_status', 'content_raw_path'] as const;

export const ResponsesItemSchema = z.strictObject({
  task_num: z.number().int().min(1),
  content: z.string(),
  files_changed: StringList.optional(),
  files_failed: StringList.optional(),
  /** event form: default the content as the pack extrudes it (without its change blocks when write_mode is on) */
  content_extruded: z.string().optional(),
  /** event form: default the pack's status of files_changed (succeeded) and files_failed (failed) */
  file_changes_status: Table.optional(),
  /** event form: default the pack's raw-answer report path */
  content_raw_path: z.string().optional(),
});

export const PrevItemSchema = z.strictObject({
  name: z.string().min(1),
  agent_result: z.unknown().optional(),
  config: Table.optional(),
  /** event form: the event it ran on (default the case's; for an emitted event, also its chain's root) */
  event: z.string().min(1).optional(),
});

const AiPromptSchema = z.union([z.string(), z.strictObject({ match: z.string() })], {
  error: 'expected a string (the exact prompt), or a table { match = "regex" }',
});

export const ExpectSchema = z.strictObject({
  params: Table.optional(),
  params_contains: Table.optional(),
  prompts: StringList.optional(),
  prompt: z.string().optional(),
  response: z.string().optional(),
  unchanged: z.boolean().optional(),
  error: z.string().optional(),
  files: FileMap.optional(),
  agent_result: z.unknown().optional(),
  sub_agents_next: z.array(z.unknown()).optional(),
  ai_prompts: z.array(AiPromptSchema).optional(),
  /** event form: the events the sub-agent emitted (its emit_events), in order */
  emit: StringList.optional(),
  /** event form, start chain: the events its entry listens to after it answered (agent_on, else its on) */
  agent_on: z.union([z.string().min(1), StringList], { error: 'expected an event name or a list of them' }).optional(),
  /** event form, end chain: whether the pack starts a new run of the coder (coder_redo under the cap) */
  redo: z.boolean().optional(),
  /** a group case: each member in member order, with its agent_result, or `error` (a regex) when it failed */
  members: z.array(z.strictObject({ agent_result: z.unknown().optional(), error: z.string().optional() })).optional(),
});

/** The inputs of one stage run (a case without its name and expectations). */
export const stageInputShape = {
  stage: SubAgentStageSchema.optional(),
  /** the event form: the event dispatched to the agent ("start", "end", or "ns::name" another sub-agent emits) */
  on: z.string().min(1).optional(),
  /** an emitted event: the dispatch chain it is emitted in (default start) */
  during: z.enum(['start', 'end']).optional(),
  /** CTX.RUN_FLOW_REDO_COUNT of the run (the input's coder_redo_count; default 0) */
  redo_count: z.number().int().min(0).optional(),
  prompt: z.string().optional(),
  prompts: StringList.optional(),
  params: Table.optional(),
  config: Table.optional(),
  files: FileMap.optional(),
  ai: z.array(AiAnswerSchema).optional(),
  /** scripted aip.cmd.exec / aip.web answers ([[case.commands]] { match, stdout?, stderr?, exit?, reusable? }) */
  commands: z.array(Table).optional(),
  web: z.array(Table).optional(),
  /** aip.* stubs: "aip.ns.fn" = value, or = { lua = "<function body>" } */
  mocks: Table.optional(),
  task: TaskSchema.optional(),
  response: CoderResponseSchema.optional(),
  responses: z.array(ResponsesItemSchema).optional(),
  prev: z.array(PrevItemSchema).optional(),
};

export const CaseSchema = z.strictObject({
  name: z.string().min(1),
  skip: z.boolean().optional(),
  /** what the case still lacks: it fails with this text until the key is removed (`record import` writes it) */
  todo: z.string().min(1).optional(),
  /** a group case: also run the members in other orders and fail when the combined result differs */
  order_check: z.boolean().optional(),
  ...stageInputShape,
  expect: ExpectSchema.optional(),
});

/**
 * A parallel group under test: its entry as in `sub_agents` (`parallel`, `concurrency`, `on_error`; member names
 * relative to the case file), or `{ prompt, entry }`: the group entry `entry` (1-based) of a prompt file's
 * `sub_agents` (names relative to that prompt's workspace, as the pack resolves them).
 */
const GroupSpecSchema = z.union([
  z.looseObject({ parallel: z.array(z.union([z.string().min(1), Table])).min(1) }),
  z.strictObject({ prompt: z.string().min(1), entry: z.number().int().min(1) }),
], { error: 'expected a group entry { parallel = [...], concurrency?, on_error? }, or { prompt = "<prompt file>", entry = <n> }' });

export const CaseFileSchema = z.strictObject({
  agent: z.string().min(1).optional(),
  group: GroupSpecSchema.optional(),
  support: StringList.optional(),
  case: z.array(CaseSchema).min(1),
});

export type AiAnswer = z.infer<typeof AiAnswerSchema>;
export type CaseExpect = z.infer<typeof ExpectSchema>;
export type CaseTask = z.infer<typeof TaskSchema>;
export type CoderResponseInput = z.infer<typeof CoderResponseSchema>;
export type ResponsesItem = z.infer<typeof ResponsesItemSchema>;
export type PrevItem = z.infer<typeof PrevItemSchema>;
export type AiPromptExpectation = z.infer<typeof AiPromptSchema>;

/** One checked case. */
export interface ContractCase {
  name: string;
  /** 1-based position in the file */
  index: number;
  stage: SubAgentStage;
  /** an event-form case: the event dispatched to the agent */
  event?: string;
  /** the case's own `on` and `during` (the event form), as written */
  on?: string;
  during?: 'start' | 'end';
  /** CTX.RUN_FLOW_REDO_COUNT of the run */
  redo_count?: number;
  skip: boolean;
  /** the case cannot pass yet: it fails with this text */
  todo?: string;
  prompts: string[];
  params: Record<string, unknown>;
  config: Record<string, unknown>;
  files: Record<string, string>;
  ai: AiAnswer[];
  commands?: Record<string, unknown>[];
  web?: Record<string, unknown>[];
  mocks?: Record<string, unknown>;
  task?: CaseTask;
  response?: CoderResponseInput;
  responses?: ResponsesItem[];
  prev?: PrevItem[];
  /** run a group's members in other orders too (`order_check = true`) */
  orderCheck?: boolean;
  expect: CaseExpect;
}

/** A loaded case file. */
export interface ContractFile {
  /** absolute path */
  file: string;
  /** the directory relative agent names and support paths are resolved from */
  dir: string;
  /** the agent under test as the file names it (for a group: a label naming its members) */
  agent: string;
  /** a group under test (`group`), instead of one agent */
  group?: z.infer<typeof GroupSpecSchema>;
  support: string[];
  cases: ContractCase[];
}
