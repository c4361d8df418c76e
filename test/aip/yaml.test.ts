import { describe, expect, it } from 'vitest';
import { yaml } from '../../src/aip/yaml.ts';
import type { StageEnv } from '../../src/aip/types.ts';

const ym = yaml({} as StageEnv) as Record<string, (...args: unknown[]) => unknown>;

describe('aip.yaml', () => {
  it('parses every document into a list', () => {
    expect(ym.parse('name: Doc1\n---\nname: Doc2\nx:\n')).toEqual([{ name: 'Doc1' }, { name: 'Doc2', x: null }]);
    expect(ym.parse('')).toEqual([]);
    expect(ym.parse(undefined)).toBeUndefined();
  });
  it('raises "aip.yaml.parse failed. ..."', () => {
    expect(() => ym.parse('a: [1,\n')).toThrow(/^aip\.yaml\.parse failed\. /);
  });
  it('stringifies one document, and several with stringify_multi_docs', () => {
    const text = ym.stringify({ name: 'John', age: 30 }) as string;
    expect(text).toBe('age: 30\nname: John\n');
    expect(ym.parse(text)).toEqual([{ name: 'John', age: 30 }]);
    const multi = ym.stringify_multi_docs([{ name: 'D1' }, { name: 'D2' }]) as string;
    expect(multi).toBe('name: D1\n---\nname: D2\n');
    expect(() => ym.stringify_multi_docs({ a: 1 })).toThrow('aip.yaml.stringify_multi_docs failed. Content must be a list of tables.');
  });
});
