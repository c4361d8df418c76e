import { describe, expect, it } from 'vitest';
import { md, promptMeta } from '../../src/aip/md.ts';
import type { StageEnv } from '../../src/aip/types.ts';
import { LuaError, LuaMulti } from '../../src/engine/values.ts';

const m = md({} as StageEnv) as Record<string, (...args: unknown[]) => unknown>;
const rets = (v: unknown): unknown[] => (v instanceof LuaMulti ? v.values : [v]);
const F = '```';

describe('promptMeta', () => {
  it("gives a prompt file's first meta block as extract_meta reads it, and throws its error", () => {
    expect(promptMeta('```toml\n#!meta\nmodel = "m"\n```\n\nDo it.\n')).toEqual({ model: 'm' });
    expect(promptMeta('No meta here.\n')).toEqual({});
    expect(() => promptMeta('```toml\n#!meta\nmodel = \n```\n')).toThrow(/aip\.md\.extract_meta: invalid TOML in meta block/);
  });
});

describe('aip.md.extract_meta', () => {
  it('merges toml meta blocks and returns the rest without the fences and without trailing newline', () => {
    const content = `Intro.\n${F}toml\n#!meta\ntitle = "T"\nn = 1\n${F}\nMain.\n${F}toml\n#!meta\nauthor = "A"\nn = 2\n${F}\n`;
    const [meta, rest] = rets(m.extract_meta(content));
    expect(meta).toEqual({ title: 'T', author: 'A', n: 2 });
    expect(rest).toBe('Intro.\nMain.');
  });

  it('reads yaml (all documents, nulls as the null sentinel), yml and json with //!meta', () => {
    const content = [
      `${F}yaml`, '#!meta', 'knowledge_globs:', 'model: flash', '---', 'write_mode: true', F,
      'text',
      `${F}yml`, '#!meta', 'a: 1', F,
      `${F}json`, '//!meta', '{"model": "pro", "list": [1, null]}', F,
    ].join('\n');
    const [meta, rest] = rets(m.extract_meta(content));
    expect(meta).toEqual({ knowledge_globs: null, model: 'pro', write_mode: true, a: 1, list: [1, null] });
    expect(rest).toBe('text');
  });

  it('is a shallow merge: later keys replace whole values', () => {
    const content = `${F}toml\n#!meta\n[o]\na = 1\n${F}\n${F}toml\n#!meta\n[o]\nb = 2\n${F}`;
    expect(rets(m.extract_meta(content))[0]).toEqual({ o: { b: 2 } });
  });

  it('keeps #!meta in other languages, and meta-looking blocks without the marker, as content', () => {
    const content = `a\n${F}python\n#!meta\nx = 1\n${F}\n${F}toml\nnot_meta = 1\n${F}\nb`;
    const [meta, rest] = rets(m.extract_meta(content));
    expect(meta).toEqual({});
    expect(rest).toBe(content);
  });

  it('does not look for meta blocks inside other fenced blocks', () => {
    const content = `${F}md\n${F}toml\n#!meta\nx = 1\n${F}\nafter`;
    // the inner ``` lines just toggle: the toml fence closes the md block, so it is not an opening fence
    const [meta, rest] = rets(m.extract_meta(content));
    expect(meta).toEqual({});
    expect(rest).toBe(content);
  });

  it('nil gives (nil, nil); no meta gives an empty table', () => {
    expect(rets(m.extract_meta(undefined))).toEqual([undefined, undefined]);
    expect(rets(m.extract_meta('just text\n'))).toEqual([{}, 'just text']);
  });

  it('raises parse errors naming the format', () => {
    expect(() => m.extract_meta(`${F}toml\n#!meta\nx = \n${F}`)).toThrow(/TOML/);
    expect(() => m.extract_meta(`${F}json\n#!meta\n{"a": 1,}\n${F}`)).toThrow(/JSON/);
    expect(() => m.extract_meta(`${F}yaml\n#!meta\na: [1,\n${F}`)).toThrow(/YAML/);
    expect(() => m.extract_meta(`${F}toml\n#!meta\nx = \n${F}`)).toThrow(LuaError);
  });
});

describe('aip.md.extract_blocks', () => {
  const doc = `${F}rust\nfn main() {}\n${F}\nSome text.\n${F}lua\nprint('hi')\n${F}\n${F}\nplain\n${F}`;

  it('extracts every block with trimmed lang and content lines each + "\\n"', () => {
    expect(m.extract_blocks(doc)).toEqual([
      { _type: 'MdBlock', lang: 'rust', content: 'fn main() {}\n' },
      { _type: 'MdBlock', lang: 'lua', content: "print('hi')\n" },
      { _type: 'MdBlock', lang: '', content: 'plain\n' },
    ]);
  });

  it('filters by lang string or option, and extrudes the rest (unmatched blocks stay)', () => {
    expect(m.extract_blocks(doc, 'rust')).toEqual([{ _type: 'MdBlock', lang: 'rust', content: 'fn main() {}\n' }]);
    const [blocks, rest] = rets(m.extract_blocks(doc, { lang: 'lua', extrude: 'content' }));
    expect(blocks).toEqual([{ _type: 'MdBlock', lang: 'lua', content: "print('hi')\n" }]);
    expect(rest).toBe(`${F}rust\nfn main() {}\n${F}\nSome text.\n${F}\nplain\n${F}\n`);
    expect(m.extract_blocks(doc, [])).toHaveLength(3); // {} arrives as []: no options
  });

  it('lets ```` fences hold ``` lines', () => {
    const s = '````md\n```ts\nx\n```\n````\n';
    expect(m.extract_blocks(s)).toEqual([{ _type: 'MdBlock', lang: 'md', content: '```ts\nx\n```\n' }]);
  });
});

describe('aip.md.extract_refs', () => {
  it('finds links and images outside code, with kinds', () => {
    const content = [
      'Check out [this link](https://example.com) and [docs](docs/page.md).',
      'Also see ![image](assets/photo.jpg) and [](#top) and `[code](x.md)` but [after](//cdn/x) code.',
      F,
      '[not a link](https://fake.com)',
      F,
    ].join('\n');
    expect(m.extract_refs(content)).toEqual([
      { _type: 'MdRef', target: 'https://example.com', text: 'this link', inline: false, kind: 'Url' },
      { _type: 'MdRef', target: 'docs/page.md', text: 'docs', inline: false, kind: 'File' },
      { _type: 'MdRef', target: 'assets/photo.jpg', text: 'image', inline: true, kind: 'File' },
      { _type: 'MdRef', target: '#top', inline: false, kind: 'Anchor' },
      { _type: 'MdRef', target: '//cdn/x', text: 'after', inline: false, kind: 'Url' },
    ]);
  });
  it('nil gives an empty list', () => {
    expect(m.extract_refs(undefined)).toEqual([]);
  });
});

describe('aip.md.outer_block_content_or_raw', () => {
  it('unwraps a single outer block', () => {
    expect(m.outer_block_content_or_raw('```rust\ncontent\n```')).toBe('content\n');
    expect(m.outer_block_content_or_raw('\n  ```ts\nconst a = 1;\n```  \n')).toBe('const a = 1;\n');
  });
  it('unwraps a four-backtick block that contains ``` fences', () => {
    const body = '````markdown\n# Title\n```ts\nx\n```\n````';
    expect(m.outer_block_content_or_raw(body)).toBe('# Title\n```ts\nx\n```\n');
  });
  it('returns the raw text when it is not exactly one block', () => {
    for (const raw of ['no block', '```ts\na\n```\ntext\n```ts\nb\n```', 'text\n```ts\na\n```', '```ts\nnever closed']) {
      expect(m.outer_block_content_or_raw(raw)).toBe(raw);
    }
  });
});
