import fs from 'node:fs';
import nodePath from 'node:path';
import { describe, expect, it } from 'vitest';
import { aipFunctionsAt } from '../../src/aip/catalog.ts';
import { file } from '../../src/aip/file.ts';
import { fileAccess } from '../../src/aip/file-access.ts';
import { fileBytes } from '../../src/aip/file-bytes.ts';
import { fileCsv } from '../../src/aip/file-csv.ts';
import { fileFormats } from '../../src/aip/file-formats.ts';
import { fileList } from '../../src/aip/file-list.ts';
import { fileOps } from '../../src/aip/file-ops.ts';
import { useFileWorkspace, type HostFns } from '../helpers/file-workspace.ts';

const w = useFileWorkspace();

describe('aip.file registry', () => {
  it('is the disjoint union of its groups', () => {
    const access = fileAccess(w.env);
    const groups = [fileBytes(access), fileCsv(access), fileOps(access), fileList(access), fileFormats(access)].map((g) => Object.keys(g));
    const all = groups.flat();
    expect(new Set(all).size).toBe(all.length);
    expect(Object.keys(file(w.env)).sort()).toEqual([...all].sort());
  });

  it('implements every aip.file function of the catalog but the HTML / DOCX converters', () => {
    const ns = file(w.env);
    const missing = aipFunctionsAt('0.8.15')
      .filter((f) => f.path.startsWith('aip.file.'))
      .map((f) => f.path.slice('aip.file.'.length))
      .filter((name) => typeof ns[name] !== 'function');
    expect(missing.sort()).toEqual(
      ['load_docx_as_md', 'load_html_as_md', 'load_html_as_slim', 'save_docx_to_md', 'save_html_to_md', 'save_html_to_slim'],
    );
  });

  it('every writing function, whatever its group, refuses a path outside the workspace and writes nothing', () => {
    const f = file(w.env) as HostFns;
    const before = w.diskState();
    const writes: [string, (p: string) => unknown][] = [
      ['save', (p) => f.save(p, 'x')],
      ['append', (p) => f.append(p, 'x')],
      ['ensure_exists', (p) => f.ensure_exists(p)],
      ['ensure_dir', (p) => f.ensure_dir(p)],
      ['save_changes', (p) => f.save_changes(p, 'x')],
      ['copy', (p) => f.copy('README.md', p)],
      ['append_json_line', (p) => f.append_json_line(p, {})],
      ['append_json_lines', (p) => f.append_json_lines(p, [{}])],
      ['save_as_csv', (p) => f.save_as_csv(p, [['a']])],
      ['append_csv_row', (p) => f.append_csv_row(p, ['a'])],
    ];
    for (const [name, write] of writes) {
      expect(() => write('../out.txt'), name).toThrow(/Save file protection/);
    }
    expect(fs.existsSync(nodePath.join(w.root, 'out.txt'))).toBe(false);
    expect(w.diskState()).toEqual(before);
    expect(w.env.vfs.changes()).toEqual({ created: [], changed: [], deleted: [] });
  });
});
