/** The `sub_agents` contract's constants (pack/SUB_AGENTS.md): stages, events, caps, the keys the pack reads. */
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
