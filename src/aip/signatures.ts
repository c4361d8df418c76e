// The types around the AIPack Lua API: the table classes aip.* functions take and return, the CTX keys and the
// global helpers (the functions themselves, with their types, are the entries of functions.ts).
//
// Facts from AIPack's sources (`src/script/aip_modules/`, `src/types/`, the `for-llm` API reference) and docs/aipack.md.
// Types are written in LuaLS syntax, because they are emitted as is into the `---@meta` definitions
// (src/check/luals.ts) and read by the checker (src/check/infer.ts).

import { splitTop } from './functions.ts';

/** A table shape that aip.* functions take or return. */
export interface LuaClass {
  name: string;
  doc: string;
  fields: { name: string; type: string; optional?: boolean; doc?: string }[];
  /** true: no other key is ever set by AIPack, so reading another one is a mistake */
  closed?: boolean;
}

// --- the classes --------------------------------------------------------------------------------------

const f = (spec: string): LuaClass['fields'] =>
  splitTop(spec).map((p) => {
    const i = p.indexOf(':');
    const name = p.slice(0, i).trim();
    const field: LuaClass['fields'][number] = { name: name.replace(/\?$/, ''), type: p.slice(i + 1).trim() };
    if (name.endsWith('?')) field.optional = true;
    return field;
  });

const FILE_INFO_FIELDS =
  '_type: "FileInfo", path: string, dir: string, name: string, stem: string, ext: string, ctime?: integer, mtime?: integer, size?: integer, is_likely_text: boolean';

export const LUA_CLASSES: readonly LuaClass[] = [
  { name: 'FileInfo', doc: 'A file\'s path parts and metadata (times in microseconds since the epoch).', fields: f(FILE_INFO_FIELDS), closed: true },
  {
    name: 'FileRecord',
    doc: 'A FileInfo with the file\'s text content.',
    fields: [...f('_type: "FileRecord"'), ...f(FILE_INFO_FIELDS).filter((x) => x.name !== '_type'), ...f('content: string')],
    closed: true,
  },
  {
    name: 'FileStats',
    doc: 'Totals over the files matching some globs.',
    fields: f('_type: "FileStats", total_size: integer, number_of_files: integer, ctime_first: integer, ctime_last: integer, mtime_first: integer, mtime_last: integer'),
    closed: true,
  },
  { name: 'MdBlock', doc: 'A fenced code block of a Markdown text.', fields: f('_type: "MdBlock", lang: string, content: string'), closed: true },
  {
    name: 'MdSection',
    doc: 'A heading and the text under it.',
    fields: f('content: string, heading_raw: string, heading_content: string, heading_level: integer, heading_name: string'),
  },
  {
    name: 'MdRef',
    doc: 'A Markdown link or image reference.',
    fields: f('_type: "MdRef", target: string, text?: string, inline: boolean, kind: "Anchor"|"Url"|"File"'),
    closed: true,
  },
  { name: 'TagElem', doc: 'One `<TAG attrs>content</TAG>` element.', fields: f('tag: string, attrs?: table<string, string>, content: string') },
  { name: 'CmdResponse', doc: 'What a command printed and its exit code.', fields: f('stdout: string, stderr: string, exit: integer') },
  {
    name: 'WebResponse',
    doc: 'An HTTP response (success is false for a non-2xx status).',
    fields: f('success: boolean, status: integer, url: string, content: string|table, content_type?: string, headers?: table<string, string|string[]>, error?: string'),
  },
  {
    name: 'WebOptions',
    doc: 'Options of aip.web.get / aip.web.post.',
    fields: f('user_agent?: string|boolean, headers?: table, redirect_limit?: integer, parse?: boolean'),
  },
  {
    name: 'RunAgentResponse',
    doc: 'The result of aip.agent.run: outputs per input (nil holes for nil outputs) and the After All value.',
    fields: f('outputs?: any[], after_all?: any, redo_requested: boolean'),
    closed: true,
  },
  {
    name: 'RunAgentOptions',
    doc: 'Options of aip.agent.run.',
    fields: f('input?: any, inputs?: any[], options?: AgentOptions, agent_base_dir?: string'),
  },
  {
    name: 'AgentOptions',
    doc: 'Agent options (the keys of an agent\'s # Options block).',
    fields: f('model?: string, temperature?: number, top_p?: number, input_concurrency?: integer, allow_run_on_task_fail?: boolean, model_aliases?: table<string, string>'),
  },
  { name: 'SaveOptions', doc: 'Options of aip.file.save.', fields: f('trim_start?: boolean, trim_end?: boolean, single_trailing_newline?: boolean') },
  { name: 'DestOptions', doc: 'Where a converted file is saved.', fields: f('base_dir?: string, file_name?: string, suffix?: string, slim?: boolean') },
  { name: 'ListOptions', doc: 'Options of the glob-listing functions.', fields: f('base_dir?: string, absolute?: boolean, with_meta?: boolean') },
  {
    name: 'CsvOptions',
    doc: 'CSV reading/writing options.',
    fields: f('delimiter?: string, quote?: string, escape?: string, trim_fields?: boolean, has_header?: boolean, header_labels?: table<string, string>, skip_empty_lines?: boolean, comment?: string, skip_header_row?: boolean'),
  },
  { name: 'CsvContent', doc: 'A parsed CSV text.', fields: f('_type: "CsvContent", headers: string[], rows: string[][]') },
  { name: 'ZipOptions', doc: 'Options of aip.zip.*.', fields: f('globs?: string[]') },
  {
    name: 'ApplyChangesStatus',
    doc: 'The outcome of applying file-change directives.',
    fields: f('success: boolean, total_count: integer, success_count: integer, fail_count: integer, items: table[]'),
  },
  { name: 'Marker', doc: 'A labelled pin content.', fields: f('label?: string, content: string') },
  {
    name: 'AiResponse',
    doc: 'The AI answer, in the Output stage (nil when there was no AI call).',
    fields: f('content?: string, reasoning_content?: string, model_name: string, adapter_kind: string, usage: table, price_usd?: number, duration_sec: number, info: string'),
  },
  {
    name: 'SemVerParts',
    doc: 'A parsed semantic version.',
    fields: f('major: integer, minor: integer, patch: integer, prerelease?: string, build?: string'),
  },
  { name: 'AipFlowDirective', doc: 'A table the runtime acts on when a stage returns it.', fields: f('_aipack_: table') },
];

// --- CTX --------------------------------------------------------------------------------------------

export interface CtxKey {
  name: string;
  type: string;
  doc: string;
  since: string;
  /** nil in some runs (e.g. PACK_* for local agents) */
  optional?: boolean;
}

const V0 = '0.8.0';

/** The keys of the CTX table (docs/aipack.md section 5). */
export const CTX_KEYS: readonly CtxKey[] = Object.freeze([
  { name: 'PWD', type: 'string', doc: 'The current directory of the aip process.', since: V0 },
  { name: 'SESSION_UID', type: 'string', doc: 'UUID of the CLI session.', since: V0 },
  { name: 'TMP_DIR', type: 'string', doc: 'The session\'s temporary folder (absolute).', since: V0 },
  { name: 'AIPACK_VERSION', type: 'string', doc: 'The AIPack version, e.g. "0.8.33".', since: V0 },
  { name: 'WORKSPACE_DIR', type: 'string', doc: 'The folder that holds .aipack/ (or the current directory).', since: V0 },
  { name: 'WORKSPACE_AIPACK_DIR', type: 'string', doc: 'WORKSPACE_DIR/.aipack', since: V0 },
  { name: 'BASE_AIPACK_DIR', type: 'string', doc: '~/.aipack-base (absolute).', since: V0 },
  { name: 'AGENT_NAME', type: 'string', doc: 'The agent name as invoked.', since: V0 },
  { name: 'AGENT_FILE_NAME', type: 'string', doc: 'The .aip file name.', since: V0 },
  { name: 'AGENT_FILE_STEM', type: 'string', doc: 'The .aip file name without extension.', since: V0 },
  { name: 'AGENT_FILE_PATH', type: 'string', doc: 'The absolute path of the .aip file.', since: V0 },
  { name: 'AGENT_FILE_DIR', type: 'string', doc: 'The absolute folder of the .aip file.', since: V0 },
  { name: 'PACK_NAMESPACE', type: 'string', doc: 'The pack namespace (pack agents only).', since: V0, optional: true },
  { name: 'PACK_NAME', type: 'string', doc: 'The pack name (pack agents only).', since: V0, optional: true },
  { name: 'PACK_SUB_PATH', type: 'string', doc: 'The agent\'s path inside its pack (pack agents with a sub path only).', since: V0, optional: true },
  { name: 'PACK_REF', type: 'string', doc: 'ns@name or ns@name/sub/path (pack agents only).', since: V0, optional: true },
  { name: 'PACK_IDENTITY', type: 'string', doc: 'ns@name (pack agents only).', since: V0, optional: true },
  { name: 'PACK_DIR', type: 'string', doc: 'The pack\'s absolute folder (pack agents only).', since: V0, optional: true },
  { name: 'PACK_WORKSPACE_SUPPORT_DIR', type: 'string', doc: 'The pack\'s support folder in the workspace (pack agents only).', since: V0, optional: true },
  { name: 'PACK_BASE_SUPPORT_DIR', type: 'string', doc: 'The pack\'s support folder in ~/.aipack-base (pack agents only).', since: V0, optional: true },
  { name: 'RUN_UID', type: 'string', doc: 'UUID of the current run.', since: V0 },
  { name: 'RUN_NUM', type: 'integer', doc: 'Number of the current run.', since: '0.8.12' },
  { name: 'PARENT_RUN_UID', type: 'string', doc: 'UUID of the calling run (sub-agent runs only).', since: V0, optional: true },
  { name: 'TASK_UID', type: 'string', doc: 'UUID of the current task (Data and Output only).', since: V0, optional: true },
  { name: 'TASK_NUM', type: 'integer', doc: 'Number of the current task, from 1 (Data and Output only).', since: '0.8.12', optional: true },
  { name: 'STAGE', type: '"BeforeAll"|"Data"|"Output"|"AfterAll"', doc: 'The current stage.', since: V0 },
  { name: 'RUN_FLOW_REDO_COUNT', type: 'integer|string', doc: 'How many times the run was redone (a string in Data and Output).', since: '0.8.22' },
]);

// --- global helpers ----------------------------------------------------------------------------------

/** Types of the AIPack globals other than aip/utils/CTX (names and versions: catalog.ts AIPACK_GLOBALS). */
export const GLOBAL_TYPES: Readonly<Record<string, { params?: string; returns?: string; type?: string; doc: string }>> = Object.freeze({
  print: { params: '...values: any', returns: '', doc: 'Writes to the run log (values joined with newlines).' },
  null: { type: 'lightuserdata', doc: 'The null sentinel (JSON null); is_null(null) is true.' },
  Null: { type: 'lightuserdata', doc: 'Same as null.' },
  NULL: { type: 'lightuserdata', doc: 'Same as null.' },
  is_null: { params: 'value: any', returns: 'boolean', doc: 'true for nil and null.' },
  is_not_null: { params: 'value: any', returns: 'boolean', doc: 'false for nil and null.' },
  value_or: { params: 'value: any, ...alternatives: any', returns: 'any', doc: 'The first argument that is neither nil nor null, else the last.' },
  nil_if_null: { params: 'value: any', returns: 'any', doc: 'nil for null, else the value.' },
  is_table: { params: 'value: any', returns: 'boolean', doc: 'true for a table.' },
  is_list: { params: 'value: any', returns: 'boolean', doc: 'true for a table with an item at index 1.' },
  is_object: { params: 'value: any', returns: 'boolean', doc: 'true for a table without an item at index 1 (including {}).' },
  aipack: { type: 'table', doc: 'Old alias of aip.flow (removed in AIPack 0.8.1).' },
});
