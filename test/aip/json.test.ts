import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import '../helpers/fc-seed.ts';
import { json } from '../../src/aip/json.ts';
import type { StageEnv } from '../../src/aip/types.ts';
import { LuaError } from '../../src/engine/values.ts';

const j = json({} as StageEnv) as Record<string, (...args: unknown[]) => unknown>;

describe('aip.json.parse', () => {
  it('parses strict JSON; nested null is the null sentinel, top-level null is nil', () => {
    expect(j.parse('{"name": "John", "age": 30, "x": null, "l": [1, 2.5, true]}')).toEqual({
      name: 'John', age: 30, x: null, l: [1, 2.5, true],
    });
    expect(j.parse('null')).toBeUndefined();
    expect(j.parse('"s"')).toBe('s');
  });

  it('nil and blank give nil', () => {
    expect(j.parse(undefined)).toBeUndefined();
    expect(j.parse('  \n\t')).toBeUndefined();
    expect(j.parse('// only a comment\n')).toBeUndefined();
  });

  it('accepts the relaxed forms: comments, trailing and missing commas, quotes, unquoted keys, hex, unary +', () => {
    const src = `{
      // line comment
      name: 'John', /* block */
      "list": [1, 2, 3,],
      'quoted': "it's",
      hex: 0x1F,
      plus: +5,
      half: .5,
      a: 1
      b: 2,
    }`;
    expect(j.parse(src)).toEqual({ name: 'John', list: [1, 2, 3], quoted: "it's", hex: 31, plus: 5, half: 0.5, a: 1, b: 2 });
    expect(j.parse("['a\\'b', 'c\\n']")).toEqual(["a'b", 'c\n']);
  });

  it('keeps a "__proto__" key as plain data', () => {
    const v = j.parse('{"__proto__": {"x": 1}}') as Record<string, unknown>;
    expect(Object.keys(v)).toEqual(['__proto__']);
    expect(Object.getPrototypeOf(v)).toBe(Object.prototype);
  });

  it('raises "aip.json.parse failed. Fail to parse json." with the cause', () => {
    expect(() => j.parse('{"a": }')).toThrow(LuaError);
    expect(() => j.parse('{"a": }')).toThrow(/^aip\.json\.parse failed\. Fail to parse json\.\nCause: .*line 1 column 7/);
    expect(() => j.parse('[1, 2')).toThrow(/end of input/);
    expect(() => j.parse('{"a": 1} x')).toThrow(/Unexpected content after/);
    expect(() => j.parse(12)).toThrow(/expected 'content' to be a string or nil/);
  });

  it('round-trips any JSON value written by JSON.stringify', () => {
    fc.assert(
      fc.property(fc.jsonValue(), (v) => {
        const text = JSON.stringify(v);
        const parsed = j.parse(text);
        const expected = JSON.parse(text);
        expect(parsed).toEqual(expected === null ? undefined : expected);
      }),
      { numRuns: 200 },
    );
  });
});

describe('aip.json.parse_ndjson', () => {
  it('parses one value per non-empty line', () => {
    expect(j.parse_ndjson('{"id":1}\n\n{"id":2}\n')).toEqual([{ id: 1 }, { id: 2 }]);
    expect(j.parse_ndjson(undefined)).toBeUndefined();
  });
  it('is strict and names the line', () => {
    expect(() => j.parse_ndjson('{"id":1}\n{id:2}')).toThrow(/^aip\.json\.parse_ndjson failed\. Invalid JSON at line 2/);
  });
});

describe('aip.json.stringify', () => {
  it('writes one line with sorted keys', () => {
    expect(j.stringify({ name: 'John', age: 30, l: [1, 'a', null], o: {} })).toBe('{"age":30,"l":[1,"a",null],"name":"John","o":{}}');
    expect(j.stringify([])).toBe('[]');
    expect(j.stringify(undefined)).toBe('null');
    expect(j.stringify('a"b\n')).toBe('"a\\"b\\n"');
    expect(j.stringify({ b: 1, 10: 2, 2: 3 })).toBe('{"10":2,"2":3,"b":1}');
    expect(j.stringify_to_line).toBe(j.stringify);
  });
  it('orders keys by code point, as serde_json orders them by their UTF-8 bytes', () => {
    // UTF-16 order would put the emoji (a surrogate pair) before U+E000 and U+FFFD
    const keys = ['\u{1F600}', '\uFFFD', '\uE000', 'é', 'z', 'ab', 'a', 'a\u{1F600}', 'a\uFFFD'];
    const obj = Object.fromEntries(keys.map((k, i) => [k, i]));
    const written = Object.keys(JSON.parse(j.stringify(obj) as string));
    expect(written).toEqual(['a', 'ab', 'a\uFFFD', 'a\u{1F600}', 'z', 'é', '\uE000', '\uFFFD', '\u{1F600}']);
    const bytes = [...keys].sort((x, y) => Buffer.compare(Buffer.from(x), Buffer.from(y)));
    expect(written).toEqual(bytes);
    expect(j.stringify_pretty({ b: { y: [1, { z: 2 }] }, a: [] })).toBe('{\n  "a": [],\n  "b": {\n    "y": [\n      1,\n      {\n        "z": 2\n      }\n    ]\n  }\n}');
  });
  it('stringify_pretty indents with 2 spaces', () => {
    expect(j.stringify_pretty({ name: 'John', age: 30, l: [1], e: [] })).toBe(
      '{\n  "age": 30,\n  "e": [],\n  "l": [\n    1\n  ],\n  "name": "John"\n}',
    );
  });
  it('rejects NaN/Infinity and functions', () => {
    expect(() => j.stringify({ a: NaN })).toThrow(/^aip\.json\.stringify fail to stringify\./);
    expect(() => j.stringify_pretty([() => 1])).toThrow(/^aip\.json\.stringify_pretty fail to stringify\. Cannot serialize a function/);
  });
});
