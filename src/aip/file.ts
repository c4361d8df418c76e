/**
 * `aip.file.*` (docs/aipack.md section 7.4, protections of section 10, `save_changes` of aipack-ai/aipack src/script/aip_modules/aip_file/file_change.rs).
 * Reads go through the Vfs (overlay over disk); writes and deletes only through `env.vfs`, after the AIPack
 * access checks, and each one is traced.
 */
import { LuaError, luaTypeName, multi, optionsArg, type LuaMulti } from '../engine/values.ts';
import type { AipNamespaceFactory } from './types.ts';
import { compareVersions } from './catalog.ts';
import { parseRelaxedJson, toJsonText } from './json.ts';
import { toLuaData } from './pure-args.ts';
import { rustTrimEnd, rustTrimStart } from './text.ts';
import { parseTomlData } from './toml.ts';
import { parseYamlDocs } from './yaml.ts';
import { fileData } from './file-data.ts';
import { expandGlob, globsArg, listFiles, type ListedFile } from './support/globs.ts';
import {
  checkAccessDelete,
  checkNotWorkspaceDir,
  checkAccessWrite,
  displayForTrace,
  fileInfoOf,
  isPlainRelative,
  pathArg,
  relToWorkspace,
  renderHome,
  resolvePath,
} from './support/paths.ts';

const N = (name: string) => `aip.file.${name}`;
const decoder = new TextDecoder('utf-8');

// ------------------------------------------------------------------------------------------- save_changes

const SEARCH = '<<<<<<< SEARCH';
const DIVIDER = '=======';
const REPLACE = '>>>>>>> REPLACE';
const SEARCH_NOT_FOUND = 'Search block not found in content';

export interface FailedChange {
  search: string;
  replace: string;
  reason: string;
}

export interface ChangesInfo {
  changed_count: number;
  failed_changes?: FailedChange[];
}

/** SEARCH/REPLACE blocks of a change text; text outside blocks (other than blank lines) is an error. */
function parseChangeBlocks(changes: string, where: string): { search: string; replace: string }[] {
  const lines = changes.split('\n').map((l) => (l.endsWith('\r') ? l.slice(0, -1) : l));
  const blocks: { search: string; replace: string }[] = [];
  let state: 'out' | 'search' | 'replace' = 'out';
  let search: string[] = [];
  let replace: string[] = [];
  const malformed = (lineNo: number, what: string): never => {
    throw new LuaError(`${N('save_changes')} - Malformed change blocks for '${where}' at line ${lineNo}: ${what}`);
  };
  lines.forEach((line, i) => {
    const lineNo = i + 1;
    if (state === 'out') {
      if (line === SEARCH) {
        state = 'search';
        search = [];
      } else if (line.trim() !== '') {
        malformed(lineNo, `text outside a '${SEARCH}' ... '${REPLACE}' block: '${line}'`);
      }
    } else if (state === 'search') {
      if (line === DIVIDER) {
        state = 'replace';
        replace = [];
      } else if (line === SEARCH || line === REPLACE) {
        malformed(lineNo, `expected '${DIVIDER}' before '${line}'`);
      } else {
        search.push(line);
      }
    } else if (line === REPLACE) {
      blocks.push({ search: search.join('\n'), replace: replace.join('\n') });
      state = 'out';
    } else if (line === SEARCH) {
      malformed(lineNo, `expected '${REPLACE}' before a new '${SEARCH}'`);
    } else {
      replace.push(line);
    }
  });
  if (state !== 'out') malformed(lines.length, `unterminated block, expected '${state === 'search' ? DIVIDER : REPLACE}'`);
  return blocks;
}

/** Replaces the first occurrence; an empty replacement also takes one adjacent line break with it. */
function replaceFirst(content: string, search: string, replace: string): string | undefined {
  if (search === '') return undefined;
  const idx = content.indexOf(search);
  if (idx < 0) return undefined;
  let start = idx;
  let end = idx + search.length;
  if (replace === '') {
    if (content.startsWith('\r\n', end)) end += 2;
    else if (content[end] === '\n') end += 1;
    else if (content.slice(0, start).endsWith('\r\n')) start -= 2;
    else if (content[start - 1] === '\n') start -= 1;
  }
  return content.slice(0, start) + replace + content.slice(end);
}

/**
 * As AIPack applies changes (aipack-ai/aipack src/support/text/change.rs): no `<<<<<<< SEARCH` line -> the text replaces the whole content; else the blocks apply in
 * order to the progressively changed content (CRLF retry), misses collected.
 */
export function applyChanges(content: string, changes: string, where: string): { content: string; info: ChangesInfo } {
  const hasBlocks = changes.split('\n').some((l) => l === SEARCH || l === SEARCH + '\r');
  if (!hasBlocks) return { content: changes, info: { changed_count: 1 } };
  let out = content;
  let changed = 0;
  const failed: FailedChange[] = [];
  for (const { search, replace } of parseChangeBlocks(changes, where)) {
    let next = replaceFirst(out, search, replace);
    if (next === undefined && out.includes('\r\n')) {
      next = replaceFirst(out, search.replace(/\n/g, '\r\n'), replace.replace(/\n/g, '\r\n'));
    }
    if (next === undefined) {
      failed.push({ search, replace, reason: SEARCH_NOT_FOUND });
    } else {
      out = next;
      changed++;
    }
  }
  const info: ChangesInfo = { changed_count: changed };
  if (failed.length > 0) info.failed_changes = failed;
  return { content: out, info };
}

// ----------------------------------------------------------------------------------------- md sections

interface MdHeading {
  line: string;
  level: number;
  name: string;
}

function peekHeading(line: string): { level: number; name: string } | undefined {
  const m = /^(#{1,6})(?:[ \t]+(.*))?$/.exec(line);
  if (!m) return undefined;
  return { level: m[1].length, name: (m[2] ?? '').trim() };
}

interface RawSection {
  heading?: MdHeading;
  /** all lines of the section, heading line included */
  lines: string[];
  /** index of the line after the section */
  end: number;
}

function sectionTable(s: RawSection): Record<string, unknown> {
  const h = s.heading;
  return {
    _type: 'MdSection',
    content: s.lines.map((l) => l + '\n').join(''),
    heading_raw: h ? h.line + '\n' : '',
    heading_content: h ? h.line : '',
    heading_level: h ? h.level : 0,
    heading_name: h ? h.name : '',
  };
}

function mdLines(content: string): string[] {
  const lines = content.split('\n').map((l) => (l.endsWith('\r') ? l.slice(0, -1) : l));
  if (lines.length > 0 && lines[lines.length - 1] === '') lines.pop();
  return lines;
}

/** Headings per line (undefined inside ``` fences and for non-heading lines). */
function headingsOf(lines: string[]): (MdHeading | undefined)[] {
  let inFence = false;
  return lines.map((line) => {
    if (line.startsWith('```')) {
      inFence = !inFence;
      return undefined;
    }
    if (inFence) return undefined;
    const h = peekHeading(line);
    return h && { line, ...h };
  });
}

/** Every section separately (nested ones too), the text before the first heading as a heading-less one. */
function allSections(lines: string[]): RawSection[] {
  const heads = headingsOf(lines);
  const out: RawSection[] = [];
  let cur: RawSection | undefined;
  lines.forEach((line, i) => {
    const h = heads[i];
    if (h) {
      if (cur) out.push({ ...cur, end: i });
      cur = { heading: h, lines: [line], end: i + 1 };
    } else {
      cur ??= { lines: [], end: i };
      cur.lines.push(line);
    }
  });
  if (cur) out.push({ ...cur, end: lines.length });
  return out;
}

/** Sections whose heading matches a filter ("# Name"; "" = text before the first heading), sub-sections included. */
function filteredSections(lines: string[], filters: { level: number; name: string }[]): RawSection[] {
  const heads = headingsOf(lines);
  const out: RawSection[] = [];
  const firstHeading = heads.findIndex((h) => h !== undefined);
  if (filters.some((f) => f.level === 0)) {
    const end = firstHeading < 0 ? lines.length : firstHeading;
    if (end > 0) out.push({ lines: lines.slice(0, end), end });
  }
  let cur: RawSection | undefined;
  lines.forEach((line, i) => {
    const h = heads[i];
    if (cur && h && h.level <= cur.heading!.level) {
      out.push({ ...cur, end: i });
      cur = undefined;
    }
    if (cur) {
      cur.lines.push(line);
    } else if (h && filters.some((f) => f.level === h.level && f.name === h.name)) {
      cur = { heading: h, lines: [line], end: i + 1 };
    }
  });
  if (cur) out.push({ ...cur, end: lines.length });
  return out;
}

// ------------------------------------------------------------------------------------------------- module

export const file: AipNamespaceFactory = (env) => {
  const { vfs } = env;

  const trace = (op: 'write' | 'append' | 'delete' | 'copy' | 'move', abs: string): void => {
    env.trace.record({ kind: 'file', depth: env.depth, agent: env.agent.name, op, path: displayForTrace(env, abs) });
  };

  /** Runs a Vfs operation; its plain errors become Lua errors naming the function and the path. */
  const guarded = <T>(fn: string, p: string, f: () => T): T => {
    try {
      return f();
    } catch (e) {
      if (e instanceof LuaError) throw e;
      throw new LuaError(`${fn} - Fail for '${p}'. Cause: ${(e as Error).message}`);
    }
  };

  const baseDirOf = (v: unknown, fn: string): string | undefined =>
    v === undefined || v === null ? undefined : resolvePath(env, pathArg(v, fn, 'base_dir'));

  /** FileInfo path after a write: workspace-relative for relative input, else absolute (`~/` under home). */
  const writtenPath = (input: string, abs: string): string => {
    if (isPlainRelative(input)) {
      const rel = relToWorkspace(env, abs);
      if (rel !== '' && !rel.startsWith('..')) return rel;
    }
    return renderHome(env, abs);
  };

  const infoOf = (displayPath: string, abs: string): Record<string, unknown> => {
    const st = vfs.stat(abs);
    return fileInfoOf(displayPath, st && { size: st.size, mtimeMs: st.mtimeMs, ctimeMs: st.ctimeMs });
  };

  const recordOf = (displayPath: string, abs: string, fn: string): Record<string, unknown> => {
    // read first: outside the allowed roots the read itself raises the protection error
    const bytes = vfs.readBytes(abs);
    if (bytes === undefined) {
      const why = vfs.isDir(abs) ? 'it is a directory' : 'file not found';
      throw new LuaError(`${fn} - Fail to read file '${displayPath}' (resolved to '${abs}'): ${why}`);
    }
    const info = infoOf(displayPath, abs);
    const probe = bytes.subarray(0, 8000);
    const text = (info.is_likely_text as boolean) && !probe.includes(0);
    return { ...info, _type: 'FileRecord', content: decoder.decode(bytes), is_likely_text: text };
  };

  /** Text of a file that must exist. */
  const readText = (p: string, abs: string, fn: string): string => {
    const s = vfs.readFile(abs);
    if (s === undefined) throw new LuaError(`${fn} - Fail to read file '${p}' (resolved to '${abs}'): file not found`);
    return s;
  };

  const contentArg = (v: unknown, fn: string): string => {
    if (typeof v === 'string') return v;
    if (typeof v === 'number') return String(v);
    throw new LuaError(`${fn}: expected 'content' to be a string, got ${luaTypeName(v)}`);
  };

  const appendText = (fn: string, p: string, abs: string, text: string): void => {
    checkAccessWrite(env, abs);
    const prev = vfs.isFile(abs) ? (vfs.readBytes(abs) ?? new Uint8Array()) : new Uint8Array();
    const add = new TextEncoder().encode(text);
    const next = new Uint8Array(prev.length + add.length);
    next.set(prev);
    next.set(add, prev.length);
    guarded(fn, p, () => vfs.writeFile(abs, next));
    trace('append', abs);
  };

  /** Listing shared by list / list_load / first / stats. */
  const listing = (fn: string, globsV: unknown, opts: unknown, extra: { defaultExcludes?: boolean; validate?: boolean } = {}): ListedFile[] => {
    const o = optionsArg(opts, fn);
    const baseDir = baseDirOf(o.base_dir, fn) ?? env.dirs.workspace;
    const globs = globsArg(globsV, fn).map((g) => expandGlob(env, g));
    return listFiles(vfs, globs, { baseDir, absolute: o.absolute === true, ...extra });
  };

  const load = (path: unknown, options?: unknown): Record<string, unknown> => {
    const fn = N('load');
    const p = pathArg(path, fn);
    const o = optionsArg(options, fn);
    const abs = resolvePath(env, p, baseDirOf(o.base_dir, fn));
    return recordOf(p, abs, fn);
  };

  const save = (path: unknown, content: unknown, options?: unknown): Record<string, unknown> => {
    const fn = N('save');
    const p = pathArg(path, fn);
    let text = contentArg(content, fn);
    const o = optionsArg(options, fn);
    if (o.trim_start === true) text = rustTrimStart(text);
    if (o.trim_end === true) text = rustTrimEnd(text);
    if (o.single_trailing_newline === true) text = text.replace(/\n+$/, '') + '\n';
    const abs = resolvePath(env, p);
    checkAccessWrite(env, abs);
    guarded(fn, p, () => vfs.writeFile(abs, text));
    trace('write', abs);
    return infoOf(writtenPath(p, abs), abs);
  };

  const append = (path: unknown, content: unknown): Record<string, unknown> => {
    const fn = N('append');
    const p = pathArg(path, fn);
    const text = contentArg(content, fn);
    const abs = resolvePath(env, p);
    appendText(fn, p, abs, text);
    return infoOf(writtenPath(p, abs), abs);
  };

  const del = (path: unknown): boolean => {
    const fn = N('delete');
    const p = pathArg(path, fn);
    const abs = resolvePath(env, p);
    checkAccessDelete(env, abs);
    if (vfs.isDir(abs)) {
      // from 0.8.14 AIPack trashes the path with simple_fs::safer_trash_file, which takes a directory whole;
      // before, remove_file (and 0.8.11's own trash helper) refused directories
      if (compareVersions(env.aipackVersion, '0.8.14') < 0) throw new LuaError(`${fn} - Cannot delete '${p}': it is a directory, only files can be deleted`);
      checkNotWorkspaceDir(env, abs, p, 'delete');
      const removed = guarded(fn, p, () => vfs.deleteDir(abs));
      if (removed) trace('delete', abs);
      return removed;
    }
    if (!vfs.isFile(abs)) return false;
    const removed = guarded(fn, p, () => vfs.deleteFile(abs));
    if (removed) trace('delete', abs);
    return removed;
  };

  const transfer = (kind: 'copy' | 'move', src: unknown, dest: unknown, options: unknown): Record<string, unknown> => {
    const fn = N(kind);
    const s = pathArg(src, fn, 'src_path');
    const d = pathArg(dest, fn, 'dest_path');
    const o = optionsArg(options, fn);
    const srcAbs = resolvePath(env, s);
    const destAbs = resolvePath(env, d);
    if (kind === 'move') checkAccessDelete(env, srcAbs);
    checkAccessWrite(env, destAbs);
    if (kind === 'move' && !vfs.isFile(srcAbs) && !vfs.isDir(srcAbs)) {
      throw new LuaError(`Move file failed - Source \`${s}\` does not exist`);
    }
    const Kind = kind === 'copy' ? 'Copy' : 'Move';
    if (o.overwrite !== true && (vfs.isFile(destAbs) || vfs.isDir(destAbs))) {
      throw new LuaError(
        `${Kind} file failed - Destination \`${d}\` already exists and overwrite is set to false.\n` +
          `Use \`aip.file.${kind}(src_path, dst_path,{overwrite = true}\` to allow overwrite.`,
      );
    }
    if (!vfs.isFile(srcAbs)) {
      const why = vfs.isDir(srcAbs) ? 'it is a directory (only files are supported)' : 'file not found';
      throw new LuaError(`Fail to open source file \`${s}\` for ${kind}.\nCause: ${why}`);
    }
    if (srcAbs !== destAbs) {
      const bytes = vfs.readBytes(srcAbs) ?? new Uint8Array();
      guarded(fn, d, () => vfs.writeFile(destAbs, bytes));
      if (kind === 'move') guarded(fn, s, () => vfs.deleteFile(srcAbs));
    }
    trace(kind, destAbs);
    return infoOf(writtenPath(d, destAbs), destAbs);
  };

  const exists = (path: unknown): boolean => {
    const p = pathArg(path, N('exists'));
    try {
      const abs = resolvePath(env, p);
      return vfs.isFile(abs) || vfs.isDir(abs);
    } catch {
      return false;
    }
  };

  const info = (path: unknown): Record<string, unknown> | undefined => {
    if (path === undefined || path === null) return undefined;
    const p = pathArg(path, N('info'));
    if (p.trim() === '') return undefined;
    const abs = resolvePath(env, p);
    return vfs.isFile(abs) ? infoOf(p, abs) : undefined;
  };

  const ensure_exists = (path: unknown, content?: unknown, options?: unknown): Record<string, unknown> => {
    const fn = N('ensure_exists');
    const p = pathArg(path, fn);
    const text = content === undefined || content === null ? '' : contentArg(content, fn);
    const o = optionsArg(options, fn);
    const abs = resolvePath(env, p);
    checkAccessWrite(env, abs);
    if (!vfs.isFile(abs)) {
      if (vfs.isDir(abs)) throw new LuaError(`${fn} - Cannot ensure file '${p}': it is a directory`);
      guarded(fn, p, () => vfs.writeFile(abs, text));
      trace('write', abs);
    } else if (o.content_when_empty === true && (vfs.readFile(abs) ?? '').trim() === '') {
      guarded(fn, p, () => vfs.writeFile(abs, text));
      trace('write', abs);
    }
    return infoOf(p, abs);
  };

  const ensure_dir = (path: unknown): boolean => {
    const fn = N('ensure_dir');
    const p = pathArg(path, fn);
    const abs = resolvePath(env, p);
    checkAccessWrite(env, abs);
    if (vfs.isDir(abs)) return false;
    if (vfs.isFile(abs)) throw new LuaError(`${fn} - Cannot create dir '${p}': path already exists and is not a directory`);
    guarded(fn, p, () => vfs.mkdirp(abs));
    return true;
  };

  const save_changes = (path: unknown, changes: unknown): LuaMulti => {
    const fn = N('save_changes');
    const p = pathArg(path, fn);
    const text = contentArg(changes, fn);
    const abs = resolvePath(env, p);
    checkAccessWrite(env, abs);
    let result: { content: string; info: ChangesInfo };
    if (vfs.isFile(abs)) result = applyChanges(readText(p, abs, fn), text, p);
    else result = { content: text, info: { changed_count: 1 } };
    guarded(fn, p, () => vfs.writeFile(abs, result.content));
    trace('write', abs);
    return multi(infoOf(p, abs), result.info);
  };

  /**
   * Reads and parses a file; failures use AIPack's texts: "<fn> - Failed to read json file '<p>'.\nCause: ..."
   * (`msgs.read` for a missing/unreadable file, `msgs.parse` for bad content; markdown has no wording of its own).
   */
  const loadParsed = <T>(fn: string, path: unknown, parse: (text: string) => T, msgs: { read: string; parse: string }): T => {
    const p = pathArg(path, fn);
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
  const kindMsgs = (kind: string) => ({ read: `Failed to read ${kind} file`, parse: `Failed to parse ${kind} file` });

  const jsonLine = (v: unknown, fn: string): string => toJsonText(v, '', fn) + '\n';

  const mdFilters = (headings: unknown, fn: string): { level: number; name: string }[] | undefined => {
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
  };

  return {
    ...fileData(env, (op, abs) => trace(op, abs)),
    load,
    save,
    append,
    delete: del,
    copy: (src: unknown, dest: unknown, options?: unknown) => transfer('copy', src, dest, options),
    move: (src: unknown, dest: unknown, options?: unknown) => transfer('move', src, dest, options),
    exists,
    info,
    ensure_exists,
    ensure_dir,
    save_changes,

    list(globs: unknown, options?: unknown): Record<string, unknown>[] {
      // `with_meta` is accepted and ignored: meta is always loaded (as AIPack since 0.8.4)
      return listing(N('list'), globs, options).map((f) => infoOf(renderHome(env, f.path), f.abs));
    },

    list_load(globs: unknown, options?: unknown): Record<string, unknown>[] {
      const fn = N('list_load');
      return listing(fn, globs, options).map((f) => recordOf(renderHome(env, f.path), f.abs, fn));
    },

    first(globs: unknown, options?: unknown): Record<string, unknown> | undefined {
      const f = listing(N('first'), globs, options, { defaultExcludes: false, validate: false })[0];
      return f && infoOf(renderHome(env, f.path), f.abs);
    },

    stats(globs: unknown, options?: unknown): Record<string, unknown> | undefined {
      if (globs === undefined || globs === null) return undefined;
      const stats = { _type: 'FileStats', total_size: 0, number_of_files: 0, ctime_first: 0, ctime_last: 0, mtime_first: 0, mtime_last: 0 };
      let first = true;
      for (const f of listing(N('stats'), globs, options)) {
        const st = vfs.stat(f.abs);
        if (!st) continue;
        const ctime = Math.round(st.ctimeMs * 1000);
        const mtime = Math.round(st.mtimeMs * 1000);
        stats.number_of_files += 1;
        stats.total_size += st.size;
        stats.ctime_first = first ? ctime : Math.min(stats.ctime_first, ctime);
        stats.ctime_last = first ? ctime : Math.max(stats.ctime_last, ctime);
        stats.mtime_first = first ? mtime : Math.min(stats.mtime_first, mtime);
        stats.mtime_last = first ? mtime : Math.max(stats.mtime_last, mtime);
        first = false;
      }
      return stats;
    },

    load_json(path: unknown): unknown {
      if (path === undefined || path === null) return undefined;
      const v = loadParsed(N('load_json'), path, parseRelaxedJson, { read: 'Failed to read json file', parse: 'Failed to read json file' });
      return v === null ? undefined : v; // top-level null reads as nil, as for stage values
    },

    load_ndjson(path: unknown): unknown[] | undefined {
      if (path === undefined || path === null) return undefined;
      // AIPack's texts (aipack src/script/aip_modules/aip_file/file_json.rs over simple-fs's NDJSON reader):
      // "<fn> - Failed to load newline json file '<p>'.\nCause: Cannot open file '<abs>'\nCause: <os error>" and
      // "...Cause: Error processing NDJSON: <fn> - Failed to parse JSON on line <n>. Cause: <parser message>"
      const fn = N('load_ndjson');
      const p = pathArg(path, fn);
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

    load_toml(path: unknown): unknown {
      return loadParsed(N('load_toml'), path, parseTomlData, kindMsgs('toml'));
    },

    load_yaml(path: unknown): unknown[] {
      return loadParsed(N('load_yaml'), path, (text) => parseYamlDocs(text).map(toLuaData), kindMsgs('yaml'));
    },

    append_json_line(path: unknown, data: unknown): Record<string, unknown> {
      const fn = N('append_json_line');
      const p = pathArg(path, fn);
      const abs = resolvePath(env, p);
      appendText(fn, p, abs, jsonLine(data, fn));
      return infoOf(writtenPath(p, abs), abs);
    },

    append_json_lines(path: unknown, data: unknown): Record<string, unknown> {
      const fn = N('append_json_lines');
      const p = pathArg(path, fn);
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
      appendText(fn, p, abs, list.map((v) => jsonLine(v, fn)).join(''));
      return infoOf(writtenPath(p, abs), abs);
    },

    load_md_sections(path: unknown, headings?: unknown): Record<string, unknown>[] {
      const fn = N('load_md_sections');
      const filters = mdFilters(headings, fn);
      const lines = loadParsed(fn, path, mdLines, kindMsgs('markdown'));
      return (filters ? filteredSections(lines, filters) : allSections(lines)).map(sectionTable);
    },

    load_md_split_first(path: unknown): Record<string, unknown> {
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
};
