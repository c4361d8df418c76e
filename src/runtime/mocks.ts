/**
 * User stubs for `aip.*` functions: a name ("aip.file.hash_blake3") mapped to a fixed value, or to
 * `{ lua = "<function body>" }` run as `function(...) <body> end` in the stage's Lua state (same sandbox and
 * budget as the stage). Names must exist in the catalog at the simulated AIPack version.
 *
 *   [mocks]
 *   "aip.file.hash_blake3" = "0123abcd"
 *   "aip.udiffx.file_changes_instruction" = { lua = "return 'apply the changes'" }
 */
import { parse as parseToml, TomlError } from 'smol-toml';
import { aipFunctionsAt, findAipFunction } from '../aip/catalog.ts';
import { isPlainObject } from '../engine/values.ts';
import { toLuaData } from '../aip/pure-args.ts';

export type MockSpec = { value: unknown } | { lua: string };
export type Mocks = Record<string, MockSpec>;

export class MockError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'MockError';
  }
}

/** Mocks from a plain table (a case file's `mocks`, or the `[mocks]` of a --mocks file). */
export function parseMocks(raw: unknown, where: string): Mocks {
  if (!isPlainObject(raw)) throw new MockError(`${where}: expected a table of "aip.<namespace>.<function>" = value`);
  const out: Mocks = {};
  for (const [name, v] of Object.entries(raw)) {
    if (!findAipFunction(name) || !name.startsWith('aip.')) {
      throw new MockError(`${where}: unknown function '${name}' (expected a name from \`coder-subagents api\`, e.g. "aip.file.hash_blake3")`);
    }
    if (isPlainObject(v) && 'lua' in v) {
      const keys = Object.keys(v);
      if (typeof v.lua !== 'string' || keys.length !== 1) {
        throw new MockError(`${where}: '${name}': a Lua stub is { lua = "<function body>" } with no other key`);
      }
      out[name] = { lua: v.lua };
    } else {
      out[name] = { value: toLuaData(v) };
    }
  }
  return out;
}

/** A --mocks TOML file: either a `[mocks]` table or the names at the top level. */
export function parseMocksToml(text: string, file: string): Mocks {
  let doc: Record<string, unknown>;
  try {
    doc = parseToml(text) as Record<string, unknown>;
  } catch (e) {
    if (e instanceof TomlError) throw new MockError(`${file}:${e.line}: invalid TOML: ${e.message.split('\n')[0]}`);
    throw e;
  }
  const keys = Object.keys(doc);
  if (keys.length === 1 && keys[0] === 'mocks') return parseMocks(doc.mocks, `${file} [mocks]`);
  return parseMocks(doc, file);
}

/** Refuses mocks of functions the simulated version does not have (a stub must not invent API). */
export function checkMocksAt(mocks: Mocks, version: string): void {
  const have = new Set(aipFunctionsAt(version).map((f) => f.path));
  for (const name of Object.keys(mocks)) {
    if (!have.has(name)) {
      const f = findAipFunction(name);
      throw new MockError(`mock '${name}': AIPack ${version} has no such function${f ? ` (it exists from ${f.since}${f.until ? ` until ${f.until}` : ''})` : ''}`);
    }
  }
}

/** Lua that installs the Lua-body mocks (run after the aip table is set). */
export function luaMocksCode(mocks: Mocks): string {
  return Object.entries(mocks)
    .filter((e): e is [string, { lua: string }] => 'lua' in e[1])
    .map(([name, m]) => `${name} = function(...)\n${m.lua}\nend`)
    .join('\n');
}

/** Host functions for the fixed-value mocks, by namespace and name. */
export function fixedMocks(mocks: Mocks): { ns: string; name: string; fn: () => unknown }[] {
  return Object.entries(mocks)
    .filter((e): e is [string, { value: unknown }] => 'value' in e[1])
    .map(([path, m]) => {
      const [, ns, name] = path.split('.');
      return { ns, name, fn: () => structuredClone(m.value) };
    });
}
