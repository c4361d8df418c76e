/**
 * How the contract sees Lua values on the JS side of the bridge.
 *
 * Values converted from Lua arrive as: nil -> undefined, AIPack's `null` sentinel -> null, tables -> arrays
 * (keys 1..n; an empty table may arrive as [] or {}) or plain objects. These helpers answer the questions the
 * contract asks ("what Lua type is this", "is this table a list") exactly as the generated Lua answers them.
 */

/** A Lua type name, in Lua's own vocabulary (the words used in every contract message). */
export type LuaTypeName = 'nil' | 'null' | 'boolean' | 'number' | 'string' | 'table' | 'function';

/**
 * The Lua type of a JS value that crossed (or will cross) the bridge, as messages name it: AIPack's `null`
 * sentinel (JS null) is "null", though Lua's type() says "userdata".
 */
export function luaType(v: unknown): LuaTypeName {
  if (v === undefined) return 'nil';
  if (v === null) return 'null';
  switch (typeof v) {
    case 'boolean':
      return 'boolean';
    case 'number':
    case 'bigint':
      return 'number';
    case 'string':
      return 'string';
    case 'function':
      return 'function';
    default:
      return 'table';
  }
}

/** nil and AIPack's `null` sentinel (JS null) both mean "not given". */
export const isGiven = <T>(v: T): v is Exclude<T, null | undefined> => v !== undefined && v !== null;

/** A field of a table, own properties only (so `constructor`, `length`, ... never count as keys). */
export function field(t: unknown, key: string): unknown {
  if (typeof t !== 'object' || t === null) return undefined;
  return Object.prototype.hasOwnProperty.call(t, key) ? (t as Record<string, unknown>)[key] : undefined;
}

/**
 * The items of a table that is a Lua list (keys exactly 1..n), or undefined when the table is not a list.
 * A JS array is read as the Lua table it becomes: an `undefined` slot (or a hole) is a missing key, so a gap
 * before a present item makes it a non-list and trailing `undefined`s simply do not exist.
 * An empty object is an empty table, hence an empty list. A non-empty plain object is never a list.
 */
export function luaList(v: unknown): unknown[] | undefined {
  if (Array.isArray(v)) {
    let n = v.length;
    while (n > 0 && v[n - 1] === undefined) n--;
    const items: unknown[] = [];
    for (let i = 0; i < n; i++) {
      if (v[i] === undefined) return undefined;
      items.push(v[i]);
    }
    return items;
  }
  if (typeof v === 'object' && v !== null) {
    return Object.values(v as Record<string, unknown>).every((x) => x === undefined) ? [] : undefined;
  }
  return undefined;
}

/** True when a table value holds no key at all (an empty Lua table). */
export function isEmptyTable(v: unknown): boolean {
  const items = luaList(v);
  return items !== undefined && items.length === 0;
}

/** The keys and values of a table value, with Lua's view: list items keyed "1".."n", nil entries absent. */
export function tableEntries(t: unknown): Record<string, unknown> {
  if (typeof t !== 'object' || t === null) return {};
  const out: Record<string, unknown> = {};
  if (Array.isArray(t)) {
    t.forEach((v, i) => {
      if (v !== undefined) out[String(i + 1)] = v;
    });
  } else {
    for (const [k, v] of Object.entries(t)) if (v !== undefined) out[k] = v;
  }
  return out;
}

/**
 * Equality of two values as Lua tables: an empty list and an empty table are the same value, nil entries do not
 * exist, and a list equals the table with keys 1..n.
 */
export function luaEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== 'object' || a === null || typeof b !== 'object' || b === null) return false;
  const ea = tableEntries(a);
  const eb = tableEntries(b);
  const keys = Object.keys(ea);
  if (keys.length !== Object.keys(eb).length) return false;
  return keys.every((k) => Object.prototype.hasOwnProperty.call(eb, k) && luaEqual(ea[k], eb[k]));
}
