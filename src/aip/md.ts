/**
 * `aip.md.*` (docs/aipack.md section 7.1): meta blocks, fenced blocks, references, outer-block unwrapping.
 */
import { LuaError, luaTypeName, multi, optionsArg, type LuaMulti } from '../engine/values.ts';
import type { AipNamespaceFactory } from './types.ts';
import { nextFence, rustLines, type Fence } from '../support/lines.ts';
import { isPlainObject, setKey, toLuaData } from './pure-args.ts';
import { rustTrim } from './text.ts';
import { parseTomlData } from './toml.ts';
import { parseYamlDocs } from './yaml.ts';
import { reqStr, withArgChecks } from './arg-checks.ts';
import { sharedNamespace } from './shared-namespace.ts';

/** The info string of a fence line: its language, trimmed. */
const fenceLang = (line: string): string => rustTrim(line.replace(/^`+/, ''));

// ---------------------------------------------------------------------------------------- extract_meta

const META_LANGS = new Set(['toml', 'json', 'yaml', 'yml']);

function parseMetaBody(lang: string, body: string): unknown[] {
  if (lang === 'toml') {
    try {
      return [parseTomlData(body)];
    } catch (e) {
      throw new LuaError(`aip.md.extract_meta: invalid TOML in meta block. ${(e as Error).message}`);
    }
  }
  if (lang === 'json') {
    try {
      return [JSON.parse(body)];
    } catch (e) {
      throw new LuaError(`aip.md.extract_meta: invalid JSON in meta block. ${(e as Error).message}`);
    }
  }
  try {
    return parseYamlDocs(body);
  } catch (e) {
    throw new LuaError(`aip.md.extract_meta: invalid YAML in meta block. ${(e as Error).message}`);
  }
}

/**
 * Meta blocks: "```toml|json|yaml|yml" fence whose first inner line (trimmed) starts with `#!meta` or `//!meta`.
 * Their objects are shallow-merged in document order; the rest of the text comes back joined with "\n".
 */
function extract_meta(s: string | undefined): LuaMulti {
  if (s === undefined) return multi(undefined, undefined);
  const lines = rustLines(s);
  const meta: Record<string, unknown> = {};
  const rest: string[] = [];
  let inBlock = false; // inside a non-meta block: any ``` line toggles (4 ticks not distinguished here)
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i];
    if (inBlock) {
      rest.push(line);
      if (line.startsWith('```')) inBlock = false;
      continue;
    }
    if (!line.startsWith('```')) {
      rest.push(line);
      continue;
    }
    const lang = rustTrim(line.slice(3));
    const marker = i + 1 < lines.length ? rustTrim(lines[i + 1]) : '';
    const isMeta = META_LANGS.has(lang) && (marker.startsWith('#!meta') || marker.startsWith('//!meta'));
    if (!isMeta) {
      rest.push(line);
      inBlock = true;
      continue;
    }
    // body = lines after the marker up to the closing fence (or EOF when never closed)
    let j = i + 2;
    const body: string[] = [];
    while (j < lines.length && !lines[j].startsWith('```')) body.push(lines[j++]);
    for (const value of parseMetaBody(lang, body.join('\n'))) {
      if (!isPlainObject(value)) continue; // non-object documents are ignored
      for (const k of Object.keys(value)) setKey(meta, k, toLuaData(value[k]));
    }
    i = j; // skips the closing fence too
  }
  return multi(meta, rest.join('\n'));
}

// ---------------------------------------------------------------------------------------- extract_blocks

interface MdBlock {
  _type: 'MdBlock';
  lang: string;
  content: string;
}

/** Splits markdown into fenced blocks and the outside lines (each + "\n"). An unclosed block runs to EOF. */
function scanBlocks(s: string, keep: (lang: string) => boolean): { blocks: MdBlock[]; rest: string } {
  const blocks: MdBlock[] = [];
  let rest = '';
  let state: Fence = 'out';
  let current: { lang: string; content: string; raw: string; keep: boolean } | undefined;
  for (const line of rustLines(s)) {
    const next = nextFence(state, line);
    if (state === 'out' && next !== 'out') {
      const lang = fenceLang(line);
      current = { lang, content: '', raw: line + '\n', keep: keep(lang) };
    } else if (state !== 'out' && next === 'out') {
      const c = current!;
      if (c.keep) blocks.push({ _type: 'MdBlock', lang: c.lang, content: c.content });
      else rest += c.raw + line + '\n';
      current = undefined;
    } else if (state !== 'out') {
      current!.content += line + '\n';
      current!.raw += line + '\n';
    } else {
      rest += line + '\n';
    }
    state = next;
  }
  if (current) {
    if (current.keep) blocks.push({ _type: 'MdBlock', lang: current.lang, content: current.content });
    else rest += current.raw;
  }
  return { blocks, rest };
}

function extract_blocks(s: string, options: unknown): MdBlock[] | LuaMulti {
  let lang: string | undefined;
  let extrude = false;
  if (typeof options === 'string') {
    lang = options;
  } else {
    const opts = optionsArg(options, 'aip.md.extract_blocks');
    if (opts.lang !== undefined && opts.lang !== null) lang = reqStr(opts.lang, 'aip.md.extract_blocks', 'lang');
    if (opts.extrude !== undefined && opts.extrude !== null) {
      if (opts.extrude !== 'content') {
        throw new LuaError(`aip.md.extract_blocks: extrude must be "content" when given, got ${typeof opts.extrude === 'string' ? `"${opts.extrude}"` : luaTypeName(opts.extrude)}`);
      }
      extrude = true;
    }
  }
  const { blocks, rest } = scanBlocks(s, (l) => lang === undefined || l === lang);
  return extrude ? multi(blocks, rest) : blocks;
}

// ---------------------------------------------------------------------------------------- extract_refs

interface MdRef {
  _type: 'MdRef';
  target: string;
  text?: string;
  inline: boolean;
  kind: 'Anchor' | 'Url' | 'File';
}

function refKind(target: string): MdRef['kind'] {
  if (target.startsWith('#')) return 'Anchor';
  if (target.startsWith('http://') || target.startsWith('https://') || target.startsWith('//')) return 'Url';
  return 'File';
}

/** `[text](target)` and `![alt](target)` outside fenced blocks and outside inline code. nil -> {}. */
function extract_refs(s: string | undefined): MdRef[] {
  if (s === undefined) return [];
  const refs: MdRef[] = [];
  let state: Fence = 'out';
  for (const line of rustLines(s)) {
    const next = nextFence(state, line);
    const isFenceOrInside = state !== 'out' || next !== 'out';
    state = next;
    if (isFenceOrInside) continue;
    for (const m of line.matchAll(/(!?\[)([^\]]*)\]\(([^)]+)\)/g)) {
      const ticksBefore = (line.slice(0, m.index).match(/`/g) ?? []).length;
      if (ticksBefore % 2 === 1) continue; // inside inline code
      const target = m[3];
      const ref: MdRef = { _type: 'MdRef', target, inline: m[1] === '![', kind: refKind(target) };
      if (m[2] !== '') ref.text = m[2];
      refs.push(ref);
    }
  }
  return refs;
}

// ---------------------------------------------------------------------------------------- outer_block_content_or_raw

/**
 * When the trimmed text is exactly one fenced block (opening fence on the first line, its matching
 * closing fence on the last line), returns the inner lines each + "\n"; otherwise the raw text.
 * A ```` fence may contain ``` lines (upstream pro@coder wraps LLM file bodies wrapped in four backticks).
 */
function outer_block_content_or_raw(raw: string): string {
  const lines = rustLines(rustTrim(raw));
  if (lines.length < 2 || !lines[0].startsWith('```')) return raw;
  let state: Fence = nextFence('out', lines[0]);
  for (let i = 1; i < lines.length; i++) {
    state = nextFence(state, lines[i]);
    if (state === 'out') {
      // the opening block must close exactly on the last line
      if (i !== lines.length - 1) return raw;
      return lines.slice(1, i).map((l) => l + '\n').join('');
    }
  }
  return raw;
}

/** A text's first meta block as aip.md.extract_meta reads it, for the host's own readers of prompt files (throws
 * its error on a broken block). */
export function promptMeta(text: string): unknown {
  return extract_meta(text).values[0];
}

const MD = withArgChecks('md', { extract_meta, extract_blocks, extract_refs, outer_block_content_or_raw });

export const md: AipNamespaceFactory = sharedNamespace(MD);
