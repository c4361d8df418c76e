import { beforeEach, describe, expect, it } from 'vitest';
import { fileAccess } from '../../src/aip/file-access.ts';
import { fileFormats } from '../../src/aip/file-formats.ts';
import { fileOps } from '../../src/aip/file-ops.ts';
import { useFileWorkspace, type HostFns } from '../helpers/file-workspace.ts';

const w = useFileWorkspace();
let env: typeof w.env;
let f: HostFns;
const put = (rel: string, content: string) => w.put(rel, content);

beforeEach(() => {
  env = w.env;
  const access = fileAccess(env);
  f = { ...fileOps(access), ...fileFormats(access) } as HostFns;
});

describe('aip.file data loaders and JSON lines', () => {
  it('load_json accepts comments and trailing commas; nil path gives nil', () => {
    put('conf.json', '{\n  // comment\n  "a": [1, 2,],\n  "b": null,\n}\n');
    expect(f.load_json('conf.json')).toEqual({ a: [1, 2], b: null });
    expect(f.load_json(undefined)).toBeUndefined();
    put('null.json', 'null');
    expect(f.load_json('null.json')).toBeUndefined(); // a top-level null reads as nil
    put('bad.json', '{ "a": ');
    expect(() => f.load_json('bad.json')).toThrow(/aip.file.load_json - Failed to read json file 'bad.json'/);
  });

  it('load_ndjson, load_toml, load_yaml', () => {
    put('a.ndjson', '{"n":1}\n\n{"n":2}\n');
    expect(f.load_ndjson('a.ndjson')).toEqual([{ n: 1 }, { n: 2 }]);
    put('a.toml', 'title = "x"\n[owner]\nname = "y"\n');
    expect(f.load_toml('a.toml')).toEqual({ title: 'x', owner: { name: 'y' } });
    put('a.yaml', 'a: 1\nb: ~\n---\n- x\n');
    expect(f.load_yaml('a.yaml')).toEqual([{ a: 1, b: null }, ['x']]);
  });

  it('append_json_line(s) write one JSON document per line', () => {
    f.append_json_line('log.ndjson', { b: 1, a: 'x' });
    f.append_json_lines('log.ndjson', [[1, 2], null]);
    expect(f.load('log.ndjson').content).toBe('{"a":"x","b":1}\n[1,2]\nnull\n');
    expect(f.load_ndjson('log.ndjson')).toEqual([{ a: 'x', b: 1 }, [1, 2], null]);
  });
});

describe('aip.file.load_md_sections / load_md_split_first', () => {
  const md = 'Intro\n# One\n\none body\n## One.a\n\nsub\n# Two\n\n```\n# not a heading\n```\n';

  it('lists every section when no heading filter is given', () => {
    put('doc.md', md);
    const secs = f.load_md_sections('doc.md');
    expect(secs.map((s: any) => [s.heading_level, s.heading_name])).toEqual([
      [0, ''],
      [1, 'One'],
      [2, 'One.a'],
      [1, 'Two'],
    ]);
    expect(secs[1]).toEqual({
      _type: 'MdSection',
      content: '# One\n\none body\n',
      heading_raw: '# One\n',
      heading_content: '# One',
      heading_level: 1,
      heading_name: 'One',
    });
    expect(secs[3].content).toBe('# Two\n\n```\n# not a heading\n```\n');
  });

  it('filters by heading, keeping sub-sections', () => {
    put('doc.md', md);
    expect(f.load_md_sections('doc.md', '# One').map((s: any) => s.content)).toEqual(['# One\n\none body\n## One.a\n\nsub\n']);
    expect(f.load_md_sections('doc.md', ['', '# Two']).map((s: any) => s.heading_name)).toEqual(['', 'Two']);
    expect(() => f.load_md_sections('doc.md', 'One')).toThrow(/heading 'One' is not a valid markdown heading/);
  });

  it('splits the first section from the rest', () => {
    put('doc.md', '# A\na\n# B\nb\n');
    const split = f.load_md_split_first('doc.md');
    expect(split.before).toBe('');
    expect(split.first).toMatchObject({ heading_name: 'A', content: '# A\na\n' });
    expect(split.after).toBe('# B\nb');
  });
});
