/**
 * The `sub_agents` contract (pack/SUB_AGENTS.md), stated once, as zod schemas.
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
import { z } from 'zod';

// ---------------------------------------------------------------------------------------------------------------
// Constants

export const STAGES = ['pre', 'pre_task', 'post_task', 'post'] as const;
export type SubAgentStage = (typeof STAGES)[number];

/** A stage run executes at most this many sub-agents (section 3). */
export const MAX_STEPS = 100;
/** Sub-agents need this AIPack version or above (section 4). */
export const MIN_AIPACK_VERSION = '0.8.15';

/** Defaults filled in by normalisation (section 1). */
export const DEFAULT_ENABLED = true;
export const DEFAULT_STAGES: readonly SubAgentStage[] = ['pre'];

/**
 * The events the pack sends (section 7) and the stage that sends each. An entry giving `on` is in the event form:
 * it runs when an event it listens to is dispatched, by upstream pro@coder's rules. Other events are the ones
 * sub-agents emit (`emit_events`).
 */
export const EVENT_STAGES = { start: 'pre', end: 'post' } as const satisfies Record<string, SubAgentStage>;
export type CoderEvent = keyof typeof EVENT_STAGES;
export const EVENTS = Object.keys(EVENT_STAGES) as CoderEvent[];
/** Stages in which event-form entries run (those that send an event). */
export const EVENT_FORM_STAGES = ['pre', 'post'] as const satisfies readonly SubAgentStage[];

/** At most this many dispatches (the sent event, then each emitted one) per stage run, as upstream (section 7). */
export const MAX_DISPATCHES = 100;
/** A post sub-agent may ask for at most this many new runs of the coder (`coder_redo`), as upstream. */
export const MAX_REDOS = 20;
/** Keys removed from an event-form response's coder_params before the merge, as upstream. */
export const EVENT_PARAMS_CLEARED = ['auto_context', 'chat', 'sub_agents'] as const;
/** Glob params an event-form input always carries ({} when absent), as upstream's pipeline sets them. */
export const EVENT_GLOB_DEFAULT_KEYS = [
  'context_globs',
  'structure_globs',
  'knowledge_globs',
  'context_globs_pre',
  'context_globs_post',
  'knowledge_globs_pre',
  'knowledge_globs_post',
] as const;
/** Upstream's workbench entries: a root key there, not a sub-agent, so never accepted in `sub_agents`. */
export const WORKBENCH_AGENT_NAMES = ['pro@coder/workbench', 'pro@coder/dev'] as const;
/** Sent at pre once the `start` queue is done, to event-form entries only, as upstream's workbench sends it. */
export const WORKBENCH_DONE_EVENT = 'workbench::done';

/**
 * The keys each built-in sub-agent reads from its own entry (docs/builtins.md): on its entry they are settings,
 * not typos, whatever the entry's form.
 */
export const BUILTIN_ENTRY_KEYS = {
  'pro@coder/code-map': ['globs', 'named_maps', 'model', 'cache_dir', 'base_dir', 'include_kinds', 'input_concurrency', 'max_file_size_kb'],
  'pro@coder/auto-context': [
    'model', 'code_map_model', 'mode', 'knowledge', 'include_kinds', 'input_concurrency', 'code_map_input_concurrency',
    'helper_globs', 'cache_explicit', 'max_file_size_kb',
  ],
  'pro@coder/auto-fix': ['failures', 'model', 'max_retries'],
} as const satisfies Record<string, readonly string[]>;

/** Glob params set to {} before `pre` when absent, so a sub-agent can append without nil checks (section 2). */
export const GLOB_DEFAULT_KEYS = ['context_globs', 'structure_globs', 'knowledge_globs'] as const;

/** The response fields each stage adopts from a success (section 3); everything else is ignored there. */
export const STAGE_ADOPTS = {
  pre: ['coder_params', 'coder_prompts'],
  pre_task: ['coder_params', 'coder_prompts'],
  post_task: ['coder_response'],
  post: [],
} as const satisfies Record<SubAgentStage, readonly string[]>;

/**
 * The coder params (meta block keys) the pack knows. `supported`: read by the pack. `not_implemented`: an
 * upstream pro@coder key this pack accepts but does not act on (the pack prints a warning naming it; the harness
 * warns), unless it is switched off (`false`, or a table with `enabled = false`). Any other key is unknown: the
 * pack and the harness warn, `--strict` fails the case.
 */
export const CODER_PARAM_KEYS = {
  supported: [
    'knowledge_globs',
    'knowledge_globs_pre',
    'knowledge_globs_post',
    'base_dir',
    'context_globs',
    'context_globs_pre',
    'context_globs_post',
    'structure_globs',
    'working_globs',
    'input_concurrency',
    'write_mode',
    'file_content_mode',
    'model',
    'temperature',
    'top_p',
    'model_aliases',
    'max_size_kb',
    'max_files_size_kb',
    'cache_explicit',
    'suggest_git_commit',
    'default_language',
    'attachments',
    'sub_agents',
    'auto_context',
    'auto_fix',
    'max_file_size_kb',
    'record',
    'workbench',
    'dev',
    'workbench_data_globs',
    'udiffx_inst_debug',
    'explicit_code_map_selections',
  ],
  not_implemented: {} as Record<string, string>,
} as const;

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
// Sections 3 and 4: message templates. `{name}` placeholders are filled by messages.ts (TS) and by the generated
// Lua (`fill`), from these same strings.

export const MESSAGE_TEMPLATES = {
  failed: 'Sub-agent [{name}] failed: {error}',
  failedDetails: '\nDetails: {details}',
  noErrorMsg: 'no error_msg given',
  invalid: 'Sub-agent [{name}] returned an invalid response: {what}',
  raised: 'Sub-agent [{name}] failed: {error}',
  stepCap: 'Sub-agent pipeline exceeded {max} steps in stage {stage}',
  version: 'Sub-agents require AIPack {min} or above (current: {current})',
  notFound: 'Sub-agent [{name}] not found: {path} does not exist (a name is a path from the workspace root; checked before the run, before any model call)',
  notFoundOutside:
    'Sub-agent [{name}] not found: {path} is outside the workspace ({workspace}): it does not exist, or this runtime does not read there (the simulator reads agents only inside the workspace and the packs; a name is a path from the workspace root)',
  /** pack and harness warnings (run time; --strict fails them in contract tests) */
  unknownEntryKey:
    "{label}: unknown key '{key}' (kept, the agent reads it as input.agent_config.{key}; put an agent's own settings under config = { ... }, which is never warned about)",
  droppedParams:
    'Sub-agent [{name}] returned coder_params without {keys}: in the stage form the returned table replaces the params, so they are gone (written for upstream pro@coder, whose coder_params are merged? give its entry on = "start")',
  /** event form (upstream's wording where upstream has one) */
  unknownError: 'Unknown error',
  notTableEvent: 'Sub-agent [{name}] failed: invalid response type, expected table or nil',
  dispatchCap: 'Sub-agent pipeline exceeded max steps ({max}).',
  workbenchEntry:
    'Unsupported workbench sub-agent `{name}` configured in `sub_agents`: the workbench is the root key `workbench:`, not a sub-agent',
  redoRequested: 'Post-stage sub-agent requested a coder rerun.\n\nRedo count: {count}\nCap: {max}\n\nStarting a new coder run.',
  redoCapReached:
    'Post-stage sub-agent requested a coder rerun, but the redo cap was reached.\n\nRedo count: {count}\nCap: {max}\n\nNo additional coder rerun will be started.',
  redoUncounted:
    'Post-stage sub-agent requested a coder rerun, but this AIPack ({current}) has no CTX.RUN_FLOW_REDO_COUNT (0.8.22 and above) to cap the reruns: no rerun is started',
  unknownEntryKeyNear: "{label}: unknown key '{key}' (did you mean '{near}'? kept, the agent reads it as input.agent_config.{key})",
  eventNeverSent:
    "{label} ({name}) listens to '{event}', which the pack never sends (it sends 'start' and 'end'; a sub-agent emits events named 'ns::event'): it never runs{hint}",
  eventNotListened: "Sub-agent [{name}] emitted '{event}', which no entry listens to: nothing runs for it{hint}",
  didYouMean: " (did you mean '{near}'?)",
  unknownParam: "unknown prompt parameter '{key}': it is ignored",
  notImplementedParam: "prompt parameter '{key}' is not supported by this pack ({why}): it is ignored",
  /**
   * Lax forms: upstream pro@coder accepts them and so does this pack, doing what upstream does, with one warning
   * naming the entry and the stricter form (the event form's rule, section 7).
   */
  laxOnEmpty: '{label} ({name}): on = [] lists no event; upstream pro@coder runs it at start, and so does this pack (write on = "start")',
  laxOnBlank: '{label} ({name}): on lists an empty event name; upstream pro@coder drops it, and so does this pack (write on = {events})',
  laxEmitString:
    'Sub-agent [{name}] returned emit_events as a string: upstream pro@coder ignores it, and so does this pack: nothing is emitted (write emit_events = {list})',
  laxEmitBlank: 'Sub-agent [{name}] returned an empty name in emit_events: upstream pro@coder drops it, and so does this pack (write emit_events = {list})',
  laxEndParams:
    'Sub-agent [{name}] returned {keys} at end: upstream pro@coder merges them into what the later end sub-agents receive, and so does this pack; nothing else changes (return them at start to change the run)',
  laxAutoContextEmpty:
    'auto-context: {what}: upstream pro@coder takes it as an empty selection, and so does this pack (the model should answer <{tag}>["path", ...]</{tag}>)',
  laxAutoContextOutside:
    'auto-context: the answer selects {paths}, not among the candidates it was shown: upstream pro@coder includes them, and so does this pack (select only listed files)',
} as const;

/** The message keys of the lax forms (they are printed as `WARNING: <message>`). */
export type LaxMessage = Extract<keyof typeof MESSAGE_TEMPLATES, `lax${string}`>;

/** Wording of validation messages that no field definition carries. */
export const CHECK_TEMPLATES = {
  /** a `sub_agents` value that is not a list */
  notList: '{label} must be a list of agent names or tables',
  /** an entry that is neither a string nor a table */
  badEntry: '{label}: must be an agent name or a table, got {got}',
  /** any other problem of one entry */
  entry: '{label}: {what}',
  /** the response itself is not a table */
  notTable: 'response must be a table, got {got}',
  /** a value of the wrong type */
  type: '{path} must be {expected}, got {got}',
  /** what `got` says for a table that is not a list */
  gotNonList: 'table (not a list)',
  /** what `got` says for an empty string where a non-empty one is required */
  gotEmptyString: 'empty string',
  /** what `got` says for a string outside an enum */
  gotString: '"{value}"',
  /** a list that must not be empty */
  empty: '{path} must not be empty',
  /** two fields that exclude each other */
  exclusive: '{other} and {path} cannot both be given',
} as const;

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
