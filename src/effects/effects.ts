/**
 * What one sub-agent's response does to the coder, computed from the sub-agent's input table and its raw
 * response (pack/SUB_AGENTS.md sections 2-4). Pure data analysis: no runtime, no harness. The contract itself (which
 * fields exist, which stage uses which, the messages) comes from src/contract; this module only compares.
 *
 * Used by the contract-test harness (src/harness) and by reports of simulated runs.
 */
import {
  EVENT_PARAMS_CLEARED,
  RESPONSE_FIELDS,
  checkResponse,
  relaxResponse,
  entryForm,
  ignoredFields,
  luaEqual,
  luaList,
  luaType,
  messages,
  tableEntries,
  type EntryForm,
  type SubAgentStage,
} from '../contract/index.ts';
import { field, isEmptyTable } from '../contract/lua-values.ts';
import { suggest } from '../support/suggest.ts';

/** What a response does to `coder_params`. Key lists are top-level keys, sorted; `sub_agents` never counts. */
export interface ParamsEffect {
  /** the stage adopts `coder_params` (pre, pre_task) and the response gave it */
  replaced: boolean;
  added: string[];
  changed: string[];
  /** keys of the input's `coder_params` that the returned table drops (they are gone after the stage) */
  removed: string[];
  /** the input's params, without `sub_agents` */
  before: Record<string, unknown>;
  /** the params the stage continues with (the input's when not replaced), without `sub_agents` */
  after: Record<string, unknown>;
}

export interface PromptsEffect {
  /** the stage adopts `coder_prompts`/`coder_prompt` and the response gave one of them */
  replaced: boolean;
  /** replaced with a different list */
  changed: boolean;
  before: string[];
  after: string[];
}

export interface ResponseEffect {
  /** `post_task` only: the response gave `coder_response`, so the AI text is replaced */
  replaced: boolean;
  /** the text before (the input's `coder_response.content`) */
  before?: string;
  /** the text the coder applies */
  after?: string;
}

export interface UnknownKey {
  key: string;
  /** a known response field the key is probably a typo of */
  suggestion?: string;
}

export interface StageEffect {
  stage: SubAgentStage;
  /** the entry's form: `event` (it gives `on`: upstream's rules, params merged) or `stage` */
  form: EntryForm;
  /** the sub-agent's name as configured (`agent_config.name` of the input) */
  agent: string;
  /** `nil`: no response (nothing changes); `table`: a response table; `invalid`: anything else */
  response: 'nil' | 'table' | 'invalid';
  /** the failure the pipeline reports for this response (invalid response, success = false, error_msg, raised) */
  error?: string;
  params: ParamsEffect;
  prompts: PromptsEffect;
  coderResponse: ResponseEffect;
  /** response fields (or keys of them) that this stage ignores: `coder_params` in post, ... */
  ignored: string[];
  /** top-level response keys the contract does not know */
  unknownKeys: UnknownKey[];
  /** the returned `coder_params` holds a `sub_agents` key (it is removed before use) */
  subAgentsInParams: boolean;
  /** the response gave `sub_agents_next` (it replaces the not-yet-run tail of the stage run) */
  subAgentsNext: boolean;
  agentResult?: unknown;
  /** event form: the events the response queues (`emit_events`), in order */
  emits: string[];
  /** event form, pre: what the entry listens to from now on (`agent_on`) */
  agentOn?: string[];
  /** event form, post: the response asks for a new run of the coder (`coder_redo = true`) */
  redo: boolean;
  /** anything the coder continues with differs: params, prompts or the AI text */
  changed: boolean;
}

export interface AnalyzeOptions {
  /** an error raised by `aip.agent.run` for this sub-agent (then there is no response) */
  raised?: unknown;
}

const ADOPTS: Record<SubAgentStage, { params: boolean; prompts: boolean; response: boolean }> = {
  pre: { params: true, prompts: true, response: false },
  pre_task: { params: true, prompts: true, response: false },
  post_task: { params: false, prompts: false, response: true },
  post: { params: false, prompts: false, response: false },
};
/**
 * The event form adopts params and prompt at pre, and at post, where upstream merges them into what the later end
 * sub-agents receive and nothing else (a lax form, warned by the pack; section 7).
 */
const EVENT_ADOPTS: typeof ADOPTS = {
  pre: ADOPTS.pre,
  pre_task: ADOPTS.post,
  post_task: ADOPTS.post,
  post: { params: true, prompts: true, response: false },
};

const KNOWN_FIELDS = RESPONSE_FIELDS.map((f) => f.name);

/** nil and AIPack's null sentinel both mean "not given". */
const given = (v: unknown) => v !== undefined && v !== null;

function without(t: Record<string, unknown>, keys: readonly string[]): Record<string, unknown> {
  const copy = { ...t };
  for (const k of keys) delete copy[k];
  return copy;
}

function withoutSubAgents(t: unknown): Record<string, unknown> {
  const copy = tableEntries(t);
  delete copy.sub_agents;
  return copy;
}

/** The strings of a Lua list (other items skipped); [] for anything that is not a list. */
export function stringList(v: unknown): string[] {
  const items = luaList(v);
  return items ? items.filter((x): x is string => typeof x === 'string') : [];
}

const byCodeUnit = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

/** The failure message the pipeline reports for a checked response, or undefined when it succeeds. */
function failureOf(stage: SubAgentStage, name: string, response: unknown, opts: AnalyzeOptions, form: EntryForm): string | undefined {
  if (opts.raised !== undefined) return messages.raised(name, opts.raised);
  // the event form reports as the pack does (upstream's order and wording): the type, then a failure, then the rest
  if (form === 'event') {
    if (!given(response)) return undefined;
    if (luaType(response) !== 'table') return messages.notTableEvent(name);
    const errorMsg = field(response, 'error_msg');
    if (field(response, 'success') === false || given(errorMsg)) {
      const details = field(response, 'error_details');
      return messages.failed(name, given(errorMsg) ? (errorMsg as string) : undefined, given(details) ? (details as string) : undefined, 'event');
    }
  }
  const what = checkResponse(stage, response, form);
  if (what !== undefined) return messages.invalid(name, what);
  if (luaType(response) !== 'table') return undefined;
  const errorMsg = field(response, 'error_msg');
  if (field(response, 'success') === false || given(errorMsg)) {
    const details = field(response, 'error_details');
    return messages.failed(name, given(errorMsg) ? (errorMsg as string) : undefined, given(details) ? (details as string) : undefined);
  }
  return undefined;
}

/**
 * A sub-agent's response as the pipeline picks it from its run (pack/SUB_AGENTS.md section 1): `after_all`, else
 * `outputs[1]`. A null in either is a nil for Lua, so it means no response there.
 */
export function pickResponse(run: { afterAll?: unknown; outputs?: unknown[] }): unknown {
  return run.afterAll ?? run.outputs?.[0] ?? undefined;
}

/**
 * The effect of one sub-agent response in `stage`. `input` is the table the sub-agent received (section 2),
 * `response` what it returned (its After All value, else its first output; undefined for nil).
 */
export function analyzeEffect(stage: SubAgentStage, input: unknown, response: unknown, opts: AnalyzeOptions = {}): StageEffect {
  const config = field(input, 'agent_config');
  const name = typeof field(config, 'name') === 'string' ? (field(config, 'name') as string) : '?';
  const paramsBefore = withoutSubAgents(field(input, 'coder_params'));
  const promptsBefore = stringList(field(input, 'coder_prompts'));
  const responseBefore = field(field(input, 'coder_response'), 'content');
  const form = entryForm(config);
  // the event form reads emit_events as upstream does (a string is ignored, empty names dropped; the pack warns)
  if (form === 'event') response = relaxResponse(response);
  const t = luaType(response);
  const error = failureOf(stage, name, response, opts, form);
  const usable = error === undefined && t === 'table';
  const adopts = (form === 'event' ? EVENT_ADOPTS : ADOPTS)[stage];

  const params: ParamsEffect = { replaced: false, added: [], changed: [], removed: [], before: paramsBefore, after: paramsBefore };
  const returnedParams = field(response, 'coder_params');
  if (usable && adopts.params && given(returnedParams)) {
    const returned = withoutSubAgents(returnedParams);
    // the event form merges the keys it gives, after upstream's cleared keys are removed
    const after = form === 'event' ? { ...paramsBefore, ...without(returned, EVENT_PARAMS_CLEARED) } : returned;
    params.replaced = true;
    params.after = after;
    for (const key of Object.keys(after).sort(byCodeUnit)) {
      if (!(key in paramsBefore)) params.added.push(key);
      else if (!luaEqual(paramsBefore[key], after[key])) params.changed.push(key);
    }
    params.removed = Object.keys(paramsBefore).filter((k) => !(k in after)).sort(byCodeUnit);
  }

  const prompts: PromptsEffect = { replaced: false, changed: false, before: promptsBefore, after: promptsBefore };
  if (usable && adopts.prompts) {
    // at end the event form takes coder_prompt only, as upstream (coder_prompts is the stage form's)
    const list = form === 'event' && stage === 'post' ? undefined : field(response, 'coder_prompts');
    const one = field(response, 'coder_prompt');
    if (given(list)) prompts.after = stringList(list);
    else if (given(one)) prompts.after = [one as string];
    prompts.replaced = given(list) || given(one);
    prompts.changed = prompts.replaced && !luaEqual(prompts.before, prompts.after);
  }

  const coderResponse: ResponseEffect = {
    replaced: false,
    before: typeof responseBefore === 'string' ? responseBefore : undefined,
    after: typeof responseBefore === 'string' ? responseBefore : undefined,
  };
  const returnedResponse = field(response, 'coder_response');
  if (usable && adopts.response && given(returnedResponse)) {
    coderResponse.replaced = true;
    coderResponse.after = field(returnedResponse, 'content') as string;
  }

  const unknownKeys: UnknownKey[] = [];
  if (t === 'table' && !Array.isArray(response)) {
    for (const key of Object.keys(response as object).sort(byCodeUnit)) {
      if (KNOWN_FIELDS.includes(key)) continue;
      const suggestion = suggest(key, KNOWN_FIELDS);
      unknownKeys.push(suggestion ? { key, suggestion } : { key });
    }
  }

  const ignored = t === 'table' ? ignoredFields(stage, response, input, form) : [];
  // the event form's requests, only where the stage acts on them (an ignored field is reported as ignored)
  const acted = (key: string) => usable && form === 'event' && !ignored.includes(key) && given(field(response, key));
  const emits = acted('emit_events') ? stringList(field(response, 'emit_events')) : [];
  const agentOnValue = field(response, 'agent_on');
  const agentOn = acted('agent_on') ? (typeof agentOnValue === 'string' ? [agentOnValue] : stringList(agentOnValue)) : undefined;
  const redo = acted('coder_redo') && field(response, 'coder_redo') === true;

  const subAgentsInParams = t === 'table' && luaType(returnedParams) === 'table' && given(field(returnedParams, 'sub_agents'));
  const agentResult = field(response, 'agent_result');
  const changed =
    (params.replaced && (params.added.length + params.changed.length + params.removed.length > 0)) ||
    prompts.changed ||
    (coderResponse.replaced && coderResponse.after !== coderResponse.before);

  return {
    stage,
    form,
    agent: name,
    response: t === 'nil' ? 'nil' : t === 'table' ? 'table' : 'invalid',
    ...(error !== undefined ? { error } : {}),
    params,
    prompts,
    coderResponse,
    ignored,
    unknownKeys,
    subAgentsInParams,
    subAgentsNext: given(field(response, 'sub_agents_next')),
    ...(given(agentResult) ? { agentResult } : {}),
    emits,
    ...(agentOn ? { agentOn } : {}),
    redo,
    changed,
  };
}

const list = (keys: string[]) => keys.join(', ');

/**
 * The warnings an effect deserves: things that are allowed but are usually mistakes. Each is one line and says
 * what happens.
 */
export function effectWarnings(effect: StageEffect): string[] {
  const out: string[] = [];
  // a dropped empty table (the glob defaults set before pre) reads as nil anyway: not worth a warning
  const dropped = effect.params.removed.filter((k) => !isEmptyTable(effect.params.before[k]));
  if (effect.params.replaced && dropped.length > 0) {
    out.push(
      `coder_params drops ${list(dropped)}: the returned table replaces the params, so dropped keys are gone ` +
        `(return a modified copy of input.coder_params to keep them)`,
    );
  }
  for (const u of effect.unknownKeys) {
    out.push(`unknown response key '${u.key}'${u.suggestion ? ` (did you mean '${u.suggestion}'?)` : ''}: it is ignored`);
  }
  if (effect.subAgentsInParams) {
    out.push('coder_params contains sub_agents: it is removed before use (a sub-agent changes the pipeline with sub_agents_next)');
  }
  const ignored = effect.ignored.filter((f) => f !== 'coder_params.sub_agents');
  if (ignored.length > 0) out.push(`${effect.stage} ignores ${list(ignored)}`);
  return out;
}
