import { expect } from 'vitest';
import { conformance, type Case } from './support.ts';

const T = 'aip_toml.rs';
const Y = 'aip_yaml.rs';
const C = 'aip_code.rs';

const toml: Case[] = [
  {
    up: `${T}::test_script_lua_toml_parse_simple`,
    lua: 'return aip.toml.parse([[\ntitle = "Example"\nyear = 2024\n\n[owner]\nname = "John"\n]])',
    expect: { title: 'Example', year: 2024, owner: { name: 'John' } },
  },
  {
    up: `${T}::test_script_lua_toml_parse_invalid`,
    lua: 'local ok, err = pcall(function() return aip.toml.parse("invalid = [1, 2,,]") end)\nif ok then return "should not reach here" else return err end',
    error: 'aip.toml.parse failed',
  },
  {
    up: `${T}::test_script_lua_toml_stringify_simple`,
    lua: 'local s = aip.toml.stringify({ title = "Example", year = 2024 })\nreturn { s = s, back = aip.toml.parse(s) }',
    check: (v) => {
      const r = v as { s: string; back: unknown };
      expect(r.s).toContain('title = "Example"');
      expect(r.s).toContain('year = 2024');
      expect(r.back).toEqual({ title: 'Example', year: 2024 });
    },
  },
  {
    up: `${T}::test_script_lua_toml_stringify_nested_tables`,
    lua: 'local s = aip.toml.stringify({ title = "Example", owner = { name = "John", email = "john@example.com" }, tags = {"alpha", "beta"} })\nreturn { s = s, back = aip.toml.parse(s) }',
    check: (v) => {
      const r = v as { s: string; back: unknown };
      expect(r.s).toContain('[owner]');
      expect(r.s).toContain('name = "John"');
      expect(r.s).toContain('tags = ["alpha", "beta"]');
      expect(r.back).toEqual({ title: 'Example', owner: { name: 'John', email: 'john@example.com' }, tags: ['alpha', 'beta'] });
    },
  },
];

const yaml: Case[] = [
  {
    up: `${Y}::test_script_lua_yaml_parse_multi`,
    lua: 'return aip.yaml.parse([[\nname: Doc1\n---\nname: Doc2\n]])',
    check: (v) => {
      const docs = v as { name: string }[];
      expect(docs[0].name).toBe('Doc1');
      expect(docs[1].name).toBe('Doc2');
    },
  },
  {
    up: `${Y}::test_script_lua_yaml_stringify_simple`,
    lua: 'return aip.yaml.stringify({ name = "John", age = 30 })',
    check: (v) => {
      expect(v).toContain('name: John');
      expect(v).toContain('age: 30');
    },
  },
  {
    up: `${Y}::test_script_lua_yaml_stringify_multi`,
    lua: 'return aip.yaml.stringify_multi_docs({ {name = "D1"}, {name = "D2"} })',
    check: (v) => {
      for (const part of ['name: D1', '---', 'name: D2']) expect(v).toContain(part);
    },
  },
];

const code: Case[] = (
  [
    ['rs', 'Rust comment', '// Rust comment'],
    ['lua', 'Lua comment', '-- Lua comment'],
    ['sql', 'SQL comment', '-- SQL comment'],
    ['html', 'HTML comment', '<!-- HTML comment -->'],
    ['css', 'CSS comment', '/* CSS comment */'],
    ['pcss', 'PCSS comment', '/* PCSS comment */'],
    ['py', 'Python comment', '# Python comment'],
    ['js', 'JavaScript comment', '// JavaScript comment'],
    ['  Rs ', '  Another Rust comment  ', '//   Another Rust comment  '],
  ] as const
).map(([lang, text, want]) => ({ up: `${C}::test_code_comment_line_simple`, lua: `return aip.code.comment_line(${JSON.stringify(lang)}, ${JSON.stringify(text)})`, expect: want }));

conformance('aip.toml', toml);
conformance('aip.yaml', yaml);
conformance('aip.code', code);
