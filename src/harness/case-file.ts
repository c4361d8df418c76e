/**
 * Contract case files (`*.contract.toml`): their zod schema, and the loader that turns a file into checked cases.
 * Every problem is reported as a CaseFileError naming the file, the case and the key, and what was expected.
 *
 *   agent = "prompt-refiner.aip"        # relative to this file, or ns@pack/name
 *   support = ["templates"]             # optional: more files/dirs (relative to this file) the agent needs
 *   [[case]]
 *   name = "adds a focus line"
 *   stage = "pre"
 *   ...
 *   [case.expect]
 *   ...
 */
import { exists, readText } from '../support/host-fs.ts';
import nodePath from 'node:path';
import { parse as parseToml, TomlError } from 'smol-toml';
import { z } from 'zod';
import { configStages, eventStage, normalizeEntry, SubAgentStageSchema, WORKBENCH_DONE_EVENT, type SubAgentStage } from '../contract/index.ts';
import { relativeKeyProblem } from '../support/paths.ts';
import { suggest } from '../support/suggest.ts';

/** A problem of a case file (or of a runStage request): the CLI exits with code 2. */
export class CaseFileError extends Error {
  constructor(
    message: string,
    readonly file: string,
    readonly caseName?: string,
    readonly key?: string,
  ) {
    super(message);
    this.name = 'CaseFileError';
  }
}

// ---------------------------------------------------------------------------------------------------------------
// Schema

const Table = z.record(z.string(), z.unknown());
const StringList = z.array(z.string());
const FileMap = z.record(z.string(), z.string());

const AiAnswerTableSchema = z.strictObject({
  content: z.string(),
  model: z.string().optional(),
  match: z.string().optional(),
  agent: z.string().optional(),
  reusable: z.boolean().optional(),
});

const AiAnswerSchema = z.union([z.string(), AiAnswerTableSchema], {
  error: 'expected a string, or a table { content, model?, match?, agent?, reusable? }',
});

const TaskSchema = z.strictObject({
  num: z.number().int().min(1).optional(),
  count: z.number().int().min(1).optional(),
  working_files: StringList.optional(),
});

const UsageSchema = z.strictObject({ prompt_tokens: z.number().optional(), completion_tokens: z.number().optional() });

const CoderResponseTableSchema = z.strictObject({
  content: z.string(),
  model_name: z.string().optional(),
  usage: UsageSchema.optional(),
});

const CoderResponseSchema = z.union([z.string(), CoderResponseTableSchema], {
  error: 'expected a string, or a table { content, model_name?, usage? }',
});

/** The event form's own fields of a task's answer (content_extruded, file_changes_status, content_raw_path). */
export const EVENT_RESPONSE_FIELDS = ['content_extruded', 'file_changes_status', 'content_raw_path'] as const;

const ResponsesItemSchema = z.strictObject({
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

const PrevItemSchema = z.strictObject({
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

// ---------------------------------------------------------------------------------------------------------------
// Error wording

/** The known keys of the table at a zod path, for "did you mean". */
function keysAt(path: PropertyKey[]): string[] {
  const p = path.map(String);
  if (p.length === 0) return Object.keys(CaseFileSchema.shape);
  if (p[0] !== 'case') return [];
  if (p.length === 2) return Object.keys(CaseSchema.shape);
  const k = p[2];
  if (p.length === 3 && k === 'expect') return Object.keys(ExpectSchema.shape);
  if (p.length === 3 && k === 'task') return Object.keys(TaskSchema.shape);
  if (p.length === 4 && k === 'responses') return Object.keys(ResponsesItemSchema.shape);
  if (p.length === 4 && k === 'ai') return Object.keys(AiAnswerTableSchema.shape);
  if (p.length === 4 && k === 'prev') return Object.keys(PrevItemSchema.shape);
  if (p.length === 3 && k === 'response') return Object.keys(CoderResponseTableSchema.shape);
  if (p.length === 4 && k === 'response' && p[3] === 'usage') return Object.keys(UsageSchema.shape);
  return [];
}

/** A value's type in TOML words. */
function tomlType(v: unknown): string {
  if (v === undefined) return 'nothing';
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'an array';
  if (v instanceof Date) return 'a date/time';
  switch (typeof v) {
    case 'string':
      return 'a string';
    case 'number':
    case 'bigint':
      return Number.isInteger(Number(v)) ? 'an integer' : 'a float';
    case 'boolean':
      return 'a boolean';
    default:
      return 'a table';
  }
}

const EXPECTED: Record<string, string> = {
  string: 'a string',
  number: 'a number',
  int: 'an integer',
  boolean: 'a boolean',
  array: 'an array',
  object: 'a table',
  record: 'a table',
};

interface Issue {
  code: string;
  path: PropertyKey[];
  message: string;
  input?: unknown;
  expected?: string;
  keys?: string[];
  errors?: Issue[][];
  minimum?: number | bigint;
  origin?: string;
  values?: unknown[];
}

/** One line for a zod issue, without the location. */
function describeIssue(issue: Issue): string {
  switch (issue.code) {
    case 'invalid_type':
      if (issue.input === undefined) return `missing (expected ${EXPECTED[issue.expected ?? ''] ?? issue.expected})`;
      return `expected ${EXPECTED[issue.expected ?? ''] ?? issue.expected}, got ${tomlType(issue.input)}`;
    case 'invalid_value':
      return `expected one of ${(issue.values ?? []).map(String).join(', ')}, got ${JSON.stringify(issue.input)}`;
    case 'too_small':
      if (issue.origin === 'string') return 'must not be empty';
      if (issue.origin === 'array') return `must have at least ${issue.minimum} item${issue.minimum === 1 ? '' : 's'}`;
      return `must be at least ${issue.minimum}`;
    default:
      return issue.message;
  }
}

/** `unknown key 'promt' (did you mean 'prompt'?) (allowed: ...)`: the keys of a table that has no such keys. */
export function unknownKeysMessage(unknown: readonly string[], known: readonly string[]): string {
  const hint = unknown.map((k) => {
    const s = suggest(k, known);
    return s ? `'${k}' (did you mean '${s}'?)` : `'${k}'`;
  });
  const allowed = known.length > 0 ? ` (allowed: ${known.join(', ')})` : '';
  return `unknown key${unknown.length > 1 ? 's' : ''} ${hint.join(', ')}${allowed}`;
}

/** Where a zod path points, in the file's words: `case #2 "name"` and `expect.params`. */
function locate(raw: unknown, path: PropertyKey[]): { caseLabel?: string; caseName?: string; key: string } {
  const p = [...path];
  let caseLabel: string | undefined;
  let caseName: string | undefined;
  if (p[0] === 'case' && typeof p[1] === 'number') {
    const cases = (raw as { case?: unknown[] }).case;
    const name = Array.isArray(cases) ? (cases[p[1]] as { name?: unknown } | undefined)?.name : undefined;
    caseName = typeof name === 'string' && name !== '' ? name : undefined;
    caseLabel = `case #${p[1] + 1}${caseName ? ` ${JSON.stringify(caseName)}` : ''}`;
    p.splice(0, 2);
  }
  let key = '';
  for (const seg of p) key += typeof seg === 'number' ? `[${seg + 1}]` : key === '' ? String(seg) : `.${String(seg)}`;
  return { caseLabel, caseName, key };
}

function issueError(file: string, raw: unknown, issue: Issue): CaseFileError {
  // A union of "string or table" given a table: the table branch says what is wrong inside it.
  if (issue.code === 'invalid_union' && issue.errors && typeof issue.input === 'object' && issue.input !== null && !Array.isArray(issue.input)) {
    const branch = issue.errors[issue.errors.length - 1] ?? [];
    const inner = branch.find((i) => i.code === 'unrecognized_keys') ?? branch[0];
    if (inner) return issueError(file, raw, { ...inner, path: [...issue.path, ...inner.path] });
  }
  const loc = locate(raw, issue.path);
  const prefix = [file, loc.caseLabel, loc.key || undefined].filter(Boolean).join(': ');
  if (issue.code === 'unrecognized_keys') {
    const unknown = issue.keys ?? [];
    // the error's key is the first unknown key, not the table holding it
    const key = locate(raw, [...issue.path, unknown[0] ?? '']).key;
    return new CaseFileError(`${prefix}: ${unknownKeysMessage(unknown, keysAt(issue.path))}`, file, loc.caseName, key);
  }
  if (loc.key === 'case' && issue.input === undefined) {
    return new CaseFileError(`${file}: no [[case]] table: a case file needs at least one case`, file, undefined, 'case');
  }
  return new CaseFileError(`${prefix}: ${describeIssue(issue)}`, file, loc.caseName, loc.key);
}

// ---------------------------------------------------------------------------------------------------------------
// Loading

/** The stage inputs of a case or of a runStage request, as the schema reads them. */
type StageInputFields = Partial<z.infer<z.ZodObject<typeof stageInputShape>>> & { expect?: CaseExpect };

/**
 * The stage a case runs in: its `stage`, else the first stage its config's upstream `on` maps to
 * (pack/SUB_AGENTS.md section 7: start = pre, end = post), else pre.
 */
export function caseStage(stage: SubAgentStage | undefined, config: Record<string, unknown> | undefined): SubAgentStage {
  if (stage !== undefined) return stage;
  if (config?.on === undefined) return 'pre';
  const r = normalizeEntry({ ...config, name: 'x' }, 'config');
  return r.ok ? (configStages(r.config)[0] ?? 'pre') : 'pre';
}

/**
 * The event a case whose config gives `on` (and no case-level `on`) dispatches: the first of its events sent in
 * the case's stage (start at pre, end at post), else its first event another sub-agent emits.
 */
export function configEvent(config: Record<string, unknown> | undefined, stage: SubAgentStage): string | undefined {
  const on = config?.on;
  if (on === undefined) return undefined;
  const events = (Array.isArray(on) ? on : [on]).filter((e): e is string => typeof e === 'string' && e !== '');
  return events.find((e) => eventStage(e, stage) === stage && (e === 'start' || e === 'end')) ?? events.find((e) => e !== 'start' && e !== 'end');
}

/** Where a case runs: its stage, and for the event form the event dispatched there. */
export function caseTarget(c: Pick<StageInputFields, 'stage' | 'on' | 'during' | 'config'>): { stage: SubAgentStage; event?: string } {
  if (c.on !== undefined) {
    const stage = c.on === 'start' ? 'pre' : c.on === 'end' ? 'post' : c.during === 'end' ? 'post' : 'pre';
    return { stage, event: c.on };
  }
  const stage = caseStage(c.stage, c.config);
  const event = configEvent(c.config, stage);
  return event === undefined ? { stage } : { stage, event };
}

/** Events the pack sends itself: start and end, and workbench::done at pre once the start queue is done. */
const ROOT_EVENTS = ['start', 'end', WORKBENCH_DONE_EVENT];

/** What is wrong with a case's `on`, or undefined. */
function eventProblem(on: string): string | undefined {
  if (ROOT_EVENTS.includes(on)) return undefined;
  if (/^[^\s:]+::[^\s]+$/.test(on)) return undefined;
  const near = suggest(on, ROOT_EVENTS);
  return `unknown event '${on}'${near ? ` (did you mean '${near}'?)` : ''}: expected "start", "end" or an emitted event "ns::name"`;
}

/** The root event of the dispatch chain a stage runs: start at pre, end at post. */
export const chainRoot = (stage: SubAgentStage): string => (stage === 'post' ? 'end' : 'start');

/**
 * A prev's `event`: the case's event, or for an emitted one also its chain's root (those prevs ran before it was
 * emitted, so they come first). [key, message] or undefined.
 */
function prevEventProblem(prev: PrevItem[], stage: SubAgentStage, event: string | undefined): [string, string] | undefined {
  if (event === undefined) return undefined;
  const root = chainRoot(stage);
  const emitted = event !== root;
  let seenOwn = false;
  for (const [i, p] of prev.entries()) {
    const key = `prev[${i + 1}].event`;
    const ran: string = p.event ?? event;
    if (ran === event) {
      seenOwn = true;
      continue;
    }
    if (!emitted || ran !== root) {
      const allowed = emitted ? `"${root}" (the root of the chain that emits ${event}) or "${event}"` : `"${event}"`;
      return [key, `expected ${allowed}, got "${ran}"`];
    }
    if (seenOwn) return [key, `the prevs that ran at ${root} come first (they ran before ${event} was emitted)`];
  }
  return undefined;
}

/** The event form's own checks of a case: [key, message] or undefined. */
function eventFormProblem(c: StageInputFields): [string, string] | undefined {
  const e = c.expect ?? {};
  const eventForm = c.on !== undefined || c.config?.on !== undefined;
  if (c.on !== undefined && c.stage !== undefined) return ['on', 'give on (the event form) or stage (the stage form), not both'];
  if (c.on !== undefined) {
    const problem = eventProblem(c.on);
    if (problem) return ['on', problem];
  }
  if (c.during !== undefined && (c.on === undefined || ROOT_EVENTS.includes(c.on))) {
    const root = c.on === undefined ? '' : `; ${c.on} is dispatched at ${c.on === 'start' ? 'pre' : 'post'}`;
    return ['during', `only for an emitted event (on = "ns::name")${root}`];
  }
  if (c.on !== undefined && c.config?.on !== undefined) {
    const listens = (Array.isArray(c.config.on) ? c.config.on : [c.config.on]) as unknown[];
    if (!listens.includes(c.on)) return ['config.on', `listens to ${JSON.stringify(listens)}, not to the case's event ${JSON.stringify(c.on)}`];
  }
  if (!eventForm) {
    const i = (c.prev ?? []).findIndex((p) => p.event !== undefined);
    if (i >= 0) return [`prev[${i + 1}].event`, 'only in an event-form case (on = "...")'];
    const stageForm = (key: string, what: string): [string, string] => [key, `only an event-form case (on = "...") ${what}; give on instead of stage`];
    if (e.emit !== undefined) return stageForm('expect.emit', 'emits events');
    if (e.agent_on !== undefined) return stageForm('expect.agent_on', 'has agent_on');
    if (e.redo !== undefined) return stageForm('expect.redo', 'can ask for a redo');
    if (c.redo_count !== undefined) return stageForm('redo_count', 'gets coder_redo_count');
    for (const [i, r] of (c.responses ?? []).entries()) {
      const key = EVENT_RESPONSE_FIELDS.find((k) => r[k] !== undefined);
      if (key) return [`responses[${i + 1}].${key}`, 'only event-form agents receive it (on = "end")'];
    }
    return undefined;
  }
  const { stage, event } = caseTarget(c);
  const prevProblem = prevEventProblem(c.prev ?? [], stage, event);
  if (prevProblem) return prevProblem;
  if (stage === 'post' && e.agent_on !== undefined) {
    return ['expect.agent_on', `the pack honours agent_on only in the start dispatch chain (this case's event ${event} is dispatched at post)`];
  }
  if (stage === 'pre' && e.redo !== undefined) {
    return ['expect.redo', `a redo is asked at post only (on = "end", or an event emitted during end); this case's event ${event} is dispatched at pre`];
  }
  return undefined;
}

/** Checks of one case (or runStage request) that the schema cannot express: [key, message] or undefined. */
export function caseProblem(c: StageInputFields): [string, string] | undefined {
  const eventProblemOf = eventFormProblem(c);
  if (eventProblemOf) return eventProblemOf;
  const { stage } = caseTarget(c);
  const onlyIn = (key: string, stages: SubAgentStage[]): [string, string] =>
    [key, `only used in stage ${stages.join(' and ')} (this case's stage is ${stage})`];
  if (c.prompt !== undefined && c.prompts !== undefined) return ['prompts', 'give prompt or prompts, not both'];
  if (c.task !== undefined && stage !== 'pre_task' && stage !== 'post_task') return onlyIn('task', ['pre_task', 'post_task']);
  if (c.response !== undefined && stage !== 'post_task') return onlyIn('response', ['post_task']);
  if (c.responses !== undefined && stage !== 'post') return onlyIn('responses', ['post']);
  if (c.expect?.response !== undefined && stage !== 'post_task') return onlyIn('expect.response', ['post_task']);
  for (const key of ['name', 'stages'] as const) {
    if (c.config && key in c.config) {
      return [`config.${key}`, `set by the harness (name = the case file's agent, stages = { "${stage}" }); remove it`];
    }
  }
  if (c.params && 'sub_agents' in c.params) {
    return ['params.sub_agents', "set by the harness to this sub-agent's entry; put its extra keys in config"];
  }
  const e = c.expect ?? {};
  // the files a case writes and the files it reads back: one check, so neither can name a host file
  for (const [where, files] of [['files', c.files], ['expect.files', e.files]] as const) {
    for (const key of Object.keys(files ?? {})) {
      const problem = relativeKeyProblem(key);
      if (problem) return [`${where}.${JSON.stringify(key)}`, problem];
    }
  }
  if (e.error !== undefined) {
    try {
      new RegExp(e.error);
    } catch (err) {
      return ['expect.error', `invalid regex: ${(err as Error).message}`];
    }
    for (const key of ['params', 'params_contains', 'prompts', 'prompt', 'response', 'unchanged', 'agent_result', 'sub_agents_next', 'emit', 'agent_on', 'redo'] as const) {
      if (e[key] !== undefined) return [`expect.${key}`, 'cannot be combined with expect.error (a failed stage has no result)'];
    }
  }
  if (e.params && 'sub_agents' in e.params) return ['expect.params.sub_agents', 'sub_agents is never part of the compared params'];
  for (const [i, p] of (c.prev ?? []).entries()) {
    if (!p.name.endsWith('.aip') || nodePath.isAbsolute(p.name) || p.name.split(/[\\/]/).includes('..')) {
      return [`prev[${i + 1}].name`, `expected a workspace-relative .aip path (no leading /, no ..), got '${p.name}'`];
    }
    for (const key of ['name', 'stages', 'on'] as const) {
      if (p.config && key in p.config) return [`prev[${i + 1}].config.${key}`, 'set by the harness; remove it'];
    }
  }
  for (const [i, a] of (e.ai_prompts ?? []).entries()) {
    if (typeof a === 'object') {
      try {
        new RegExp(a.match);
      } catch (err) {
        return [`expect.ai_prompts[${i + 1}].match`, `invalid regex: ${(err as Error).message}`];
      }
    }
  }
  if (c.ai) {
    for (const [i, a] of c.ai.entries()) {
      if (typeof a === 'object' && a.match !== undefined) {
        try {
          new RegExp(a.match);
        } catch (err) {
          return [`ai[${i + 1}].match`, `invalid regex: ${(err as Error).message}`];
        }
      }
    }
  }
  return undefined;
}

function toCase(c: z.infer<typeof CaseSchema>, index: number): ContractCase {
  const target = caseTarget(c);
  return {
    name: c.name,
    index,
    stage: target.stage,
    ...(target.event !== undefined ? { event: target.event } : {}),
    ...(c.on !== undefined ? { on: c.on } : {}),
    ...(c.during !== undefined ? { during: c.during } : {}),
    ...(c.redo_count !== undefined ? { redo_count: c.redo_count } : {}),
    skip: c.skip ?? false,
    prompts: c.prompts ?? [c.prompt ?? ''],
    params: c.params ?? {},
    config: c.config ?? {},
    files: c.files ?? {},
    ai: c.ai ?? [],
    commands: c.commands,
    web: c.web,
    mocks: c.mocks,
    task: c.task,
    response: c.response,
    responses: c.responses,
    prev: c.prev,
    ...(c.order_check !== undefined ? { orderCheck: c.order_check } : {}),
    expect: c.expect ?? {},
  };
}

/** Parses and checks the text of a case file. `file` names it in messages and anchors relative paths. */
export function parseContractFile(text: string, file: string): ContractFile {
  const abs = nodePath.resolve(file);
  let raw: unknown;
  try {
    raw = parseToml(text);
  } catch (err) {
    if (err instanceof TomlError) throw new CaseFileError(`${file}:${err.line}:${err.column}: invalid TOML: ${err.message.split('\n')[0]}`, file);
    throw err;
  }
  const parsed = CaseFileSchema.safeParse(raw, { reportInput: true });
  if (!parsed.success) {
    const issues = parsed.error.issues as unknown as Issue[];
    // unknown keys first: a typo usually explains the "missing" error next to it; every table's unknown keys at
    // once (one line each), so that a file with several typos is fixed in one go
    const unknown = issues.filter((i) => i.code === 'unrecognized_keys');
    if (unknown.length > 1) {
      const errors = unknown.map((i) => issueError(file, raw, i));
      throw new CaseFileError(errors.map((e) => e.message).join('\n'), file, errors[0]!.caseName, errors[0]!.key);
    }
    throw issueError(file, raw, unknown[0] ?? issues[0]);
  }
  const data = parsed.data;
  if ((data.agent === undefined) === (data.group === undefined)) {
    throw new CaseFileError(`${file}: give agent (one sub-agent) or group (a parallel group), ${data.agent === undefined ? 'not neither' : 'not both'}`, file, undefined, 'agent');
  }
  const seen = new Map<string, number>();
  data.case.forEach((c, i) => {
    // quoted as JSON: a name holding a newline or a control character keeps the error on one line
    const label = `case #${i + 1} ${JSON.stringify(c.name)}`;
    const problem = caseProblem(c);
    if (problem) throw new CaseFileError(`${file}: ${label}: ${problem[0]}: ${problem[1]}`, file, c.name, problem[0]);
    const prev = seen.get(c.name);
    if (prev !== undefined) throw new CaseFileError(`${file}: ${label}: name: the same name as case #${prev} (names must be unique in a file)`, file, c.name, 'name');
    seen.set(c.name, i + 1);
  });
  const dir = nodePath.dirname(abs);
  for (const [i, s] of (data.support ?? []).entries()) {
    if (nodePath.isAbsolute(s)) throw new CaseFileError(`${file}: support[${i + 1}]: expected a path relative to the case file, got '${s}'`, file, undefined, `support[${i + 1}]`);
    if (!exists(nodePath.join(dir, s))) {
      throw new CaseFileError(`${file}: support[${i + 1}]: '${s}' not found (looked for ${nodePath.join(dir, s)})`, file, undefined, `support[${i + 1}]`);
    }
  }
  return {
    file: abs,
    dir,
    agent: data.agent ?? groupLabel(data.group!),
    ...(data.group ? { group: data.group } : {}),
    support: data.support ?? [],
    cases: data.case.map((c, i) => toCase(c, i + 1)),
  };
}

/** How a group under test is named in reports: its members, or its prompt-file entry. */
export function groupLabel(group: NonNullable<ContractFile['group']>): string {
  if ('entry' in group && typeof group.prompt === 'string') return `${group.prompt} sub_agents[${String(group.entry)}]`;
  const names = ((group as { parallel: unknown[] }).parallel).map((m) => (typeof m === 'string' ? m : String((m as Record<string, unknown>).name)));
  return `parallel(${names.join(', ')})`;
}

/** Reads, parses and checks a case file. */
export function loadContractFile(file: string): ContractFile {
  let text: string;
  try {
    text = readText(file);
  } catch (err) {
    throw new CaseFileError(`${file}: cannot read: ${(err as Error).message}`, file);
  }
  return parseContractFile(text, file);
}
