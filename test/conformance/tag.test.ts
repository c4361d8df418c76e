import { expect } from 'vitest';
import { conformance, type Case } from './support.ts';

const T = 'aip_tag.rs';
const AB = 'local content = "Prefix <A>one</A> middle <B>two</B> suffix"';
const ABA = 'local content = "Prefix <A>one</A> middle <B>two</B> suffix <A>three</A>"';
type Block = { tag: string; content: string };

const cases: Case[] = [
  {
    up: `${T}::test_script_aip_tag_extract_simple`,
    lua: `${AB}\nlocal blocks, extruded = aip.tag.extract(content, {"A", "B"})\nreturn { blocks = blocks, extruded = extruded }`,
    check: (v) => {
      const r = v as { blocks: Block[]; extruded?: unknown };
      expect(r.blocks.map((b) => [b.tag, b.content])).toEqual([['A', 'one'], ['B', 'two']]);
      expect(r.extruded ?? null).toBeNull();
    },
  },
  {
    up: `${T}::test_script_aip_tag_extract_as_map_simple`,
    lua: `${ABA}\nreturn aip.tag.extract_as_map(content, {"A", "B"})`,
    check: (v) => {
      const m = v as Record<string, Block>;
      expect(m.A.content).toBe('three');
      expect(m.B.content).toBe('two');
    },
  },
  {
    up: `${T}::test_script_aip_tag_extract_as_multi_map_simple`,
    lua: `${ABA}\nreturn aip.tag.extract_as_multi_map(content, {"A", "B"})`,
    check: (v) => {
      const m = v as Record<string, Block[]>;
      expect(m.A.map((b) => b.content)).toEqual(['one', 'three']);
      expect(m.B.map((b) => b.content)).toEqual(['two']);
    },
  },
  {
    up: `${T}::test_script_aip_tag_extract_with_extrude`,
    lua: `${AB}\nlocal blocks, extruded = aip.tag.extract(content, {"A", "B"}, { extrude = "content" })\nreturn { blocks = blocks, extruded = extruded }`,
    check: (v) => {
      const r = v as { blocks: Block[]; extruded: string };
      expect(r.extruded).toBe('Prefix  middle  suffix');
      expect(r.blocks).toHaveLength(2);
    },
  },
  {
    up: `${T}::test_script_aip_tag_extract_as_map_with_extrude`,
    lua: `${AB}\nlocal map, extruded = aip.tag.extract_as_map(content, {"A", "B"}, { extrude = "content" })\nreturn { map = map, extruded = extruded }`,
    check: (v) => {
      const r = v as { map: Record<string, Block>; extruded: string };
      expect(r.extruded).toBe('Prefix  middle  suffix');
      expect(r.map.A.content).toBe('one');
      expect(r.map.B.content).toBe('two');
    },
  },
  {
    up: `${T}::test_script_aip_tag_extract_as_multi_map_with_extrude`,
    lua: `${ABA}\nlocal map, extruded = aip.tag.extract_as_multi_map(content, {"A", "B"}, { extrude = "content" })\nreturn { map = map, extruded = extruded }`,
    check: (v) => {
      const r = v as { map: Record<string, Block[]>; extruded: string };
      expect(r.extruded).toBe('Prefix  middle  suffix ');
      expect(r.map.A.map((b) => b.content)).toEqual(['one', 'three']);
      expect(r.map.B.map((b) => b.content)).toEqual(['two']);
    },
  },
  {
    up: `${T}::test_script_aip_tag_extract_with_extrude_no_matches`,
    lua: 'local blocks, extruded = aip.tag.extract("No tags here.", {"X"}, { extrude = "content" })\nreturn { blocks = blocks, extruded = extruded }',
    // upstream accepts an empty array or an empty object for the blocks
    check: (v) => {
      const r = v as { blocks: unknown; extruded: string };
      expect(Object.keys(r.blocks as object)).toHaveLength(0);
      expect(r.extruded).toBe('No tags here.');
    },
  },
];

conformance('aip.tag', cases);
