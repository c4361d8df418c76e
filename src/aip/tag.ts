/**
 * `aip.tag.*`: non-validating extraction of `<TAG attr="v">content</TAG>` and `<TAG ... />` elements
 * (tag names case-sensitive; no nesting of the same name; an unclosed tag is plain text).
 */
import { LuaError, luaTypeName, multi, optionsArg, type LuaMulti } from '../engine/values.ts';
import type { AipNamespaceFactory } from './types.ts';
import { withArgChecks } from './arg-checks.ts';
import { setKey } from './pure-args.ts';
import { sharedNamespace } from './shared-namespace.ts';

export interface TagElem {
  tag: string;
  attrs?: Record<string, string>;
  content: string;
}

const isSpace = (c: string | undefined): boolean => c === ' ' || c === '\t' || c === '\n' || c === '\r' || c === '\f' || c === '\v';

/** Index of the `>` closing an opening tag, skipping quoted attribute values; -1 when absent. */
function findTagEnd(s: string, from: number): number {
  let quote: string | undefined;
  let prev = ''; // last non-space char: a quote only opens a value right after '='
  for (let i = from; i < s.length; i++) {
    const c = s[i];
    if (quote) {
      if (c === quote) quote = undefined;
    } else if ((c === '"' || c === "'") && prev === '=') {
      quote = c;
    } else if (c === '>') {
      return i;
    }
    if (!isSpace(c)) prev = c;
  }
  return -1;
}

/** `a="b" c='d' e=f flag` -> {a: "b", c: "d", e: "f", flag: ""}; undefined when there is none. */
function parseAttrs(src: string): Record<string, string> | undefined {
  const attrs: Record<string, string> = {};
  let found = false;
  let i = 0;
  while (i < src.length) {
    while (i < src.length && isSpace(src[i])) i++;
    if (i >= src.length) break;
    let j = i;
    while (j < src.length && !isSpace(src[j]) && src[j] !== '=') j++;
    const name = src.slice(i, j);
    i = j;
    while (i < src.length && isSpace(src[i])) i++;
    let value = '';
    if (src[i] === '=') {
      i++;
      while (i < src.length && isSpace(src[i])) i++;
      const q = src[i];
      if (q === '"' || q === "'") {
        const end = src.indexOf(q, i + 1);
        const stop = end < 0 ? src.length : end;
        value = src.slice(i + 1, stop);
        i = stop + 1;
      } else {
        let k = i;
        while (k < src.length && !isSpace(src[k])) k++;
        value = src.slice(i, k);
        i = k;
      }
    }
    if (name !== '') {
      setKey(attrs, name, value);
      found = true;
    } else if (i === j) {
      i++; // a stray character (e.g. a lone '='): skip it so the loop advances
    }
  }
  return found ? attrs : undefined;
}

/** Elements of the given names in document order, plus the text outside them concatenated. */
export function extractTags(s: string, names: string[]): { elems: TagElem[]; rest: string } {
  const elems: TagElem[] = [];
  let rest = '';
  let textStart = 0;
  let pos = 0;
  while (pos < s.length) {
    const lt = s.indexOf('<', pos);
    if (lt < 0) break;
    const name = names.find((n) => {
      if (!s.startsWith(n, lt + 1)) return false;
      const after = s[lt + 1 + n.length];
      return after === '>' || after === '/' || isSpace(after);
    });
    if (name === undefined) {
      pos = lt + 1;
      continue;
    }
    const gt = findTagEnd(s, lt + 1 + name.length);
    if (gt < 0) break; // no end to the opening tag: the rest is text
    let attrSrc = s.slice(lt + 1 + name.length, gt);
    let content: string;
    let end: number;
    if (attrSrc.trimEnd().endsWith('/')) {
      attrSrc = attrSrc.trimEnd().slice(0, -1);
      content = '';
      end = gt + 1;
    } else {
      const close = `</${name}>`;
      const ci = s.indexOf(close, gt + 1);
      if (ci < 0) {
        pos = lt + 1; // unclosed: plain text
        continue;
      }
      content = s.slice(gt + 1, ci);
      end = ci + close.length;
    }
    rest += s.slice(textStart, lt);
    const elem: TagElem = { tag: name, content };
    const attrs = parseAttrs(attrSrc);
    if (attrs) elem.attrs = attrs;
    elems.push(elem);
    textStart = pos = end;
  }
  rest += s.slice(textStart);
  return { elems, rest };
}

interface Args {
  content: string;
  names: string[];
  extrude: boolean;
}

function readArgs(fnName: string, content: string, tagNames: unknown, options: unknown): Args {
  let names: string[];
  if (typeof tagNames === 'string') {
    names = [tagNames];
  } else if (Array.isArray(tagNames)) {
    names = tagNames.map((n, i) => {
      if (typeof n !== 'string') throw new LuaError(`${fnName}: tag_names[${i + 1}] must be a string, got ${luaTypeName(n)}`);
      return n;
    });
  } else {
    throw new LuaError(`${fnName}: expected 'tag_names' to be a string or a list of strings, got ${luaTypeName(tagNames)}`);
  }
  if (names.length === 0 || names.some((n) => n === '')) {
    throw new LuaError(`${fnName}: 'tag_names' must hold at least one non-empty tag name`);
  }
  // longest first, so a name that prefixes another never hides it
  names = [...new Set(names)].sort((a, b) => b.length - a.length);
  const opts = optionsArg(options, fnName);
  const ex = opts.extrude;
  if (ex !== undefined && ex !== null && ex !== 'content') {
    throw new LuaError(`${fnName}: extrude must be "content" when given`);
  }
  return { content, names, extrude: ex === 'content' };
}

function extract(content: string, tagNames: unknown, options: unknown): TagElem[] | LuaMulti {
  const a = readArgs('aip.tag.extract', content, tagNames, options);
  const { elems, rest } = extractTags(a.content, a.names);
  return a.extrude ? multi(elems, rest) : elems;
}

/** Tag name -> element; when a name occurs several times the last one wins (AIPack docs). */
function extract_as_map(content: string, tagNames: unknown, options: unknown): Record<string, TagElem> | LuaMulti {
  const a = readArgs('aip.tag.extract_as_map', content, tagNames, options);
  const { elems, rest } = extractTags(a.content, a.names);
  const map: Record<string, TagElem> = {};
  for (const e of elems) setKey(map, e.tag, e);
  return a.extrude ? multi(map, rest) : map;
}

function extract_as_multi_map(content: string, tagNames: unknown, options: unknown): Record<string, TagElem[]> | LuaMulti {
  const a = readArgs('aip.tag.extract_as_multi_map', content, tagNames, options);
  const { elems, rest } = extractTags(a.content, a.names);
  const map: Record<string, TagElem[]> = {};
  for (const e of elems) {
    if (Object.prototype.hasOwnProperty.call(map, e.tag)) map[e.tag].push(e);
    else setKey(map, e.tag, [e]);
  }
  return a.extrude ? multi(map, rest) : map;
}

const TAG = withArgChecks('tag', { extract, extract_as_map, extract_as_multi_map });

export const tag: AipNamespaceFactory = sharedNamespace(TAG);
