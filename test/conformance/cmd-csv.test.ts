import { expect } from 'vitest';
import { conformance, type Case, type Skipped } from './support.ts';

// aip_cmd.rs: the simulator never runs a command; each case scripts the command the upstream test runs, with
// the output that command gives, and checks the response shape and the argument handling.
const M = 'aip_cmd.rs';
const echo = (match: string, stdout: string) => ({ match, stdout });
const cmd: Case[] = [
  {
    up: `${M}::test_lua_cmd_exec_echo_single_arg`,
    lua: 'return aip.cmd.exec("echo", "hello world")',
    commands: [echo('^echo hello world$', 'hello world\n')],
    expect: { stdout: 'hello world\n', stderr: '', exit: 0 },
  },
  {
    up: `${M}::test_lua_cmd_exec_echo_multiple_args`,
    lua: 'return aip.cmd.exec("echo", {"hello", "world"})',
    commands: [echo('^echo hello world$', 'hello world\n')],
    expect: { stdout: 'hello world\n', stderr: '', exit: 0 },
  },
  {
    // upstream asserts "Fail to execute: {nonexistentcommand}" (braces included, a stale literal); the message
    // AIPack formats is "Fail to execute: nonexistentcommand ...\nCause:\n..."
    up: `${M}::test_lua_cmd_exec_invalid_command_pcall`,
    lua: 'local ok, err = pcall(function() aip.cmd.exec("nonexistentcommand") end)\nreturn err',
    error: ['Fail to execute: nonexistentcommand', 'Cause:', 'no scripted command for nonexistentcommand'],
  },
  {
    up: `${M}::test_lua_cmd_exec_invalid_command_direct`,
    lua: 'return aip.cmd.exec("nonexistentcommand")',
    error: ['Fail to execute: nonexistentcommand', 'Cause:'],
  },
  {
    up: `${M}::test_lua_cmd_exec_non_zero_exit`,
    lua: 'return aip.cmd.exec("false")',
    commands: [{ match: '^false$', exit: 1 }],
    check: (v) => {
      const r = v as { stdout: string; stderr: string; exit: number };
      expect(r.stdout).toBe('');
      expect(r.stderr).toBe('');
      expect(r.exit).not.toBe(0);
    },
  },
  {
    up: `${M}::test_lua_cmd_exec_with_empty_options`,
    lua: 'return { empty_options = aip.cmd.exec("echo", "hello", {}), empty_cwd = aip.cmd.exec("echo", "world", {cwd = ""}) }',
    commands: [echo('^echo hello$', 'hello\n'), echo('^echo world$', 'world\n')],
    expect: { empty_options: { stdout: 'hello\n', stderr: '', exit: 0 }, empty_cwd: { stdout: 'world\n', stderr: '', exit: 0 } },
  },
  {
    up: `${M}::test_lua_cmd_exec_with_invalid_cwd`,
    lua: 'return aip.cmd.exec("echo", "hello", {cwd = ".aipack-cmd-missing-dir"})',
    commands: [echo('^echo hello$', 'hello\n')],
    error: ['Fail to execute:', 'Working directory:', 'Cause:'],
  },
];
// Not upstream tests: the texts of AIPack's argument conversion (into_vec_of_strings, mlua conversion errors).
cmd.push(
  {
    up: `${M}::cmd_exec (args neither a string nor a table)`,
    lua: 'local ok, e = pcall(aip.cmd.exec, "echo", 123)\nreturn tostring(e)',
    expect: 'error converting Lua unknown to Vec<String> (command args - Expected a string or a list of strings)',
  },
  {
    up: `${M}::cmd_exec (a table holding a non-string)`,
    lua: 'local ok, e = pcall(aip.cmd.exec, "echo", { "a", {} })\nreturn tostring(e)',
    expect: 'error converting Lua table to Vec<String> (command args - Table contains non-string values)',
  },
  {
    up: `${M}::cmd_exec (numbers in the args table are strings)`,
    lua: 'return aip.cmd.exec("echo", { "n", 7 })',
    commands: [echo('^echo n 7$', 'n 7\n')],
    expect: { stdout: 'n 7\n', stderr: '', exit: 0 },
  },
);
const cmdSkipped: Skipped[] = [
  { up: `${M}::test_lua_cmd_exec_with_relative_cwd`, why: 'runs pwd on the host to observe the real working directory; the simulator never runs commands' },
  { up: `${M}::test_lua_cmd_exec_with_absolute_cwd`, why: 'same: observes the host process working directory' },
];

const C = 'aip_csv.rs';
const csv: Case[] = [
  { up: `${C}::test_aip_csv_parse_row_simple`, lua: `return aip.csv.parse_row('a,"b,c",d')`, expect: ['a', 'b,c', 'd'] },
  {
    up: `${C}::test_aip_csv_parse_with_header_and_comments`,
    lua: 'return aip.csv.parse([[\n# comment\nname,age\nJohn,30\nJane,25\n]], { has_header = true, comment = "#", skip_empty_lines = true })',
    check: (v) => {
      const r = v as { headers: string[]; rows: string[][] };
      expect(r.headers.slice(0, 2)).toEqual(['name', 'age']);
      expect(r.rows.slice(0, 2)).toEqual([['John', '30'], ['Jane', '25']]);
    },
  },
  { up: `${C}::test_aip_csv_values_to_row`, lua: 'return aip.csv.values_to_row({"a", 123, true, nil})', expect: 'a,123,true' },
  { up: `${C}::test_aip_csv_values_to_row`, lua: `return aip.csv.values_to_row({"a,b", 'c "d"'})`, expect: '"a,b","c ""d"""' },
  { up: `${C}::test_aip_csv_values_to_row`, lua: 'return aip.csv.values_to_row({"a", "b"}, {delimiter = ";"})', expect: 'a;b' },
  {
    up: `${C}::test_aip_csv_values_to_row`,
    lua: 'return aip.csv.values_to_row({"a", {b=1}})',
    check: (v) => {
      expect(String(v).startsWith('a,')).toBe(true);
      expect(v).toContain('{""b"":1}');
    },
  },
  { up: `${C}::test_aip_csv_values_to_row_special_chars`, lua: 'return aip.csv.values_to_row({"line\\nbreak", 12.34, ""})', expect: '"line\nbreak",12.34,' },
  { up: `${C}::test_aip_csv_values_to_row_error`, lua: 'return aip.csv.values_to_row({"a", function() end})', error: "unsupported value type 'function'" },
  { up: `${C}::test_aip_csv_value_lists_to_rows`, lua: 'return aip.csv.value_lists_to_rows({ {"a", 1}, {"b,c", 2} })', expect: ['a,1', '"b,c",2'] },
  { up: `${C}::test_aip_csv_value_lists_to_rows_with_options`, lua: 'return aip.csv.value_lists_to_rows({ {"a", 1}, {"b", 2} }, {delimiter = "|"})', expect: ['a|1', 'b|2'] },
  {
    up: `${C}::test_aip_csv_parse_with_header_labels`,
    lua: 'return aip.csv.parse("ID,Full Name,Age\\n1,Alice,30", { header_labels = { id = "ID", name = "Full Name" } })',
    expect: { _type: 'CsvContent', headers: ['id', 'name', 'Age'], rows: [['1', 'Alice', '30']] },
  },
];

conformance('aip.cmd', cmd, cmdSkipped);
conformance('aip.csv', csv);
