import { describe, expect, it } from 'vitest';
import {
  AIPACK_GLOBALS,
  AIP_FUNCTIONS,
  AIP_NAMESPACES,
  LUA_STD_GLOBALS,
  STAGE_VARIABLES,
  aipFunctionsAt,
  aipackGlobalsAt,
  compareVersions,
  findAipFunction,
} from '../../src/aip/catalog.ts';

/**
 * The first AIPack release tag whose src/script/aip_modules/ registers each function (`table.set("name", ...)`),
 * read from aipack-ai/aipack's tags v0.8.0..v0.8.33. Everything else in the catalog is in the v0.8.0 baseline.
 * aip.flow.redo is gone from v0.8.22 (renamed redo_run).
 */
const FIRST_TAG: Record<string, string[]> = {
  '0.8.1': [
    'file.load_csv', 'file.load_csv_headers', 'shape.columnar_to_records', 'shape.extract_keys', 'shape.omit_keys',
    'shape.record_to_values', 'shape.records_to_columnar', 'shape.remove_keys', 'shape.select_keys', 'shape.to_record',
    'shape.to_records', 'time.local_tz_id', 'time.today_iso_local', 'time.today_iso_utc', 'time.weekday_local',
    'time.weekday_utc',
  ],
  '0.8.2': ['csv.parse', 'csv.parse_row', 'file.csv_row_spans', 'file.line_spans', 'file.read_span'],
  '0.8.4': ['tag.extract', 'tag.extract_as_map', 'tag.extract_as_multi_map', 'text.ensure_single_trailing_newline'],
  '0.8.6': ['web.UA_AIPACK', 'web.UA_BROWSER'],
  '0.8.8': [
    'csv.value_lists_to_rows', 'csv.values_to_row', 'file.append_csv_row', 'file.append_csv_rows', 'file.load_toml',
    'file.save_as_csv', 'file.save_records_as_csv', 'lua.merge', 'lua.merge_deep', 'shape.records_to_value_lists',
    'toml.parse', 'toml.stringify',
  ],
  '0.8.10': ['md.extract_refs', 'run.set_label', 'task.set_label'],
  '0.8.11': ['pdf.page_count', 'pdf.split_pages'],
  '0.8.12': ['editor.open_file', 'file.load_yaml', 'udiffx.apply_file_changes', 'yaml.parse', 'yaml.stringify', 'yaml.stringify_multi_docs'],
  '0.8.15': ['file.copy', 'file.move'],
  '0.8.17': ['flow.redo', 'udiffx.file_changes_instruction', 'udiffx.load_files_context'],
  '0.8.18': ['path.sort_by_globs'],
  '0.8.22': ['file.ensure_dir', 'flow.redo_run', 'zip.create', 'zip.extract', 'zip.list', 'zip.read_text'],
};

/** First tag defining each AIPack global of the catalog (lua_engine.rs and its helpers). */
const GLOBAL_FIRST_TAG: Record<string, string> = {
  aip: '0.8.0', utils: '0.8.0', CTX: '0.8.0', print: '0.8.0', aipack: '0.8.0',
  null: '0.8.1', Null: '0.8.1', NULL: '0.8.15', is_null: '0.8.15', value_or: '0.8.15', nil_if_null: '0.8.15',
  is_not_null: '0.8.27', is_table: '0.8.27', is_list: '0.8.27', is_object: '0.8.27',
};

const has = (version: string, path: string) => aipFunctionsAt(version).some((f) => f.path === path);

describe('compareVersions', () => {
  it('orders numerically, prerelease before release', () => {
    expect(compareVersions('0.8.9', '0.8.10')).toBe(-1);
    expect(compareVersions('0.8.10', '0.8.9')).toBe(1);
    expect(compareVersions('0.8.15', '0.8.15')).toBe(0);
    expect(compareVersions('0.8.34-WIP', '0.8.34')).toBe(-1);
    expect(compareVersions('0.8.34-WIP', '0.8.33')).toBe(1);
    expect(() => compareVersions('0.8', '0.8.1')).toThrow(/invalid AIPack version/);
  });

  it('orders prereleases by SemVer precedence, accepts a leading v and ignores build metadata', () => {
    expect(compareVersions('0.8.34-WIP.9', '0.8.34-WIP.10')).toBe(-1);
    expect(compareVersions('v0.8.15', ' 0.8.15 ')).toBe(0);
    expect(compareVersions('0.8.15+build.2', '0.8.15+build.1')).toBe(0);
  });
});

describe('AIP_FUNCTIONS', () => {
  it('has no duplicate paths and only well-formed entries', () => {
    const paths = AIP_FUNCTIONS.map((f) => f.path);
    expect(new Set(paths).size).toBe(paths.length);
    for (const f of AIP_FUNCTIONS) {
      expect(f.path).toMatch(/^aip\.[a-z]+\.[A-Za-z_0-9]+$/);
      expect(f.since).toMatch(/^0\.8\.\d+$/);
      if (f.until) expect(compareVersions(f.since, f.until)).toBe(-1);
    }
  });

  it('contains every name of the v0.8.0 baseline, expanded', () => {
    const baseline = [
      'agent.run', 'agent.extract_options', 'cmd.exec', 'code.comment_line',
      'file.load', 'file.save', 'file.append', 'file.delete', 'file.exists', 'file.info', 'file.list',
      'file.list_load', 'file.first', 'file.stats', 'file.ensure_exists', 'file.load_json', 'file.load_ndjson',
      'file.append_json_line', 'file.append_json_lines', 'file.load_md_sections', 'file.load_md_split_first',
      'file.save_changes', 'file.save_html_to_md', 'file.save_html_to_slim', 'file.load_html_as_md',
      'file.load_html_as_slim', 'file.save_docx_to_md', 'file.load_docx_as_md',
      'file.hash_sha256', 'file.hash_sha256_b64', 'file.hash_sha256_b64u', 'file.hash_sha256_b58u',
      'file.hash_sha512', 'file.hash_sha512_b64', 'file.hash_sha512_b64u', 'file.hash_sha512_b58u',
      'file.hash_blake3', 'file.hash_blake3_b64', 'file.hash_blake3_b64u', 'file.hash_blake3_b58u',
      'flow.skip', 'flow.before_all_response', 'flow.data_response', 'git.restore',
      'hash.sha256', 'hash.sha256_b58', 'hash.sha256_b64', 'hash.sha256_b64u',
      'hash.sha512', 'hash.sha512_b58', 'hash.sha512_b64', 'hash.sha512_b64u',
      'hash.blake3', 'hash.blake3_b58', 'hash.blake3_b64', 'hash.blake3_b64u',
      'hbs.render', 'html.slim', 'html.select', 'html.to_md', 'html.prune_to_content',
      'json.parse', 'json.parse_ndjson', 'json.stringify', 'json.stringify_pretty', 'json.stringify_to_line',
      'lua.dump', 'md.extract_blocks', 'md.extract_meta', 'md.outer_block_content_or_raw',
      'path.split', 'path.resolve', 'path.exists', 'path.is_file', 'path.is_dir', 'path.diff', 'path.parent',
      'path.join', 'path.matches_glob', 'path.parse', 'rust.prune_to_declarations',
      'semver.compare', 'semver.parse', 'semver.is_prerelease', 'semver.valid',
      'text.trim', 'text.trim_start', 'text.trim_end', 'text.split_first', 'text.split_last',
      'text.split_first_line', 'text.split_last_line', 'text.extract_line_blocks', 'text.escape_decode',
      'text.escape_decode_if_needed', 'text.remove_first_line', 'text.remove_first_lines',
      'text.remove_last_line', 'text.remove_last_lines', 'text.truncate', 'text.replace_markers', 'text.ensure',
      'text.ensure_single_ending_newline', 'text.format_size',
      'time.now_iso_utc', 'time.now_iso_local', 'time.now_iso_utc_micro', 'time.now_iso_local_micro',
      'time.now_utc_micro', 'time.today_utc', 'time.today_local',
      'uuid.new', 'uuid.new_v4', 'uuid.new_v7', 'uuid.new_v4_b64', 'uuid.new_v4_b64u', 'uuid.new_v4_b58',
      'uuid.new_v7_b64', 'uuid.new_v7_b64u', 'uuid.new_v7_b58', 'uuid.to_time_epoch_ms',
      'web.get', 'web.post', 'web.parse_url', 'web.resolve_href', 'run.pin', 'task.pin',
    ].map((n) => `aip.${n}`);
    const at080 = new Set(aipFunctionsAt('0.8.0').map((f) => f.path));
    for (const p of baseline) {
      expect(at080.has(p), p).toBe(true);
      expect(findAipFunction(p)?.since, p).toBe('0.8.0');
    }
    // nothing beyond the baseline at 0.8.0
    expect([...at080].filter((p) => !baseline.includes(p))).toEqual([]);
  });

  it('tracks additions by version', () => {
    expect(has('0.8.14', 'aip.file.copy')).toBe(false);
    expect(has('0.8.15', 'aip.file.copy')).toBe(true);
    expect(has('0.8.15', 'aip.file.move')).toBe(true);
    expect(has('0.8.0', 'aip.shape.to_records')).toBe(false);
    expect(has('0.8.1', 'aip.shape.to_records')).toBe(true);
    expect(has('0.8.9', 'aip.md.extract_refs')).toBe(false);
    expect(has('0.8.10', 'aip.md.extract_refs')).toBe(true);
    expect(has('0.8.21', 'aip.zip.read_text')).toBe(false);
    expect(has('0.8.22', 'aip.zip.read_text')).toBe(true);
    expect(has('0.8.17', 'aip.path.sort_by_globs')).toBe(false);
    expect(has('0.8.18', 'aip.path.sort_by_globs')).toBe(true);
    expect(findAipFunction('aip.udiffx.apply_file_changes')?.since).toBe('0.8.12');
    expect(findAipFunction('aip.text.ensure_single_trailing_newline')?.since).toBe('0.8.4');
  });

  it('knows redo was renamed redo_run at 0.8.22', () => {
    expect(findAipFunction('aip.flow.redo_run')).toEqual({ path: 'aip.flow.redo_run', since: '0.8.22', kind: 'function' });
    expect(findAipFunction('aip.flow.redo')).toEqual({ path: 'aip.flow.redo', since: '0.8.17', until: '0.8.22', kind: 'function' });
    expect(has('0.8.16', 'aip.flow.redo')).toBe(false);
    expect(has('0.8.17', 'aip.flow.redo')).toBe(true);
    expect(has('0.8.21', 'aip.flow.redo')).toBe(true);
    expect(has('0.8.22', 'aip.flow.redo')).toBe(false);
    expect(has('0.8.21', 'aip.flow.redo_run')).toBe(false);
    expect(has('0.8.33', 'aip.flow.redo_run')).toBe(true);
  });

  it('lists constants as such, and accepts the utils alias in lookups', () => {
    expect(findAipFunction('aip.web.UA_AIPACK')).toMatchObject({ kind: 'constant', since: '0.8.6' });
    expect(findAipFunction('aip.web.UA_BROWSER')).toMatchObject({ kind: 'constant', since: '0.8.6' });
    expect(has('0.8.5', 'aip.web.UA_AIPACK')).toBe(false);
    expect(findAipFunction('utils.file.load')?.path).toBe('aip.file.load');
    expect(findAipFunction('aip.file.nope')).toBeUndefined();
  });

  it('derives namespaces with the earliest since', () => {
    expect(AIP_NAMESPACES.find((n) => n.path === 'aip.zip')).toEqual({ path: 'aip.zip', since: '0.8.22' });
    expect(AIP_NAMESPACES.find((n) => n.path === 'aip.flow')).toEqual({ path: 'aip.flow', since: '0.8.0' });
  });
});

describe('globals and stage variables', () => {
  it('has the AIPack globals with their versions', () => {
    const since = Object.fromEntries(AIPACK_GLOBALS.map((g) => [g.name, g.since]));
    expect(since).toMatchObject({
      aip: '0.8.0', utils: '0.8.0', CTX: '0.8.0', print: '0.8.0', null: '0.8.1', Null: '0.8.1', NULL: '0.8.15',
      is_null: '0.8.15', value_or: '0.8.15', nil_if_null: '0.8.15', is_not_null: '0.8.27', is_table: '0.8.27',
      is_list: '0.8.27', is_object: '0.8.27',
    });
    expect(aipackGlobalsAt('0.8.14')).not.toContain('NULL');
    expect(aipackGlobalsAt('0.8.15')).toEqual(expect.arrayContaining(['NULL', 'is_null', 'value_or', 'nil_if_null']));
    expect(aipackGlobalsAt('0.8.15')).not.toContain('is_table');
    expect(aipackGlobalsAt('0.8.0')).toContain('aipack');
    expect(aipackGlobalsAt('0.8.1')).not.toContain('aipack');
  });

  it('exposes the Lua 5.4 safe stdlib without debug', () => {
    for (const g of ['coroutine', 'table', 'io', 'os', 'string', 'utf8', 'math', 'package', 'require', 'pcall', 'warn']) {
      expect(LUA_STD_GLOBALS).toContain(g);
    }
    expect(LUA_STD_GLOBALS).not.toContain('debug');
    expect(LUA_STD_GLOBALS).not.toContain('unpack');
  });

  it('has the stage variables of docs/aipack.md section 2', () => {
    expect(STAGE_VARIABLES).toEqual({
      BeforeAll: ['inputs', 'options'],
      Data: ['input', 'before_all', 'options'],
      Output: ['input', 'data', 'before_all', 'ai_response', 'options'],
      AfterAll: ['inputs', 'outputs', 'before_all', 'options'],
    });
  });
});

describe('since-versions, checked against AIPack release tags', () => {
  it('every catalog function has the first tag that registers it', () => {
    const later = new Map(Object.entries(FIRST_TAG).flatMap(([v, names]) => names.map((n) => [`aip.${n}` as string, v] as const)));
    for (const f of AIP_FUNCTIONS) expect(f.since, f.path).toBe(later.get(f.path) ?? '0.8.0');
    expect(findAipFunction('aip.flow.redo')?.until).toBe('0.8.22');
    for (const g of AIPACK_GLOBALS) expect(g.since, g.name).toBe(GLOBAL_FIRST_TAG[g.name]);
  });
});

describe('the default, oldest and newest simulated versions', () => {
  it('defaults to the newest version the catalog knows; oldest and newest name the two ends', async () => {
    const c = await import('../../src/aip/catalog.ts');
    expect(c.DEFAULT_AIPACK_VERSION).toBe(c.NEWEST_AIPACK_VERSION);
    const newestSince = c.AIP_FUNCTIONS.map((f) => f.since).reduce((a, b) => (c.compareVersions(a, b) >= 0 ? a : b));
    expect(c.compareVersions(c.NEWEST_AIPACK_VERSION, newestSince)).toBeGreaterThanOrEqual(0);
    expect(c.resolveVersionAlias('oldest')).toBe('0.8.15');
    expect(c.resolveVersionAlias(' Newest ')).toBe(c.NEWEST_AIPACK_VERSION);
    expect(c.resolveVersionAlias('0.8.20')).toBe('0.8.20');
  });
});
