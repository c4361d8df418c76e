import { expect } from 'vitest';
import { conformance, type Case, type Skipped } from './support.ts';
import { BASE_DIR, SANDBOX_DIR } from './sandbox.ts';

const R = 'aip_file/file_read.rs';
const W = 'aip_file/file_write.rs';
const J = 'aip_file/file_json.rs';
const CSV = 'aip_file/file_csv.rs';
const L = (s: string) => JSON.stringify(s);
type Info = { path: string; name: string; size?: number; content?: string };
const paths = (v: unknown) => (v as Info[]).map((f) => f.path);

const cases: Case[] = [
  // -- file_read.rs
  {
    up: `${R}::test_lua_file_load_simple_ok`,
    lua: 'return aip.file.load("./agent-script/agent-hello.aip")',
    check: (v) => {
      const f = v as Info;
      expect(f.content).toContain('from agent-hello.aip');
      expect(f.path).toBe('./agent-script/agent-hello.aip');
      expect(f.name).toBe('agent-hello.aip');
    },
  },
  {
    up: `${R}::test_lua_file_load_pack_ref_simple`,
    lua: 'return aip.file.load("ns_b@pack_b_2/main.aip")',
    check: (v) => {
      const f = v as Info;
      expect(f.content).toContain('custom ns_b@pack_b_2 main.aip');
      expect(f.path).toContain('pack_b_2/main.aip');
      expect(f.name).toBe('main.aip');
    },
  },
  {
    up: `${R}::test_lua_file_load_pack_ref_base_support`,
    lua: 'return aip.file.load("ns_b@pack_b_2$base/extra/test.txt")',
    check: (v) => {
      const f = v as Info;
      expect(f.content).toContain('Some support content - ..@..$base/extra/test.txt');
      expect(f.path).toContain('ns_b@pack_b_2$base/extra/test.txt');
      expect(f.name).toBe('test.txt');
    },
  },
  {
    up: `${R}::test_lua_file_load_pack_ref_workspace_support`,
    lua: 'return aip.file.load("ns_a@pack_a_1$workspace/extra/test.txt")',
    check: (v) => {
      const f = v as Info;
      expect(f.content).toContain('Some support content - ..@..$workspace/extra/test.txt');
      expect(f.path).toContain('ns_a@pack_a_1$workspace/extra/test.txt');
      expect(f.name).toBe('test.txt');
    },
  },
  {
    up: `${R}::test_lua_file_info_ok`,
    lua: 'return aip.file.info("./agent-script/agent-hello.aip")',
    check: (v) => expect(v).toMatchObject({ name: 'agent-hello.aip', path: './agent-script/agent-hello.aip' }),
  },
  { up: `${R}::test_lua_file_info_not_found`, lua: 'return aip.file.info("not/a/file.txt")', expect: undefined },
  {
    up: `${R}::test_lua_file_list_glob_direct`,
    lua: 'return aip.file.list("*.*")',
    check: (v) => expect(paths(v).sort()).toEqual(['file-01.txt', 'file-02.txt']),
  },
  {
    up: `${R}::test_lua_file_list_support_workspace`,
    lua: 'return aip.file.list("ns_b@pack_b_2$base/**/*.*")',
    check: (v) => {
      expect(v as Info[]).toHaveLength(1);
      expect((v as Info[])[0].path).toContain('extra/test.txt');
    },
  },
  {
    up: `${R}::test_lua_file_list_glob_deep`,
    lua: 'return aip.file.list("sub-dir-a/**/*.*")',
    check: (v) => expect(paths(v).sort()).toEqual(['sub-dir-a/agent-hello-2.aip', 'sub-dir-a/sub-sub-dir/agent-hello-3.aip', 'sub-dir-a/sub-sub-dir/main.aip']),
  },
  {
    up: `${R}::test_lua_file_list_negative_glob_absolute`,
    lua: 'return aip.file.list({"**/*.aip", "!sub-dir-a/**/*.aip"}, { absolute = true })',
    check: (v) => {
      const p = paths(v);
      expect(p.length).toBeGreaterThan(0);
      expect(p.some((x) => x.includes('agent-script/agent-hello.aip'))).toBe(true);
      for (const x of p) expect(x).not.toContain('sub-dir-a/');
    },
  },
  {
    up: `${R}::test_lua_file_first_negative_glob_absolute`,
    lua: 'return aip.file.first({"sub-dir-a/**/*.*", "!sub-dir-a/agent-hello-2.aip", "!sub-dir-a/sub-sub-dir/agent-hello-3.aip"}, { absolute = true })',
    check: (v) => {
      expect((v as Info).name).toBe('main.aip');
      expect((v as Info).path).toContain('sub-dir-a/sub-sub-dir/main.aip');
    },
  },
  {
    // upstream lists tests-data/config/*.* by absolute path; here an absolute glob into the (virtual) base dir
    up: `${R}::test_lua_file_list_glob_abs_with_wild`,
    lua: `return aip.file.list("${BASE_DIR}/support/pack/ns_b/pack_b_2/extra/*.*")`,
    check: (v) => {
      expect(v as Info[]).toHaveLength(1);
      expect((v as Info[])[0].name).toBe('test.txt');
    },
  },
  {
    up: `${R}::test_lua_file_list_glob_with_base_dir_all_nested`,
    lua: 'return { files = aip.file.list({"**/*.*"}, {base_dir = "sub-dir-a"}) }',
    check: (v) => {
      const files = (v as { files: Info[] }).files;
      expect(files).toHaveLength(3);
      const byName = Object.fromEntries(files.map((f) => [f.name, f]));
      expect(byName['main.aip'].path).toBe('sub-sub-dir/main.aip');
      expect(byName['agent-hello-3.aip'].path).toBe('sub-sub-dir/agent-hello-3.aip');
      expect(byName['agent-hello-2.aip'].path).toBe('agent-hello-2.aip');
      for (const f of files) expect(f.size, f.path).toBeGreaterThan(0); // the sandbox's agents are not empty
    },
  },
  {
    up: `${R}::test_lua_file_list_glob_with_base_dir_one_level`,
    lua: 'return { files = aip.file.list({"agent-hello-*.aip"}, {base_dir = "sub-dir-a"}) }',
    check: (v) => expect((v as { files: Info[] }).files.map((f) => f.name)).toEqual(['agent-hello-2.aip']),
  },
  {
    up: `${R}::test_lua_file_first_glob_deep`,
    lua: 'return aip.file.first("sub-dir-a/**/*-2.*")',
    check: (v) => expect(v).toMatchObject({ name: 'agent-hello-2.aip', path: 'sub-dir-a/agent-hello-2.aip' }),
  },
  { up: `${R}::test_lua_file_first_not_found`, lua: 'return aip.file.first("sub-dir-a/**/*-not-a-thing.*")', expect: undefined },

  // -- file_write.rs (the written file is read back in the same run: the overlay never touches the disk)
  {
    up: `${W}::test_lua_file_save_simple_ok`,
    lua: `aip.file.save("${SANDBOX_DIR}/.tmp/test_lua_file_save_simple_ok.md", "hello from test_file_save_simple_ok")\nreturn aip.file.load(".tmp/test_lua_file_save_simple_ok.md").content`,
    expect: 'hello from test_file_save_simple_ok',
  },
  {
    up: `${W}::test_lua_file_save_ok_in_base`,
    lua: `aip.file.save("${BASE_DIR}/.tmp/test_lua_file_save_ok_in_base.md", "hello from test_lua_file_save_ok_in_base")\nreturn aip.file.load("${BASE_DIR}/.tmp/test_lua_file_save_ok_in_base.md").content`,
    expect: 'hello from test_lua_file_save_ok_in_base',
  },
  {
    up: `${W}::test_lua_file_save_err_out_workspace`,
    lua: `return aip.file.save("${SANDBOX_DIR}/../.tmp/test_lua_file_save_err_out_workspace.md", "x")`,
    error: 'does not belong to the workspace dir',
  },
];
for (const [test, input, opts, want] of [
  ['save_with_trim_start', '   Leading spaces and content.\n', '{trim_start = true}', 'Leading spaces and content.\n'],
  ['save_with_trim_end', 'Content and trailing spaces.   \n\t', '{trim_end = true}', 'Content and trailing spaces.'],
  ['save_with_single_trailing_newline_add', 'Content without newline', '{single_trailing_newline = true}', 'Content without newline\n'],
  ['save_with_single_trailing_newline_remove_extra', 'Content with multiple newlines\n\n\n', '{single_trailing_newline = true}', 'Content with multiple newlines\n'],
  ['save_with_combo_options', '   Content with all trims and newlines.  \n\n', '{trim_start = true, trim_end = true, single_trailing_newline = true}', 'Content with all trims and newlines.\n'],
]) {
  cases.push({ up: `${W}::test_lua_file_${test}`, lua: `aip.file.save(".tmp/${test}.md", ${L(input)}, ${opts})\nreturn aip.file.load(".tmp/${test}.md").content`, expect: want });
}
cases.push(
  {
    up: `${W}::test_lua_file_copy_simple_ok`,
    lua: 'aip.file.copy("agent-script/agent-hello.aip", ".tmp/test_lua_file_copy_simple_ok.aip")\nreturn aip.file.load(".tmp/test_lua_file_copy_simple_ok.aip").content == aip.file.load("agent-script/agent-hello.aip").content',
    expect: true,
  },
  {
    up: `${W}::test_lua_file_move_simple_ok`,
    lua: 'aip.file.save(".tmp/move_src.txt", "move content")\nlocal info = aip.file.move(".tmp/move_src.txt", ".tmp/move_dest.txt")\nreturn { exists_src = aip.file.exists(".tmp/move_src.txt"), exists_dest = aip.file.exists(".tmp/move_dest.txt"), dest_path = info.path }',
    check: (v) => expect(v).toMatchObject({ exists_src: false, exists_dest: true, dest_path: expect.stringContaining('.tmp/move_dest.txt') }),
  },
  {
    up: `${W}::test_lua_file_tmp_with_ctx`,
    lua: 'local path = CTX.TMP_DIR .. "/my-dir/some-tmp-file.aip"\naip.file.save(path, "Hello tmp content")\nreturn { file = aip.file.load(path), session = CTX.SESSION_UID }',
    check: (v) => {
      const r = v as { file: Info; session: string };
      expect(r.file.content).toBe('Hello tmp content');
      expect(r.file.path.endsWith(`.aipack/.session/${r.session}/tmp/my-dir/some-tmp-file.aip`)).toBe(true);
    },
  },
  {
    up: `${W}::test_lua_file_tmp_with_var`,
    lua: 'aip.file.save("$tmp/my-dir/tmp_with_var_file.txt", "Hello tmp content")\nreturn { file = aip.file.load("$tmp/my-dir/tmp_with_var_file.txt") }',
    check: (v) => {
      const f = (v as { file: Info }).file;
      expect(f.content).toBe('Hello tmp content');
      expect(f.name).toBe('tmp_with_var_file.txt');
      expect(f.path.endsWith('$tmp/my-dir/tmp_with_var_file.txt')).toBe(true);
    },
  },
  {
    up: `${W}::test_lua_file_ensure_dir_create_ok`,
    lua: 'local created = aip.file.ensure_dir(".tmp/test_lua_file_ensure_dir_create_ok/nested/dir")\nreturn { created = created, is_dir = aip.path.is_dir(".tmp/test_lua_file_ensure_dir_create_ok/nested/dir") }',
    expect: { created: true, is_dir: true },
  },
  {
    up: `${W}::test_lua_file_ensure_dir_existing_dir_returns_false`,
    lua: 'aip.file.ensure_dir(".tmp/existing")\nreturn aip.file.ensure_dir(".tmp/existing")',
    expect: false,
  },
  {
    up: `${W}::test_lua_file_ensure_dir_err_when_file_exists`,
    lua: 'aip.file.save(".tmp/a-file.txt", "some content")\nreturn aip.file.ensure_dir(".tmp/a-file.txt")',
    error: 'already exists and is not a directory',
  },

  // -- file_json.rs
  {
    up: `${J}::test_lua_file_load_json_ok`,
    lua: 'local r = aip.file.load_json("other/test_load_json.json")\nr.nullable_is_null = r.nullable == null\nreturn r',
    check: (v) => expect(v).toMatchObject({ name: 'Test JSON', version: 1.2, enabled: true, items: ['item1', 'item2'], nested: { key: 'value' }, nullable_is_null: true }),
  },
  {
    up: `${J}::test_lua_file_load_json_with_comment_and_trailing`,
    lua: 'return aip.file.load_json("other/commented.json")',
    files: { 'other/commented.json': '{\n  // a comment\n  "name": "Test JSON",\n  "version": 1.2,\n  "enabled": true,\n  "items": ["item1", "item2",],\n  "nested": { "key": "value" },\n  "nullable": null,\n}\n' },
    check: (v) => expect(v).toMatchObject({ name: 'Test JSON', version: 1.2, enabled: true, items: ['item1', 'item2'], nested: { key: 'value' }, nullable: null }),
  },
  { up: `${J}::test_lua_file_load_json_file_not_found`, lua: 'return aip.file.load_json("other/non_existent_file.json")', error: ['aip.file.load_json - Failed to read json file', 'non_existent_file.json'] },
  { up: `${J}::test_lua_file_load_json_invalid_json`, lua: 'return aip.file.load_json("file-01.txt")', error: ['aip.file.load_json - Failed to read json', 'file-01.txt'] },
  {
    up: `${J}::test_lua_file_load_jsonnd_ok`,
    lua: 'return aip.file.load_ndjson("other/test_load_ndjson.ndjson")',
    check: (v) => {
      const a = v as Record<string, unknown>[];
      expect(a).toHaveLength(3);
      expect(a[0]).toMatchObject({ name: 'item1', value: 10 });
      expect(a[1]).toMatchObject({ name: 'item2', value: 20, active: true });
      expect(a[2]).toMatchObject({ name: 'item3', tags: ['a', 'b'] });
    },
  },
  { up: `${J}::test_lua_file_load_jsonnd_file_not_found`, lua: 'return aip.file.load_ndjson("other/non_existent_file.ndjson")', error: ['aip.file.load_ndjson - Failed to load newline json file', 'non_existent_file.ndjson'] },
  // the full text AIPack gives (its message over simple-fs's open error), beyond the upstream assertion
  {
    up: `${J}::test_lua_file_load_jsonnd_file_not_found (whole message)`,
    lua: 'local ok, e = pcall(aip.file.load_ndjson, "other/non_existent_file.ndjson")\nreturn (tostring(e):gsub("\'/[^\']*/other/", "\'<wks>/other/"))',
    expect: "aip.file.load_ndjson - Failed to load newline json file 'other/non_existent_file.ndjson'.\nCause: Cannot open file '<wks>/other/non_existent_file.ndjson'\nCause: No such file or directory (os error 2)",
  },
  {
    up: `${J}::test_lua_file_load_jsonnd_invalid_json_line`,
    lua: 'return aip.file.load_ndjson(".tmp/bad.ndjson")',
    files: { '.tmp/bad.ndjson': '{"a": 1}\n{not json}\n' },
    error: ['aip.file.load_ndjson - Failed to load newline json file', 'Failed to parse JSON on line 2', '.tmp/bad.ndjson'],
  },
  {
    up: `${J}::test_lua_file_load_jsonnd_invalid_json_line (whole message up to the JSON parser's own)`,
    lua: 'local ok, e = pcall(aip.file.load_ndjson, ".tmp/bad.ndjson")\nreturn (tostring(e):gsub(" Cause: [^\\n]*$", " Cause: <parser>"))',
    files: { '.tmp/bad.ndjson': '{"a": 1}\n{not json}\n' },
    expect: "aip.file.load_ndjson - Failed to load newline json file '.tmp/bad.ndjson'.\nCause: Error processing NDJSON: aip.file.load_ndjson - Failed to parse JSON on line 2. Cause: <parser>",
  },
  { up: `${J}::test_lua_file_load_jsonnd_empty_file`, lua: 'return #aip.file.load_ndjson(".tmp/empty.ndjson")', files: { '.tmp/empty.ndjson': '' }, expect: 0 },
  {
    up: `${J}::test_lua_file_load_jsonnd_empty_lines_file`,
    lua: 'return aip.file.load_ndjson(".tmp/lines.ndjson")',
    files: { '.tmp/lines.ndjson': '\n{"valid": true}\n\n   \n{"another": "valid"}\n\n' },
    expect: [{ valid: true }, { another: 'valid' }],
  },
  {
    up: `${J}::test_lua_file_append_json_line_new_file_ok`,
    lua: 'local r1 = aip.file.append_json_line(".tmp/new.ndjson", {name = "item1", value = 123})\nlocal r2 = aip.file.append_json_line(".tmp/new.ndjson", {name = "item2", active = true, tags = {"a", "b"}})\nreturn { p1 = r1.path, p2 = r2.path, grew = r2.size > r1.size, content = aip.file.load(".tmp/new.ndjson").content }',
    expect: { p1: '.tmp/new.ndjson', p2: '.tmp/new.ndjson', grew: true, content: '{"name":"item1","value":123}\n{"active":true,"name":"item2","tags":["a","b"]}\n' },
  },
  {
    up: `${J}::test_lua_file_append_json_line_existing_file_ok`,
    lua: 'aip.file.append_json_line(".tmp/existing.ndjson", {appended = "yes", value = nil})\nreturn aip.file.load(".tmp/existing.ndjson").content',
    files: { '.tmp/existing.ndjson': '{"initial": true}\n' },
    expect: '{"initial": true}\n{"appended":"yes"}\n',
  },
  {
    up: `${J}::test_lua_file_append_json_lines_new_file_ok`,
    lua: 'aip.file.append_json_lines(".tmp/lines3.ndjson", { {name = "line1", value = 1}, {name = "line2", active = true}, {name = "line3", tags = {"c", "d"}, data = nil} })\nreturn aip.file.load(".tmp/lines3.ndjson").content',
    expect: '{"name":"line1","value":1}\n{"active":true,"name":"line2"}\n{"name":"line3","tags":["c","d"]}\n',
  },
  {
    up: `${J}::test_lua_file_append_json_lines_err_not_a_table`,
    lua: 'local ok, e = pcall(aip.file.append_json_lines, ".tmp/not-table.ndjson", "just a string")\nreturn tostring(e)',
    expect: "aip.file.append_json_lines - Failed to append json lines to '.tmp/not-table.ndjson'.\nCause: Lua Value is not a List. Expected a Lua table (list) as the second argument, but got string",
  },

  // -- file_csv.rs
  {
    up: `${CSV}::test_lua_file_csv_save_as_csv_matrix_ok`,
    lua: 'local info = aip.file.save_as_csv(".tmp/m.csv", { {"name", "age"}, {"Alice", 30}, {"Bob", 25} }, {has_header = true})\nreturn { path = info.path, content = aip.file.load(".tmp/m.csv").content }',
    expect: { path: '.tmp/m.csv', content: 'name,age\nAlice,30\nBob,25\n' },
  },
  {
    up: `${CSV}::test_lua_file_csv_append_csv_rows_ok`,
    lua: 'aip.file.save_as_csv(".tmp/a.csv", {headers={"name", "age"}, rows={}})\naip.file.append_csv_rows(".tmp/a.csv", { {"Alice", 30}, {"Bob", 25} }, {has_header = true})\nreturn aip.file.load(".tmp/a.csv").content',
    expect: 'name,age\nAlice,30\nBob,25\n',
  },
  { up: `${CSV}::test_lua_file_csv_append_csv_row_ok`, lua: 'aip.file.append_csv_row(".tmp/r.csv", {"Alice", 30})\nreturn aip.file.load(".tmp/r.csv").content', expect: 'Alice,30\n' },
  { up: `${CSV}::test_lua_file_csv_save_as_csv_only_headers`, lua: 'aip.file.save_as_csv(".tmp/h.csv", { headers = {"name", "age"} })\nreturn aip.file.load(".tmp/h.csv").content', expect: 'name,age\n' },
  { up: `${CSV}::test_lua_file_csv_save_as_csv_only_rows`, lua: 'aip.file.save_as_csv(".tmp/o.csv", { rows = { {"Alice", 30} } })\nreturn aip.file.load(".tmp/o.csv").content', expect: 'Alice,30\n' },
  { up: `${CSV}::test_lua_file_csv_save_as_csv_empty_table`, lua: 'aip.file.save_as_csv(".tmp/e.csv", {})\nreturn { exists = aip.file.exists(".tmp/e.csv"), content = aip.file.load(".tmp/e.csv").content }', expect: { exists: true, content: '' } },

  // -- the sandbox rule, stricter than AIPack (which reads anywhere): loud, never an empty result
  { up: 'simulator sandbox (AIPack lists outside the workspace)', lua: 'return aip.file.list("/etc/*")', error: 'Read protection (simulator)' },
  { up: 'simulator sandbox (AIPack loads outside the workspace)', lua: 'return aip.file.load("/etc/hostname")', error: 'Read protection (simulator)' },
);

const skipped: Skipped[] = [
  { up: `${R}::test_lua_file_exists_true`, why: 'same paths as aip_path.rs::test_lua_path_exists_true (ported in path.test.ts) plus pack refs, which are ported as load cases here' },
  { up: `${R}::test_lua_file_exists_false`, why: 'same paths as aip_path.rs::test_lua_path_exists_false (ported in path.test.ts)' },
];

conformance('aip.file', cases, skipped);
