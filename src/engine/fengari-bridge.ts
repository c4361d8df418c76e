import { lua, lauxlib, to_luastring, type LuaState as L } from './fengari-vm.ts';
import { HOST_OPTIONS, LuaError, LuaMulti, tableValue, type ConvertMode, type HostFunction } from './values.ts';

/** The identity behind AIPack's `null` global: one light userdata shared by every state. */
export const NULL_TOKEN = Object.freeze({ aipackNull: true });

/** Deepest table nesting converted before giving up (AIPack's serde stops far earlier than Lua's own limits). */
export const MAX_DEPTH = 128;

/**
 * Most values one Lua -> JS conversion visits. A table shared at every level (`for i = 1, 40 do t = {t, t} end`)
 * is tiny in Lua but expands exponentially when copied, which no instruction budget sees; this stops it.
 */
export const MAX_NODES = 2_000_000;

const str = (s: string) => to_luastring(s);

const encoder = new TextEncoder();
// keeps a leading BOM as the bytes were; invalid UTF-8 becomes U+FFFD, as fengari's own decoder does
const decoder = new TextDecoder('utf-8', { ignoreBOM: true });

/** A JS string as Lua bytes: one native encode (fengari's to_luastring walks it char by char). */
export const luaBytes = (s: string): Uint8Array => encoder.encode(s);

/** The Lua string (or number, converted in place) at `idx` as a JS string, decoded natively. */
export function jsString(L: L, idx: number): string {
  const bytes: Uint8Array = lua.lua_tolstring(L, idx);
  const n = bytes.length;
  if (n <= 24) {
    // short strings: a loop beats TextDecoder's call overhead when they are ASCII
    let out = '';
    for (let i = 0; i < n; i++) {
      const c = bytes[i];
      if (c >= 0x80) return decoder.decode(bytes);
      out += String.fromCharCode(c);
    }
    return out;
  }
  return decoder.decode(bytes);
}
const ARRAY_MT_KEY = str('coder_subagents.array_mt');

// Table keys repeat across states (every stage pushes the same `aip` table): encode each once.
const keyCache = new Map<string, Uint8Array>();
function keyStr(key: string): Uint8Array {
  let bytes = keyCache.get(key);
  if (!bytes) {
    bytes = to_luastring(key);
    if (keyCache.size < 10_000) keyCache.set(key, bytes);
  }
  return bytes;
}

export class ConversionError extends Error {}

/** mlua marks tables made from JSON arrays with an array metatable, so `[]` survives a round trip as `[]`. */
export function setArrayMetatable(L: L): void {
  lua.lua_createtable(L, 0, 1);
  lua.lua_pushstring(L, str('array'));
  lua.lua_setfield(L, -2, str('__name'));
  lua.lua_setfield(L, lua.LUA_REGISTRYINDEX, ARRAY_MT_KEY);
}

function hasArrayMetatable(L: L, idx: number): boolean {
  if (!lua.lua_getmetatable(L, idx)) return false;
  lua.lua_getfield(L, lua.LUA_REGISTRYINDEX, ARRAY_MT_KEY);
  const same = lua.lua_rawequal(L, -1, -2);
  lua.lua_pop(L, 2);
  return same;
}

/**
 * Pushes a JS value (see values.ts for the mapping). `topNullIsNil`: a top-level null becomes nil, as for stage
 * variables (RUNTIME.md 7.0); nested nulls always become the `null` sentinel.
 */
export function pushJs(L: L, value: unknown, topNullIsNil: boolean, seen = new Set<object>()): void {
  if (value === undefined) return lua.lua_pushnil(L);
  if (value === null) {
    if (topNullIsNil) return lua.lua_pushnil(L);
    return lua.lua_pushlightuserdata(L, NULL_TOKEN);
  }
  switch (typeof value) {
    case 'boolean':
      return lua.lua_pushboolean(L, value);
    case 'number':
      // fengari integers are 32-bit; anything larger stays a float (LUA_ENGINES.md section 3)
      if (Number.isInteger(value) && value >= -2147483648 && value <= 2147483647) return lua.lua_pushinteger(L, value);
      return lua.lua_pushnumber(L, value);
    case 'string':
      return lua.lua_pushstring(L, luaBytes(value));
    case 'function':
      return pushHostFunction(L, value as HostFunction);
    case 'object':
      break;
    default:
      throw new ConversionError(`cannot pass a JS ${typeof value} to Lua`);
  }
  const obj = value as object;
  if (seen.has(obj)) throw new ConversionError('cannot pass a cyclic value to Lua');
  if (seen.size >= MAX_DEPTH) throw new ConversionError(`cannot pass a value nested deeper than ${MAX_DEPTH} levels to Lua`);
  seen.add(obj);
  lauxlib.luaL_checkstack(L, 3, null);
  if (Array.isArray(obj)) {
    lua.lua_createtable(L, obj.length, 0);
    obj.forEach((item, i) => {
      if (item === undefined) return; // a nil hole
      pushJs(L, item, false, seen);
      lua.lua_rawseti(L, -2, i + 1);
    });
    lua.lua_getfield(L, lua.LUA_REGISTRYINDEX, ARRAY_MT_KEY);
    lua.lua_setmetatable(L, -2);
  } else {
    const entries = Object.entries(obj);
    lua.lua_createtable(L, 0, entries.length);
    for (const [key, item] of entries) {
      if (item === undefined) continue;
      pushJs(L, item, false, seen);
      lua.lua_setfield(L, -2, keyStr(key));
    }
  }
  seen.delete(obj);
}

function pushHostFunction(L: L, fn: HostFunction): void {
  const mode = fn[HOST_OPTIONS]?.argMode ?? 'aip';
  lua.lua_pushjsfunction(L, (L: L) => {
    let failure: string | undefined;
    let result: unknown;
    try {
      const n = lua.lua_gettop(L);
      const args: unknown[] = [];
      for (let i = 1; i <= n; i++) args.push(toJs(L, i, mode, `argument #${i}`));
      result = fn(...args);
    } catch (err) {
      // raise after the try: lua_error unwinds with a JS throw that must not be caught here
      failure = err instanceof LuaError || err instanceof ConversionError ? err.message : internalMessage(err);
    }
    if (failure !== undefined) {
      lua.lua_pushstring(L, luaBytes(failure));
      return lua.lua_error(L);
    }
    if (result === undefined) return 0;
    const values = result instanceof LuaMulti ? result.values : [result];
    lauxlib.luaL_checkstack(L, values.length, null);
    for (const v of values) pushJs(L, v, false);
    return values.length;
  });
}

function internalMessage(err: unknown): string {
  // Errors of nested runs carry their own message; anything else is a simulator bug worth showing as is.
  return err instanceof Error ? err.message : String(err);
}

/** Converts the Lua value at `idx` to JS data with one of AIPack's two conversions (values.ts). */
export function toJs(L: L, idx: number, mode: ConvertMode, where = 'value', maxNodes = MAX_NODES): unknown {
  return convert(L, lua.lua_absindex(L, idx), mode, where, new Set(), 0, { left: maxNodes, limit: maxNodes });
}

interface NodeBudget {
  left: number;
  limit: number;
}

function convert(L: L, idx: number, mode: ConvertMode, path: string, seen: Set<unknown>, depth: number, budget: NodeBudget): unknown {
  if (--budget.left < 0) throw new ConversionError(`cannot convert a value of more than ${budget.limit} elements (simulator limit, at ${path})`);
  switch (lua.lua_type(L, idx)) {
    case lua.LUA_TNIL:
    case lua.LUA_TNONE:
      return undefined;
    case lua.LUA_TBOOLEAN:
      return lua.lua_toboolean(L, idx);
    case lua.LUA_TNUMBER: {
      const n = lua.lua_tonumber(L, idx) as number;
      if (mode === 'aip' && !Number.isFinite(n)) throw new ConversionError(`cannot convert ${n} to JSON at ${path}`);
      // serde_json turns a non-finite f64 into null (Value::from(f64))
      if (!Number.isFinite(n)) return null;
      return n;
    }
    case lua.LUA_TSTRING:
      return jsString(L, idx);
    case lua.LUA_TLIGHTUSERDATA:
      return null; // the null sentinel, or any light userdata (AIPack >= 0.8.3)
    case lua.LUA_TTABLE:
      return convertTable(L, idx, mode, path, seen, depth, budget);
    case lua.LUA_TFUNCTION:
      throw new ConversionError(`cannot convert a Lua function at ${path}`);
    default:
      throw new ConversionError(`cannot convert a Lua ${lua.lua_typename(L, lua.lua_type(L, idx)) ? luaTypeAt(L, idx) : 'value'} at ${path}`);
  }
}

function luaTypeAt(L: L, idx: number): string {
  const name = lua.lua_typename(L, lua.lua_type(L, idx));
  return typeof name === 'string' ? name : new TextDecoder().decode(name);
}

function convertTable(L: L, idx: number, mode: ConvertMode, path: string, seen: Set<unknown>, depth: number, budget: NodeBudget): unknown {
  const ptr = lua.lua_topointer(L, idx);
  if (seen.has(ptr)) throw new ConversionError(`cannot convert a table that contains itself (cycle at ${path})`);
  if (depth >= MAX_DEPTH) throw new ConversionError(`cannot convert a table nested deeper than ${MAX_DEPTH} levels (at ${path})`);
  seen.add(ptr);
  lauxlib.luaL_checkstack(L, 4, null);
  try {
    if (mode === 'serde') {
      const len = lua.lua_rawlen(L, idx);
      if (len > 0 || hasArrayMetatable(L, idx)) {
        const out: unknown[] = [];
        for (let i = 1; i <= len; i++) {
          lua.lua_rawgeti(L, idx, i);
          const v = convert(L, lua.lua_gettop(L), mode, `${path}[${i}]`, seen, depth + 1, budget);
          lua.lua_pop(L, 1);
          out.push(v === undefined ? null : v);
        }
        return out;
      }
    }
    const keys: (string | number)[] = [];
    const values: unknown[] = [];
    lua.lua_pushnil(L);
    while (lua.lua_next(L, idx) !== 0) {
      const key = keyOf(L, lua.lua_gettop(L) - 1, path);
      const v = convert(L, lua.lua_gettop(L), mode, `${path}.${String(key)}`, seen, depth + 1, budget);
      lua.lua_pop(L, 1);
      if (v === undefined) continue;
      keys.push(key);
      values.push(v);
    }
    return tableValue(keys, values, mode);
  } finally {
    seen.delete(ptr);
  }
}

function keyOf(L: L, idx: number, path: string): string | number {
  switch (lua.lua_type(L, idx)) {
    case lua.LUA_TSTRING:
      return jsString(L, idx);
    case lua.LUA_TNUMBER:
      return lua.lua_tonumber(L, idx) as number;
    case lua.LUA_TBOOLEAN:
      return String(lua.lua_toboolean(L, idx));
    default:
      throw new ConversionError(`cannot convert a table key of type ${luaTypeAt(L, idx)} at ${path}`);
  }
}
