// The aip.* API, one entry per function: its path, the AIPack versions it exists in, its parameters and return
// values, its doc, and how its arguments are checked. The runtime (which functions a version has, registry.ts), the
// argument checks (arg-checks.ts), `check` (check/lint.ts, check/infer.ts) and the LuaLS definitions
// (check/luals.ts) all read these entries.
//
// Facts from AIPack's sources (`src/script/aip_modules/`, `src/types/`, the `for-llm` API reference, the functions
// registered at each release tag) and docs/aipack.md. Types are written in LuaLS syntax (`string|nil`,
// `string[]`, `{base_dir?: string}`, class names of signatures.ts), because they are emitted as is into the
// `---@meta` definitions and read by the checker.

export interface Param {
  name: string;
  /** LuaLS type */
  type: string;
  /** may be left out (the function sees nil) */
  optional?: boolean;
  /** `...name`: any number of further arguments of this type */
  variadic?: boolean;
}

export interface Signature {
  /** "aip.file.load" */
  path: string;
  params: Param[];
  /** alternative parameter lists (e.g. aip.run.pin with a priority) */
  overloads?: Param[][];
  /** LuaLS types of the return values, in order ([] = nothing) */
  returns: string[];
  doc: string;
}

/**
 * How the entry checks a function's arguments before the function runs (arg-checks.ts), for the namespaces whose
 * module asks for it. A `string` parameter must be a string (nil too when optional), a `string|nil` one a string or
 * nil; other types are the function's own business.
 */
export interface ArgSpec {
  /**
   * The wording of a bad argument, as AIPack words it for this function:
   *  - expected (default): `aip.text.trim: expected 'content' to be a string or nil, got table`
   *  - must:               `aip.csv.parse: content must be a string, got table`
   *  - accepted:           `aip.hash.sha256 - accepted argument types are String or Nil, but was table`
   */
  style?: 'expected' | 'must' | 'accepted';
  /** what a message calls a parameter when not its declared name (`accepted`: what it calls the argument) */
  names?: Record<string, string>;
  /** parameters the function checks itself: their check depends on more than their type */
  own?: string[];
  /** `string` parameters AIPack also takes nil for (giving nil back), though it documents them as strings */
  nilOk?: string[];
  /** parameters that take AIPack's null sentinel as nil (giving nil back) */
  nullAsNil?: string[];
  /** the entry's string parameters take a number as its text (Lua's string coercion, as mlua converts them) */
  numberAsText?: boolean;
  /** a wording of its own, over {path}, {name}, {want} ("a string"), {types} ("String") and {got} */
  message?: string;
}

export interface AipEntry extends Signature {
  /** first AIPack version that has it ("0.8.0" for the v0.8.0 baseline) */
  since: string;
  /** first AIPack version that no longer has it (removed or renamed) */
  until?: string;
  kind: 'function' | 'constant';
  /** a constant's LuaLS type */
  type?: string;
  args?: ArgSpec;
  /**
   * How the simulator does it, when not as AIPack does (`coder-subagents api`): `scripted`, answered from the
   * responses file, never from the host; `stricter`, under the sandbox's rules (aip.file reads only inside the
   * workspace, the packs and the agent's folder, loudly; aip.udiffx.apply_file_changes writes only in the workspace).
   */
  simulation?: 'scripted' | 'stricter';
  /** written in Lua (prelude.lua), not among the namespace modules */
  inLua?: boolean;
  /**
   * callable only in a task's lifecycle stages (Data and Output): elsewhere it is refused before its arguments are
   * checked (arg-checks.ts); its doc says so
   */
  taskOnly?: boolean;
}

// --- a compact notation: "name: type, opt?: type, ...rest: type" -> Param[] ---------------------------

/** Splits at commas that are not inside (), {}, [] or <>. */
export function splitTop(s: string, sep = ','): string[] {
  const out: string[] = [];
  let depth = 0;
  let cur = '';
  for (const ch of s) {
    if ('({[<'.includes(ch)) depth++;
    else if (')}]>'.includes(ch)) depth--;
    if (ch === sep && depth === 0) {
      out.push(cur.trim());
      cur = '';
    } else cur += ch;
  }
  if (cur.trim() !== '') out.push(cur.trim());
  return out;
}

export function parseParams(list: string): Param[] {
  if (list.trim() === '') return [];
  return splitTop(list).map((p) => {
    const i = p.indexOf(':');
    let name = p.slice(0, i).trim();
    const type = p.slice(i + 1).trim();
    const param: Param = { name, type };
    if (name.startsWith('...')) {
      name = name.slice(3);
      Object.assign(param, { name, variadic: true, optional: true });
    }
    if (name.endsWith('?')) Object.assign(param, { name: name.slice(0, -1), optional: true });
    return param;
  });
}

// --- the entries, in the order AIPack's versions added them -------------------------------------------

const ENTRIES: AipEntry[] = [];
const HASH_ARGS: ArgSpec = { style: 'accepted', nilOk: ['input'] };
// AIPack's path arguments (and aip.file's contents) are mlua strings: a number converts to its text
const PATH_ARGS: ArgSpec = { numberAsText: true };
const PATH_OR_NIL_ARGS: ArgSpec = { numberAsText: true, nullAsNil: ['path'] };
// the CSV writers check the path after the data
const CSV_WRITE_ARGS: ArgSpec = { numberAsText: true, own: ['path'] };
const SEMVER_ARGS: ArgSpec = { message: "Invalid version '{got}': expected a string" };
/** What the entries of a namespace check unless they say otherwise. */
const NAMESPACE_ARGS: Record<string, ArgSpec> = { file: PATH_ARGS, path: PATH_ARGS };
let since = '0.8.0';

/** The entries that follow first exist in that AIPack version. */
function from(version: string): void {
  since = version;
}

/** `fn('file.load', 'path: string, options?: {base_dir?: string}', 'FileRecord', doc)` */
type More = { until?: string; overloads?: string[]; args?: ArgSpec; simulation?: AipEntry['simulation']; inLua?: boolean; taskOnly?: boolean };

function fn(path: string, params: string, returns: string, doc: string, more: More = {}): void {
  const e: AipEntry = { path: `aip.${path}`, since, kind: 'function', params: parseParams(params), returns: splitTop(returns), doc };
  if (more.until !== undefined) e.until = more.until;
  if (more.overloads) e.overloads = more.overloads.map(parseParams);
  const ns = path.slice(0, path.indexOf('.'));
  const args = more.args ?? NAMESPACE_ARGS[ns];
  if (args) e.args = args;
  const simulation = more.simulation ?? (ns === 'file' ? 'stricter' : undefined);
  if (simulation) e.simulation = simulation;
  if (more.inLua) e.inLua = true;
  if (more.taskOnly) {
    e.taskOnly = true;
    e.doc = doc.replace(/\.$/, ' (Data and Output only).');
  }
  ENTRIES.push(e);
}

function constant(path: string, type: string, doc: string): void {
  ENTRIES.push({ path: `aip.${path}`, since, kind: 'constant', type, params: [], returns: [], doc });
}
from('0.8.0');
fn('agent.run', 'agent_name: string, options?: RunAgentOptions', 'RunAgentResponse', 'Runs another agent and waits for its outputs and After All value; errors are raised.');
fn('agent.extract_options', 'value: any', 'AgentOptions|nil', 'Copies the agent-option keys of a table (nil for a non-table).');
fn('cmd.exec', 'cmd_name: string, args?: string|string[], options?: {cwd?: string}', 'CmdResponse', 'Runs a program and returns its output and exit code.', { args: { message: '{path} - {name} must be {want}, got {got}' }, simulation: 'scripted' });
fn('code.comment_line', 'lang_ext: string, comment_content: string', 'string', 'Formats one comment line in the syntax of a file extension.');
fn('file.load', 'path: string, options?: {base_dir?: string}', 'FileRecord', 'Reads a text file (relative to the workspace or base_dir); a missing file raises an error.');
fn('file.save', 'path: string, content: string, options?: SaveOptions', 'FileInfo', 'Writes a file inside the workspace, creating its folders.');
fn('file.append', 'path: string, content: string', 'FileInfo', 'Appends text to a file, creating it when missing.');
fn('file.delete', 'path: string', 'boolean', 'Removes a workspace file; false when it did not exist.');
fn('file.exists', 'path: string', 'boolean', 'Whether the path exists.');
fn('file.info', 'path: string|nil', 'FileInfo|nil', 'Metadata of an existing file, nil otherwise.', { args: PATH_OR_NIL_ARGS });
fn('file.list', 'include_globs: string|string[], options?: ListOptions', 'FileInfo[]', 'Files matching globs (a leading ! excludes).');
fn('file.list_load', 'include_globs: string|string[], options?: {base_dir?: string, absolute?: boolean}', 'FileRecord[]', 'Files matching globs, with their content.');
fn('file.first', 'include_globs: string|string[], options?: {base_dir?: string, absolute?: boolean}', 'FileInfo|nil', 'The first file matching globs.');
fn('file.stats', 'include_globs: string|string[]|nil, options?: {base_dir?: string, absolute?: boolean}', 'FileStats|nil', 'Count, total size and time range of the files matching globs.');
fn('file.ensure_exists', 'path: string, content?: string, options?: {content_when_empty?: boolean}', 'FileInfo', 'Creates a file with some content when it does not exist.');
fn('file.load_json', 'path: string|nil', 'any', 'Reads and parses a JSON (or JSONC) file.', { args: PATH_OR_NIL_ARGS });
fn('file.load_ndjson', 'path: string|nil', 'table[]|nil', 'Reads and parses a newline-delimited JSON file.', { args: PATH_OR_NIL_ARGS });
fn('file.append_json_line', 'path: string, data: any', 'FileInfo', 'Appends a value as one JSON line.');
fn('file.append_json_lines', 'path: string, data: any[]', 'FileInfo', 'Appends values as JSON lines.');
fn('file.load_md_sections', 'path: string, headings?: string|string[]', 'MdSection[]', 'Reads a Markdown file into its sections, optionally only some headings.');
fn('file.load_md_split_first', 'path: string', '{before: string, first: MdSection, after: string}', 'Splits a Markdown file around its first section.');
fn('file.save_changes', 'path: string, changes: string', 'FileInfo, table', 'Applies search/replace changes to a file.', { args: { numberAsText: true, names: { changes: 'content' } } });
fn('file.save_html_to_md', 'html_path: string, dest?: string|DestOptions', 'FileInfo', 'Converts an HTML file to Markdown and saves it.');
fn('file.save_html_to_slim', 'html_path: string, dest?: string|DestOptions', 'FileInfo', 'Saves a slimmed copy of an HTML file.');
fn('file.load_html_as_md', 'html_path: string, options?: {trim?: boolean}', 'string', 'Reads an HTML file as Markdown.');
fn('file.load_html_as_slim', 'html_path: string', 'string', 'Reads an HTML file, slimmed.');
fn('file.save_docx_to_md', 'docx_path: string, dest?: string|DestOptions', 'FileInfo', 'Converts a .docx file to Markdown and saves it.');
fn('file.load_docx_as_md', 'docx_path: string', 'string', 'Reads a .docx file as Markdown.');
fn('file.hash_sha256', 'path: string', 'string', "The sha256 hash of a file's bytes, hex-encoded.");
fn('file.hash_sha256_b64', 'path: string', 'string', "The sha256 hash of a file's bytes, b64-encoded.");
fn('file.hash_sha256_b64u', 'path: string', 'string', "The sha256 hash of a file's bytes, b64u-encoded.");
fn('file.hash_sha256_b58u', 'path: string', 'string', "The sha256 hash of a file's bytes, b58u-encoded.");
fn('file.hash_sha512', 'path: string', 'string', "The sha512 hash of a file's bytes, hex-encoded.");
fn('file.hash_sha512_b64', 'path: string', 'string', "The sha512 hash of a file's bytes, b64-encoded.");
fn('file.hash_sha512_b64u', 'path: string', 'string', "The sha512 hash of a file's bytes, b64u-encoded.");
fn('file.hash_sha512_b58u', 'path: string', 'string', "The sha512 hash of a file's bytes, b58u-encoded.");
fn('file.hash_blake3', 'path: string', 'string', "The blake3 hash of a file's bytes, hex-encoded.");
fn('file.hash_blake3_b64', 'path: string', 'string', "The blake3 hash of a file's bytes, b64-encoded.");
fn('file.hash_blake3_b64u', 'path: string', 'string', "The blake3 hash of a file's bytes, b64u-encoded.");
fn('file.hash_blake3_b58u', 'path: string', 'string', "The blake3 hash of a file's bytes, b58u-encoded.");
fn('flow.skip', 'reason?: string', 'AipFlowDirective', 'Returned from a stage: skip the run (Before All) or this input (Data).');
fn('flow.before_all_response', 'data: {inputs?: any[], before_all?: any, options?: AgentOptions}', 'AipFlowDirective', 'Returned from Before All: replace inputs, set before_all, override options.');
fn('flow.data_response', 'data: {input?: any, data?: any, attachments?: table, options?: AgentOptions}', 'AipFlowDirective', 'Returned from Data: replace the input, set data, attach files, override options.');
fn('git.restore', 'path: string', 'string', 'Restores a file from git (git restore).');
fn('hash.sha256', 'input: string', 'string', 'The sha256 hash of a string, hex-encoded.', { args: HASH_ARGS });
fn('hash.sha256_b58', 'input: string', 'string', 'The sha256 hash of a string, b58-encoded.', { args: HASH_ARGS });
fn('hash.sha256_b64', 'input: string', 'string', 'The sha256 hash of a string, b64-encoded.', { args: HASH_ARGS });
fn('hash.sha256_b64u', 'input: string', 'string', 'The sha256 hash of a string, b64u-encoded.', { args: HASH_ARGS });
fn('hash.sha512', 'input: string', 'string', 'The sha512 hash of a string, hex-encoded.', { args: HASH_ARGS });
fn('hash.sha512_b58', 'input: string', 'string', 'The sha512 hash of a string, b58-encoded.', { args: HASH_ARGS });
fn('hash.sha512_b64', 'input: string', 'string', 'The sha512 hash of a string, b64-encoded.', { args: HASH_ARGS });
fn('hash.sha512_b64u', 'input: string', 'string', 'The sha512 hash of a string, b64u-encoded.', { args: HASH_ARGS });
fn('hash.blake3', 'input: string', 'string', 'The blake3 hash of a string, hex-encoded.', { args: HASH_ARGS });
fn('hash.blake3_b58', 'input: string', 'string', 'The blake3 hash of a string, b58-encoded.', { args: HASH_ARGS });
fn('hash.blake3_b64', 'input: string', 'string', 'The blake3 hash of a string, b64-encoded.', { args: HASH_ARGS });
fn('hash.blake3_b64u', 'input: string', 'string', 'The blake3 hash of a string, b64u-encoded.', { args: HASH_ARGS });
fn('hbs.render', 'content: string, data: any', 'string', 'Renders a Handlebars template with data as its root.', { args: { names: { content: 'template' } } });
fn('html.slim', 'html_content: string', 'string', 'Removes scripts, styles and other noise from HTML.');
fn('html.select', 'html_content: string, selectors: string|string[]', 'table[]', 'Elements matching CSS selectors.');
fn('html.to_md', 'html_content: string', 'string', 'Converts HTML to Markdown.');
fn('html.prune_to_content', 'html_content: string', 'string', 'Same as aip.html.slim.');
fn('json.parse', 'content: string|nil', 'any', 'Parses JSON (lenient: comments, trailing commas); nil for nil or blank.');
fn('json.parse_ndjson', 'content: string|nil', 'table[]|nil', 'Parses newline-delimited JSON.');
fn('json.stringify', 'content: any', 'string', 'Serialises a value as one-line JSON.');
fn('json.stringify_pretty', 'content: any', 'string', 'Serialises a value as indented JSON.');
fn('json.stringify_to_line', 'content: any', 'string', 'Same as aip.json.stringify.');
fn('lua.dump', 'value: any', 'string', 'A readable text form of any Lua value.', { inLua: true });
fn('md.extract_blocks', 'md_content: string, options?: string|{lang?: string, extrude?: "content"}', 'MdBlock[], string|nil', 'Fenced code blocks of a Markdown text (by language; with extrude, also the rest).');
fn('md.extract_meta', 'md_content: string|nil', 'table|nil, string|nil', 'Merges the #!meta blocks of a Markdown text, and returns the text without them.', { args: { names: { md_content: 'content' } } });
fn('md.outer_block_content_or_raw', 'md_content: string', 'string', 'The content of the outer code block, or the text itself.');
fn('path.split', 'path: string', 'string, string', 'The parent folder and the file name.');
fn('path.resolve', 'path: string', 'string', 'The absolute, normalised form of a workspace path or pack reference.');
fn('path.exists', 'path: string', 'boolean', 'Whether the path exists.');
fn('path.is_file', 'path: string', 'boolean', 'Whether the path is an existing file.');
fn('path.is_dir', 'path: string', 'boolean', 'Whether the path is an existing folder.');
fn('path.diff', 'file_path: string, base_path: string', 'string', 'The relative path from base_path to file_path.');
fn('path.parent', 'path: string', 'string|nil', 'The parent folder (nil for a root).');
fn('path.join', 'base: string, ...parts: string|string[]', 'string', 'Appends the parts (concatenated, lists joined with /) to base.');
fn('path.matches_glob', 'path: string|nil, globs: string|string[]', 'boolean|nil', 'Whether a path matches one of the globs.', { args: PATH_OR_NIL_ARGS });
fn('path.parse', 'path: string|nil', 'FileInfo|nil', 'The path parts of a path, without touching the disk.', { args: PATH_OR_NIL_ARGS });
fn('rust.prune_to_declarations', 'code: string', 'string', 'Rust source with function bodies removed.');
fn('semver.compare', 'version1: string, operator: string, version2: string', 'boolean', 'Compares two versions with an operator (<, <=, =, ==, >=, >, !=, ~=).', { args: { ...SEMVER_ARGS, own: ['operator', 'version2'] } });
fn('semver.parse', 'version: string', 'SemVerParts', 'The parts of a version.', { args: SEMVER_ARGS });
fn('semver.is_prerelease', 'version: string', 'boolean', 'Whether a version has a prerelease part.', { args: SEMVER_ARGS });
fn('semver.valid', 'version: string', 'boolean', 'Whether a string is a valid semantic version.', { args: { own: ['version'] } });
fn('text.trim', 'content: string|nil', 'string|nil', 'Removes leading and trailing whitespace.');
fn('text.trim_start', 'content: string|nil', 'string|nil', 'Removes leading whitespace.');
fn('text.trim_end', 'content: string|nil', 'string|nil', 'Removes trailing whitespace.');
fn('text.split_first', 'content: string|nil, sep: string', 'string|nil, string|nil', 'Splits at the first separator: before, after (nil when absent).');
fn('text.split_last', 'content: string|nil, sep: string', 'string|nil, string|nil', 'Splits at the last separator: before, after (nil when absent).');
fn('text.split_first_line', 'content: string|nil, sep: string', 'string|nil, string|nil', 'Splits around the first line equal to sep.');
fn('text.split_last_line', 'content: string|nil, sep: string', 'string|nil, string|nil', 'Splits around the last line equal to sep.');
fn('text.extract_line_blocks', 'content: string|nil, options: {starts_with: string, extrude?: "content", first?: integer}', 'string[]|nil, string|nil', 'Runs of lines starting with a prefix (with extrude, also the rest).', { args: { own: ['content'] } });
fn('text.escape_decode', 'content: string|nil', 'string|nil', 'Decodes HTML entities.');
fn('text.escape_decode_if_needed', 'content: string|nil', 'string|nil', 'Decodes HTML entities when the text has some.');
fn('text.remove_first_line', 'content: string|nil', 'string|nil', 'The text without its first line.');
fn('text.remove_first_lines', 'content: string|nil, n: integer', 'string|nil', 'The text without its first n lines.');
fn('text.remove_last_line', 'content: string|nil', 'string|nil', 'The text without its last line.');
fn('text.remove_last_lines', 'content: string|nil, n: integer', 'string|nil', 'The text without its last n lines.');
fn('text.truncate', 'content: string|nil, max_len: integer, ellipsis?: string', 'string|nil', 'Cuts the text to max_len characters, adding the ellipsis.');
fn('text.replace_markers', 'content: string|nil, new_sections: any[]', 'string|nil', 'Replaces the marked sections of a text, in order.');
fn('text.ensure', 'content: string|nil, options: {prefix?: string, suffix?: string}', 'string|nil', 'Adds a prefix/suffix when the text lacks it.');
fn('text.ensure_single_ending_newline', 'content: string|nil', 'string|nil', 'Old name of aip.text.ensure_single_trailing_newline.');
fn('text.format_size', 'bytes: integer|nil, lowest_size_unit?: "B"|"KB"|"MB"|"GB"', 'string|nil', 'A byte count in a readable unit.');
fn('time.now_iso_utc', '', 'string', 'Now, as ISO 8601 UTC (seconds).');
fn('time.now_iso_local', '', 'string', 'Now, as ISO 8601 local time with offset (seconds).');
fn('time.now_iso_utc_micro', '', 'string', 'Now, as ISO 8601 UTC (microseconds).');
fn('time.now_iso_local_micro', '', 'string', 'Now, as ISO 8601 local time (microseconds).');
fn('time.now_utc_micro', '', 'integer', 'Now, in microseconds since the epoch.');
fn('time.today_utc', '', 'string', 'Today (UTC), as "Weekday YYYY-MM-DD".');
fn('time.today_local', '', 'string', 'Today (local), as "Weekday YYYY-MM-DD".');
fn('uuid.new', '', 'string', 'A new UUID v4 (hyphenated).');
fn('uuid.new_v4', '', 'string', 'A new UUID v4 (hyphenated).');
fn('uuid.new_v7', '', 'string', 'A new UUID v7 (hyphenated).');
fn('uuid.new_v4_b64', '', 'string', 'A new UUID v4, b64-encoded.');
fn('uuid.new_v4_b64u', '', 'string', 'A new UUID v4, b64u-encoded.');
fn('uuid.new_v4_b58', '', 'string', 'A new UUID v4, b58-encoded.');
fn('uuid.new_v7_b64', '', 'string', 'A new UUID v7, b64-encoded.');
fn('uuid.new_v7_b64u', '', 'string', 'A new UUID v7, b64u-encoded.');
fn('uuid.new_v7_b58', '', 'string', 'A new UUID v7, b58-encoded.');
fn('uuid.to_time_epoch_ms', 'value: string|nil', 'integer|nil', 'The time of a UUID v7 in ms (nil for other UUIDs).');
fn('web.get', 'url: string, options?: WebOptions', 'WebResponse', 'An HTTP GET.', { args: { style: 'must' }, simulation: 'scripted' });
fn('web.post', 'url: string, data: string|table, options?: WebOptions', 'WebResponse', 'An HTTP POST (a table is sent as JSON).', { args: { style: 'must' }, simulation: 'scripted' });
fn('web.parse_url', 'url: string|nil', 'table|nil', 'The parts of a URL.', { args: { style: 'accepted', names: { url: 'aip.web.parse_url argument' } } });
fn('web.resolve_href', 'href: string|nil, base_url: string', 'string|nil', 'An href made absolute against a base URL.', {
  args: { style: 'accepted', names: { href: "aip.web.resolve_href 'href' argument" }, own: ['base_url'] },
});
fn('run.pin', 'iden: string, content: string|Marker', '', 'Pins a content to the run, shown in the run view.', { overloads: ['iden: string, priority: number, content: string|Marker'], args: { own: ['iden'] } });
fn('task.pin', 'iden: string, content: string|Marker', '', 'Pins a content to the current task.', { overloads: ['iden: string, priority: number, content: string|Marker'], args: { own: ['iden'] }, taskOnly: true });

from('0.8.1');
fn('shape.to_record', 'names: string[], values: any[]', 'table', 'Pairs names with values into one record.');
fn('shape.to_records', 'names: string[], rows: any[][]', 'table[]', 'Pairs names with each row of values.');
fn('shape.record_to_values', 'record: table, names?: string[]', 'any[]', 'The values of a record, in the order of names.');
fn('shape.columnar_to_records', 'cols: table<string, any[]>', 'table[]', 'Turns columns into records.');
fn('shape.records_to_columnar', 'recs: table[]', 'table<string, any[]>', 'Turns records into columns.');
fn('shape.select_keys', 'rec: table, keys: string[]', 'table', 'A copy of a record with only some keys.');
fn('shape.omit_keys', 'rec: table, keys: string[]', 'table', 'A copy of a record without some keys.');
fn('shape.extract_keys', 'rec: table, keys: string[]', 'table', 'Removes some keys from a record and returns them.');
fn('shape.remove_keys', 'rec: table, keys: string[]', 'integer', 'Removes some keys from a record; the number removed.');
fn('time.local_tz_id', '', 'string', 'The local IANA time zone id ("UTC" when unknown).');
fn('time.today_iso_utc', '', 'string', 'Today (UTC), as YYYY-MM-DD.');
fn('time.today_iso_local', '', 'string', 'Today (local), as YYYY-MM-DD.');
fn('time.weekday_utc', '', 'string', "Today's weekday name (UTC).");
fn('time.weekday_local', '', 'string', "Today's weekday name (local).");
fn('file.load_csv', 'path: string, options?: CsvOptions', 'CsvContent', 'Reads and parses a CSV file.');
fn('file.load_csv_headers', 'path: string', 'string[]', 'Reads the header row of a CSV file.');

from('0.8.2');
fn('csv.parse', 'content: string, options?: CsvOptions', 'CsvContent', 'Parses CSV text into headers and rows.', { args: { style: 'must' } });
fn('csv.parse_row', 'row: string, options?: CsvOptions', 'string[]', 'Parses one CSV line into its fields.', { args: { style: 'must' } });
fn('file.line_spans', 'path: string', 'integer[][]', 'Byte spans {start, end} of each line of a file.');
fn('file.csv_row_spans', 'path: string', 'integer[][]', 'Byte spans {start, end} of each CSV record of a file.');
fn('file.read_span', 'path: string, start_pos: integer, end_pos: integer', 'string', 'Reads the bytes between two offsets of a file.');

from('0.8.4');
fn('tag.extract', 'content: string, tag_names: string|string[], options?: {extrude?: "content"}', 'TagElem[], string|nil', 'Elements <TAG>...</TAG> of a text (with extrude, also the rest).');
fn('tag.extract_as_map', 'content: string, tag_names: string|string[], options?: {extrude?: "content"}', 'table<string, TagElem>, string|nil', 'Elements of a text by tag name (the last one wins).');
fn('tag.extract_as_multi_map', 'content: string, tag_names: string|string[], options?: {extrude?: "content"}', 'table<string, TagElem[]>, string|nil', 'Elements of a text, listed by tag name.');
fn('text.ensure_single_trailing_newline', 'content: string|nil', 'string|nil', 'Ends the text with exactly one newline.');

from('0.8.6');
constant('web.UA_AIPACK', 'string', 'The user agent AIPack sends by default.');
constant('web.UA_BROWSER', 'string', 'A browser-like user agent.');

from('0.8.8');
fn('lua.merge', 'target: table, ...objs: table|nil', 'table', 'Copies the keys of the other tables into target (shallow, later wins).', { inLua: true });
fn('lua.merge_deep', 'target: table, ...objs: table|nil', 'table', 'Merges the other tables into target, recursing into nested tables.', { inLua: true });
fn('toml.parse', 'content: string', 'table', 'Parses TOML.');
fn('toml.stringify', 'content: table', 'string', 'Serialises a table as TOML.');
fn('file.load_toml', 'path: string', 'table', 'Reads and parses a TOML file.');
fn('file.save_as_csv', 'path: string, data: any[][]|{headers?: string[], rows?: any[][]}, options?: CsvOptions', 'FileInfo', 'Writes rows as a CSV file.', { args: CSV_WRITE_ARGS });
fn('file.save_records_as_csv', 'path: string, records: table[], header_keys: string[], options?: CsvOptions', 'FileInfo', 'Writes records as a CSV file with the given columns.', { args: CSV_WRITE_ARGS });
fn('file.append_csv_row', 'path: string, values: any[], options?: CsvOptions', 'FileInfo', 'Appends one CSV row.', { args: CSV_WRITE_ARGS });
fn('file.append_csv_rows', 'path: string, value_lists: any[][], options?: CsvOptions', 'FileInfo', 'Appends CSV rows.', { args: CSV_WRITE_ARGS });
fn('csv.values_to_row', 'values: any[], options?: CsvOptions', 'string', 'Formats values as one CSV line.');
fn('csv.value_lists_to_rows', 'value_lists: any[][], options?: CsvOptions', 'string[]', 'Formats lists of values as CSV lines.');
fn('shape.records_to_value_lists', 'records: table[], names: string[]', 'any[][]', 'The values of each record, in the order of names.');

from('0.8.10');
fn('task.set_label', 'label: string', '', "Sets the current task's label.", { args: { style: 'must' }, taskOnly: true });
fn('run.set_label', 'label: string', '', "Sets the run's label.", { args: { style: 'must' } });
fn('md.extract_refs', 'md_content: string|nil', 'MdRef[]', 'Links and image references of a Markdown text.', { args: { names: { md_content: 'content' } } });

from('0.8.11');
fn('pdf.page_count', 'path: string', 'integer', 'The number of pages of a PDF file.');
fn('pdf.split_pages', 'path: string, dest_dir?: string', 'FileInfo[]', 'Saves each page of a PDF as its own file.');

from('0.8.12');
fn('file.load_yaml', 'path: string', 'any[]', 'Reads and parses a YAML file into its documents.');
fn('yaml.parse', 'content: string|nil', 'any[]|nil', 'Parses YAML into its documents.');
fn('yaml.stringify', 'content: any', 'string', 'Serialises a value as one YAML document.');
fn('yaml.stringify_multi_docs', 'content: any[]', 'string', 'Serialises a list as YAML documents.');
fn('udiffx.apply_file_changes', 'content: string, base_dir?: string, options?: {extrude?: "content"}', 'ApplyChangesStatus, string|nil', 'Applies the file-change directives of an AI answer.', { args: { message: "{path} - expected '{name}' to be {want}, got {got}", own: ['base_dir'] }, simulation: 'stricter' });
fn('editor.open_file', 'path: string', '{editor: string}|nil', "Opens a file in the user's editor.");

from('0.8.15');
fn('file.copy', 'src_path: string, dest_path: string, options?: {overwrite?: boolean}', 'FileInfo', 'Copies a file to a workspace path.');
fn('file.move', 'src_path: string, dest_path: string, options?: {overwrite?: boolean}', 'FileInfo', 'Moves a workspace file.');

from('0.8.17');
fn('udiffx.load_files_context', 'include_globs: string|string[], options?: {base_dir?: string, absolute?: boolean}', 'string|nil', 'The matching files formatted as context for a prompt.');
fn('udiffx.file_changes_instruction', '', 'string', 'The instruction that teaches a model the file-change format.');
fn('flow.redo', '', 'AipFlowDirective', 'Old name of aip.flow.redo_run.', { until: '0.8.22' });

from('0.8.18');
fn('path.sort_by_globs', 'files: any[], globs: string|string[], options?: table', 'any[]', 'Orders files (paths or FileInfo) by the first glob each matches.');

from('0.8.22');
fn('zip.create', 'src_dir: string, dest_zip?: string, options?: ZipOptions', 'FileInfo', 'Zips a folder.');
fn('zip.extract', 'src_zip: string, dest_dir?: string, options?: ZipOptions', 'FileInfo[]', 'Extracts a zip file.');
fn('zip.list', 'src_zip: string, options?: ZipOptions', 'string[]', 'The entry paths of a zip file.');
fn('zip.read_text', 'src_zip: string, content_path: string', 'string|nil', 'Reads one text entry of a zip file.');
fn('file.ensure_dir', 'path: string', 'boolean', 'Creates a folder and its parents; true when it was created.');
fn('flow.redo_run', '', 'AipFlowDirective', 'Returned from Before All or After All: run the agent again.');

export const AIP_ENTRIES: readonly AipEntry[] = Object.freeze(ENTRIES.map((e) => Object.freeze(e)));

const BY_PATH = new Map(AIP_ENTRIES.map((e) => [e.path, e]));

/** The entry of a function or constant ("aip.file.load"). */
export function aipEntry(path: string): AipEntry | undefined {
  return BY_PATH.get(path);
}

/** The signature of a function ("aip.file.load"), undefined for constants and unknown names. */
export function signatureOf(path: string): Signature | undefined {
  const e = BY_PATH.get(path);
  return e?.kind === 'function' ? e : undefined;
}
