import { describe, expect, it } from 'vitest';
import { tag } from '../../src/aip/tag.ts';
import type { StageEnv } from '../../src/aip/types.ts';
import { LuaMulti } from '../../src/engine/values.ts';

const tg = tag({} as StageEnv) as Record<string, (...args: unknown[]) => unknown>;
const rets = (v: unknown): unknown[] => (v instanceof LuaMulti ? v.values : [v]);

describe('aip.tag.extract', () => {
  it('extracts elements with attributes (double, single, unquoted, flag) in order', () => {
    const content = `Prefix <A file=readme.md>one</A> middle <B x="1 2" y='q' flag>two</B> Suffix`;
    expect(tg.extract(content, ['A', 'B'])).toEqual([
      { tag: 'A', attrs: { file: 'readme.md' }, content: 'one' },
      { tag: 'B', attrs: { x: '1 2', y: 'q', flag: '' }, content: 'two' },
    ]);
  });

  it('extrudes the text outside the extracted tags', () => {
    const content = 'Prefix <A>one</A> middle <B>two</B> Suffix';
    const [elems, rest] = rets(tg.extract(content, 'A', { extrude: 'content' }));
    expect(elems).toEqual([{ tag: 'A', content: 'one' }]);
    expect(rest).toBe('Prefix  middle <B>two</B> Suffix');
  });

  it('reads AIP_FILE_CHANGE blocks with multi-line bodies and attributes across lines', () => {
    const ai = 'Intro\n<AIP_FILE_CHANGE\n  file_path="src/a.ts">\n```ts\nconst a = "<b>";\n```\n</AIP_FILE_CHANGE>\nOutro\n';
    const [elems, rest] = rets(tg.extract(ai, ['AIP_FILE_CHANGE'], { extrude: 'content' }));
    expect(elems).toEqual([
      { tag: 'AIP_FILE_CHANGE', attrs: { file_path: 'src/a.ts' }, content: '\n```ts\nconst a = "<b>";\n```\n' },
    ]);
    expect(rest).toBe('Intro\n\nOutro\n');
  });

  it('supports self-closing tags, ignores longer names and unclosed tags', () => {
    const s = '<TAG_EXTRA>x</TAG_EXTRA><TAG a="1"/><TAG>open only <TAG>real</TAG> <TAG />';
    expect(tg.extract(s, 'TAG')).toEqual([
      { tag: 'TAG', attrs: { a: '1' }, content: '' },
      { tag: 'TAG', content: 'open only <TAG>real' },
      { tag: 'TAG', content: '' },
    ]);
    expect(tg.extract('<M>never closed', 'M')).toEqual([]);
  });

  it('keeps a ">" inside a quoted attribute', () => {
    expect(tg.extract('<F cond="a>b">x</F>', 'F')).toEqual([{ tag: 'F', attrs: { cond: 'a>b' }, content: 'x' }]);
  });

  it('validates tag names', () => {
    expect(() => tg.extract('x', [])).toThrow(/at least one non-empty tag name/);
    expect(() => tg.extract('x', '')).toThrow(/at least one non-empty tag name/);
    expect(() => tg.extract('x', ['A', 3])).toThrow(/tag_names\[2\] must be a string/);
    expect(() => tg.extract(undefined, 'A')).toThrow(/aip\.tag\.extract: expected 'content' to be a string/);
  });
});

describe('aip.tag maps', () => {
  const content = 'First <A>one</A> <B>two</B> Last <A>three</A>';
  it('extract_as_map keeps the last element per tag', () => {
    expect(tg.extract_as_map(content, ['A', 'B'])).toEqual({
      A: { tag: 'A', content: 'three' },
      B: { tag: 'B', content: 'two' },
    });
  });
  it('extract_as_multi_map keeps every element per tag, and extrudes', () => {
    const [map, rest] = rets(tg.extract_as_multi_map(content, ['A', 'B'], { extrude: 'content' }));
    expect(map).toEqual({
      A: [
        { tag: 'A', content: 'one' },
        { tag: 'A', content: 'three' },
      ],
      B: [{ tag: 'B', content: 'two' }],
    });
    expect(rest).toBe('First   Last ');
  });
  it('reads nested tags of another name through a second call (missing_files)', () => {
    const outer = tg.extract('<missing_files><mf_message>need x</mf_message><mf_files>\na.ts\n</mf_files></missing_files>', 'missing_files') as {
      content: string;
    }[];
    const map = tg.extract_as_map(outer[0].content, ['mf_message', 'mf_files']) as Record<string, { content: string }>;
    expect(map.mf_message.content).toBe('need x');
    expect(map.mf_files.content).toBe('\na.ts\n');
  });
});
