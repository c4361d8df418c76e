import { describe, expect, it } from 'vitest';
import { diffValues, show, textDiff } from '../../src/harness/compare.ts';

describe('diffValues', () => {
  it('is empty for values equal as Lua tables', () => {
    expect(diffValues('params', { a: [], b: ['x'] }, { a: {}, b: { 1: 'x' } })).toEqual([]);
  });

  it('names each differing key, missing and unexpected ones included', () => {
    expect(diffValues('params', { a: 1, b: { c: 'x' }, d: true }, { a: 2, b: { c: 'y' }, e: null })).toEqual([
      'params.a: expected 1, got 2',
      'params.b.c: expected "x", got "y"',
      'params.d: missing (expected true)',
      'params.e: not expected (got null)',
    ]);
  });

  it('indexes lists from 1, as Lua does', () => {
    expect(diffValues('prompts', ['a', 'b'], ['a', 'c', 'd'])).toEqual([
      'prompts[2]: expected "b", got "c"',
      'prompts[3]: not expected (got "d")',
    ]);
    expect(diffValues('prompts', ['a'], [])).toEqual(['prompts[1]: missing (expected "a")']);
    // a nil hole makes the array a non-list table, still keyed from 1
    expect(diffValues('t', ['a', undefined, 'c'], ['a', undefined, 'd'])).toEqual(['t["3"]: expected "c", got "d"']);
  });

  it('quotes keys that are not identifiers', () => {
    expect(diffValues('files', { 'a.md': 'x' }, {})).toEqual(['files["a.md"]: missing (expected "x")']);
  });

  it('shows a line diff for multi-line text, and a type change plainly', () => {
    expect(diffValues('prompt', 'a\nb\nc', 'a\nB\nc')).toEqual(['prompt: text differs (- expected, + actual):', '    a', '  - b', '  + B', '    c']);
    expect(diffValues('params.x', 'text', 3)).toEqual(['params.x: expected "text", got 3']);
    expect(diffValues('params.x', ['a'], 'a')).toEqual(['params.x: expected ["a"], got "a"']);
  });
});

describe('textDiff', () => {
  it('shows only the hunks that differ, with two lines of context', () => {
    const a = ['1', '2', '3', '4', '5', '6', '7', '8', '9', '10'].join('\n');
    const b = a.replace('8', 'eight');
    expect(textDiff(a, b)).toEqual(['@@ expected line 6, actual line 6 @@', '  6', '  7', '- 8', '+ eight', '  9', '  10']);
  });

  it('marks a missing final newline only when the texts disagree on it', () => {
    expect(textDiff('a\n', 'a')).toEqual(['- a', '+ a', '  No newline at end of file']);
  });
});

describe('show', () => {
  it('renders nil and shortens long values', () => {
    expect(show(undefined)).toBe('nil');
    expect(show('x'.repeat(300))).toHaveLength(200);
    // a value holding one big string many times is shown without being written whole
    expect(show(Array(2000).fill('y'.repeat(1024 * 1024)))).toBe(`["${'y'.repeat(197)}…`);
  });
});
