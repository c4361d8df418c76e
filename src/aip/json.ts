/**
 * `aip.json.*` (docs/aipack.md section 7.7). `parse` is fully relaxed (as since AIPack 0.8.27): comments, trailing
 * and missing commas, single-quoted strings, unquoted keys, hex numbers, unary `+`.
 * `stringify*` write object keys sorted (serde_json's default map), numbers as JS prints them.
 */
import { LuaError, luaTypeName } from '../engine/values.ts';
import type { AipNamespaceFactory } from './types.ts';
import { isPlainObject, setKey } from './pure-args.ts';
import { withArgChecks } from './arg-checks.ts';
import { sharedNamespace } from './shared-namespace.ts';

class JsonSyntaxError extends Error {}

/** A tolerant JSON reader. Returns undefined for blank input (only whitespace/comments). */
export function parseRelaxedJson(src: string): unknown {
  let i = 0;

  const where = (at: number): string => {
    const before = src.slice(0, at);
    const line = before.split('\n').length;
    const col = at - (before.lastIndexOf('\n') + 1) + 1;
    return `line ${line} column ${col}`;
  };
  const fail = (msg: string, at = i): never => {
    throw new JsonSyntaxError(`${msg} at ${where(at)}`);
  };

  const skip = (): void => {
    for (;;) {
      const c = src[i];
      if (c === ' ' || c === '\t' || c === '\n' || c === '\r' || c === '\uFEFF' || c === '\u00A0' || c === '\u2028' || c === '\u2029' || c === '\v' || c === '\f') {
        i++;
      } else if (c === '/' && src[i + 1] === '/') {
        while (i < src.length && src[i] !== '\n') i++;
      } else if (c === '/' && src[i + 1] === '*') {
        const end = src.indexOf('*/', i + 2);
        if (end < 0) fail('Unterminated comment');
        i = end + 2;
      } else {
        return;
      }
    }
  };

  const parseString = (): string => {
    const q = src[i];
    const start = i;
    i++;
    let out = '';
    for (;;) {
      if (i >= src.length) fail('Unterminated string', start);
      // copy the run of plain characters in one slice
      let runEnd = i;
      while (runEnd < src.length && src[runEnd] !== q && src[runEnd] !== '\\') runEnd++;
      out += src.slice(i, runEnd);
      i = runEnd;
      if (i >= src.length) fail('Unterminated string', start);
      const c = src[i++];
      if (c === q) return out;
      const e = src[i++];
      switch (e) {
        case 'n': out += '\n'; break;
        case 't': out += '\t'; break;
        case 'r': out += '\r'; break;
        case 'b': out += '\b'; break;
        case 'f': out += '\f'; break;
        case 'v': out += '\v'; break;
        case '0': out += '\0'; break;
        case 'u': {
          const hex = src.slice(i, i + 4);
          if (!/^[0-9a-fA-F]{4}$/.test(hex)) fail('Invalid unicode escape', i - 2);
          out += String.fromCharCode(parseInt(hex, 16));
          i += 4;
          break;
        }
        case 'x': {
          const hex = src.slice(i, i + 2);
          if (!/^[0-9a-fA-F]{2}$/.test(hex)) fail('Invalid hex escape', i - 2);
          out += String.fromCharCode(parseInt(hex, 16));
          i += 2;
          break;
        }
        case '\r':
          if (src[i] === '\n') i++; // line continuation
          break;
        case '\n':
          break; // line continuation
        case undefined:
          fail('Unterminated string', start);
          break;
        default:
          out += e; // \" \' \\ \/ and any other escaped char
      }
    }
  };

  const parseNumber = (): number => {
    const m = /^[+-]?(0[xX][0-9a-fA-F]+|(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?)/.exec(src.slice(i, i + 400));
    if (!m) return fail('Invalid number');
    i += m[0].length;
    const txt = m[0];
    const sign = txt.startsWith('-') ? -1 : 1;
    const body = txt.replace(/^[+-]/, '');
    return sign * (/^0[xX]/.test(body) ? parseInt(body.slice(2), 16) : Number(body));
  };

  const parseKey = (): string => {
    const c = src[i];
    if (c === '"' || c === "'") return parseString();
    const m = /^[^\s:,{}[\]"'/]+/.exec(src.slice(i, i + 1000));
    if (!m) return fail(`Expected a property name but found ${c === undefined ? 'end of input' : `'${c}'`}`);
    i += m[0].length;
    return m[0];
  };

  const parseValue = (): unknown => {
    skip();
    const c = src[i];
    if (c === undefined) return fail('Unexpected end of input');
    if (c === '{') {
      i++;
      const obj: Record<string, unknown> = {};
      for (;;) {
        skip();
        if (src[i] === '}') {
          i++;
          return obj;
        }
        if (src[i] === ',') fail("Unexpected ','"); // `{,` or `,,`
        const key = parseKey();
        skip();
        if (src[i] !== ':') fail(`Expected ':' after property name '${key}'`);
        i++;
        setKey(obj, key, parseValue());
        skip();
        if (src[i] === ',') i++;
        else if (src[i] === undefined) fail("Expected '}' but found end of input");
        // anything else: a missing comma, tolerated
      }
    }
    if (c === '[') {
      i++;
      const arr: unknown[] = [];
      for (;;) {
        skip();
        if (src[i] === ']') {
          i++;
          return arr;
        }
        if (src[i] === ',') fail("Unexpected ','");
        arr.push(parseValue());
        skip();
        if (src[i] === ',') i++;
        else if (src[i] === undefined) fail("Expected ']' but found end of input");
      }
    }
    if (c === '"' || c === "'") return parseString();
    if (c === '-' || c === '+' || c === '.' || (c >= '0' && c <= '9')) return parseNumber();
    const word = /^[A-Za-z_$][\w$]*/.exec(src.slice(i, i + 100))?.[0];
    if (word === 'true') { i += 4; return true; }
    if (word === 'false') { i += 5; return false; }
    if (word === 'null') { i += 4; return null; }
    return fail(`Unexpected token '${word ?? c}'`);
  };

  skip();
  if (i >= src.length) return undefined;
  const value = parseValue();
  skip();
  if (i < src.length) fail(`Unexpected content after the JSON value ('${src[i]}')`);
  return value;
}

function truncateForError(s: string, max: number): string {
  const chars = Array.from(s);
  return chars.length > max ? chars.slice(0, max).join('') + '...' : s;
}

/** nil/blank -> nil; top-level JSON null -> nil; nested nulls -> the `null` sentinel. */
function parse(s: string | undefined): unknown {
  if (s === undefined) return undefined;
  try {
    const v = parseRelaxedJson(s);
    return v === null ? undefined : v;
  } catch (e) {
    if (!(e instanceof JsonSyntaxError)) throw e;
    throw new LuaError(`aip.json.parse failed. Fail to parse json.\nCause: ${e.message}\nJson Content:\n${truncateForError(s, 300)}`);
  }
}

/** Strict JSON per non-blank line. */
function parse_ndjson(s: string | undefined): unknown[] | undefined {
  if (s === undefined) return undefined;
  const out: unknown[] = [];
  const lines = s.split('\n');
  for (let n = 0; n < lines.length; n++) {
    const line = lines[n].trim();
    if (line === '') continue;
    try {
      out.push(JSON.parse(line));
    } catch (e) {
      throw new LuaError(`aip.json.parse_ndjson failed. Invalid JSON at line ${n + 1}: ${(e as Error).message}`);
    }
  }
  return out.map(fixProto);
}

/** Rebuilds objects through setKey so a "__proto__" key stays an own data property when copied around. */
function fixProto(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(fixProto);
  if (isPlainObject(v)) {
    const o: Record<string, unknown> = {};
    for (const k of Object.keys(v)) setKey(o, k, fixProto(v[k]));
    return o;
  }
  return v;
}

/**
 * Code-point order of keys (serde_json sorts String keys bytewise = by code point). UTF-16 units compare as code
 * points except where a surrogate meets another unit: there the code points are compared.
 */
function compareKeys(a: string, b: string): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    const x = a.charCodeAt(i);
    const y = b.charCodeAt(i);
    if (x === y) continue;
    if ((x >= 0xd800 && x <= 0xdfff) || (y >= 0xd800 && y <= 0xdfff)) return a.codePointAt(i)! - b.codePointAt(i)!;
    return x - y;
  }
  return a.length - b.length;
}

/** A key holding a surrogate (a character past U+FFFF) is the only one UTF-16 order can misplace. */
const SURROGATE = /[\ud800-\udfff]/;

/** An object's keys in code-point order. */
function sortedKeys(v: object): string[] {
  const keys = Object.keys(v);
  const n = keys.length;
  if (n < 2) return keys;
  for (let i = 0; i < n; i++) if (SURROGATE.test(keys[i]!)) return keys.sort(compareKeys);
  // without surrogates UTF-16 units are code points, and `<` compares them; most objects are small
  if (n > 16) return keys.sort();
  for (let i = 1; i < n; i++) {
    const key = keys[i]!;
    let j = i - 1;
    for (; j >= 0 && keys[j]! > key; j--) keys[j + 1] = keys[j]!;
    keys[j + 1] = key;
  }
  return keys;
}

/** JSON text of short keys, which recur from object to object (bounded: a fixed set of short strings). */
const quotedKeys = new Map<string, string>();
const QUOTED_KEYS_MAX = 4096;
const QUOTED_KEY_LENGTH = 64;

function quotedKey(key: string): string {
  let text = quotedKeys.get(key);
  if (text === undefined) {
    text = JSON.stringify(key);
    if (key.length <= QUOTED_KEY_LENGTH && quotedKeys.size < QUOTED_KEYS_MAX) quotedKeys.set(key, text);
  }
  return text;
}

function numberText(n: number, fnName: string): string {
  if (!Number.isFinite(n)) throw new LuaError(`${fnName} fail to stringify. Cannot serialize ${n} (NaN/Infinity) to JSON`);
  // JS writes an exponent with a sign ("1e+21") only from 1e21 on; serde_json writes none
  return n >= 1e21 || n <= -1e21 ? String(n).replace('e+', 'e') : String(n);
}

/** One line of JSON (built by concatenation: many small strings joined as they come are cheap in V8). */
function lineOf(v: unknown, fnName: string): string {
  switch (typeof v) {
    case 'string':
      return JSON.stringify(v);
    case 'number':
      return numberText(v, fnName);
    case 'boolean':
      return v ? 'true' : 'false';
    case 'undefined':
      return 'null';
    case 'object': {
      if (v === null) return 'null';
      if (Array.isArray(v)) {
        if (v.length === 0) return '[]';
        let out = '[' + lineOf(v[0], fnName);
        for (let i = 1; i < v.length; i++) out += ',' + lineOf(v[i], fnName);
        return out + ']';
      }
      const keys = sortedKeys(v);
      if (keys.length === 0) return '{}';
      const o = v as Record<string, unknown>;
      let out = '{' + quotedKey(keys[0]!) + ':' + lineOf(o[keys[0]!], fnName);
      for (let i = 1; i < keys.length; i++) out += ',' + quotedKey(keys[i]!) + ':' + lineOf(o[keys[i]!], fnName);
      return out + '}';
    }
    default:
      throw new LuaError(`${fnName} fail to stringify. Cannot serialize a ${luaTypeName(v)} to JSON`);
  }
}

/** Indented JSON text of bridge data (`indent` per level). */
function indentedOf(value: unknown, indent: string, fnName: string): string {
  const out: string[] = [];
  const write = (v: unknown, depth: number): void => {
    if (v === null || typeof v !== 'object') out.push(lineOf(v, fnName));
    else if (Array.isArray(v)) {
      if (v.length === 0) return void out.push('[]');
      const pad = '\n' + indent.repeat(depth + 1);
      for (let i = 0; i < v.length; i++) {
        out.push(i === 0 ? '[' + pad : ',' + pad);
        write(v[i], depth + 1);
      }
      out.push('\n' + indent.repeat(depth) + ']');
    } else {
      const keys = sortedKeys(v);
      if (keys.length === 0) return void out.push('{}');
      const pad = '\n' + indent.repeat(depth + 1);
      for (let i = 0; i < keys.length; i++) {
        out.push((i === 0 ? '{' : ',') + pad + quotedKey(keys[i]!) + ': ');
        write((v as Record<string, unknown>)[keys[i]!], depth + 1);
      }
      out.push('\n' + indent.repeat(depth) + '}');
    }
  };
  write(value, 0);
  return out.join('');
}

/**
 * JSON text of bridge data; indent "" = single line. Object keys in code-point order, numbers as JS writes them
 * (without the exponent's "+"), nil as null; NaN, infinities and functions are refused.
 */
export function toJsonText(value: unknown, indent: string, fnName: string): string {
  return indent === '' ? lineOf(value, fnName) : indentedOf(value, indent, fnName);
}

const stringify = (content: unknown): string => toJsonText(content, '', 'aip.json.stringify');
const stringify_pretty = (content: unknown): string => toJsonText(content, '  ', 'aip.json.stringify_pretty');

const JSON_FNS = withArgChecks('json', {
  parse,
  parse_ndjson,
  stringify,
  stringify_pretty,
  // deprecated alias of stringify
  stringify_to_line: stringify,
});

export const json: AipNamespaceFactory = sharedNamespace(JSON_FNS);
