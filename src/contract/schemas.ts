/**
 * The `sub_agents` contract (pack/SUB_AGENTS.md), stated once, as zod schemas over its constants (constants.ts)
 * and with its message templates (message-templates.ts); this module exports all three.
 *
 * Everything else is derived from these definitions: the TS checks (check.ts, through spec.ts), the generated
 * Lua module `sub_agent_contract.lua` (lua-gen.ts) and the JSON Schemas (json-schema.ts).
 *
 * Custom metadata read by the derivation (also visible in the JSON Schemas):
 * - `title` on a string enum: the noun used in messages ("stage" -> "a stage or a list of stages").
 * - `x-stages` on a response field: the stages that use the field; elsewhere it is ignored (section 3).
 * - `x-ignored-keys` on a table response field: per stage, keys of that table the stage ignores.
 * - `x-exclusive-with` on a response field: another field that cannot be given together with it.
 */
import * as z from 'zod';
import { DEFAULT_ENABLED, DEFAULT_STAGES, EVENT_FORM_STAGES, STAGES, type SubAgentStage } from './constants.ts';

// the contract's constants and message templates, each in its own file, are part of it
export * from './constants.ts';
export * from './message-templates.ts';

// ---------------------------------------------------------------------------------------------------------------
// Building blocks

export const SubAgentStageSchema = z.enum(STAGES).meta({
  title: 'stage',
  description: 'A pipeline stage: pre (Before All), pre_task (Data), post_task (Output), post (After All)',
});

export const EventSchema = z.string().min(1).meta({
  title: 'event',
  description: 'an event name: start (sent at pre), end (sent at post), or one a sub-agent emits ("ns::name")',
});

/** A Lua table with string keys. On the JS side an empty Lua table may arrive as [] (see lua-values.ts). */
export const LuaTableSchema = z.record(z.string(), z.unknown());

const AgentNameSchema = z.string().min(1);

// ---------------------------------------------------------------------------------------------------------------
// Section 1: configuration

/** The table form of a `sub_agents` entry, before normalisation. Unknown keys are kept as they are. */
export const AgentEntryTableSchema = z
  .looseObject({
    name: AgentNameSchema.meta({ description: 'agent name: a path (relative to the workspace) or ns@pack/name' }),
    enabled: z.boolean().default(DEFAULT_ENABLED).meta({ description: 'false: the entry is skipped' }),
    stages: z
      .union([SubAgentStageSchema, z.array(SubAgentStageSchema).min(1)])
      .default([...DEFAULT_STAGES])
      .meta({ description: 'stage form: the stages the sub-agent runs in; one stage name is a one-item list (not filled in when on is given)' }),
    options: LuaTableSchema.optional().meta({
      description: 'agent options for aip.agent.run (model, temperature, top_p, input_concurrency, model_aliases)',
    }),
    config: LuaTableSchema.optional().meta({
      description: "the agent's own settings, never checked nor warned about: it reads them as input.agent_config.config",
    }),
    on: z
      .union([EventSchema, z.array(EventSchema).min(1)])
      .optional()
      .meta({
        description: 'event form (upstream pro@coder rules): the events the sub-agent listens to; one name is a one-item list',
        'x-exclusive-with': 'stages',
      }),
  })
  .meta({ title: 'sub-agent entry (table form)' });

/** One `sub_agents` entry as a user writes it: an agent name, or a table. */
export const AgentEntrySchema = z
  .union([AgentNameSchema.meta({ title: 'agent name' }), AgentEntryTableSchema])
  .meta({ title: 'sub-agent entry' });

/** The whole `sub_agents` value. */
export const AgentEntriesSchema = z.array(AgentEntrySchema).meta({ title: 'sub_agents' });

/** A normalised entry (AgentConfig): what every sub-agent receives as `agent_config`. */
export const AgentConfigSchema = z
  .looseObject({
    name: AgentNameSchema,
    enabled: z.boolean(),
    stages: z.array(SubAgentStageSchema).min(1).optional().meta({ description: 'stage form only' }),
    options: LuaTableSchema.optional(),
    config: LuaTableSchema.optional(),
    on: z.array(EventSchema).optional().meta({ description: 'event form only' }),
  })
  .meta({ title: 'AgentConfig' });

// ---------------------------------------------------------------------------------------------------------------
// Section 2: the input table of each stage

/** A member's place in its parallel group (section 8). */
export const ParallelPlaceSchema = z
  .object({ index: z.number().int().min(1), size: z.number().int().min(1) })
  .meta({ title: 'parallel place' });

/** An enabled workbench file (chat, goal): workspace-relative paths. */
const WorkbenchFileSchema = z.object({
  enabled: z.boolean().meta({ description: 'always true: a disabled file is left out' }),
  path: z.string().meta({ description: 'the file (created empty, or seeded for chat, when missing)' }),
  rules_path: z.string().optional().meta({ description: "its rules file, in the workbench's .cache/" }),
});

/**
 * `coder_workbench`: the run's workbench, as upstream pro@coder gives it to sub-agents. Every run has one (a default
 * `<prompt dir>/workbench-default` when the prompt sets no `workbench:`). Paths are workspace-relative.
 */
export const CoderWorkbenchSchema = z
  .object({
    dir: z.string().meta({ description: 'the workbench folder' }),
    cache_dir: z.string().meta({ description: '<dir>/.cache: rules files and, when the workbench has a dir, the run reports' }),
    prompt_cache_dir: z.string().meta({ description: '<prompt dir>/.cache' }),
    include_kinds: z.array(z.enum(['text', 'pdf', 'image'])).meta({ description: 'kinds of data files auto-context may select' }),
    chat: WorkbenchFileSchema.optional(),
    goal: WorkbenchFileSchema.optional(),
    plan: WorkbenchFileSchema.extend({ dir: z.string() }).optional(),
    spec: WorkbenchFileSchema.extend({ context_path: z.string() }).optional(),
    data_dir: z.string().optional().meta({ description: '<dir>/data, when data is on' }),
  })
  .meta({ title: 'CoderWorkbench' });

const baseInputShape = {
  coder_prompt_dir: z.string().meta({ description: 'absolute directory of the prompt file (the event form gives it as the path was given, relative)' }),
  coder_params: LuaTableSchema.meta({ description: 'deep copy of the current params without sub_agents' }),
  coder_prompts: z.array(z.string()).meta({ description: 'the current prompt segments' }),
  coder_prompt: z.string().meta({ description: 'table.concat(coder_prompts, "\\n\\n")' }),
  agent_config: AgentConfigSchema,
  sub_agents_prev: z
    .array(
      z.looseObject({
        config: AgentConfigSchema,
        agent_result: z.unknown(),
        parallel: ParallelPlaceSchema.optional().meta({ description: 'set when it ran as a member of a parallel group' }),
        error: z.string().optional().meta({ description: 'a failed member of a parallel group with on_error = "continue": why' }),
      }),
    )
    .meta({ description: 'sub-agents already run in this stage run, in order (a parallel group: one entry per member)' }),
  sub_agents_next: z.array(AgentConfigSchema).meta({ description: 'sub-agents still to run in this stage run' }),
  parallel: ParallelPlaceSchema.optional().meta({ description: 'a member of a parallel group: its place in the group' }),
  coder_workbench: CoderWorkbenchSchema.optional().meta({ description: "the run's workbench (always given by the pack)" }),
};

export const CoderTaskSchema = z.object({
  num: z.number().int().min(1),
  count: z.number().int().min(1),
  working_files: z.array(z.string()),
});

export const CoderResponseInputSchema = z.object({
  content: z.string(),
  model_name: z.string().optional(),
  usage: z
    .object({ prompt_tokens: z.number().optional(), completion_tokens: z.number().optional() })
    .optional(),
});

export const CoderResponsesItemSchema = z.object({
  task_num: z.number().int().min(1),
  content: z.string().meta({ description: 'the answer as applied (after post_task)' }),
  files_changed: z.array(z.string()),
  files_failed: z.array(z.string()),
});

/** `stage` and `event`: the names upstream sub-agents read (section 7). */
const stageNames = <S extends SubAgentStage>(stage: S) => ({
  coder_stage: z.literal(stage),
  stage: z.literal(stage).meta({ description: 'same as coder_stage (upstream name)' }),
});

export const SubAgentInputSchemas = {
  pre: z
    .object({ ...stageNames('pre'), event: z.literal('start'), ...baseInputShape })
    .meta({ title: 'input (pre)' }),
  pre_task: z
    .object({ ...stageNames('pre_task'), ...baseInputShape, coder_task: CoderTaskSchema })
    .meta({ title: 'input (pre_task)' }),
  post_task: z
    .object({
      ...stageNames('post_task'),
      ...baseInputShape,
      coder_task: CoderTaskSchema,
      coder_response: CoderResponseInputSchema,
    })
    .meta({ title: 'input (post_task)' }),
  post: z
    .object({
      ...stageNames('post'),
      event: z.literal('end'),
      ...baseInputShape,
      coder_responses: z.array(CoderResponsesItemSchema),
    })
    .meta({ title: 'input (post)' }),
} as const satisfies Record<SubAgentStage, z.ZodType>;

// ---------------------------------------------------------------------------------------------------------------
// Section 7: the input of an event-form entry (upstream's fields, plus the stage-form ones)

const FileRefSchema = z.looseObject({ path: z.string() }).meta({ description: 'a file as aip.file.list gives it' });

/** One item of `sub_agents_prev` in the event form: upstream's history shape. */
export const EventHistoryItemSchema = z.looseObject({
  event: z.string(),
  stage: SubAgentStageSchema,
  config: AgentConfigSchema,
  agent_result: z.unknown(),
  sub_agent_result: z.unknown().meta({ description: 'same as agent_result (upstream alias)' }),
});

/** The apply status of one task's file changes (upstream's shape). */
export const FileChangesStatusSchema = z.looseObject({
  success: z.boolean(),
  total_count: z.number(),
  success_count: z.number(),
  fail_count: z.number(),
  items: z.array(
    z.looseObject({
      file_path: z.string(),
      kind: z.string(),
      success: z.boolean(),
      error_msg: z.string().optional().meta({ description: "a failed change: AIPack's message (No changes applied to 'src/a.ts')" }),
      error_hunks: z
        .array(z.looseObject({ hunk_body: z.string(), cause: z.string() }))
        .optional()
        .meta({ description: 'a failed patch: each hunk that did not apply, with its cause' }),
    }),
  ),
});

/** One change that failed to apply, as upstream lists them (`files_changes_failed`). */
export const FailedChangeSchema = z.looseObject({
  path: z.string(),
  error_msg: z.string(),
  error_hunks: z.array(z.looseObject({ hunk_body: z.string(), cause: z.string() })).optional(),
  total_count: z.number().meta({ description: 'the hunks the change had (AIPack), else the failed ones' }),
  kind: z.string(),
  changes_info: LuaTableSchema.meta({ description: 'upstream: { failed_changes = { { reason, search } } }' }),
});

/**
 * One `coder_responses` item as upstream gives it to an event-form post sub-agent. This pack's items also carry the
 * stage-form fields (task_num, content, files_changed, files_failed), which upstream's do not.
 */
export const EventResponsesItemSchema = z.looseObject({
  content_extruded: z.string().meta({ description: 'the answer without its <FILE_CHANGES> block (leading whitespace removed, trailing kept)' }),
  file_changes_status: FileChangesStatusSchema.meta({ description: 'the apply status; after auto-fix, rebuilt to say what it repaired' }),
  files_changes_failed: z.array(FailedChangeSchema).meta({ description: 'the changes that still fail' }),
  deferred_failure_report: z.boolean().meta({ description: 'upstream: failures left to After All; false by the time post sub-agents read it' }),
  content_raw_path: z.string().meta({ description: 'the file the raw answer was saved to (workspace-relative)' }),
  auto_fix: z
    .looseObject({
      enabled: z.boolean(),
      max_retries: z.number(),
      model: z.unknown().optional(),
      base_eligible: z.boolean(),
      single_task: z.boolean(),
      eligible: z.boolean(),
      ineligible_reason: z.string().optional(),
    })
    .meta({ description: 'the resolved auto_fix settings (ineligible_reason = "multi_task" on a run of several tasks)' }),
  auto_fix_result: z
    .looseObject({
      files_changed: z.array(z.looseObject({ path: z.string(), status: z.string(), kind: z.string().optional() })),
      file_changes_status: FileChangesStatusSchema,
      remaining_failed_changes: z.array(FailedChangeSchema),
      attempts: z.number(),
      auto_fix_attempts_with_fixes: z.number(),
      auto_fix_files_fixed: z.number(),
      auto_fix_hunks_fixed: z.number(),
    })
    .optional()
    .meta({ description: 'when auto-fix ran: what it repaired' }),
});

/**
 * The input of an event-form entry: upstream pro@coder's fields. This pack passes the stage-form fields too
 * (coder_stage, coder_prompts; in post the stage-form coder_responses fields), so that agents written against
 * either keep working, but an agent reading them would not run unchanged under upstream's pack: the checker names
 * them.
 */
const eventInputShape = {
  event: EventSchema.meta({ description: 'the event being dispatched: start, end, or an emitted one' }),
  coder_prompt_dir: z.string().meta({
    description: 'the folder of the prompt file as the prompt path was given, as upstream: workspace-relative by default (e.g. ./prompts/x), not resolved',
  }),
  coder_params: LuaTableSchema.meta({
    description: 'the current params without sub_agents, with the glob lists ({} when absent)',
  }),
  coder_prompt: z.string().meta({ description: 'the current instruction' }),
  agent_config: AgentConfigSchema,
  sub_agents_prev: z
    .array(EventHistoryItemSchema)
    .meta({ description: 'sub-agents already run in this dispatch chain, in order' }),
  sub_agents_next: z.array(AgentConfigSchema).meta({ description: 'the entries after this one in the dispatch' }),
  coder_redo_count: z.number().int().min(0).meta({ description: 'CTX.RUN_FLOW_REDO_COUNT (0 on a first run)' }),
  coder_workbench: CoderWorkbenchSchema.optional().meta({ description: "the run's workbench (always given by the pack)" }),
};

export const EventInputSchemas = {
  pre: z.object({ stage: z.literal('pre'), ...eventInputShape }).meta({ title: 'event-form input (pre)' }),
  post: z
    .object({
      stage: z.literal('post'),
      ...eventInputShape,
      coder_responses: z.array(EventResponsesItemSchema),
      coder_context_file_refs: z.array(FileRefSchema).meta({ description: 'the context files ({} when none)' }),
      coder_knowledge_file_refs: z.array(FileRefSchema).meta({ description: 'the knowledge files ({} when none)' }),
      coder_working_file_refs: z.array(FileRefSchema).optional().meta({ description: 'the working files, when there are some' }),
    })
    .meta({ title: 'event-form input (post)' }),
} as const;

/** Stage-form input fields an event-form input carries as well (not upstream's). */
export const EVENT_INPUT_EXTRA_FIELDS = ['coder_stage', 'coder_prompts'] as const;

// ---------------------------------------------------------------------------------------------------------------
// Section 3: the response table

const PARAMS_STAGES: SubAgentStage[] = ['pre', 'pre_task'];
/**
 * The event form's stages that use coder_params / coder_prompt: start (pre), and end (post), where upstream merges
 * them into the later end sub-agents' input; `x-lax-stages` marks the use there as lax (warned).
 */
const EVENT_PARAMS_STAGES: SubAgentStage[] = ['pre', 'post'];

export const ResponseSchema = z
  .looseObject({
    success: z.boolean().optional().meta({ description: 'default true; false fails the run' }),
    error_msg: z.string().optional().meta({ description: 'present: the run fails, whatever success says' }),
    error_details: z.string().optional().meta({ description: 'appended to the failure message' }),
    coder_params: LuaTableSchema.optional().meta({
      description:
        'stage form: replaces the params; event form: merged into them (keys it omits stay); at end merged into what the later end sub-agents receive (lax, warned); a sub_agents key in it is removed before use',
      'x-stages': PARAMS_STAGES,
      'x-event-stages': EVENT_PARAMS_STAGES,
      'x-lax-stages': ['post'],
      'x-ignored-keys': { pre: ['sub_agents'], pre_task: ['input_concurrency', 'sub_agents', 'working_globs'] },
    }),
    coder_prompts: z
      .array(z.string())
      .optional()
      .meta({ description: 'replaces the prompt segments', 'x-stages': PARAMS_STAGES }),
    coder_prompt: z.string().optional().meta({
      description: 'same as coder_prompts = { coder_prompt }; event form at end: what the later end sub-agents receive (lax, warned)',
      'x-stages': PARAMS_STAGES,
      'x-event-stages': EVENT_PARAMS_STAGES,
      'x-lax-stages': ['post'],
      'x-exclusive-with': 'coder_prompts',
    }),
    coder_response: z
      .looseObject({ content: z.string() })
      .optional()
      .meta({ description: 'replaces the AI text before file changes are applied', 'x-stages': ['post_task'] }),
    agent_result: z.any().optional().meta({ description: 'stored in the history passed to later sub-agents' }),
    sub_agents_next: AgentEntriesSchema.optional().meta({
      description: 'normalised, then replaces the not-yet-run tail of this stage run',
    }),
    emit_events: z.array(EventSchema).optional().meta({
      description: 'event form: events queued and dispatched after the current dispatch, in order',
      'x-stages': [...EVENT_FORM_STAGES],
      'x-form': 'event',
    }),
    agent_on: z.union([EventSchema, z.array(EventSchema).min(1)]).optional().meta({
      description: 'event form: the events this entry listens to from now on',
      'x-stages': ['pre'],
      'x-form': 'event',
    }),
    coder_redo: z.boolean().optional().meta({
      description: 'event form: true asks for a new run of the coder (aip.flow.redo_run), capped',
      'x-stages': ['post'],
      'x-form': 'event',
    }),
  })
  .meta({ title: 'sub-agent response' });

// ---------------------------------------------------------------------------------------------------------------
// Types

export type AgentEntry = z.input<typeof AgentEntrySchema>;
export type AgentEntryTable = z.input<typeof AgentEntryTableSchema>;
export type AgentConfig = z.infer<typeof AgentConfigSchema>;
export type SubAgentResponse = z.infer<typeof ResponseSchema>;
export type SubAgentInput<S extends SubAgentStage = SubAgentStage> = z.infer<(typeof SubAgentInputSchemas)[S]>;
export type EventInput<S extends keyof typeof EventInputSchemas = keyof typeof EventInputSchemas> = z.infer<(typeof EventInputSchemas)[S]>;
/** The two forms of an entry (section 7): `on` given = event form. */
export type EntryForm = 'stage' | 'event';
export type CoderTask = z.infer<typeof CoderTaskSchema>;
