/**
 * `aip.file.*` for structured files: load_json, load_ndjson, load_toml, load_yaml, append_json_line(s),
 * load_md_sections and load_md_split_first, with AIPack's failure texts. (CSV: file-csv.ts; hashes and spans: file-bytes.ts.)
 */
import { LuaError, luaTypeName } from '../engine/values.ts';
import type { FileAccess } from './file-access.ts';
import { parseRelaxedJson, toJsonText } from './json.ts';
import { toLuaData } from './pure-args.ts';
import { parseTomlData } from './toml.ts';
import { parseYamlDocs } from './yaml.ts';
import { allSections, filteredSections, mdLines, peekHeading, sectionTable } from './support/md-sections.ts';
import { resolvePath } from './support/paths.ts';

const N = (name: string) => `aip.file.${name}`;

const kindMsgs = (kind: string) => ({ read: `Failed to read ${kind} file`, parse: `Failed to parse ${kind} file` });

const jsonLine = (v: unknown, fn: string): string => toJsonText(v, '', fn) + '\n';

/** The `headings` argument of load_md_sections as section filters; none (nil or empty list) means every section. */
function mdFilters(headings: unknown, fn: string): { level: number; name: string }[] | undefined {
  if (headings === undefined || headings === null) return undefined;
  const list = typeof headings === 'string' ? [headings] : headings;
  if (!Array.isArray(list) || !list.every((h) => typeof h === 'string')) {
    throw new LuaError(`${fn}: expected 'headings' to be a string or a list of strings, got ${luaTypeName(headings)}`);
  }
  if (list.length === 0) return undefined;
  return (list as string[]).map((h) => {
    if (h === '') return { level: 0, name: '' };
    const parsed = peekHeading(h.trim());
    if (!parsed) throw new LuaError(`${fn} - heading '${h}' is not a valid markdown heading (expected e.g. '# Title')`);
    return parsed;
  });
}

export function fileFormats(access: FileAccess): Record<string, unknown> {
  const { env, infoOf, writtenPath } = access;
  const { vfs } = env;

  /**
   * Reads and parses a file; failures use AIPack's texts: "<fn> - Failed to read json file '<p>'.\nCause: ..."
   * (`msgs.read` for a missing/unreadable file, `msgs.parse` for bad content; markdown has no wording of its own).
   */
  const loadParsed = <T>(fn: string, p: string, parse: (text: string) => T, msgs: { read: string; parse: string }): T => {
    const abs = resolvePath(env, p);
    const text = vfs.readFile(abs);
    if (text === undefined) {
      const why = vfs.isDir(abs) ? 'it is a directory' : `file not found (resolved to '${abs}')`;
      throw new LuaError(`${fn} - ${msgs.read} '${p}'.\nCause: ${why}`);
    }
    try {
      return parse(text);
    } catch (e) {
      if (e instanceof LuaError) throw e;
      throw new LuaError(`${fn} - ${msgs.parse} '${p}'.\nCause: ${(e as Error).message}`);
    }
  };

  return {
    load_json(path: string | null | undefined): unknown {
      if (path === undefined || path === null) return undefined;
      const v = loadParsed(N('load_json'), path, parseRelaxedJson, { read: 'Failed to read json file', parse: 'Failed to read json file' });
      return v === null ? undefined : v; // top-level null reads as nil, as for stage values
    },

    load_ndjson(p: string | null | undefined): unknown[] | undefined {
      if (p === undefined || p === null) return undefined;
      // AIPack's texts (aipack src/script/aip_modules/aip_file/file_json.rs over simple-fs's NDJSON reader):
      // "<fn> - Failed to load newline json file '<p>'.\nCause: Cannot open file '<abs>'\nCause: <os error>" and
      // "...Cause: Error processing NDJSON: <fn> - Failed to parse JSON on line <n>. Cause: <parser message>"
      const fn = N('load_ndjson');
      const abs = resolvePath(env, p);
      const failed = (cause: string) => new LuaError(`${fn} - Failed to load newline json file '${p}'.\nCause: ${cause}`);
      const text = vfs.readFile(abs);
      if (text === undefined && vfs.isDir(abs)) throw failed(`Error processing NDJSON: ${fn} - Failed to read line 1. Cause: Is a directory (os error 21)`);
      if (text === undefined) throw failed(`Cannot open file '${abs}'\nCause: No such file or directory (os error 2)`);
      return text.split('\n').flatMap((line, i) => {
        if (line.trim() === '') return [];
        try {
          return [JSON.parse(line) as unknown];
        } catch (e) {
          throw failed(`Error processing NDJSON: ${fn} - Failed to parse JSON on line ${i + 1}. Cause: ${(e as Error).message}`);
        }
      });
    },

    load_toml(path: string): unknown {
      return loadParsed(N('load_toml'), path, parseTomlData, kindMsgs('toml'));
    },

    load_yaml(path: string): unknown[] {
      return loadParsed(N('load_yaml'), path, (text) => parseYamlDocs(text).map(toLuaData), kindMsgs('yaml'));
    },

    append_json_line(p: string, data: unknown): Record<string, unknown> {
      const fn = N('append_json_line');
      const abs = resolvePath(env, p);
      access.appendText(fn, p, abs, jsonLine(data, fn));
      return infoOf(writtenPath(p, abs), abs);
    },

    append_json_lines(p: string, data: unknown): Record<string, unknown> {
      const fn = N('append_json_lines');
      // AIPack (aipack src/script/lua_helpers/lua_json.rs lua_value_list_to_serde_values) reads a table's sequence
      // part: a table without one appends nothing
      if (typeof data !== 'object' || data === null) {
        const type = typeof data === 'number' ? (Number.isInteger(data) ? 'integer' : 'number') : luaTypeName(data);
        throw new LuaError(
          `${fn} - Failed to append json lines to '${p}'.\nCause: Lua Value is not a List. Expected a Lua table (list) as the second argument, but got ${type}`,
        );
      }
      const list: unknown[] = Array.isArray(data) ? data : [];
      const abs = resolvePath(env, p);
      access.appendText(fn, p, abs, list.map((v) => jsonLine(v, fn)).join(''));
      return infoOf(writtenPath(p, abs), abs);
    },

    load_md_sections(path: string, headings?: unknown): Record<string, unknown>[] {
      const fn = N('load_md_sections');
      const filters = mdFilters(headings, fn);
      const lines = loadParsed(fn, path, mdLines, kindMsgs('markdown'));
      return (filters ? filteredSections(lines, filters) : allSections(lines)).map(sectionTable);
    },

    load_md_split_first(path: string): Record<string, unknown> {
      const fn = N('load_md_split_first');
      const lines = loadParsed(fn, path, mdLines, kindMsgs('markdown'));
      const first = allSections(lines)[0];
      return {
        before: '',
        first: first && sectionTable(first),
        after: lines.slice(first ? first.end : 0).join('\n'),
      };
    },
  };
}
