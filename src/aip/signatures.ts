// The types of the AIPack Lua API: every catalog function's parameters, return values and a one-line doc, the
// table classes they take and return, the CTX keys and the global helpers.
//
// Facts from AIPack's sources (`src/script/aip_modules/`, `src/types/`, the `for-llm` API reference) and docs/aipack.md.
// Types are written in LuaLS syntax (`string|nil`, `string[]`, `{base_dir?: string}`, class names), because they
// are emitted as is into the `---@meta` definitions (src/check/luals.ts) and read by the checker (src/check/infer.ts).
// Which functions exist, and since when, stays in catalog.ts; a test proves both name the same functions.

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

/** A table shape that aip.* functions take or return. */
export interface LuaClass {
  name: string;
  doc: string;
  fields: { name: string; type: string; optional?: boolean; doc?: string }[];
  /** true: no other key is ever set by AIPack, so reading another one is a mistake */
  closed?: boolean;
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

function params(list: string): Param[] {
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

const SIGS: Signature[] = [];

/** `fn('file.load', 'path: string, options?: {base_dir?: string}', 'FileRecord', doc)` */
function fn(path: string, paramList: string, returns: string, doc: string, overloads?: string[]): void {
  const s: Signature = { path: `aip.${path}`, params: params(paramList), returns: splitTop(returns), doc };
  if (overloads) s.overloads = overloads.map(params);
  SIGS.push(s);
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

// --- the functions ------------------------------------------------------------------------------------

const GLOBS = 'string|string[]';
const LIST_OPTS = '{base_dir?: string, absolute?: boolean}';
const TEXT = 'string|nil';

// aip.agent
fn('agent.run', 'agent_name: string, options?: RunAgentOptions', 'RunAgentResponse', 'Runs another agent and waits for its outputs and After All value; errors are raised.');
fn('agent.extract_options', 'value: any', 'AgentOptions|nil', 'Copies the agent-option keys of a table (nil for a non-table).');
// aip.cmd
fn('cmd.exec', 'cmd_name: string, args?: string|string[], options?: {cwd?: string}', 'CmdResponse', 'Runs a program and returns its output and exit code.');
// aip.code
fn('code.comment_line', 'lang_ext: string, comment_content: string', 'string', 'Formats one comment line in the syntax of a file extension.');
// aip.csv
fn('csv.parse', 'content: string, options?: CsvOptions', 'CsvContent', 'Parses CSV text into headers and rows.');
fn('csv.parse_row', 'row: string, options?: CsvOptions', 'string[]', 'Parses one CSV line into its fields.');
fn('csv.values_to_row', 'values: any[], options?: CsvOptions', 'string', 'Formats values as one CSV line.');
fn('csv.value_lists_to_rows', 'value_lists: any[][], options?: CsvOptions', 'string[]', 'Formats lists of values as CSV lines.');
// aip.editor
fn('editor.open_file', 'path: string', '{editor: string}|nil', 'Opens a file in the user\'s editor.');
// aip.file
fn('file.load', 'path: string, options?: {base_dir?: string}', 'FileRecord', 'Reads a text file (relative to the workspace or base_dir); a missing file raises an error.');
fn('file.save', 'path: string, content: string, options?: SaveOptions', 'FileInfo', 'Writes a file inside the workspace, creating its folders.');
fn('file.append', 'path: string, content: string', 'FileInfo', 'Appends text to a file, creating it when missing.');
fn('file.delete', 'path: string', 'boolean', 'Removes a workspace file; false when it did not exist.');
fn('file.copy', 'src_path: string, dest_path: string, options?: {overwrite?: boolean}', 'FileInfo', 'Copies a file to a workspace path.');
fn('file.move', 'src_path: string, dest_path: string, options?: {overwrite?: boolean}', 'FileInfo', 'Moves a workspace file.');
fn('file.exists', 'path: string', 'boolean', 'Whether the path exists.');
fn('file.info', 'path: string|nil', 'FileInfo|nil', 'Metadata of an existing file, nil otherwise.');
fn('file.list', `include_globs: ${GLOBS}, options?: ListOptions`, 'FileInfo[]', 'Files matching globs (a leading ! excludes).');
fn('file.list_load', `include_globs: ${GLOBS}, options?: ${LIST_OPTS}`, 'FileRecord[]', 'Files matching globs, with their content.');
fn('file.first', `include_globs: ${GLOBS}, options?: ${LIST_OPTS}`, 'FileInfo|nil', 'The first file matching globs.');
fn('file.stats', `include_globs: ${GLOBS}|nil, options?: ${LIST_OPTS}`, 'FileStats|nil', 'Count, total size and time range of the files matching globs.');
fn('file.ensure_exists', 'path: string, content?: string, options?: {content_when_empty?: boolean}', 'FileInfo', 'Creates a file with some content when it does not exist.');
fn('file.ensure_dir', 'path: string', 'boolean', 'Creates a folder and its parents; true when it was created.');
fn('file.load_json', 'path: string|nil', 'any', 'Reads and parses a JSON (or JSONC) file.');
fn('file.load_ndjson', 'path: string|nil', 'table[]|nil', 'Reads and parses a newline-delimited JSON file.');
fn('file.load_toml', 'path: string', 'table', 'Reads and parses a TOML file.');
fn('file.load_yaml', 'path: string', 'any[]', 'Reads and parses a YAML file into its documents.');
fn('file.append_json_line', 'path: string, data: any', 'FileInfo', 'Appends a value as one JSON line.');
fn('file.append_json_lines', 'path: string, data: any[]', 'FileInfo', 'Appends values as JSON lines.');
fn('file.load_md_sections', 'path: string, headings?: string|string[]', 'MdSection[]', 'Reads a Markdown file into its sections, optionally only some headings.');
fn('file.load_md_split_first', 'path: string', '{before: string, first: MdSection, after: string}', 'Splits a Markdown file around its first section.');
fn('file.save_changes', 'path: string, changes: string', 'FileInfo, table', 'Applies search/replace changes to a file.');
fn('file.save_html_to_md', 'html_path: string, dest?: string|DestOptions', 'FileInfo', 'Converts an HTML file to Markdown and saves it.');
fn('file.save_html_to_slim', 'html_path: string, dest?: string|DestOptions', 'FileInfo', 'Saves a slimmed copy of an HTML file.');
fn('file.load_html_as_md', 'html_path: string, options?: {trim?: boolean}', 'string', 'Reads an HTML file as Markdown.');
fn('file.load_html_as_slim', 'html_path: string', 'string', 'Reads an HTML file, slimmed.');
fn('file.save_docx_to_md', 'docx_path: string, dest?: string|DestOptions', 'FileInfo', 'Converts a .docx file to Markdown and saves it.');
fn('file.load_docx_as_md', 'docx_path: string', 'string', 'Reads a .docx file as Markdown.');
fn('file.load_csv', 'path: string, options?: CsvOptions', 'CsvContent', 'Reads and parses a CSV file.');
fn('file.load_csv_headers', 'path: string', 'string[]', 'Reads the header row of a CSV file.');
fn('file.save_as_csv', 'path: string, data: any[][]|{headers?: string[], rows?: any[][]}, options?: CsvOptions', 'FileInfo', 'Writes rows as a CSV file.');
fn('file.save_records_as_csv', 'path: string, records: table[], header_keys: string[], options?: CsvOptions', 'FileInfo', 'Writes records as a CSV file with the given columns.');
fn('file.append_csv_row', 'path: string, values: any[], options?: CsvOptions', 'FileInfo', 'Appends one CSV row.');
fn('file.append_csv_rows', 'path: string, value_lists: any[][], options?: CsvOptions', 'FileInfo', 'Appends CSV rows.');
fn('file.line_spans', 'path: string', 'integer[][]', 'Byte spans {start, end} of each line of a file.');
fn('file.csv_row_spans', 'path: string', 'integer[][]', 'Byte spans {start, end} of each CSV record of a file.');
fn('file.read_span', 'path: string, start_pos: integer, end_pos: integer', 'string', 'Reads the bytes between two offsets of a file.');
for (const algo of ['sha256', 'sha512', 'blake3']) {
  for (const enc of ['', '_b64', '_b64u', '_b58u']) {
    fn(`file.hash_${algo}${enc}`, 'path: string', 'string', `The ${algo} hash of a file's bytes, ${enc ? `${enc.slice(1)}-encoded` : 'hex-encoded'}.`);
  }
}
// aip.flow
fn('flow.skip', 'reason?: string', 'AipFlowDirective', 'Returned from a stage: skip the run (Before All) or this input (Data).');
fn('flow.before_all_response', 'data: {inputs?: any[], before_all?: any, options?: AgentOptions}', 'AipFlowDirective', 'Returned from Before All: replace inputs, set before_all, override options.');
fn('flow.data_response', 'data: {input?: any, data?: any, attachments?: table, options?: AgentOptions}', 'AipFlowDirective', 'Returned from Data: replace the input, set data, attach files, override options.');
fn('flow.redo', '', 'AipFlowDirective', 'Old name of aip.flow.redo_run.');
fn('flow.redo_run', '', 'AipFlowDirective', 'Returned from Before All or After All: run the agent again.');
// aip.git
fn('git.restore', 'path: string', 'string', 'Restores a file from git (git restore).');
// aip.hash
for (const algo of ['sha256', 'sha512', 'blake3']) {
  for (const enc of ['', '_b58', '_b64', '_b64u']) {
    fn(`hash.${algo}${enc}`, 'input: string', 'string', `The ${algo} hash of a string, ${enc ? `${enc.slice(1)}-encoded` : 'hex-encoded'}.`);
  }
}
// aip.hbs
fn('hbs.render', 'content: string, data: any', 'string', 'Renders a Handlebars template with data as its root.');
// aip.html
fn('html.slim', 'html_content: string', 'string', 'Removes scripts, styles and other noise from HTML.');
fn('html.prune_to_content', 'html_content: string', 'string', 'Same as aip.html.slim.');
fn('html.select', 'html_content: string, selectors: string|string[]', 'table[]', 'Elements matching CSS selectors.');
fn('html.to_md', 'html_content: string', 'string', 'Converts HTML to Markdown.');
// aip.json
fn('json.parse', 'content: string|nil', 'any', 'Parses JSON (lenient: comments, trailing commas); nil for nil or blank.');
fn('json.parse_ndjson', 'content: string|nil', 'table[]|nil', 'Parses newline-delimited JSON.');
fn('json.stringify', 'content: any', 'string', 'Serialises a value as one-line JSON.');
fn('json.stringify_pretty', 'content: any', 'string', 'Serialises a value as indented JSON.');
fn('json.stringify_to_line', 'content: any', 'string', 'Same as aip.json.stringify.');
// aip.lua
fn('lua.dump', 'value: any', 'string', 'A readable text form of any Lua value.');
fn('lua.merge', 'target: table, ...objs: table|nil', 'table', 'Copies the keys of the other tables into target (shallow, later wins).');
fn('lua.merge_deep', 'target: table, ...objs: table|nil', 'table', 'Merges the other tables into target, recursing into nested tables.');
// aip.md
fn('md.extract_blocks', 'md_content: string, options?: string|{lang?: string, extrude?: "content"}', 'MdBlock[], string|nil', 'Fenced code blocks of a Markdown text (by language; with extrude, also the rest).');
fn('md.extract_meta', 'md_content: string|nil', 'table|nil, string|nil', 'Merges the #!meta blocks of a Markdown text, and returns the text without them.');
fn('md.outer_block_content_or_raw', 'md_content: string', 'string', 'The content of the outer code block, or the text itself.');
fn('md.extract_refs', 'md_content: string|nil', 'MdRef[]', 'Links and image references of a Markdown text.');
// aip.path
fn('path.split', 'path: string', 'string, string', 'The parent folder and the file name.');
fn('path.resolve', 'path: string', 'string', 'The absolute, normalised form of a workspace path or pack reference.');
fn('path.exists', 'path: string', 'boolean', 'Whether the path exists.');
fn('path.is_file', 'path: string', 'boolean', 'Whether the path is an existing file.');
fn('path.is_dir', 'path: string', 'boolean', 'Whether the path is an existing folder.');
fn('path.diff', 'file_path: string, base_path: string', 'string', 'The relative path from base_path to file_path.');
fn('path.parent', 'path: string', 'string|nil', 'The parent folder (nil for a root).');
fn('path.join', 'base: string, ...parts: string|string[]', 'string', 'Appends the parts (concatenated, lists joined with /) to base.');
fn('path.matches_glob', `path: string|nil, globs: ${GLOBS}`, 'boolean|nil', 'Whether a path matches one of the globs.');
fn('path.parse', 'path: string|nil', 'FileInfo|nil', 'The path parts of a path, without touching the disk.');
fn('path.sort_by_globs', `files: any[], globs: ${GLOBS}, options?: table`, 'any[]', 'Orders files (paths or FileInfo) by the first glob each matches.');
// aip.pdf
fn('pdf.page_count', 'path: string', 'integer', 'The number of pages of a PDF file.');
fn('pdf.split_pages', 'path: string, dest_dir?: string', 'FileInfo[]', 'Saves each page of a PDF as its own file.');
// aip.run / aip.task
const PIN = 'iden: string, content: string|Marker';
const PIN_PRIO = ['iden: string, priority: number, content: string|Marker'];
fn('run.pin', PIN, '', 'Pins a content to the run, shown in the run view.', PIN_PRIO);
fn('run.set_label', 'label: string', '', 'Sets the run\'s label.');
fn('task.pin', PIN, '', 'Pins a content to the current task (Data and Output only).', PIN_PRIO);
fn('task.set_label', 'label: string', '', 'Sets the current task\'s label (Data and Output only).');
// aip.rust
fn('rust.prune_to_declarations', 'code: string', 'string', 'Rust source with function bodies removed.');
// aip.semver
fn('semver.compare', 'version1: string, operator: string, version2: string', 'boolean', 'Compares two versions with an operator (<, <=, =, ==, >=, >, !=, ~=).');
fn('semver.parse', 'version: string', 'SemVerParts', 'The parts of a version.');
fn('semver.is_prerelease', 'version: string', 'boolean', 'Whether a version has a prerelease part.');
fn('semver.valid', 'version: string', 'boolean', 'Whether a string is a valid semantic version.');
// aip.shape
fn('shape.to_record', 'names: string[], values: any[]', 'table', 'Pairs names with values into one record.');
fn('shape.to_records', 'names: string[], rows: any[][]', 'table[]', 'Pairs names with each row of values.');
fn('shape.record_to_values', 'record: table, names?: string[]', 'any[]', 'The values of a record, in the order of names.');
fn('shape.records_to_value_lists', 'records: table[], names: string[]', 'any[][]', 'The values of each record, in the order of names.');
fn('shape.columnar_to_records', 'cols: table<string, any[]>', 'table[]', 'Turns columns into records.');
fn('shape.records_to_columnar', 'recs: table[]', 'table<string, any[]>', 'Turns records into columns.');
fn('shape.select_keys', 'rec: table, keys: string[]', 'table', 'A copy of a record with only some keys.');
fn('shape.omit_keys', 'rec: table, keys: string[]', 'table', 'A copy of a record without some keys.');
fn('shape.extract_keys', 'rec: table, keys: string[]', 'table', 'Removes some keys from a record and returns them.');
fn('shape.remove_keys', 'rec: table, keys: string[]', 'integer', 'Removes some keys from a record; the number removed.');
// aip.tag
const TAG = `content: string, tag_names: ${GLOBS}, options?: {extrude?: "content"}`;
fn('tag.extract', TAG, 'TagElem[], string|nil', 'Elements <TAG>...</TAG> of a text (with extrude, also the rest).');
fn('tag.extract_as_map', TAG, 'table<string, TagElem>, string|nil', 'Elements of a text by tag name (the last one wins).');
fn('tag.extract_as_multi_map', TAG, 'table<string, TagElem[]>, string|nil', 'Elements of a text, listed by tag name.');
// aip.text
fn('text.trim', `content: ${TEXT}`, TEXT, 'Removes leading and trailing whitespace.');
fn('text.trim_start', `content: ${TEXT}`, TEXT, 'Removes leading whitespace.');
fn('text.trim_end', `content: ${TEXT}`, TEXT, 'Removes trailing whitespace.');
fn('text.split_first', `content: ${TEXT}, sep: string`, `${TEXT}, ${TEXT}`, 'Splits at the first separator: before, after (nil when absent).');
fn('text.split_last', `content: ${TEXT}, sep: string`, `${TEXT}, ${TEXT}`, 'Splits at the last separator: before, after (nil when absent).');
fn('text.split_first_line', `content: ${TEXT}, sep: string`, `${TEXT}, ${TEXT}`, 'Splits around the first line equal to sep.');
fn('text.split_last_line', `content: ${TEXT}, sep: string`, `${TEXT}, ${TEXT}`, 'Splits around the last line equal to sep.');
fn('text.extract_line_blocks', `content: ${TEXT}, options: {starts_with: string, extrude?: "content", first?: integer}`, 'string[]|nil, string|nil', 'Runs of lines starting with a prefix (with extrude, also the rest).');
fn('text.escape_decode', `content: ${TEXT}`, TEXT, 'Decodes HTML entities.');
fn('text.escape_decode_if_needed', `content: ${TEXT}`, TEXT, 'Decodes HTML entities when the text has some.');
fn('text.remove_first_line', `content: ${TEXT}`, TEXT, 'The text without its first line.');
fn('text.remove_first_lines', `content: ${TEXT}, n: integer`, TEXT, 'The text without its first n lines.');
fn('text.remove_last_line', `content: ${TEXT}`, TEXT, 'The text without its last line.');
fn('text.remove_last_lines', `content: ${TEXT}, n: integer`, TEXT, 'The text without its last n lines.');
fn('text.truncate', `content: ${TEXT}, max_len: integer, ellipsis?: string`, TEXT, 'Cuts the text to max_len characters, adding the ellipsis.');
fn('text.replace_markers', `content: ${TEXT}, new_sections: any[]`, TEXT, 'Replaces the marked sections of a text, in order.');
fn('text.ensure', `content: ${TEXT}, options: {prefix?: string, suffix?: string}`, TEXT, 'Adds a prefix/suffix when the text lacks it.');
fn('text.ensure_single_trailing_newline', `content: ${TEXT}`, TEXT, 'Ends the text with exactly one newline.');
fn('text.ensure_single_ending_newline', `content: ${TEXT}`, TEXT, 'Old name of aip.text.ensure_single_trailing_newline.');
fn('text.format_size', 'bytes: integer|nil, lowest_size_unit?: "B"|"KB"|"MB"|"GB"', TEXT, 'A byte count in a readable unit.');
// aip.time
fn('time.now_iso_utc', '', 'string', 'Now, as ISO 8601 UTC (seconds).');
fn('time.now_iso_local', '', 'string', 'Now, as ISO 8601 local time with offset (seconds).');
fn('time.now_iso_utc_micro', '', 'string', 'Now, as ISO 8601 UTC (microseconds).');
fn('time.now_iso_local_micro', '', 'string', 'Now, as ISO 8601 local time (microseconds).');
fn('time.now_utc_micro', '', 'integer', 'Now, in microseconds since the epoch.');
fn('time.today_utc', '', 'string', 'Today (UTC), as "Weekday YYYY-MM-DD".');
fn('time.today_local', '', 'string', 'Today (local), as "Weekday YYYY-MM-DD".');
fn('time.today_iso_utc', '', 'string', 'Today (UTC), as YYYY-MM-DD.');
fn('time.today_iso_local', '', 'string', 'Today (local), as YYYY-MM-DD.');
fn('time.weekday_utc', '', 'string', 'Today\'s weekday name (UTC).');
fn('time.weekday_local', '', 'string', 'Today\'s weekday name (local).');
fn('time.local_tz_id', '', 'string', 'The local IANA time zone id ("UTC" when unknown).');
// aip.toml / aip.yaml
fn('toml.parse', 'content: string', 'table', 'Parses TOML.');
fn('toml.stringify', 'content: table', 'string', 'Serialises a table as TOML.');
fn('yaml.parse', `content: ${TEXT}`, 'any[]|nil', 'Parses YAML into its documents.');
fn('yaml.stringify', 'content: any', 'string', 'Serialises a value as one YAML document.');
fn('yaml.stringify_multi_docs', 'content: any[]', 'string', 'Serialises a list as YAML documents.');
// aip.udiffx
fn('udiffx.apply_file_changes', 'content: string, base_dir?: string, options?: {extrude?: "content"}', 'ApplyChangesStatus, string|nil', 'Applies the file-change directives of an AI answer.');
fn('udiffx.load_files_context', `include_globs: ${GLOBS}, options?: ${LIST_OPTS}`, 'string|nil', 'The matching files formatted as context for a prompt.');
fn('udiffx.file_changes_instruction', '', 'string', 'The instruction that teaches a model the file-change format.');
// aip.uuid
fn('uuid.new', '', 'string', 'A new UUID v4 (hyphenated).');
fn('uuid.new_v4', '', 'string', 'A new UUID v4 (hyphenated).');
fn('uuid.new_v7', '', 'string', 'A new UUID v7 (hyphenated).');
for (const v of ['v4', 'v7']) {
  for (const enc of ['b64', 'b64u', 'b58']) fn(`uuid.new_${v}_${enc}`, '', 'string', `A new UUID ${v}, ${enc}-encoded.`);
}
fn('uuid.to_time_epoch_ms', 'value: string|nil', 'integer|nil', 'The time of a UUID v7 in ms (nil for other UUIDs).');
// aip.web
fn('web.get', 'url: string, options?: WebOptions', 'WebResponse', 'An HTTP GET.');
fn('web.post', 'url: string, data: string|table, options?: WebOptions', 'WebResponse', 'An HTTP POST (a table is sent as JSON).');
fn('web.parse_url', 'url: string|nil', 'table|nil', 'The parts of a URL.');
fn('web.resolve_href', 'href: string|nil, base_url: string', 'string|nil', 'An href made absolute against a base URL.');
// aip.zip
fn('zip.create', 'src_dir: string, dest_zip?: string, options?: ZipOptions', 'FileInfo', 'Zips a folder.');
fn('zip.extract', 'src_zip: string, dest_dir?: string, options?: ZipOptions', 'FileInfo[]', 'Extracts a zip file.');
fn('zip.list', 'src_zip: string, options?: ZipOptions', 'string[]', 'The entry paths of a zip file.');
fn('zip.read_text', 'src_zip: string, content_path: string', 'string|nil', 'Reads one text entry of a zip file.');

export const SIGNATURES: readonly Signature[] = Object.freeze(SIGS);

const SIG_BY_PATH = new Map(SIGS.map((s) => [s.path, s]));

/** The signature of a catalog function ("aip.file.load"), undefined for constants and unknown names. */
export function signatureOf(path: string): Signature | undefined {
  return SIG_BY_PATH.get(path);
}

/** Types of the catalog constants (aip.web.UA_*). */
export const CONSTANT_TYPES: Readonly<Record<string, { type: string; doc: string }>> = Object.freeze({
  'aip.web.UA_AIPACK': { type: 'string', doc: 'The user agent AIPack sends by default.' },
  'aip.web.UA_BROWSER': { type: 'string', doc: 'A browser-like user agent.' },
});

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

export function parseParams(list: string): Param[] {
  return list.trim() === '' ? [] : params(list);
}
