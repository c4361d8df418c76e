/**
 * Comparison of expected and actual values as Lua sees them, and the diffs shown when they differ:
 * a key-level diff for tables, a line diff (jsdiff) for multi-line text. Only what differs is shown.
 */
import { createRequire } from 'node:module';
import { luaEqual, luaList, tableEntries } from '../contract/index.ts';
import { jsonPrefix } from '../support/json-size.ts';

const MAX_VALUE = 200;

// jsdiff is loaded on the first text diff (a failing case), not with the runner: a worker's start-up is on the
// critical path of every `test` run, and most runs show no diff
const requireCjs = createRequire(import.meta.url);
let jsdiff: typeof import('diff') | undefined;
const linePatch = (expected: string, actual: string) =>
  (jsdiff ??= requireCjs('diff') as typeof import('diff')).structuredPatch('expected', 'actual', expected, actual, undefined, undefined, { context: 2 });

/** A value on one line, as JSON (nil as `nil`), shortened when long. */
export function show(v: unknown): string {
  if (v === undefined) return 'nil';
  // written only as far as it is shown: a table holding a big string many times is never written whole
  return jsonPrefix(v, MAX_VALUE);
}

const isTable = (v: unknown): v is object => typeof v === 'object' && v !== null;

/** The entries of a table for a key-level diff (lists keyed by 1-based index); `list` when paths use `[i]`. */
function entries(v: object): { list: boolean; map: Map<string, unknown> } {
  const items = luaList(v);
  return { list: items !== undefined && (Array.isArray(v) || items.length === 0), map: new Map(Object.entries(tableEntries(v))) };
}

const child = (path: string, key: string, list: boolean) =>
  list ? `${path}[${key}]` : /^[A-Za-z_][A-Za-z0-9_]*$/.test(key) ? `${path}.${key}` : `${path}["${key}"]`;

/**
 * A line diff of two texts: `- ` lines only in the expected text, `+ ` lines only in the actual one, with up to
 * two lines of context and `@@` headers between hunks. A missing final newline is marked.
 */
export function textDiff(expected: string, actual: string): string[] {
  // the "no newline at end" marker only says something when one text has a final newline and the other not
  if (!expected.endsWith('\n') && !actual.endsWith('\n')) {
    expected += '\n';
    actual += '\n';
  }
  const patch = linePatch(expected, actual);
  const out: string[] = [];
  for (const h of patch.hunks) {
    if (patch.hunks.length > 1 || h.oldStart > 1) out.push(`@@ expected line ${h.oldStart}, actual line ${h.newStart} @@`);
    for (const line of h.lines) {
      if (line.startsWith('\\')) out.push(`  ${line.slice(1).trim()}`);
      else out.push(`${line[0] === ' ' ? ' ' : line[0]} ${line.slice(1)}`);
    }
  }
  return out;
}

/**
 * What differs between an expected and an actual value, one line per difference, each naming its path
 * (`params.model`, `prompts[2]`). Multi-line strings get a line diff below their path. [] when equal.
 */
export function diffValues(path: string, expected: unknown, actual: unknown): string[] {
  if (luaEqual(expected, actual)) return [];
  if (typeof expected === 'string' && typeof actual === 'string' && (expected.includes('\n') || actual.includes('\n'))) {
    return [`${path}: text differs (- expected, + actual):`, ...textDiff(expected, actual).map((l) => `  ${l}`)];
  }
  if (isTable(expected) && isTable(actual)) {
    const e = entries(expected);
    const a = entries(actual);
    const list = e.list && a.list;
    const keys = [...new Set([...e.map.keys(), ...a.map.keys()])];
    if (list) keys.sort((x, y) => Number(x) - Number(y));
    else keys.sort();
    const out: string[] = [];
    for (const k of keys) {
      const p = child(path, k, list);
      if (!a.map.has(k)) out.push(`${p}: missing (expected ${show(e.map.get(k))})`);
      else if (!e.map.has(k)) out.push(`${p}: not expected (got ${show(a.map.get(k))})`);
      else out.push(...diffValues(p, e.map.get(k), a.map.get(k)));
    }
    return out;
  }
  return [`${path}: expected ${show(expected)}, got ${show(actual)}`];
}
