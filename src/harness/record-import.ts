import nodePath from 'node:path';
import { stringify as stringifyToml } from 'smol-toml';
import { exists, readText } from '../support/host-fs.ts';
import { parseAgentDoc } from '../runtime/agent-doc.ts';
import { suggest } from '../support/suggest.ts';
import { isTable, sentFilesNow, type RecordEvent, type RunRecord, type SubAgentEvent } from './record-file.ts';

/**
 * `record import`: contract cases from a run record, one per recorded call of a sub-agent, with the input as it
 * was given and expectations from the response as it was returned. What a record cannot know (the answers of a
 * sub-agent's own model calls: they happen inside AIPack) comes from a scripted answers file, or the case says
 * what is missing with `todo` and fails until it is filled in.
 */

export interface ScriptedAnswer {
  content: string;
  agent?: string;
  match?: string;
  model?: string;
  reusable?: boolean;
}

export interface ImportOptions {
  /** only this sub-agent: its entry name as in sub_agents, or its file name */
  agent?: string;
  /** answers for the sub-agents' own model calls (a scripted answers file's [[response]] entries) */
  answers?: ScriptedAnswer[];
  /** the workspace the agents are read from (default: the record's prompt folder's workspace as it is now) */
  workspaceDir: string;
}

export interface ImportedFile {
  /** the sub-agent's entry name */
  agent: string;
  /** where the case file goes: beside the agent (absolute) */
  file: string;
  text: string;
  cases: number;
  /** cases that carry a `todo` */
  todos: number;
}

/** Keys of an entry the case file sets itself (the harness fills name and stages; `on` is the case's own). */
const ENTRY_KEYS_SET_BY_CASE = new Set(['name', 'enabled', 'stages', 'on']);
const EVENT_POST_FIELDS = ['content_extruded', 'file_changes_status', 'content_raw_path'] as const;


/**
 * Params that switch on a built-in sub-agent: in a case's stage run they would run it beside the agent under test
 * (with model calls the case has no answers for), so a case leaves them out of its params and expectations.
 */
const BUILTIN_SWITCHES: readonly string[] = ['auto_context'];

function withoutSwitches(params: Record<string, unknown>): Record<string, unknown> {
  const { sub_agents: _dropped, ...rest } = params;
  for (const key of BUILTIN_SWITCHES) delete rest[key];
  return rest;
}

/** TOML has no null: nulls (Lua's null sentinel, as JSON) are left out, in tables and lists alike. */
function tomlValue(v: unknown): unknown {
  if (Array.isArray(v)) return v.filter((x) => x !== null && x !== undefined).map(tomlValue);
  if (isTable(v)) {
    const out: Record<string, unknown> = {};
    for (const [k, x] of Object.entries(v)) if (x !== null && x !== undefined) out[k] = tomlValue(x);
    return out;
  }
  return v;
}

export const regexEscape = (s: string): string => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** Whether a call is of the sub-agent `wanted` (entry name, or its file name with or without `.aip`). */
export function isAgent(name: string, wanted: string): boolean {
  if (name === wanted) return true;
  const base = nodePath.basename(name);
  return base === wanted || base.replace(/\.aip$/, '') === wanted.replace(/\.aip$/, '');
}

const isEventForm = (e: SubAgentEvent): boolean => e.config?.on !== undefined;

/** The agent file a local entry name points at, as the pack finds it from the workspace root. */
function agentFile(name: string, workspaceDir: string): string | undefined {
  if (name.includes('@')) return undefined;
  const base = nodePath.resolve(workspaceDir, name);
  const candidates = name.endsWith('.aip') ? [base] : name.endsWith('/') ? [nodePath.join(base, 'main.aip')] : [`${base}.aip`, nodePath.join(base, 'main.aip')];
  return candidates.find(exists);
}

/** Whether the agent asks a model itself (it has a prompt part): its answers are not in a record. */
function callsModel(file: string): boolean {
  try {
    return parseAgentDoc(readText(file), file).parts.length > 0;
  } catch {
    return false;
  }
}

/**
 * `prev` of a case from the input's sub_agents_prev. In the event form each item names the event it ran on; a
 * stage-form entry's item has none, and it ran in its stage's own dispatch (`chainRoot`: start at pre, end at post).
 */
function prevItems(prev: unknown, eventForm: boolean, chainRoot: string): Record<string, unknown>[] {
  if (!Array.isArray(prev)) return [];
  return prev.filter(isTable).map((item) => {
    const config = isTable(item.config) ? item.config : {};
    const out: Record<string, unknown> = { name: String(config.name ?? '?') };
    if (item.agent_result !== undefined && item.agent_result !== null) out.agent_result = item.agent_result;
    const rest = Object.fromEntries(Object.entries(config).filter(([k]) => !ENTRY_KEYS_SET_BY_CASE.has(k)));
    if (Object.keys(rest).length > 0) out.config = rest;
    if (eventForm) out.event = typeof item.event === 'string' ? item.event : chainRoot;
    return out;
  });
}

function responsesOf(input: Record<string, unknown>, eventForm: boolean): Record<string, unknown>[] | undefined {
  if (!Array.isArray(input.coder_responses)) return undefined;
  return input.coder_responses.filter(isTable).map((r) => {
    const out: Record<string, unknown> = { task_num: r.task_num, content: r.content ?? '' };
    if (Array.isArray(r.files_changed)) out.files_changed = r.files_changed;
    if (Array.isArray(r.files_failed)) out.files_failed = r.files_failed;
    if (eventForm) for (const k of EVENT_POST_FIELDS) if (r[k] !== undefined && r[k] !== null) out[k] = r[k];
    return out;
  });
}

/** The expectations a recorded response makes: what the whole stage produced when this agent ran alone. */
function expectOf(e: SubAgentEvent): Record<string, unknown> {
  if (e.error !== undefined) return { error: `^${regexEscape(e.error)}$` };
  const res = e.response;
  if (res === undefined || res === null) return { unchanged: true };
  if (!isTable(res)) return {};
  const expect: Record<string, unknown> = {};
  const eventForm = isEventForm(e);
  if (res.agent_result !== undefined) expect.agent_result = res.agent_result;
  if (res.sub_agents_next !== undefined) {
    // the stage's end result then includes what the next agents did: only this agent's own answer is expected
    expect.sub_agents_next = res.sub_agents_next;
    return expect;
  }
  if (isTable(res.coder_params)) expect[eventForm ? 'params_contains' : 'params'] = withoutSwitches(res.coder_params);
  if (Array.isArray(res.coder_prompts)) expect.prompts = res.coder_prompts;
  else if (typeof res.coder_prompt === 'string') expect.prompt = res.coder_prompt;
  if (isTable(res.coder_response) && typeof res.coder_response.content === 'string') expect.response = res.coder_response.content;
  if (eventForm) {
    if (res.emit_events !== undefined) expect.emit = Array.isArray(res.emit_events) ? res.emit_events : [];
    if (res.agent_on !== undefined) expect.agent_on = res.agent_on;
  }
  return expect;
}

/**
 * The workspace files the run sent to the coder, as they are now: those still as recorded (same hash), and those
 * the run's own answers changed (`writtenByRun`: their content before the run is not in the record). A file changed
 * by anything else is left out (`changed`): the cases then say so.
 */
function workspaceFiles(record: RunRecord, workspaceDir: string): { files: Record<string, string>; writtenByRun: string[]; changed: string[] } {
  const files: Record<string, string> = {};
  const writtenByRun: string[] = [];
  const changed: string[] = [];
  for (const f of sentFilesNow(record, workspaceDir)) {
    if (f.path in files || changed.includes(f.path)) continue;
    if (f.now && (f.same || f.writtenByRun)) {
      files[f.path] = Buffer.from(f.now).toString('utf8');
      if (!f.same) writtenByRun.push(f.path);
    } else {
      changed.push(f.path);
    }
  }
  return { files, writtenByRun, changed };
}

function caseName(e: SubAgentEvent, n: number, runId: string): string {
  const where = isEventForm(e) && e.event ? `on ${e.event}` : e.stage;
  const task = e.task_num !== undefined ? ` task ${e.task_num}` : '';
  return `recorded ${where}${task} #${n} (run ${runId.slice(0, 13)})`;
}

/** One case of a recorded call. */
export function caseOf(e: SubAgentEvent, n: number, record: RunRecord, extra: { files?: Record<string, string>; ai?: ScriptedAnswer[]; todo?: string }): Record<string, unknown> {
  const input = e.input;
  const eventForm = isEventForm(e);
  const c: Record<string, unknown> = { name: caseName(e, n, record.run.id) };
  if (extra.todo) c.todo = extra.todo;
  if (eventForm) {
    c.on = e.event ?? (e.stage === 'post' ? 'end' : 'start');
    if (c.on !== 'start' && c.on !== 'end') c.during = e.stage === 'post' ? 'end' : 'start';
    if (typeof input.coder_redo_count === 'number' && input.coder_redo_count > 0) c.redo_count = input.coder_redo_count;
  } else {
    c.stage = e.stage;
  }
  if (Array.isArray(input.coder_prompts)) c.prompts = input.coder_prompts;
  if (isTable(input.coder_params)) c.params = withoutSwitches(input.coder_params);
  const config = Object.fromEntries(Object.entries(e.config ?? {}).filter(([k]) => !ENTRY_KEYS_SET_BY_CASE.has(k)));
  if (Object.keys(config).length > 0) c.config = config;
  if (extra.files && Object.keys(extra.files).length > 0) c.files = extra.files;
  if (extra.ai && extra.ai.length > 0) c.ai = extra.ai;
  if (isTable(input.coder_task)) c.task = input.coder_task;
  if (isTable(input.coder_response) && typeof input.coder_response.content === 'string') {
    const r = input.coder_response;
    c.response = { content: r.content, ...(typeof r.model_name === 'string' ? { model_name: r.model_name } : {}) };
  }
  const responses = responsesOf(input, eventForm);
  if (responses) c.responses = responses;
  const prev = prevItems(input.sub_agents_prev, eventForm, e.stage === 'post' ? 'end' : 'start');
  if (prev.length > 0) c.prev = prev;
  c.expect = expectOf(e);
  return tomlValue(c) as Record<string, unknown>;
}

const subAgentCalls = (events: RecordEvent[]): SubAgentEvent[] => events.filter((e): e is SubAgentEvent => e.kind === 'sub_agent');

/** The case files a record gives: one per sub-agent (local agents only; the pack's own built-ins are ours to test). */
export function importRecord(record: RunRecord, options: ImportOptions): ImportedFile[] {
  const calls = subAgentCalls(record.events).filter((e) => !e.name.includes('@'));
  const names = [...new Set(calls.map((e) => e.name))];
  const wanted = options.agent === undefined ? names : names.filter((n) => isAgent(n, options.agent!));
  if (options.agent !== undefined && wanted.length === 0) {
    const near = suggest(options.agent.replace(/\.aip$/, ''), names.map((n) => nodePath.basename(n).replace(/\.aip$/, '')), { affix: false });
    const hint = near === undefined ? '' : ` (did you mean '${near}'?)`;
    throw new Error(`record ${record.run.id} has no call of sub-agent '${options.agent}'${hint} (it recorded: ${names.join(', ') || 'no sub-agent call'})`);
  }
  const sent = workspaceFiles(record, options.workspaceDir);
  const out: ImportedFile[] = [];
  for (const name of wanted) {
    const file = agentFile(name, options.workspaceDir);
    if (!file) throw new Error(`sub-agent '${name}' of record ${record.run.id}: no agent file at ${nodePath.resolve(options.workspaceDir, name)} (cases are written beside it)`);
    const answers = (options.answers ?? []).filter((a) => a.agent !== undefined && isAgent(name, a.agent));
    const needsAnswers = callsModel(file);
    const todo = needsAnswers && answers.length === 0
      ? `${name} asks a model itself, and a record holds only its final answer: add its model answers as ai = [...] (or run import with --ai FILE), then remove this line`
      : undefined;
    const mine = calls.filter((e) => e.name === name);
    const cases = mine.map((e, i) => caseOf(e, i + 1, record, { files: sent.files, ai: needsAnswers ? answers : undefined, todo }));
    const stem = nodePath.basename(file).replace(/\.aip$/, '');
    const caseFile = nodePath.join(nodePath.dirname(file), `${stem}.record-${record.run.id.slice(0, 13)}.contract.toml`);
    const switches = BUILTIN_SWITCHES.filter((k) => mine.some((e) => isTable(e.input.coder_params) && k in e.input.coder_params));
    const header = [
      `# Cases from run record ${record.run.id} (${record.run.time ?? 'time unknown'}, AIPack ${record.run.aipack_version ?? '?'}, ${record.run.lua_version ?? 'Lua ?'}),`,
      '# written by `coder-subagents record import`: inputs as the sub-agent got them, expectations from what it returned.',
      ...(sent.writtenByRun.length ? [`# As the run left them (their content before it is not in a record): ${sent.writtenByRun.join(', ')}`] : []),
      ...(sent.changed.length ? [`# Not included (changed since the run): ${sent.changed.join(', ')}`] : []),
      ...(switches.length ? [`# Left out of params: ${switches.join(', ')} (it would run its built-in sub-agent in every case)`] : []),
      '',
    ].join('\n');
    const body = stringifyToml({ agent: nodePath.basename(file), case: cases });
    out.push({ agent: name, file: caseFile, text: header + body + '\n', cases: cases.length, todos: todo ? cases.length : 0 });
  }
  return out;
}
