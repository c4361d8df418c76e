import { expect } from 'vitest';
import { conformance, type Case } from './support.ts';

const J = 'aip_json_tests.rs';
const OBJ = `local obj = {
  name = "John",
  age = 30,
  address = { street = "123 Main St", city = "New York" },
  hobbies = {"reading", "gaming"}
}`;
const cases: Case[] = [
  { up: `${J}::test_script_lua_json_parse_simple`, lua: `return aip.json.parse('{"name": "John", "age": 30}')`, expect: { name: 'John', age: 30 } },
  { up: `${J}::test_script_lua_json_parse_with_comment`, lua: 'return aip.json.parse([[\n\t\t\t\t\t\t{"name": "John", "age": 30}\n\t\t\t\t\t]])', expect: { name: 'John', age: 30 } },
  { up: `${J}::test_script_lua_json_parse_nil`, lua: 'return aip.json.parse(nil)', expect: undefined },
  {
    // the stage returns pcall's error value: in AIPack that fails the stage with the message
    up: `${J}::test_script_lua_json_parse_invalid`,
    lua: 'local ok, err = pcall(function() return aip.json.parse("{invalid_json}") end)\nif ok then return "should not reach here" else return err end',
    error: 'json.parse failed',
  },
  {
    up: `${J}::test_script_lua_json_parse_ndjson_simple`,
    lua: `return aip.json.parse_ndjson('{"name": "John", "age": 30}\\n{"name": "Jane", "age": 25}')`,
    expect: [{ name: 'John', age: 30 }, { name: 'Jane', age: 25 }],
  },
  {
    up: `${J}::test_script_lua_json_parse_ndjson_empty_lines`,
    lua: `return aip.json.parse_ndjson('{"id": 1}\\n\\n{"id": 2}\\n   \\n{"id": 3}')`,
    expect: [{ id: 1 }, { id: 2 }, { id: 3 }],
  },
  { up: `${J}::test_script_lua_json_parse_ndjson_nil`, lua: 'return aip.json.parse_ndjson(nil)', expect: undefined },
  {
    up: `${J}::test_script_lua_json_parse_ndjson_invalid_json`,
    lua: `local ok, err = pcall(function() return aip.json.parse_ndjson('{"id": 1}\\n{invalid_json}\\n{"id": 3}') end)\nif ok then return "should not reach here" else return err end`,
    error: ['aip.json.parse_ndjson failed', 'line 2'],
  },
  {
    up: `${J}::test_script_lua_json_stringify_pretty_basic`,
    lua: 'return aip.json.stringify_pretty({ name = "John", age = 30 })',
    check: (v) => {
      const s = v as string;
      expect(JSON.parse(s)).toEqual({ name: 'John', age: 30 });
      expect(s).toContain('\n');
      expect(s).toContain('  ');
    },
  },
  {
    up: `${J}::test_script_lua_json_stringify_pretty_complex`,
    lua: `${OBJ}\nreturn aip.json.stringify_pretty(obj)`,
    check: (v) => {
      const p = JSON.parse(v as string);
      expect(p.name).toBe('John');
      expect(p.age).toBe(30);
      expect(p.address.street).toBe('123 Main St');
      expect(p.hobbies[0]).toBe('reading');
      expect(v).toContain('\n');
    },
  },
];
for (const fn of ['stringify', 'stringify_to_line']) {
  cases.push({
    up: `${J}::test_script_lua_json_${fn === 'stringify' ? 'stringify_simple' : 'stringify_to_line_alias'}`,
    lua: `${OBJ}\nreturn aip.json.${fn}(obj)`,
    check: (v) => {
      expect(v).toContain('"name":"John"');
      expect(v).not.toContain('\n');
      expect(v).not.toContain('  ');
    },
  });
}

conformance('aip.json', cases);
