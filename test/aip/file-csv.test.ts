import nodePath from 'node:path';
import { describe, expect, it } from 'vitest';
import { fileAccess } from '../../src/aip/file-access.ts';
import { fileCsv } from '../../src/aip/file-csv.ts';
import { useFileWorkspace, type HostFns } from '../helpers/file-workspace.ts';

const w = useFileWorkspace();
const data = () => fileCsv(fileAccess(w.env)) as HostFns;
const read = (rel: string) => w.env.vfs.readFile(nodePath.join(w.ws, rel));

describe('aip.file CSV', () => {
  it('saves a matrix with a header row, appends rows without repeating it, and loads it back', () => {
    const f = data();
    const info = f.save_as_csv('t.csv', [['name', 'age'], ['Ann', 30]], { has_header: true });
    expect(info).toMatchObject({ _type: 'FileInfo', path: 't.csv' });
    f.append_csv_row('t.csv', ['Bo, Jr', 5]);
    expect(read('t.csv')).toBe('name,age\nAnn,30\n"Bo, Jr",5\n');
    expect(f.load_csv('t.csv', { has_header: true })).toEqual({ _type: 'CsvContent', headers: ['name', 'age'], rows: [['Ann', '30'], ['Bo, Jr', '5']] });
    expect(f.load_csv_headers('t.csv')).toEqual(['name', 'age']);
    expect(w.env.trace.of('file').map((e) => e.op)).toEqual(['write', 'append']);
  });

  it('saves records by header keys, and refuses records that are not tables', () => {
    const f = data();
    f.save_records_as_csv('r.csv', [{ a: 1, b: 'x' }, { b: 'y' }], ['a', 'b']);
    expect(read('r.csv')).toBe('a,b\n1,x\n,y\n');
    expect(() => f.save_records_as_csv('r.csv', [1], ['a'])).toThrow('Records must be a list of tables');
  });
});

describe('aip.file CSV failures', () => {
  it('a missing file and a directory are named with AIPack wording; writes keep the write protection', () => {
    const f = data();
    expect(() => f.load_csv('none.csv')).toThrow(`aip.file.load_csv - Failed to read csv file 'none.csv'.\nCause: file not found (resolved to '${nodePath.join(w.ws, 'none.csv')}')`);
    expect(() => f.load_csv('src')).toThrow("aip.file.load_csv - Failed to read csv file 'src'.\nCause: it is a directory");
    expect(() => f.save_as_csv('../out.csv', [['a']])).toThrow(/Save file protection/);
    expect(() => f.save_as_csv('x.csv', 'text')).toThrow('Data must be a table (matrix or structured {headers, rows})');
  });
});
