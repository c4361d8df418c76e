import { expect } from 'vitest';
import { conformance, type Case } from './support.ts';

const L = 'aip_lua.rs';
const cases: Case[] = [
  {
    up: `${L}::test_lua_lua_dump_ok`,
    lua: 'local tbl = { nested = { key1 = "value1", key2 = 42 }, bool = true, num = 3.21 }\nreturn aip.lua.dump(tbl)',
    check: (v) => {
      for (const part of ['bool = true', 'key1 = "value1"', 'key2 = 42']) expect(v).toContain(part);
    },
  },
  { up: `${L}::test_lua_lua_merge_simple_ok`, lua: 'local base = { a = 1, b = 2 }\naip.lua.merge(base, { b = 3, c = 4 })\nreturn base', expect: { a: 1, b: 3, c: 4 } },
  { up: `${L}::test_lua_lua_merge_multi_ok`, lua: 'local base = { a = 1 }\naip.lua.merge(base, { b = 2 }, { c = 3, a = 10 })\nreturn base', expect: { a: 10, b: 2, c: 3 } },
  {
    up: `${L}::test_lua_lua_merge_deep_ok`,
    lua: 'local base = { a = 1, b = { x = 10, y = 20 } }\naip.lua.merge_deep(base, { b = { y = 22, z = 30 }, c = 3 })\nreturn base',
    expect: { a: 1, c: 3, b: { x: 10, y: 22, z: 30 } },
  },
  {
    up: `${L}::test_lua_lua_merge_deep_multi_ok`,
    lua: 'local base = { a = 1, b = { x = 10 } }\naip.lua.merge_deep(base, { b = { y = 20 } }, { b = { z = 30 }, c = 5 })\nreturn base',
    expect: { a: 1, c: 5, b: { x: 10, y: 20, z: 30 } },
  },
];

conformance('aip.lua', cases);
