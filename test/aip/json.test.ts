import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import '../helpers/fc-seed.ts';
import { json, toJsonText } from '../../src/aip/json.ts';
import type { StageEnv } from '../../src/aip/types.ts';
import { LuaError, luaTypeName } from '../../src/engine/values.ts';

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

/**
 * The oracle: the first writer of this module, plain and slow (tokens pushed to a list, every key list sorted by a
 * comparator). The writer in json.ts must give exactly its text, and its errors.
 */
function oracleJsonText(value: unknown, indent: string, fnName: string): string {
  const compareKeys = (a: string, b: string): number => {
    const n = Math.min(a.length, b.length);
    for (let i = 0; i < n; i++) {
      const x = a.charCodeAt(i);
      const y = b.charCodeAt(i);
      if (x === y) continue;
      if ((x >= 0xd800 && x <= 0xdfff) || (y >= 0xd800 && y <= 0xdfff)) return a.codePointAt(i)! - b.codePointAt(i)!;
      return x - y;
    }
    return a.length - b.length;
  };
  const numberText = (n: number): string => {
    if (!Number.isFinite(n)) throw new LuaError(`${fnName} fail to stringify. Cannot serialize ${n} (NaN/Infinity) to JSON`);
    return String(n).replace('e+', 'e');
  };
  const nl = indent === '' ? '' : '\n';
  const colon = indent === '' ? ':' : ': ';
  const out: string[] = [];
  const write = (v: unknown, depth: number): void => {
    if (v === undefined || v === null) out.push('null');
    else if (typeof v === 'boolean') out.push(v ? 'true' : 'false');
    else if (typeof v === 'number') out.push(numberText(v));
    else if (typeof v === 'string') out.push(JSON.stringify(v));
    else if (Array.isArray(v)) {
      if (v.length === 0) return void out.push('[]');
      const pad = nl + indent.repeat(depth + 1);
      for (let i = 0; i < v.length; i++) {
        out.push(i === 0 ? '[' + pad : ',' + pad);
        write(v[i], depth + 1);
      }
      out.push(nl + indent.repeat(depth) + ']');
    } else if (typeof v === 'object') {
      const o = v as Record<string, unknown>;
      const keys = Object.keys(o).sort(compareKeys);
      if (keys.length === 0) return void out.push('{}');
      const pad = nl + indent.repeat(depth + 1);
      for (let i = 0; i < keys.length; i++) {
        out.push((i === 0 ? '{' : ',') + pad + JSON.stringify(keys[i]) + colon);
        write(o[keys[i]!], depth + 1);
      }
      out.push(nl + indent.repeat(depth) + '}');
    } else throw new LuaError(`${fnName} fail to stringify. Cannot serialize a ${luaTypeName(v)} to JSON`);
  };
  write(value, 0);
  return out.join('');
}

/** The text, or the error's class and message. */
const outcome = (f: () => string): string => {
  try {
    return f();
  } catch (e) {
    return `${(e as Error).constructor.name}: ${(e as Error).message}`;
  }
};

describe('toJsonText', () => {
  // keys: ASCII, past U+FFFF (surrogate pairs), lone surrogates, U+E000..U+FFFF (where UTF-16 and code-point order
  // part), numbers-like keys (JS puts them first in an object), many keys (past the small-object sort)
  const key = fc.oneof(
    fc.string({ maxLength: 4 }),
    fc.string({ unit: 'grapheme', maxLength: 3 }),
    fc.string({ unit: 'binary', maxLength: 3 }),
    fc.constantFrom('\u{1F600}', '\uFFFD', '\uE000', 'a\uD800', '\uDC00', '\uD83D', '10', '2', '-1', '__proto__', 'é'),
    fc.nat(40).map(String),
  );
  const number = fc.oneof(
    fc.double(),
    fc.integer(),
    fc.constantFrom(-0, 1e21, -1e21, 1e-7, 123456789012345680000, 2 ** 53, 0.1, -1.5e300, 5e-324, NaN, Infinity, -Infinity),
  );
  const leaf = fc.oneof(number, fc.string(), fc.string({ unit: 'grapheme', maxLength: 6 }), fc.boolean(), fc.constant(null), fc.constant(undefined));
  const value = fc.letrec((tie) => ({
    v: fc.oneof({ depthSize: 'small', withCrossShrink: true }, leaf, tie('list'), tie('object'), tie('wide')),
    list: fc.array(tie('v'), { maxLength: 5 }),
    object: fc.dictionary(key, tie('v'), { maxKeys: 6 }),
    wide: fc.dictionary(key, leaf, { minKeys: 14, maxKeys: 30 }),
  })).v;

  it('writes exactly what the first writer wrote, one line and indented, errors included', () => {
    fc.assert(
      fc.property(value, fc.constantFrom('', '  ', '\t'), (v, indent) => {
        expect(outcome(() => toJsonText(v, indent, 'f'))).toBe(outcome(() => oracleJsonText(v, indent, 'f')));
      }),
      { numRuns: 1000 },
    );
  });

  it('writes numbers as serde_json does: no exponent sign, -0 as 0; sorts surrogate keys by code point', () => {
    const cases: unknown[] = [
      -0, 1e21, -1e21, 1.5e300, 1e-7, 0.1, 2 ** 53, 123.456, [], {}, [[]], { a: {} }, [undefined, null],
      { a: undefined }, { '\u{1F600}': 1, '\uFFFD': 2, '\uE000': 3, a: 4 },
      Object.fromEntries(Array.from({ length: 20 }, (_, i) => [`k${(i * 7) % 20}`, i])),
      new Uint8Array([3, 4]),
    ];
    for (const v of cases) for (const indent of ['', '  ']) expect(toJsonText(v, indent, 'f')).toBe(oracleJsonText(v, indent, 'f'));
    expect(toJsonText([1e21, -0, 1e-7], '', 'f')).toBe('[1e21,0,1e-7]');
    expect(() => toJsonText({ b: () => 1, a: NaN }, '', 'f')).toThrow('f fail to stringify. Cannot serialize NaN (NaN/Infinity) to JSON');
    expect(() => toJsonText([1n], '', 'f')).toThrow('f fail to stringify. Cannot serialize a bigint to JSON');
  });
});
