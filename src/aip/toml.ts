/**
 * `aip.toml.*` (since AIPack 0.8.8): parse -> table, stringify(table) -> TOML text.
 */
import { parse as smolParse, stringify as smolStringify } from 'smol-toml';
import { LuaError, luaTypeName } from '../engine/values.ts';
import type { AipNamespaceFactory } from './types.ts';
import { isPlainObject, toLuaData } from './pure-args.ts';
import { withArgChecks } from './arg-checks.ts';
import { sharedNamespace } from './shared-namespace.ts';

/** TOML text -> bridge data (dates as their TOML text, oversized integers as lossy numbers). Throws smol-toml's error. */
export function parseTomlData(text: string): Record<string, unknown> {
  return toLuaData(smolParse(text, { integersAsBigInt: 'asNeeded' })) as Record<string, unknown>;
}

function parse(content: string): Record<string, unknown> {
  try {
    return parseTomlData(content);
  } catch (e) {
    throw new LuaError(`aip.toml.parse failed. ${(e as Error).message}`);
  }
}

/** Rejects what the Rust toml serializer cannot write (null values), with keys sorted like serde_json's map. */
function prepare(v: unknown, path: string): unknown {
  if (v === null || v === undefined) {
    throw new LuaError(`aip.toml.stringify fail to stringify. unsupported null value at '${path || '<root>'}'`);
  }
  if (typeof v === 'number' && !Number.isFinite(v)) return v; // TOML has nan/inf
  if (Array.isArray(v)) return v.map((x, i) => prepare(x, `${path}[${i + 1}]`));
  if (isPlainObject(v)) {
    const out: Record<string, unknown> = {};
    for (const k of Object.keys(v).sort()) {
      Object.defineProperty(out, k, { value: prepare(v[k], path ? `${path}.${k}` : k), enumerable: true, writable: true, configurable: true });
    }
    return out;
  }
  if (typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean') return v;
  throw new LuaError(`aip.toml.stringify fail to stringify. unsupported ${luaTypeName(v)} value at '${path || '<root>'}'`);
}

/**
 * Rust's toml writes inline arrays as `["a", "b"]`, smol-toml as `[ "a", "b" ]`: drop the space after "[" and
 * before "]" outside strings.
 */
function tightenArrays(text: string): string {
  let out = '';
  let quote: string | undefined;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (quote) {
      out += c;
      if (c === '\\' && quote === '"') {
        out += text[++i] ?? '';
      } else if (c === quote) {
        quote = undefined;
      }
      continue;
    }
    if (c === '"' || c === "'") quote = c;
    if (c === ' ' && (out.endsWith('[') || text[i + 1] === ']')) continue;
    out += c;
  }
  return out;
}

function stringify(content: unknown): string {
  if (!isPlainObject(content)) {
    // an empty Lua table arrives as [] in the default conversion: still "a table", so an empty document
    if (Array.isArray(content) && content.length === 0) return '';
    throw new LuaError(`aip.toml.stringify fail to stringify. expected a table with string keys, got ${Array.isArray(content) ? 'a list' : luaTypeName(content)}`);
  }
  try {
    return tightenArrays(smolStringify(prepare(content, '') as Record<string, unknown>));
  } catch (e) {
    if (e instanceof LuaError) throw e;
    throw new LuaError(`aip.toml.stringify fail to stringify. ${(e as Error).message}`);
  }
}

const TOML = withArgChecks('toml', { parse, stringify });

export const toml: AipNamespaceFactory = sharedNamespace(TOML);
