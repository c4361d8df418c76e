import { describe, expect, it } from 'vitest';
import { csv, csvCell, csvOptionsArg, keysToLabels, parseCsv, writeCsv } from '../../src/aip/csv.ts';
import type { StageEnv } from '../../src/aip/types.ts';
import type { HostFns } from '../helpers/file-workspace.ts';

const c = csv({} as StageEnv) as HostFns;

describe('aip.csv', () => {
  it('parse reads headers from the first record, skips blank and comment records, and maps labels to keys', () => {
    const text = 'Full Name,Age\n# note\nAnn,30\n\n , \nBo,"5"\n';
    expect(c.parse(text, { comment: '#', header_labels: { name: 'Full Name' } })).toEqual({
      _type: 'CsvContent',
      headers: ['name', 'Age'],
      rows: [['Ann', '30'], ['Bo', '5']],
    });
    expect(c.parse('a;b\n', { has_header: false, delimiter: ';' }).rows).toEqual([['a', 'b']]);
  });

  it('parse_row reads one row, a # not being a comment there', () => {
    expect(c.parse_row('#a,"b,c",d')).toEqual(['#a', 'b,c', 'd']);
    expect(() => c.parse_row(1)).toThrow('aip.csv.parse_row: row must be a string, got number');
  });

  it('values_to_row / value_lists_to_rows quote only when needed and write values as AIPack does', () => {
    expect(c.values_to_row(['a,b', 1, 2.5, true, null, { k: 1 }])).toBe('"a,b",1,2.5,true,,"{""k"":1}"');
    expect(c.value_lists_to_rows([['x'], ['y', 'z']], { delimiter: '\t' })).toEqual(['x', 'y\tz']);
    expect(() => c.value_lists_to_rows([['x'], 'bad'])).toThrow('Row 2: aip.csv.value_lists_to_rows - values must be a table (list)');
  });
});

describe('CSV helpers', () => {
  it('csvOptionsArg ignores wrongly typed keys and refuses non-tables', () => {
    expect(csvOptionsArg({ delimiter: ';', trim_fields: 'yes' })).toMatchObject({ delimiter: ';', trim_fields: undefined });
    expect(csvOptionsArg([])).toEqual({});
    expect(() => csvOptionsArg('x')).toThrow('error converting Lua string to CsvOptions (Expected nil or a table for CsvOptions)');
  });

  it('writeCsv ends each record with a newline; keysToLabels renames known keys', () => {
    expect(writeCsv([['a', 'b'], ['1', 'x"y']], {})).toBe('a,b\n1,"x""y"\n');
    expect(writeCsv([], {})).toBe('');
    expect(keysToLabels(['name', 'age'], { name: 'Full Name' })).toEqual(['Full Name', 'age']);
    expect(csvCell(3.0, 'ctx')).toBe('3');
    expect(parseCsv('h\n', {}).rows).toEqual([]);
  });
});
