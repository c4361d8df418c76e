import { describe, expect, it } from 'vitest';
import { AIPACK_GLOBALS, AIP_FUNCTIONS, findAipFunction, isAvailableAt } from '../../src/aip/catalog.ts';
import { runLua } from '../helpers/lua.ts';

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

const previous = (v: string) => {
  const [a, b, c] = v.split('.').map(Number);
  return `${a}.${b}.${c - 1}`;
};

describe('since-versions, checked against AIPack release tags', () => {
  it('every catalog function has the first tag that registers it', () => {
    const later = new Map(Object.entries(FIRST_TAG).flatMap(([v, names]) => names.map((n) => [`aip.${n}` as string, v] as const)));
    for (const f of AIP_FUNCTIONS) expect(f.since, f.path).toBe(later.get(f.path) ?? '0.8.0');
    expect(findAipFunction('aip.flow.redo')?.until).toBe('0.8.22');
    for (const g of AIPACK_GLOBALS) expect(g.since, g.name).toBe(GLOBAL_FIRST_TAG[g.name]);
  });

  // The version rule: at CTX.AIPACK_VERSION, aip has exactly the functions of that version; an older one is nil.
  const versions = [...new Set(AIP_FUNCTIONS.filter((f) => f.since !== '0.8.0').flatMap((f) => [f.since, previous(f.since)]))];
  it.each(versions)('at %s, aip holds exactly the functions of that version', (version) => {
    const paths = AIP_FUNCTIONS.map((f) => f.path);
    const lua = `local out = {}
for _, p in ipairs({${paths.map((p) => `"${p}"`).join(',')}}) do
  local ns, name = p:match("^aip%.(%w+)%.([%w_]+)$")
  out[p] = type(aip[ns] and aip[ns][name])
end
return out`;
    const { value } = runLua(lua, { aipackVersion: version });
    const got = value as Record<string, string>;
    for (const f of AIP_FUNCTIONS) {
      const want = isAvailableAt(f, version) ? (f.kind === 'constant' ? 'string' : 'function') : 'nil';
      expect(got[f.path], `${f.path} at ${version}`).toBe(want);
    }
  });

  it('calling a function before its since-version fails as calling nil does in Lua', () => {
    const call = (version: string) => runLua('aip.file.copy("a.txt", "b.txt") return "called"', { aipackVersion: version, files: { 'a.txt': 'a' } });
    expect(() => call('0.8.14')).toThrow(/attempt to call a nil value \(field 'copy'\)/);
    expect(call('0.8.15').value).toBe('called');
    expect(() => runLua('return aip.zip.list("x.zip")', { aipackVersion: '0.8.21' })).toThrow(/attempt to index a nil value \(field 'zip'\)/);
    expect(() => runLua('return aip.flow.redo()', { aipackVersion: '0.8.22' })).toThrow(/attempt to call a nil value \(field 'redo'\)/);
  });
});
