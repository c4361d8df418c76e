// The AIPack Lua API surface, per version (docs/aipack.md section 3-8).
// Single source of truth for the runtime (which functions exist) and the checker (what code may call).

import { compareSemVer, type SemVer } from './semver.ts';
import type { LifecycleStage } from './support/lifecycle-stage.ts';

/** The newest AIPack version whose API the simulator knows (the last entries of the catalog below). */
export const NEWEST_AIPACK_VERSION = '0.8.33';
/** The oldest AIPack version the pack supports (the contract's MIN_AIPACK_VERSION says the same). */
export const OLDEST_AIPACK_VERSION = '0.8.15';
/** The AIPack version a simulated run is when none is given: the newest, as users run current AIPack. */
export const DEFAULT_AIPACK_VERSION = NEWEST_AIPACK_VERSION;

/** The names a version flag takes besides a version number. */
export const VERSION_ALIASES: Readonly<Record<string, string>> = Object.freeze({ oldest: OLDEST_AIPACK_VERSION, newest: NEWEST_AIPACK_VERSION });

/** A version as given on the command line or in a config file: `oldest` and `newest` stand for their versions. */
export function resolveVersionAlias(v: string): string {
  return VERSION_ALIASES[v.trim().toLowerCase()] ?? v.trim();
}

export interface AipFunction {
  /** full dotted path, e.g. "aip.file.load" */
  path: string;
  /** first AIPack version that has it ("0.8.0" for the v0.8.0 baseline) */
  since: string;
  /** first AIPack version that no longer has it (removed or renamed) */
  until?: string;
  kind: 'function' | 'constant';
}

/**
 * Orders AIPack versions by SemVer precedence (a prerelease sorts before its release; build metadata is ignored).
 * More lenient than aip.semver: a leading "v" and surrounding spaces are accepted, as users write versions.
 */
export function compareVersions(a: string, b: string): number {
  return compareSemVer(parseVersion(a), parseVersion(b));
}

const VERSION_RE = /^v?(\d+)\.(\d+)\.(\d+)(?:-([0-9A-Za-z.-]+))?(?:\+[0-9A-Za-z.-]+)?$/;

export function isValidVersion(v: string): boolean {
  return VERSION_RE.test(v.trim());
}

function parseVersion(v: string): SemVer {
  const m = VERSION_RE.exec(v.trim());
  if (!m) throw new Error(`invalid AIPack version '${v}' (expected MAJOR.MINOR.PATCH, e.g. 0.8.15)`);
  return { major: BigInt(m[1]), minor: BigInt(m[2]), patch: BigInt(m[3]), pre: m[4]?.split('.') ?? [], build: [] };
}

/** true when `version` is within [since, until) */
export function isAvailableAt(entry: { since: string; until?: string }, version: string): boolean {
  if (compareVersions(version, entry.since) < 0) return false;
  return entry.until === undefined || compareVersions(version, entry.until) < 0;
}

// --- the catalog, written as "namespace: names" groups per version --------------------------------

interface Group {
  ns: string;
  names: string[];
  since: string;
  until?: string;
  kind?: 'constant';
}

/** Cartesian product of name parts: cross(['a','b'], ['', '_x']) -> a, a_x, b, b_x */
function cross(...parts: string[][]): string[] {
  return parts.reduce<string[]>((acc, p) => acc.flatMap((a) => p.map((s) => a + s)), ['']);
}

const V0 = '0.8.0';

const GROUPS: Group[] = [
  // v0.8.0 baseline (docs/aipack.md section 8, shorthand expanded with sections 3-7)
  { ns: 'agent', names: ['run', 'extract_options'], since: V0 },
  { ns: 'cmd', names: ['exec'], since: V0 },
  { ns: 'code', names: ['comment_line'], since: V0 },
  {
    ns: 'file',
    names: [
      'load', 'save', 'append', 'delete', 'exists', 'info', 'list', 'list_load', 'first', 'stats',
      'ensure_exists', 'load_json', 'load_ndjson', 'append_json_line', 'append_json_lines',
      'load_md_sections', 'load_md_split_first', 'save_changes', 'save_html_to_md', 'save_html_to_slim',
      'load_html_as_md', 'load_html_as_slim', 'save_docx_to_md', 'load_docx_as_md',
      // the file hashes use a `_b58u` suffix, unlike aip.hash.* (`_b58`)
      ...cross(['hash_'], ['sha256', 'sha512', 'blake3'], ['', '_b64', '_b64u', '_b58u']),
    ],
    since: V0,
  },
  { ns: 'flow', names: ['skip', 'before_all_response', 'data_response'], since: V0 },
  { ns: 'git', names: ['restore'], since: V0 },
  { ns: 'hash', names: cross(['sha256', 'sha512', 'blake3'], ['', '_b58', '_b64', '_b64u']), since: V0 },
  { ns: 'hbs', names: ['render'], since: V0 },
  { ns: 'html', names: ['slim', 'select', 'to_md', 'prune_to_content'], since: V0 },
  { ns: 'json', names: ['parse', 'parse_ndjson', 'stringify', 'stringify_pretty', 'stringify_to_line'], since: V0 },
  { ns: 'lua', names: ['dump'], since: V0 },
  { ns: 'md', names: ['extract_blocks', 'extract_meta', 'outer_block_content_or_raw'], since: V0 },
  {
    ns: 'path',
    names: ['split', 'resolve', 'exists', 'is_file', 'is_dir', 'diff', 'parent', 'join', 'matches_glob', 'parse'],
    since: V0,
  },
  { ns: 'rust', names: ['prune_to_declarations'], since: V0 },
  { ns: 'semver', names: ['compare', 'parse', 'is_prerelease', 'valid'], since: V0 },
  {
    ns: 'text',
    names: [
      'trim', 'trim_start', 'trim_end',
      'split_first', 'split_last', 'split_first_line', 'split_last_line',
      'extract_line_blocks',
      'escape_decode', 'escape_decode_if_needed',
      'remove_first_line', 'remove_first_lines', 'remove_last_line', 'remove_last_lines',
      'truncate', 'replace_markers', 'ensure',
      // old name, still registered after the 0.8.4 rename (section 7.2)
      'ensure_single_ending_newline',
      'format_size',
    ],
    since: V0,
  },
  {
    ns: 'time',
    names: ['now_iso_utc', 'now_iso_local', 'now_iso_utc_micro', 'now_iso_local_micro', 'now_utc_micro', 'today_utc', 'today_local'],
    since: V0,
  },
  {
    ns: 'uuid',
    names: ['new', 'new_v4', 'new_v7', ...cross(['new_v4', 'new_v7'], ['_b64', '_b64u', '_b58']), 'to_time_epoch_ms'],
    since: V0,
  },
  { ns: 'web', names: ['get', 'post', 'parse_url', 'resolve_href'], since: V0 },
  { ns: 'run', names: ['pin'], since: V0 },
  { ns: 'task', names: ['pin'], since: V0 },

  // 0.8.1
  {
    ns: 'shape',
    names: [
      'to_record', 'to_records', 'record_to_values', 'columnar_to_records', 'records_to_columnar',
      'select_keys', 'omit_keys', 'extract_keys', 'remove_keys',
    ],
    since: '0.8.1',
  },
  { ns: 'time', names: ['local_tz_id', 'today_iso_utc', 'today_iso_local', 'weekday_utc', 'weekday_local'], since: '0.8.1' },
  { ns: 'file', names: ['load_csv', 'load_csv_headers'], since: '0.8.1' },
  // 0.8.2
  { ns: 'csv', names: ['parse', 'parse_row'], since: '0.8.2' },
  { ns: 'file', names: ['line_spans', 'csv_row_spans', 'read_span'], since: '0.8.2' },
  // 0.8.4
  { ns: 'tag', names: ['extract', 'extract_as_map', 'extract_as_multi_map'], since: '0.8.4' },
  { ns: 'text', names: ['ensure_single_trailing_newline'], since: '0.8.4' },
  // 0.8.6
  { ns: 'web', names: ['UA_AIPACK', 'UA_BROWSER'], since: '0.8.6', kind: 'constant' },
  // 0.8.8
  { ns: 'lua', names: ['merge', 'merge_deep'], since: '0.8.8' },
  { ns: 'toml', names: ['parse', 'stringify'], since: '0.8.8' },
  { ns: 'file', names: ['load_toml', 'save_as_csv', 'save_records_as_csv', 'append_csv_row', 'append_csv_rows'], since: '0.8.8' },
  { ns: 'csv', names: ['values_to_row', 'value_lists_to_rows'], since: '0.8.8' },
  { ns: 'shape', names: ['records_to_value_lists'], since: '0.8.8' },
  // 0.8.10
  { ns: 'task', names: ['set_label'], since: '0.8.10' },
  { ns: 'run', names: ['set_label'], since: '0.8.10' },
  { ns: 'md', names: ['extract_refs'], since: '0.8.10' },
  // 0.8.11
  { ns: 'pdf', names: ['page_count', 'split_pages'], since: '0.8.11' },
  // 0.8.12
  { ns: 'file', names: ['load_yaml'], since: '0.8.12' },
  { ns: 'yaml', names: ['parse', 'stringify', 'stringify_multi_docs'], since: '0.8.12' },
  { ns: 'udiffx', names: ['apply_file_changes'], since: '0.8.12' },
  { ns: 'editor', names: ['open_file'], since: '0.8.12' },
  // 0.8.15
  { ns: 'file', names: ['copy', 'move'], since: '0.8.15' },
  // 0.8.17
  { ns: 'udiffx', names: ['load_files_context', 'file_changes_instruction'], since: '0.8.17' },
  { ns: 'flow', names: ['redo'], since: '0.8.17', until: '0.8.22' }, // renamed to redo_run
  // 0.8.18
  { ns: 'path', names: ['sort_by_globs'], since: '0.8.18' },
  // 0.8.22
  { ns: 'zip', names: ['create', 'extract', 'list', 'read_text'], since: '0.8.22' },
  { ns: 'file', names: ['ensure_dir'], since: '0.8.22' },
  { ns: 'flow', names: ['redo_run'], since: '0.8.22' },
];

export const AIP_FUNCTIONS: readonly AipFunction[] = Object.freeze(
  GROUPS.flatMap((g) =>
    g.names.map((name): AipFunction => {
      const f: AipFunction = { path: `aip.${g.ns}.${name}`, since: g.since, kind: g.kind ?? 'function' };
      if (g.until !== undefined) f.until = g.until;
      return Object.freeze(f);
    }),
  ),
);

const BY_PATH = new Map(AIP_FUNCTIONS.map((f) => [f.path, f]));

// Asked once per Lua stage by the simulator: remember the answer per version.
const functionsAtCache = new Map<string, readonly AipFunction[]>();

/** Catalog entries available at that AIPack version. */
export function aipFunctionsAt(version: string): AipFunction[] {
  let fns = functionsAtCache.get(version);
  if (!fns) {
    fns = Object.freeze(AIP_FUNCTIONS.filter((f) => isAvailableAt(f, version)));
    functionsAtCache.set(version, fns);
  }
  return [...fns];
}

/** `utils.x` is the old alias of `aip.x`. */
const unaliased = (path: string): string => (path.startsWith('utils.') ? `aip.${path.slice('utils.'.length)}` : path);

/** Lookup by full path ("aip.file.load"); the `utils.` alias is accepted too. */
export function findAipFunction(path: string): AipFunction | undefined {
  return BY_PATH.get(unaliased(path));
}

export interface AipNamespace {
  /** "aip.file" */
  path: string;
  /** since of its earliest member */
  since: string;
  /** set only when every member was removed */
  until?: string;
}

/** The `aip.<ns>` tables, derived from the functions. */
export const AIP_NAMESPACES: readonly AipNamespace[] = Object.freeze(
  [...new Set(AIP_FUNCTIONS.map((f) => f.path.split('.')[1]))].map((ns) => {
    const members = AIP_FUNCTIONS.filter((f) => f.path.split('.')[1] === ns);
    const since = members.map((m) => m.since).sort(compareVersions)[0];
    const ns0: AipNamespace = { path: `aip.${ns}`, since };
    if (members.every((m) => m.until !== undefined)) {
      ns0.until = members.map((m) => m.until as string).sort(compareVersions).at(-1);
    }
    return Object.freeze(ns0);
  }),
);

export function findAipNamespace(path: string): AipNamespace | undefined {
  const p = unaliased(path);
  return AIP_NAMESPACES.find((n) => n.path === p);
}

// --- globals -------------------------------------------------------------------------------------

/**
 * Globals of AIPack's Lua 5.4 state (mlua `Lua::new()` safe stdlib: no `debug`; docs/aipack.md section 6):
 * base functions plus the standard library tables.
 */
export const LUA_STD_GLOBALS: readonly string[] = Object.freeze([
  // libraries
  'coroutine', 'table', 'io', 'os', 'string', 'utf8', 'math', 'package',
  // base library (Lua 5.4)
  '_G', '_VERSION', 'assert', 'collectgarbage', 'dofile', 'error', 'getmetatable', 'ipairs', 'load',
  'loadfile', 'next', 'pairs', 'pcall', 'print', 'rawequal', 'rawget', 'rawlen', 'rawset', 'select',
  'setmetatable', 'tonumber', 'tostring', 'type', 'warn', 'xpcall',
  // package library
  'require',
]);

export interface AipackGlobal {
  name: string;
  since: string;
  /** first version without it */
  until?: string;
}

/** Globals AIPack adds to every Lua state (docs/aipack.md section 6 and 8). */
export const AIPACK_GLOBALS: readonly AipackGlobal[] = Object.freeze(
  [
    { name: 'aip', since: V0 },
    { name: 'utils', since: V0 },
    { name: 'CTX', since: V0 },
    { name: 'print', since: V0 },
    // legacy alias of aip.flow, removed in 0.8.1
    { name: 'aipack', since: V0, until: '0.8.1' },
    { name: 'null', since: '0.8.1' },
    { name: 'Null', since: '0.8.1' },
    { name: 'NULL', since: '0.8.15' },
    { name: 'is_null', since: '0.8.15' },
    { name: 'value_or', since: '0.8.15' },
    { name: 'nil_if_null', since: '0.8.15' },
    { name: 'is_not_null', since: '0.8.27' },
    { name: 'is_table', since: '0.8.27' },
    { name: 'is_list', since: '0.8.27' },
    { name: 'is_object', since: '0.8.27' },
  ].map((g) => Object.freeze(g as AipackGlobal)),
);

/** Names of the AIPack globals available at that version. */
export function aipackGlobalsAt(version: string): string[] {
  return AIPACK_GLOBALS.filter((g) => isAvailableAt(g, version)).map((g) => g.name);
}


/** Variables of each stage's chunk environment (docs/aipack.md section 2). */
export const STAGE_VARIABLES: Record<LifecycleStage, readonly string[]> = Object.freeze({
  BeforeAll: Object.freeze(['inputs', 'options']),
  Data: Object.freeze(['input', 'before_all', 'options']),
  Output: Object.freeze(['input', 'data', 'before_all', 'ai_response', 'options']),
  AfterAll: Object.freeze(['inputs', 'outputs', 'before_all', 'options']),
});
