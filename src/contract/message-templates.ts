/**
 * The contract's message templates (sections 3 and 4). `{name}` placeholders are filled by messages.ts (TS) and by
 * the generated Lua (`fill`), from these same strings.
 */
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
