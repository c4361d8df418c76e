/**
 * `aip.text.*` (docs/aipack.md section 7.2). All functions accept nil content and return nil (or `(nil, nil)`);
 * any other non-string content raises.
 */
import { LuaError, luaTypeName, multi, optionsArg, type LuaMulti } from '../engine/values.ts';
import type { AipNamespaceFactory } from './types.ts';
import { rustLines } from '../support/lines.ts';
import { isPlainObject } from './pure-args.ts';
import { optStr, reqInt, reqStr, withArgChecks } from './arg-checks.ts';
import { sharedNamespace } from './shared-namespace.ts';

// Rust `char::is_whitespace` (Unicode White_Space). Differs from JS `\s`: includes U+0085, excludes U+FEFF.
const WS = '\\t\\n\\v\\f\\r \\u0085\\u00A0\\u1680\\u2000-\\u200A\\u2028\\u2029\\u202F\\u205F\\u3000';
const WS_START = new RegExp(`^[${WS}]+`);
const WS_END = new RegExp(`[${WS}]+$`);

export const rustTrimStart = (s: string): string => s.replace(WS_START, '');
export const rustTrimEnd = (s: string): string => s.replace(WS_END, '');
export const rustTrim = (s: string): string => rustTrimEnd(rustTrimStart(s));

const N = (name: string) => `aip.text.${name}`;

function trim(content: string | undefined): string | undefined {
  return content === undefined ? undefined : rustTrim(content);
}
function trim_start(content: string | undefined): string | undefined {
  return content === undefined ? undefined : rustTrimStart(content);
}
function trim_end(content: string | undefined): string | undefined {
  return content === undefined ? undefined : rustTrimEnd(content);
}

function split_first(s: string | undefined, sep: string): LuaMulti {
  if (s === undefined) return multi(undefined, undefined);
  const i = s.indexOf(sep);
  if (i < 0) return multi(s, undefined);
  return multi(s.slice(0, i), s.slice(i + sep.length));
}

function split_last(s: string | undefined, sep: string): LuaMulti {
  if (s === undefined) return multi(undefined, undefined);
  const i = s.lastIndexOf(sep);
  if (i < 0) return multi(s, undefined);
  return multi(s.slice(0, i), s.slice(i + sep.length));
}

interface LineSpan {
  /** offset of the first char of the line */
  start: number;
  /** offset of the "\n" ending the line, or s.length */
  end: number;
  /** line text without "\r\n" / "\n" */
  text: string;
}

/** Line spans as `str::lines` sees them (no empty line after a final "\n"). */
function lineSpans(s: string): LineSpan[] {
  const spans: LineSpan[] = [];
  let start = 0;
  while (start < s.length) {
    let end = s.indexOf('\n', start);
    if (end < 0) end = s.length;
    let text = s.slice(start, end);
    if (text.endsWith('\r') && end < s.length) text = text.slice(0, -1);
    spans.push({ start, end, text });
    start = end + 1;
  }
  return spans;
}

/** Splits around one separator line, keeping both sides verbatim (the separator line and its newlines excluded). */
function splitAroundLine(s: string, span: LineSpan): LuaMulti {
  let before = span.start === 0 ? '' : s.slice(0, span.start - 1);
  if (before.endsWith('\r')) before = before.slice(0, -1);
  const after = span.end >= s.length ? '' : s.slice(span.end + 1);
  return multi(before, after);
}

function split_first_line(s: string | undefined, sep: string): LuaMulti {
  if (s === undefined) return multi(undefined, undefined);
  const span = lineSpans(s).find((l) => l.text === sep);
  return span ? splitAroundLine(s, span) : multi(s, undefined);
}

function split_last_line(s: string | undefined, sep: string): LuaMulti {
  if (s === undefined) return multi(undefined, undefined);
  const spans = lineSpans(s);
  for (let i = spans.length - 1; i >= 0; i--) {
    if (spans[i].text === sep) return splitAroundLine(s, spans[i]);
  }
  return multi(s, undefined);
}

const LINE_BLOCKS_OPTS_ERR = 'aip.text.extract_line_blocks requires to options with {starts_with = ".."}';

function extract_line_blocks(content: unknown, options: unknown): LuaMulti {
  // the options table is required even for nil content (AIPack converts it before looking at content)
  if (!isPlainObject(options)) throw new LuaError(LINE_BLOCKS_OPTS_ERR);
  const prefix = options.starts_with;
  if (typeof prefix !== 'string') throw new LuaError(LINE_BLOCKS_OPTS_ERR);
  const extrude = options.extrude;
  if (extrude !== undefined && extrude !== 'content') {
    throw new LuaError(`aip.text.extract_line_blocks: extrude must be "content" when given, got ${JSON.stringify(extrude)}`);
  }
  const first = options.first === undefined ? undefined : reqInt(options.first, N('extract_line_blocks'), 'first');

  // content is checked only now (its entry leaves it to this function), as AIPack converts the options first
  const s = optStr(content, N('extract_line_blocks'));
  if (s === undefined) return multi(undefined, undefined);

  const blocks: string[] = [];
  let current: string | undefined;
  let rest = '';
  let done = false;
  for (const line of rustLines(s)) {
    if (!done && line.startsWith(prefix)) {
      if (current === undefined && first !== undefined && blocks.length >= first) {
        done = true; // the limit is reached: this block and everything after go to the extruded text
      } else {
        current = (current ?? '') + line + '\n';
        continue;
      }
    }
    if (current !== undefined) {
      blocks.push(current);
      current = undefined;
    }
    rest += line + '\n';
  }
  if (current !== undefined) blocks.push(current);
  return multi(blocks, extrude === 'content' ? rest : undefined);
}

// Common named HTML entities (AIPack decodes the full HTML5 set; these cover what LLM output uses).
const ENTITIES: Record<string, string> = {
  amp: '&', lt: '<', gt: '>', quot: '"', apos: "'", nbsp: '\u00A0', copy: '\u00A9', reg: '\u00AE',
  trade: '\u2122', hellip: '\u2026', mdash: '\u2014', ndash: '\u2013', lsquo: '\u2018', rsquo: '\u2019',
  ldquo: '\u201C', rdquo: '\u201D', sbquo: '\u201A', bdquo: '\u201E', bull: '\u2022', middot: '\u00B7',
  deg: '\u00B0', plusmn: '\u00B1', times: '\u00D7', divide: '\u00F7', euro: '\u20AC', pound: '\u00A3',
  yen: '\u00A5', cent: '\u00A2', sect: '\u00A7', para: '\u00B6', laquo: '\u00AB', raquo: '\u00BB',
  iexcl: '\u00A1', iquest: '\u00BF', shy: '\u00AD', larr: '\u2190', rarr: '\u2192', uarr: '\u2191',
  darr: '\u2193', harr: '\u2194', le: '\u2264', ge: '\u2265', ne: '\u2260', micro: '\u00B5',
  frac12: '\u00BD', frac14: '\u00BC', frac34: '\u00BE', ensp: '\u2002', emsp: '\u2003', thinsp: '\u2009',
  zwnj: '\u200C', zwj: '\u200D', grave: '`', tilde: '~', lbrace: '{', rbrace: '}', lsqb: '[', rsqb: ']',
  lpar: '(', rpar: ')', sol: '/', bsol: '\\', vert: '|', verbar: '|', excl: '!', num: '#', dollar: '$',
  percnt: '%', ast: '*', plus: '+', comma: ',', period: '.', colon: ':', semi: ';', equals: '=',
  quest: '?', commat: '@', lowbar: '_', Hat: '^', NewLine: '\n', Tab: '\t',
};

function htmlDecode(s: string): string {
  return s.replace(/&(#[xX][0-9a-fA-F]+|#[0-9]+|[A-Za-z][A-Za-z0-9]*);/g, (whole, body: string) => {
    if (body.startsWith('#')) {
      const cp = body[1] === 'x' || body[1] === 'X' ? parseInt(body.slice(2), 16) : parseInt(body.slice(1), 10);
      if (!Number.isFinite(cp) || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff)) return '\uFFFD';
      return cp === 0 ? '\uFFFD' : String.fromCodePoint(cp);
    }
    return Object.prototype.hasOwnProperty.call(ENTITIES, body) ? ENTITIES[body] : whole;
  });
}

function escape_decode(content: string | undefined): string | undefined {
  return content === undefined ? undefined : htmlDecode(content);
}

/** Decodes only when the text looks escaped: AIPack's test is the presence of `&lt;`. */
function escape_decode_if_needed(s: string | undefined): string | undefined {
  if (s === undefined) return undefined;
  return s.includes('&lt;') ? htmlDecode(s) : s;
}

/** Drops the first n lines (each up to and including its "\n"); fewer lines than n gives "". */
function removeFirst(s: string, n: number): string {
  let idx = 0;
  for (let i = 0; i < n; i++) {
    const nl = s.indexOf('\n', idx);
    if (nl < 0) return '';
    idx = nl + 1;
  }
  return s.slice(idx);
}

/**
 * Drops the last n lines. A final "\n" terminates the last line rather than starting an empty one,
 * so "a\nb\n" -> "a\n" and "a\nb" -> "a".
 */
function removeLast(s: string, n: number): string {
  if (n === 0) return s;
  const trailingNl = s.endsWith('\n');
  let end = trailingNl ? s.length - 1 : s.length;
  for (let i = 0; i < n; i++) {
    const nl = end > 0 ? s.lastIndexOf('\n', end - 1) : -1;
    if (nl < 0) return '';
    end = nl;
  }
  return trailingNl ? s.slice(0, end + 1) : s.slice(0, end);
}

function remove_first_line(content: string | undefined): string | undefined {
  return content === undefined ? undefined : removeFirst(content, 1);
}
function remove_first_lines(s: string | undefined, n: unknown): string | undefined {
  if (s === undefined) return undefined;
  return removeFirst(s, reqInt(n, N('remove_first_lines'), 'n'));
}
function remove_last_line(content: string | undefined): string | undefined {
  return content === undefined ? undefined : removeLast(content, 1);
}
function remove_last_lines(s: string | undefined, n: unknown): string | undefined {
  if (s === undefined) return undefined;
  return removeLast(s, reqInt(n, N('remove_last_lines'), 'n'));
}

/** Keeps the first max_len characters (code points) and appends the ellipsis when something was cut. */
function truncate(s: string | undefined, maxLen: unknown, ellipsis: string | null | undefined): string | undefined {
  if (s === undefined) return undefined;
  const max = reqInt(maxLen, N('truncate'), 'max_len');
  const ell = ellipsis ?? '';
  const chars = Array.from(s);
  if (chars.length <= max) return s;
  return chars.slice(0, max).join('') + ell;
}

/**
 * Replaces each `<<START>>...<<END>>` region (markers included), in order, with the next item of
 * new_sections (a string, or a table with a string `content`). Regions without an item are left as they are.
 */
function replace_markers(s: string | undefined, newSections: unknown): string | undefined {
  if (s === undefined) return undefined;
  const sections = newSections === undefined || newSections === null ? [] : newSections;
  if (!Array.isArray(sections) && !isPlainObject(sections)) {
    throw new LuaError(`aip.text.replace_markers: expected 'new_sections' to be a list, got ${luaTypeName(newSections)}`);
  }
  const list = Array.isArray(sections) ? sections : [];
  const texts = list.map((item, i) => {
    if (typeof item === 'string') return item;
    if (isPlainObject(item) && typeof item.content === 'string') return item.content;
    throw new LuaError(`aip.text.replace_markers: section ${i + 1} must be a string or a table with a string 'content'`);
  });
  const START = '<<START>>';
  const END = '<<END>>';
  let out = '';
  let pos = 0;
  let k = 0;
  while (k < texts.length) {
    const a = s.indexOf(START, pos);
    if (a < 0) break;
    const b = s.indexOf(END, a + START.length);
    if (b < 0) break;
    out += s.slice(pos, a) + texts[k++];
    pos = b + END.length;
  }
  return out + s.slice(pos);
}

function ensure(s: string | undefined, options: unknown): string | undefined {
  if (s === undefined) return undefined;
  const opts = optionsArg(options, N('ensure'));
  let out = s;
  if (opts.prefix !== undefined && opts.prefix !== null) {
    const p = reqStr(opts.prefix, N('ensure'), 'prefix');
    if (!out.startsWith(p)) out = p + out;
  }
  if (opts.suffix !== undefined && opts.suffix !== null) {
    const sf = reqStr(opts.suffix, N('ensure'), 'suffix');
    if (!out.endsWith(sf)) out = out + sf;
  }
  return out;
}

/** Trailing newlines ("\n" or "\r\n") collapse to exactly one "\n"; other trailing spaces are kept. */
function ensure_single_trailing_newline(s: string | undefined): string | undefined {
  if (s === undefined) return undefined;
  return s.replace(/(\r?\n)+$/, '') + '\n';
}

const SIZE_UNITS = ['B', 'KB', 'MB', 'GB', 'TB', 'PB'] as const;

/**
 * simple_fs `pretty_size_with_options`: 9 chars, the number right-aligned in 6, then the unit (bytes as "B ").
 * Divides down to the lowest unit (unknown units count as "B", case-insensitive), then by 1000 while >= 1000.
 */
function formatSize(bytes: number, lowestUnit: string = 'B'): string {
  const min = Math.max(0, SIZE_UNITS.slice(0, 5).indexOf(lowestUnit.toUpperCase() as (typeof SIZE_UNITS)[number]));
  let size = bytes;
  for (let i = 0; i < min; i++) size /= 1000;
  let u = min;
  while (size >= 1000 && u < SIZE_UNITS.length - 1) {
    size /= 1000;
    u++;
  }
  if (u === 0) return `${String(bytes).padStart(6)} B `;
  return `${size.toFixed(2).padStart(6)} ${SIZE_UNITS[u]}`;
}

/** `format_size(bytes, options?)`: options = a lowest unit ("KB"), or `{ lowest_unit?, trim? }`. */
function format_size(bytes: unknown, options: unknown): string | undefined {
  if (bytes === undefined) return undefined;
  if (typeof bytes !== 'number' || !Number.isFinite(bytes)) {
    throw new LuaError(`error converting Lua ${luaTypeName(bytes)} to integer (bytes argument must be a number)`);
  }
  let unit = 'B';
  let trimmed = false;
  if (typeof options === 'string') unit = options;
  else if (options !== null && typeof options === 'object' && !Array.isArray(options)) {
    const o = options as Record<string, unknown>;
    if (typeof o.lowest_unit === 'string') unit = o.lowest_unit;
    trimmed = o.trim === true;
  }
  // AIPack: integers below 0 count as 0, floats are rounded
  const out = formatSize(Math.max(0, Math.round(bytes)), unit);
  return trimmed ? out.trim() : out;
}

const TEXT = withArgChecks('text', {
  trim,
  trim_start,
  trim_end,
  split_first,
  split_last,
  split_first_line,
  split_last_line,
  extract_line_blocks,
  escape_decode,
  escape_decode_if_needed,
  remove_first_line,
  remove_first_lines,
  remove_last_line,
  remove_last_lines,
  truncate,
  replace_markers,
  ensure,
  ensure_single_trailing_newline,
  // old name, still registered by AIPack
  ensure_single_ending_newline: ensure_single_trailing_newline,
  format_size,
});

export const text: AipNamespaceFactory = sharedNamespace(TEXT);
