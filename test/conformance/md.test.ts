import { expect } from 'vitest';
import { conformance, type Case } from './support.ts';

const M = 'aip_md.rs';
type Block = { lang: string; content: string };
const TWO_BLOCKS = `local content = "This is some content\\n"
content = content .. "\\n\`\`\`lua\\n--some lua \\n\`\`\`\\n"
content = content .. "and other block\\n\\n\`\`\`rust\\n//! some rust block \\n\`\`\`\\n"
content = content .. "The end"`;

const cases: Case[] = [
  {
    up: `${M}::test_lua_md_extract_blocks_simple`,
    lua: 'local file = aip.file.load("agent-script/agent-before-all-inputs-gen.aip")\nreturn aip.md.extract_blocks(file.content, {lang = "lua"})',
    check: (v) => {
      const blocks = v as Block[];
      expect(blocks).toHaveLength(4);
      expect(blocks[0].lang).toBe('lua');
      expect(blocks[0].content).toContain('before_all_response');
      expect(blocks[1].lang).toBe('lua');
      expect(blocks[1].content).toContain('Data with input');
    },
  },
  {
    up: `${M}::test_lua_md_extract_blocks_with_lang_and_extruded_content`,
    lua: `${TWO_BLOCKS}\nlocal blocks, extruded_content = aip.md.extract_blocks(content, {lang = "lua", extrude = "content"})\nreturn { blocks = blocks, extruded_content = extruded_content }`,
    check: (v) => {
      const r = v as { blocks: Block[]; extruded_content: string };
      expect(r.blocks).toHaveLength(1);
      expect(r.blocks[0].lang).toBe('lua');
      expect(r.blocks[0].content).toContain('some lua');
      for (const part of ['This is some content', 'and other block', '```rust', '```\n', 'The end']) expect(r.extruded_content).toContain(part);
    },
  },
  {
    up: `${M}::test_lua_md_extract_blocks_with_all_lang_and_extruded_content`,
    lua: `${TWO_BLOCKS}\nlocal blocks, extruded_content = aip.md.extract_blocks(content, {extrude = "content"})\nreturn { blocks = blocks, extruded_content = extruded_content }`,
    check: (v) => {
      const r = v as { blocks: Block[]; extruded_content: string };
      expect(r.blocks.map((b) => b.lang).sort()).toEqual(['lua', 'rust']);
      expect(r.blocks.find((b) => b.lang === 'lua')?.content).toContain('some lua');
      expect(r.blocks.find((b) => b.lang === 'rust')?.content).toContain('some rust');
      expect(r.extruded_content).toContain('This is some content');
      expect(r.extruded_content).toContain('and other block');
      expect(r.extruded_content).not.toContain('```');
      expect(r.extruded_content).toContain('The end');
    },
  },
  {
    up: `${M}::test_lua_md_extract_meta`,
    lua: `local content = [[
Some content
\`\`\`toml
#!meta
some = "stuff"
\`\`\`
some more content
\`\`\`toml
#!meta
# Another meta block
num = 123
\`\`\`
And this is the end
]]
local meta, remain = aip.md.extract_meta(content)
return { meta = meta, remain = remain }`,
    check: (v) => {
      const r = v as { meta: Record<string, unknown>; remain: string };
      expect(r.meta.some).toBe('stuff');
      expect(r.meta.num).toBe(123);
      for (const part of ['Some content', 'some more content', 'And this is the end']) expect(r.remain).toContain(part);
      for (const part of ['Another meta block', 'num = 123', '#!meta', '```']) expect(r.remain).not.toContain(part);
    },
  },
  {
    up: `${M}::test_lua_md_extract_refs_simple`,
    lua: 'return aip.md.extract_refs([[\nCheck out [this link](https://example.com) and [docs](docs/page.md).\nAlso see ![image](assets/photo.jpg) for reference.\n]])',
    check: (v) => {
      const refs = v as Record<string, unknown>[];
      expect(refs).toHaveLength(3);
      expect(refs[0]).toMatchObject({ _type: 'MdRef', target: 'https://example.com', text: 'this link', inline: false, kind: 'Url' });
      expect(refs[1]).toMatchObject({ target: 'docs/page.md', text: 'docs', inline: false, kind: 'File' });
      expect(refs[2]).toMatchObject({ target: 'assets/photo.jpg', text: 'image', inline: true, kind: 'File' });
    },
  },
  {
    up: `${M}::test_lua_md_extract_refs_skip_code_blocks`,
    lua: 'local content = "Here is a [real link](https://real.com).\\n"\ncontent = content .. "\\n```\\n[not a link](https://fake.com)\\n```\\n"\ncontent = content .. "\\nAnd [another real](page.md)."\nreturn aip.md.extract_refs(content)',
    check: (v) => expect((v as { target: string }[]).map((r) => r.target)).toEqual(['https://real.com', 'page.md']),
  },
  // an empty list: the serde conversion of a stage result makes an empty table {}
  { up: `${M}::test_lua_md_extract_refs_nil_input`, lua: 'local r = aip.md.extract_refs(nil)\nreturn { n = #r, t = type(r) }', expect: { n: 0, t: 'table' } },
  {
    up: `${M}::test_lua_md_extract_refs_anchor`,
    lua: 'return aip.md.extract_refs("[go to section](#my-section)\\n")',
    check: (v) => {
      const refs = v as Record<string, unknown>[];
      expect(refs).toHaveLength(1);
      expect(refs[0]).toMatchObject({ target: '#my-section', kind: 'Anchor' });
    },
  },
  {
    up: `${M}::test_lua_md_outer_block_content_or_raw`,
    lua: 'local content = "```" .. [[rust\nfn main() {\n    let example = ```typescript\n    const x = 42;\n    ```;\n    println!("Hello!");\n}\n]] .. "```"\nreturn aip.md.outer_block_content_or_raw(content)',
    check: (v) => {
      expect(v).toContain('fn main()');
      expect(v).toContain('const x = 42');
      expect(v).not.toContain('```rust');
      expect(v).toContain('```typescript');
    },
  },
  {
    up: `${M}::test_lua_md_outer_block_content_or_raw`,
    lua: 'return aip.md.outer_block_content_or_raw([[Just some plain\ntext without any code blocks]])',
    expect: 'Just some plain\ntext without any code blocks',
  },
];

conformance('aip.md', cases);
