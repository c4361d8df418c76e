/**
 * `aip.csv.*` and the CSV parts of `aip.file.*`, with AIPack's CsvOptions (docs/aipack.md section 8, 0.8.2 / 0.8.8):
 * csv-parse / csv-stringify configured like Rust's `csv` crate (flexible rows, quote doubling, comments only
 * at a line start, quoting only when needed).
 */
import { parse as csvParse } from 'csv-parse/sync';
import { stringify as csvStringify } from 'csv-stringify/sync';
import { LuaError, isPlainObject, luaTypeName } from '../engine/values.ts';
import type { AipNamespaceFactory } from './types.ts';
import { toJsonText } from './json.ts';
import { formatRustFloat } from './support/rust-float.ts';
import { withArgChecks } from './arg-checks.ts';
import { sharedNamespace } from './shared-namespace.ts';

export interface CsvOptions {
  delimiter?: string;
  quote?: string;
  escape?: string;
  trim_fields?: boolean;
  has_header?: boolean;
  header_labels?: Record<string, string>;
  skip_empty_lines?: boolean;
  comment?: string;
  skip_header_row?: boolean;
}

export interface CsvContent {
  _type: 'CsvContent';
  headers: string[];
  rows: string[][];
}

/** CsvOptions from a Lua value (nil or a table; wrongly typed keys are ignored, as AIPack's x_get_* do). */
export function csvOptionsArg(v: unknown): CsvOptions {
  if (v === undefined || v === null || (Array.isArray(v) && v.length === 0)) return {};
  if (!isPlainObject(v)) throw new LuaError(`error converting Lua ${luaTypeName(v)} to CsvOptions (Expected nil or a table for CsvOptions)`);
  const str = (k: string) => (typeof v[k] === 'string' ? (v[k] as string) : undefined);
  const bool = (k: string) => (typeof v[k] === 'boolean' ? (v[k] as boolean) : undefined);
  const labels = isPlainObject(v.header_labels) ? (v.header_labels as Record<string, string>) : undefined;
  return {
    delimiter: str('delimiter'),
    quote: str('quote'),
    escape: str('escape'),
    trim_fields: bool('trim_fields'),
    has_header: bool('has_header'),
    header_labels: labels,
    skip_empty_lines: bool('skip_empty_lines'),
    comment: str('comment'),
    skip_header_row: bool('skip_header_row'),
  };
}

const firstChar = (s: string | undefined): string | undefined => (s ? s[0] : undefined);

function readerOptions(o: CsvOptions, comments: boolean) {
  return {
    delimiter: firstChar(o.delimiter) ?? ',',
    quote: firstChar(o.quote) ?? '"',
    escape: firstChar(o.escape) ?? firstChar(o.quote) ?? '"',
    trim: o.trim_fields === true,
    comment: comments ? firstChar(o.comment) : undefined,
    comment_no_infix: true,
    relax_column_count: true,
    relax_quotes: true,
    skip_empty_lines: true,
  };
}

function parseRecords(content: string, o: CsvOptions, comments: boolean, what: string): string[][] {
  try {
    return csvParse(content, readerOptions(o, comments)) as string[][];
  } catch (e) {
    throw new LuaError(`${what}: ${(e as Error).message}`);
  }
}

/** AIPack's parse_csv: headers from the first record (default), label -> key remap, blank records skipped. */
export function parseCsv(content: string, o: CsvOptions): CsvContent {
  const hasHeader = o.has_header ?? true;
  const records = parseRecords(content, o, true, 'Failed to read CSV record');
  let headers: string[] = [];
  if (hasHeader && records.length > 0) {
    headers = records.shift() as string[];
    if (o.header_labels) headers = labelsToKeys(headers, o.header_labels);
  }
  const skipEmpty = o.skip_empty_lines ?? true;
  const rows = skipEmpty ? records.filter((r) => !r.every((f) => f.trim() === '')) : records;
  return { _type: 'CsvContent', headers, rows };
}

function parseCsvRow(row: string, o: CsvOptions): string[] {
  return parseRecords(row, o, false, 'Failed to parse CSV row')[0] ?? [];
}

function labelsToKeys(headers: string[], labels: Record<string, string>): string[] {
  const byLabel = new Map(Object.entries(labels).map(([k, v]) => [v, k]));
  return headers.map((h) => byLabel.get(h) ?? h);
}

export function keysToLabels(headers: string[], labels: Record<string, string>): string[] {
  return headers.map((h) => (Object.hasOwn(labels, h) ? labels[h] : h));
}

/** CSV text of records, each ending with "\n" (Rust csv writer, QuoteStyle::Necessary). */
export function writeCsv(records: string[][], o: CsvOptions): string {
  if (records.length === 0) return '';
  const quote = firstChar(o.quote) ?? '"';
  return csvStringify(records, {
    delimiter: firstChar(o.delimiter) ?? ',',
    quote,
    escape: firstChar(o.escape) ?? quote,
    record_delimiter: '\n',
    quoted_match: /\r/,
  });
}

/** AIPack's lua_value_to_csv_string. */
export function csvCell(v: unknown, ctx: string): string {
  if (typeof v === 'string') return v;
  if (typeof v === 'number') return Number.isInteger(v) ? String(v) : formatRustFloat(v);
  if (typeof v === 'boolean') return String(v);
  if (v === undefined || v === null) return '';
  if (typeof v === 'object') return toJsonText(v, '', ctx);
  throw new LuaError(`${ctx} - unsupported value type '${luaTypeName(v)}'`);
}

/** A Lua list of values -> CSV cells (the sequence part only). */
export function cellsOf(v: unknown, ctx: string, what = 'values must be a table (list)'): string[] {
  if (Array.isArray(v)) return v.map((c) => csvCell(c, ctx));
  if (isPlainObject(v)) return []; // a table with no sequence part
  throw new LuaError(`${ctx} - ${what}`);
}

function valuesToRow(values: string[], o: CsvOptions): string {
  return writeCsv([values], o).replace(/\r?\n$/, '');
}

const CSV = withArgChecks('csv', {
  parse_row(row: string, opts?: unknown): string[] {
    return parseCsvRow(row, csvOptionsArg(opts));
  },
  parse(content: string, opts?: unknown): CsvContent {
    return parseCsv(content, csvOptionsArg(opts));
  },
  values_to_row(values: unknown, opts?: unknown): string {
    const ctx = 'aip.csv.values_to_row';
    const o = opts === undefined ? {} : csvOptionsArg(opts);
    return valuesToRow(cellsOf(values, ctx, 'values must be a table (list)'), o);
  },
  value_lists_to_rows(lists: unknown, opts?: unknown): string[] {
    const ctx = 'aip.csv.value_lists_to_rows';
    if (!Array.isArray(lists) && !isPlainObject(lists)) throw new LuaError(`${ctx} - value_lists must be a table (list of lists)`);
    const o = opts === undefined ? {} : csvOptionsArg(opts);
    const list = Array.isArray(lists) ? lists : [];
    return list.map((item, i) => {
      try {
        return valuesToRow(cellsOf(item, ctx), o);
      } catch (e) {
        throw new LuaError(`Row ${i + 1}: ${(e as Error).message}`);
      }
    });
  },
});

export const csv: AipNamespaceFactory = sharedNamespace(CSV);
