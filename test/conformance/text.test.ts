import { expect } from 'vitest';
import { conformance, type Case } from './support.ts';

const L = (s: string) => JSON.stringify(s); // a Lua string literal (JSON escapes are valid Lua escapes for ASCII)
const C = 'aip_text/text_common.rs';
const T = 'aip_text/text_trim.rs';
const S = 'aip_text/text_split.rs';
const SL = 'aip_text/text_split_line.rs';
const FM = 'aip_text/text_formatter.rs';

const cases: Case[] = [];
const nilCases: [string, string][] = [
  ['replace_markers_nil_content', 'aip.text.replace_markers(nil, {"new1", "new2"})'],
  ['truncate_nil_content', 'aip.text.truncate(nil, 10, "...")'],
  ['remove_first_line_nil_content', 'aip.text.remove_first_line(nil)'],
  ['remove_first_lines_nil_content', 'aip.text.remove_first_lines(nil, 2)'],
  ['remove_last_line_nil_content', 'aip.text.remove_last_line(nil)'],
  ['remove_last_lines_nil_content', 'aip.text.remove_last_lines(nil, 2)'],
  ['escape_decode_if_needed_nil_content', 'aip.text.escape_decode_if_needed(nil)'],
  ['escape_decode_nil_content', 'aip.text.escape_decode(nil)'],
  ['ensure_nil_content', 'aip.text.ensure(nil, {prefix = "./", suffix = ".md"})'],
  ['ensure_single_trailing_newline_nil_content', 'aip.text.ensure_single_trailing_newline(nil)'],
];
for (const [name, call] of nilCases) cases.push({ up: `${C}::test_lua_text_${name}`, lua: `return ${call}`, expect: undefined });

const LINES = '> one\n> two\nline1\n> three\nline2\n> four\nline3\n';
cases.push(
  {
    up: `${C}::test_lua_text_extract_line_blocks_simple`,
    lua: `local a, b = aip.text.extract_line_blocks(${L('> one\n> two\nSome line A\n> 3\nThe end\n')}, { starts_with = ">", extrude = "content" })
return {blocks = a, extruded = b}`,
    check: (v) => {
      const r = v as { blocks: string[]; extruded: string };
      expect(r.blocks[0]).toBe('> one\n> two\n');
      expect(r.blocks[1]).toBe('> 3\n');
      expect(r.extruded).toContain('Some line A');
      expect(r.extruded).toContain('The end');
    },
  },
  {
    up: `${C}::test_lua_text_extract_line_blocks_nil_content`,
    lua: 'local blocks, extruded = aip.text.extract_line_blocks(nil, { starts_with = ">", extrude = "content" })\nreturn {blocks, blocks}',
    expect: {},
  },
  {
    up: `${C}::test_lua_text_extract_line_blocks_with_first_extrude`,
    lua: `local a, b = aip.text.extract_line_blocks(${L(LINES)}, { starts_with = ">", extrude = "content", first = 2 })\nreturn { blocks = a, extruded = b }`,
    expect: { blocks: ['> one\n> two\n', '> three\n'], extruded: 'line1\nline2\n> four\nline3\n' },
  },
  {
    up: `${C}::test_lua_text_extract_line_blocks_with_first_no_extrude`,
    lua: `local a, b = aip.text.extract_line_blocks(${L(LINES)}, { starts_with = ">", first = 2 })\nreturn { blocks = a, extruded = b }`,
    expect: { blocks: ['> one\n> two\n', '> three\n'] },
  },
);
for (const [content, arg, want] of [
  ['some- ! -path', '{prefix = "./", suffix = ".md"}', './some- ! -path.md'],
  ['some- ! -path', '{suffix = ".md"}', 'some- ! -path.md'],
  [' ~ some- ! -path', '{prefix = " ~ "}', ' ~ some- ! -path'],
  ['~ some- ! -path', '{prefix = " ~ "}', ' ~ ~ some- ! -path'],
]) {
  cases.push({ up: `${C}::test_lua_text_ensure_simple`, lua: `return aip.text.ensure(${L(content)}, ${arg})`, expect: want });
}

// text_trim.rs
for (const [fn, want] of [['trim', 'hello world'], ['trim_start', 'hello world  '], ['trim_end', '  hello world']]) {
  cases.push({ up: `${T}::test_lua_text_${fn}_simple`, lua: `return aip.text.${fn}("  hello world  ")`, expect: want });
  cases.push({ up: `${T}::test_lua_text_${fn}_nil_content`, lua: `return aip.text.${fn}(nil)`, expect: undefined });
}

// text_split.rs: {first, second} of the two returns (a nil second drops out of the list)
const pair = (first: string, second: string | undefined) => (second === undefined ? [first] : [first, second]);
for (const [content, sep, a, b] of [
  ['some first content\n===\nsecond content', '===', 'some first content\n', '\nsecond content'],
  ['some first content\n', '===', 'some first content\n', undefined],
  ['some first content\n===', '===', 'some first content\n', ''],
] as [string, string, string, string | undefined][]) {
  cases.push({ up: `${S}::test_lua_text_split_first_simple`, lua: `local f, s = aip.text.split_first(${L(content)}, ${L(sep)})\nreturn {f, s}`, expect: pair(a, b) });
}
for (const [content, sep, a, b] of [
  ['some == text == more', '==', 'some == text ', ' more'],
  ['line1\n==\nline2\n==\nline3', '==', 'line1\n==\nline2\n', '\nline3'],
  ['some first content\n', '===', 'some first content\n', undefined],
  ['some first content\n===', '===', 'some first content\n', ''],
] as [string, string, string, string | undefined][]) {
  cases.push({ up: `${S}::test_lua_text_split_last_simple`, lua: `local f, s = aip.text.split_last(${L(content)}, ${L(sep)})\nreturn {f, s}`, expect: pair(a, b) });
}
for (const fn of ['split_first', 'split_last']) {
  cases.push({ up: `${S}::test_lua_text_${fn}_nil_content`, lua: `local f, s = aip.text.${fn}(nil, "===")\nreturn {f, s}`, expect: {} });
}

// text_split_line.rs
const firstLine: [string, string, string, string | undefined][] = [
  ['line1\nSEP\nline2', 'SEP', 'line1', 'line2'],
  ['SEP\nline2', 'SEP', '', 'line2'],
  ['line1\nSEP', 'SEP', 'line1', ''],
  ['SEP', 'SEP', '', ''],
  ['line1\nNO_MATCH\nline2', 'SEP', 'line1\nNO_MATCH\nline2', undefined],
  ['line1\nSEP\nline2\nSEP\nline3', 'SEP', 'line1', 'line2\nSEP\nline3'],
  ['', 'SEP', '', undefined],
  ['line1\n\nline2', '', 'line1', 'line2'],
  ['\nline2', '', '', 'line2'],
  ['line1\n', '', 'line1\n', undefined],
  ['text without newlines', 'SEP', 'text without newlines', undefined],
  ['SEP_LINE_NO_NEWLINE_END', 'SEP_LINE_NO_NEWLINE_END', '', ''],
];
for (const [content, sep, a, b] of firstLine) {
  cases.push({ up: `${SL}::test_lua_text_split_first_line_simple`, lua: `local f, s = aip.text.split_first_line(${L(content)}, ${L(sep)})\nreturn {f, s}`, expect: pair(a, b) });
}
const lastLine: [string, string, string, string | undefined][] = [
  ['line1\nSEP\nline2', 'SEP', 'line1', 'line2'],
  ['SEP\nline2', 'SEP', '', 'line2'],
  ['line1\nSEP', 'SEP', 'line1', ''],
  ['SEP', 'SEP', '', ''],
  ['line1\nNO_MATCH\nline2', 'SEP', 'line1\nNO_MATCH\nline2', undefined],
  ['line1\nSEP\nline2\nSEP\nline3', 'SEP', 'line1\nSEP\nline2', 'line3'],
  ['SEP\nmiddle\nSEP', 'SEP', 'SEP\nmiddle', ''],
  ['', 'SEP', '', undefined],
  ['line1\n\nline2', '', 'line1', 'line2'],
  ['\nline2', '', '', 'line2'],
  ['line1\n', '', 'line1\n', undefined],
  ['text without newlines', 'SEP', 'text without newlines', undefined],
  ['SEP_LINE_NO_NEWLINE_END', 'SEP_LINE_NO_NEWLINE_END', '', ''],
];
for (const [content, sep, a, b] of lastLine) {
  cases.push({ up: `${SL}::test_lua_text_split_last_line_simple`, lua: `local f, s = aip.text.split_last_line(${L(content)}, ${L(sep)})\nreturn {f, s}`, expect: pair(a, b) });
}
for (const fn of ['split_first_line', 'split_last_line']) {
  cases.push({ up: `${SL}::test_lua_text_${fn}_nil_content`, lua: `local f, s = aip.text.${fn}(nil, "SEP")\nreturn {f, s}`, expect: {} });
}

// text_formatter.rs; expected strings from simple_fs's pretty_size tests (the upstream tests compare with it)
cases.push(
  { up: `${FM}::test_lua_text_format_size_simple`, lua: 'return aip.text.format_size(0)', expect: '     0 B ' },
  { up: `${FM}::test_lua_text_format_size_simple`, lua: 'return aip.text.format_size(1500)', expect: '  1.50 KB' },
  { up: `${FM}::test_lua_text_format_size_simple`, lua: 'return aip.text.format_size(5242880)', expect: '  5.24 MB' },
  { up: `${FM}::test_lua_text_format_size_nil`, lua: 'return aip.text.format_size(nil)', expect: undefined },
  { up: `${FM}::test_lua_text_format_size_with_options_string`, lua: 'return aip.text.format_size(1500, "KB")', expect: '  1.50 KB' },
  { up: `${FM}::test_lua_text_format_size_with_options_table`, lua: 'return aip.text.format_size(1500, {lowest_unit = "KB", trim = true})', expect: '1.50 KB' },
  { up: `${FM}::test_lua_text_format_size_with_options_table_default_trim`, lua: 'return aip.text.format_size(1500, {lowest_unit = "KB"})', expect: '  1.50 KB' },
);
for (const [n, want] of [[777, '   777 B '], [8777, '  8.78 KB'], [888777, '888.78 KB'], [2_345_678_900, '  2.35 GB'], [1_234_567_890_123, '  1.23 TB']] as [number, string][]) {
  cases.push({ up: 'simple_fs common/pretty.rs::test_pretty_size (behind format_size)', lua: `return aip.text.format_size(${n})`, expect: want });
}
cases.push({ up: 'simple_fs common/pretty.rs::test_pretty_size_with_lowest_unit', lua: 'return aip.text.format_size(88777, "MB")', expect: '  0.09 MB' });

conformance('aip.text', cases);
