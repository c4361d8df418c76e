/**
 * Small data helpers shared by the pure `aip.*` namespaces (md, text, tag, json, toml, yaml): keys and parsed
 * data as Lua sees them. Argument checks live in arg-checks.ts.
 */
import { isPlainObject, setOwn } from '../engine/values.ts';

/** Sets a key without tripping over `__proto__` (JSON/YAML/TOML keys are arbitrary text). */
export const setKey = setOwn;

/**
 * Normalises parsed data (YAML/TOML/JSON) to bridge data: null stays null (the Lua `null` sentinel),
 * dates become their text form, bigints become numbers, Maps become objects.
 */
export function toLuaData(v: unknown): unknown {
  if (v === null || v === undefined) return null;
  if (typeof v === 'bigint') return Number(v);
  if (v instanceof Date) {
    // smol-toml's TomlDate.toISOString keeps the TOML form (local dates/times included); drop zero millis
    return v.toISOString().replace(/\.000(?=Z$|[+-]\d\d:\d\d$|$)/, '');
  }
  if (Array.isArray(v)) return v.map(toLuaData);
  if (v instanceof Map) {
    const out: Record<string, unknown> = {};
    for (const [k, val] of v) setKey(out, String(k), toLuaData(val));
    return out;
  }
  if (typeof v === 'object') {
    const out: Record<string, unknown> = {};
    for (const k of Object.keys(v)) setKey(out, k, toLuaData((v as Record<string, unknown>)[k]));
    return out;
  }
  return v;
}

export { isPlainObject };
