/**
 * `aip.file.*` for CSV files: load_csv, load_csv_headers, save_as_csv, save_records_as_csv, append_csv_row(s),
 * with AIPack's CsvOptions (csv.ts) and wording. Same path rules and write protection as file-ops.ts.
 */
import { LuaError, isPlainObject, luaTypeName } from '../engine/values.ts';
import type { FileAccess } from './file-access.ts';
import { cellsOf, csvCell, csvOptionsArg, keysToLabels, parseCsv, writeCsv, type CsvContent } from './csv.ts';
import { checkAccessWrite, resolvePath } from './support/paths.ts';
import { pathArg } from './arg-checks.ts';

const N = (name: string) => `aip.file.${name}`;

export function fileCsv(access: FileAccess): Record<string, unknown> {
  const { env, infoOf, trace } = access;
  const { vfs } = env;
  const out: Record<string, unknown> = {};

  const readCsv = (fn: string, p: string, options: unknown): CsvContent => {
    const o = csvOptionsArg(options);
    const fail = (why: string) => `${fn} - Failed to read csv file '${p}'.\nCause: ${why}`;
    const text = new TextDecoder().decode(access.bytesOf(resolvePath(env, p), fail));
    try {
      return parseCsv(text, o);
    } catch (e) {
      throw new LuaError(fail((e as Error).message));
    }
  };
  out.load_csv = (path: string, options?: unknown) => readCsv(N('load_csv'), path, options);
  out.load_csv_headers = (path: string) => {
    const fn = N('load_csv_headers');
    return readCsv(fn, path, { has_header: true }).headers;
  };

  /**
   * Writes (or appends) records; the file's existing content decides whether headers are written on append. The
   * path is checked here, after the data (the writers' entries leave it to them).
   */
  const writeRecords = (fn: string, verb: string, path: unknown, content: { headers: string[]; rows: string[][] }, o: ReturnType<typeof csvOptionsArg>, append: boolean) => {
    const p = pathArg(path, fn);
    const abs = resolvePath(env, p);
    checkAccessWrite(env, abs);
    const exists = vfs.isFile(abs);
    let headers = content.headers;
    if (o.header_labels) headers = keysToLabels(headers, o.header_labels);
    const withHeaders = !(append && exists) && !(o.skip_header_row ?? false) && headers.length > 0;
    const text = writeCsv([...(withHeaders ? [headers] : []), ...content.rows], o);
    try {
      if (!(append && exists && access.appendHeld(abs, text))) vfs.writeFile(abs, append && exists ? access.appended(abs, text) : text);
    } catch (e) {
      throw new LuaError(`${fn} - Failed to ${verb} '${p}'.\nCause: ${(e as Error).message}`);
    }
    trace(append ? 'append' : 'write', abs);
    return infoOf(p, abs);
  };

  const matrix = (v: unknown, fn: string): string[][] => {
    if (!Array.isArray(v)) return [];
    return v.map((row) => cellsOf(row, fn));
  };

  out.save_as_csv = (path: unknown, data: unknown, options?: unknown) => {
    const fn = N('save_as_csv');
    const o = csvOptionsArg(options);
    if (!isPlainObject(data) && !Array.isArray(data)) throw new LuaError('Data must be a table (matrix or structured {headers, rows})');
    let content: { headers: string[]; rows: string[][] };
    if (isPlainObject(data) && (data.rows !== undefined || data.headers !== undefined)) {
      if (data.headers !== undefined && !Array.isArray(data.headers) && !isPlainObject(data.headers)) {
        throw new LuaError(`'headers' must be a table, found ${luaTypeName(data.headers)}`);
      }
      if (data.rows !== undefined && !Array.isArray(data.rows) && !isPlainObject(data.rows)) {
        throw new LuaError(`'rows' must be a table, found ${luaTypeName(data.rows)}`);
      }
      const headers = Array.isArray(data.headers) ? data.headers.map((h) => {
        if (typeof h !== 'string') throw new LuaError(`CsvContent - 'headers' must be a list of strings, found ${luaTypeName(h)}`);
        return h;
      }) : [];
      content = { headers, rows: matrix(data.rows, fn) };
    } else {
      const rows = matrix(data, fn);
      const headers = o.has_header === true && rows.length > 0 ? (rows.shift() as string[]) : [];
      content = { headers, rows };
    }
    return writeRecords(fn, 'save csv file', path, content, o, false);
  };

  out.save_records_as_csv = (path: unknown, records: unknown, headerKeys: unknown, options?: unknown) => {
    const fn = N('save_records_as_csv');
    if (!Array.isArray(records) && !isPlainObject(records)) throw new LuaError(`${fn} - 'records' must be a table, got ${luaTypeName(records)}`);
    if (!Array.isArray(headerKeys) || !headerKeys.every((k) => typeof k === 'string')) {
      throw new LuaError(`${fn} - 'header_keys' must be a list of strings, got ${luaTypeName(headerKeys)}`);
    }
    const keys = headerKeys as string[];
    const rows = (Array.isArray(records) ? records : []).map((rec) => {
      if (!isPlainObject(rec)) throw new LuaError('Records must be a list of tables');
      return keys.map((k) => csvCell(rec[k], fn));
    });
    return writeRecords(fn, 'save csv file', path, { headers: keys, rows }, csvOptionsArg(options), false);
  };

  out.append_csv_rows = (path: unknown, lists: unknown, options?: unknown) => {
    const fn = N('append_csv_rows');
    if (!Array.isArray(lists) && !isPlainObject(lists)) throw new LuaError('value_lists must be a table (list of lists)');
    return writeRecords(fn, 'append rows to csv file', path, { headers: [], rows: matrix(lists, fn) }, csvOptionsArg(options), true);
  };

  out.append_csv_row = (path: unknown, values: unknown, options?: unknown) => {
    const fn = N('append_csv_row');
    if (!Array.isArray(values) && !isPlainObject(values)) throw new LuaError('values must be a table (list)');
    return writeRecords(fn, 'append row to csv file', path, { headers: [], rows: [cellsOf(values, fn)] }, csvOptionsArg(options), true);
  };
  return out;
}
