import { describe, expect, it } from 'vitest';
import { byteSize, capped, jsonText } from '../../src/report/json-text.ts';

describe('capped', () => {
  it('keeps a short text and cuts a long one, saying how much was left out', () => {
    expect(capped('abc', 5)).toBe('abc');
    expect(capped('abcdefgh', 5)).toBe('abcde\n… (3 more characters not kept in the report)');
  });
});

describe('jsonText', () => {
  it('writes values as pretty JSON and nil for undefined', () => {
    expect(jsonText({ a: [1, 'x'] })).toBe('{\n  "a": [\n    1,\n    "x"\n  ]\n}');
    expect(jsonText(undefined)).toBe('nil');
    expect(jsonText(10n)).toBe('"10"');
  });

  it('says a value JSON cannot hold instead of throwing', () => {
    const cyclic: Record<string, unknown> = {};
    cyclic.self = cyclic;
    expect(jsonText(cyclic)).toMatch(/^<not shown: .*circular/i);
  });

  it('caps a huge value', () => {
    expect(jsonText('x'.repeat(100), 10)).toMatch(/more characters not kept/);
  });
});

describe('byteSize', () => {
  it('counts UTF-8 bytes', () => {
    expect(byteSize('é€')).toBe(5);
  });
});
