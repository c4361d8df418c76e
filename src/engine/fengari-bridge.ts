import {
  getInt,
  lauxlib,
  lua,
  luaString,
  newTable,
  pushLuaString,
  pushValue,
  rawLength,
  setField,
  setInt,
  TAG,
  to_luastring,
  tvalue,
  valueAt,
  type LuaState as L,
  type LuaString,
  type LuaTable,
  type TValue,
} from './fengari-vm.ts';
import { ConversionError, HOST_OPTIONS, LuaError, LuaMulti, MAX_DEPTH, MAX_NODES, PathedConversionError, tableValue, through, type ConvertMode, type HostFunction } from './values.ts';

/** The identity behind AIPack's `null` global: one light userdata shared by every state. */
export const NULL_TOKEN = Object.freeze({ aipackNull: true });


const str = (s: string) => to_luastring(s);

const encoder = new TextEncoder();
// keeps a leading BOM as the bytes were; invalid UTF-8 becomes U+FFFD, as fengari's own decoder does
const decoder = new TextDecoder('utf-8', { ignoreBOM: true });

/** A JS string as Lua bytes: one native encode (fengari's to_luastring walks it char by char). */
export const luaBytes = (s: string): Uint8Array => encoder.encode(s);

/**
 * Strings cross the bridge once. fengari's Lua strings are immutable byte arrays holding no state, so one Lua string
 * serves every state that is given the same JS string, and the JS string decoded from a Lua string is kept beside
 * its bytes: a value passed down a chain of sub-agents and back (a prompt, a list of globs) is neither re-encoded
 * nor re-decoded, and the trace, the caller and the callee share one copy of it.
 */
const SHORT_STRING = 256;
const SHORT_CACHE_MAX = 100_000;
const shortStrings = new Map<string, LuaString>();
/** longer strings: the few most recently pushed, bounded in bytes */
const LONG_CACHE_BYTES = 64 * 1024 * 1024;
const longStrings = new Map<string, LuaString>();
let longBytes = 0;
/** JS strings by the bytes of their Lua strings: those pushed, and those decoded of more than SHORT_STRING bytes */
const decoded = new WeakMap<Uint8Array, string>();

/** The Lua string for a JS string, made once and shared (see above). */
function luaStr(L: L, s: string): LuaString {
  if (s.length <= SHORT_STRING) {
    let ls = shortStrings.get(s);
    if (!ls) {
      const bytes = luaBytes(s);
      ls = luaString(L, bytes);
      decoded.set(bytes, s);
      if (shortStrings.size >= SHORT_CACHE_MAX) shortStrings.clear();
      shortStrings.set(s, ls);
    }
    return ls;
  }
  let ls = longStrings.get(s);
  if (ls) {
    longStrings.delete(s); // most recent last
    longStrings.set(s, ls);
    return ls;
  }
  const bytes = luaBytes(s);
  ls = luaString(L, bytes);
  decoded.set(bytes, s);
  longStrings.set(s, ls);
  longBytes += bytes.length;
  for (const [k, v] of longStrings) {
    if (longBytes <= LONG_CACHE_BYTES || longStrings.size <= 1) break;
    longStrings.delete(k);
    longBytes -= v.realstring.length;
  }
  return ls;
}

/** Pushes a JS string as a Lua string. */
export function pushString(L: L, s: string): void {
  pushLuaString(L, luaStr(L, s));
}

/** The Lua string (or number, converted in place) at `idx` as a JS string, decoded natively. */
export function jsString(L: L, idx: number): string {
  return stringOf(lua.lua_tolstring(L, idx));
}

/** The JS string of a Lua string's bytes (the one it was pushed from or decoded to before, when known). */
function stringOf(bytes: Uint8Array): string {
  const known = decoded.get(bytes);
  if (known !== undefined) return known;
  const n = bytes.length;
  if (n <= 24) {
    for (let i = 0; i < n; i++) if (bytes[i] >= 0x80) return decoder.decode(bytes);
    return String.fromCharCode.apply(null, bytes as unknown as number[]);
  }
  if (n <= SHORT_STRING) return decoder.decode(bytes);
  const s = decoder.decode(bytes);
  decoded.set(bytes, s);
  return s;
}
const ARRAY_MT_KEY = str('coder_subagents.array_mt');


/** mlua marks tables made from JSON arrays with an array metatable, so `[]` survives a round trip as `[]`. */
export function setArrayMetatable(L: L): void {
  lua.lua_createtable(L, 0, 1);
  lua.lua_pushstring(L, str('array'));
  lua.lua_setfield(L, -2, str('__name'));
  lua.lua_setfield(L, lua.LUA_REGISTRYINDEX, ARRAY_MT_KEY);
}

// the array metatable of each state, by its global state (shared by its threads)
const arrayMts = new WeakMap<object, LuaTable>();
function arrayMetatable(L: L): LuaTable {
  const g = (L as unknown as { l_G: object }).l_G;
  let mt = arrayMts.get(g);
  if (!mt) {
    lua.lua_getfield(L, lua.LUA_REGISTRYINDEX, ARRAY_MT_KEY);
    mt = valueAt(L, lua.lua_gettop(L)).value as LuaTable;
    lua.lua_pop(L, 1);
    arrayMts.set(g, mt);
  }
  return mt;
}

/**
 * Pushes a JS value (see values.ts for the mapping). `topNullIsNil`: a top-level null becomes nil, as for stage
 * variables (docs/aipack.md section 7.0); nested nulls always become the `null` sentinel.
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
      // fengari integers are 32-bit; anything larger stays a float (docs/engines.md)
      if (Number.isInteger(value) && value >= -2147483648 && value <= 2147483647) return lua.lua_pushinteger(L, value);
      return lua.lua_pushnumber(L, value);
    case 'string':
      return pushString(L, value);
    case 'function':
      return pushHostFunction(L, value as HostFunction);
    case 'object':
      break;
    default:
      throw new ConversionError(`cannot pass a JS ${typeof value} to Lua`);
  }
  lauxlib.luaL_checkstack(L, 1, null);
  pushValue(L, tableOf(L, value as object, seen));
}

/**
 * A JS value as a Lua value slot, for a table element. Tables are built directly in fengari's structures (no stack
 * traffic per element): the same raw sets lua_rawseti/lua_rawset do, with the array metatable set as
 * lua_setmetatable does.
 */
function slotOf(L: L, value: unknown, seen: Set<object>): TValue {
  if (value === null) return tvalue(TAG.LUA_TLIGHTUSERDATA, NULL_TOKEN);
  switch (typeof value) {
    case 'boolean':
      return tvalue(TAG.LUA_TBOOLEAN, value);
    case 'number':
      // fengari integers are 32-bit; anything larger stays a float (docs/engines.md)
      return Number.isInteger(value) && value >= -2147483648 && value <= 2147483647 ? tvalue(TAG.LUA_TNUMINT, value) : tvalue(TAG.LUA_TNUMFLT, value);
    case 'string':
      return tvalue(TAG.LUA_TLNGSTR, luaStr(L, value));
    case 'function':
      return tvalue(TAG.LUA_TLCF, hostFunction(value as HostFunction));
    case 'object':
      return tableOf(L, value as object, seen);
    default:
      throw new ConversionError(`cannot pass a JS ${typeof value} to Lua`);
  }
}

function tableOf(L: L, obj: object, seen: Set<object>): TValue {
  if (seen.has(obj)) throw new ConversionError('cannot pass a cyclic value to Lua');
  if (seen.size >= MAX_DEPTH) throw new ConversionError(`cannot pass a value nested deeper than ${MAX_DEPTH} levels to Lua`);
  seen.add(obj);
  const t = newTable(L);
  if (Array.isArray(obj)) {
    for (let i = 0; i < obj.length; i++) {
      const item = obj[i];
      if (item === undefined) continue; // a nil hole
      setInt(t, i + 1, slotOf(L, item, seen));
    }
    t.metatable = arrayMetatable(L);
  } else {
    for (const key in obj) {
      if (!Object.prototype.hasOwnProperty.call(obj, key)) continue;
      const item = (obj as Record<string, unknown>)[key];
      if (item === undefined) continue;
      setField(L, t, tvalue(TAG.LUA_TLNGSTR, luaStr(L, key)), slotOf(L, item, seen));
    }
  }
  seen.delete(obj);
  return tvalue(TAG.LUA_TTABLE, t);
}

function pushHostFunction(L: L, fn: HostFunction): void {
  lua.lua_pushjsfunction(L, hostFunction(fn));
}

/** The Lua C function (fengari: a JS function of the state) calling a host function with converted values. */
function hostFunction(fn: HostFunction): (L: L) => number {
  const mode = fn[HOST_OPTIONS]?.argMode ?? 'aip';
  return (L: L) => {
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
  };
}

function internalMessage(err: unknown): string {
  // Errors of nested runs carry their own message; anything else is a simulator bug worth showing as is.
  return err instanceof Error ? err.message : String(err);
}

/** Converts the Lua value at `idx` to JS data with one of AIPack's two conversions (values.ts). */
export function toJs(L: L, idx: number, mode: ConvertMode, where = 'value', maxNodes = MAX_NODES): unknown {
  const abs = lua.lua_absindex(L, idx);
  if (abs < 1 || abs > lua.lua_gettop(L)) return undefined; // no value there (LUA_TNONE)
  try {
    return convert(L, valueAt(L, abs), mode, new Set(), 0, { left: maxNodes, limit: maxNodes });
  } catch (err) {
    if (err instanceof PathedConversionError) throw err.at(where);
    throw err;
  }
}

interface NodeBudget {
  left: number;
  limit: number;
}

const TYPE_NAMES = ['nil', 'boolean', 'userdata', 'number', 'string', 'table', 'function', 'userdata', 'thread'];
/** the Lua type name of a value slot (its variant tag without the variant bits) */
const typeNameOf = (v: TValue) => TYPE_NAMES[v.type & 0x0f] ?? 'value';

// Reads fengari's structures directly (raw access, as lua_rawgeti/lua_rawlen/lua_next do, in lua_next's order).
function convert(L: L, v: TValue, mode: ConvertMode, seen: Set<unknown>, depth: number, budget: NodeBudget): unknown {
  if (--budget.left < 0) throw new PathedConversionError((path) => `cannot convert a value of more than ${budget.limit} elements (simulator limit, at ${path})`);
  switch (v.type & 0x0f) {
    case lua.LUA_TNIL:
      return undefined;
    case lua.LUA_TBOOLEAN:
      return v.value as boolean;
    case lua.LUA_TNUMBER: {
      const n = v.value as number;
      if (mode === 'aip' && !Number.isFinite(n)) throw new PathedConversionError((path) => `cannot convert ${n} to JSON at ${path}`);
      // serde_json turns a non-finite f64 into null (Value::from(f64))
      if (!Number.isFinite(n)) return null;
      return n;
    }
    case lua.LUA_TSTRING:
      return stringOf((v.value as LuaString).realstring);
    case lua.LUA_TLIGHTUSERDATA:
      return null; // the null sentinel, or any light userdata (AIPack >= 0.8.3)
    case lua.LUA_TTABLE:
      return convertTable(L, v.value as LuaTable, mode, seen, depth, budget);
    case lua.LUA_TFUNCTION:
      throw new PathedConversionError((path) => `cannot convert a Lua function at ${path}`);
    default: {
      const name = typeNameOf(v);
      throw new PathedConversionError((path) => `cannot convert a Lua ${name} at ${path}`);
    }
  }
}

function convertTable(L: L, t: LuaTable, mode: ConvertMode, seen: Set<unknown>, depth: number, budget: NodeBudget): unknown {
  if (seen.has(t)) throw new PathedConversionError((path) => `cannot convert a table that contains itself (cycle at ${path})`);
  if (depth >= MAX_DEPTH) throw new PathedConversionError((path) => `cannot convert a table nested deeper than ${MAX_DEPTH} levels (at ${path})`);
  seen.add(t);
  try {
    if (mode === 'serde') {
      const len = rawLength(t);
      if (len > 0 || (t.metatable !== null && t.metatable === arrayMetatable(L))) {
        const out: unknown[] = new Array(len);
        for (let i = 1; i <= len; i++) {
          let v: unknown;
          try {
            v = convert(L, getInt(t, i), mode, seen, depth + 1, budget);
          } catch (err) {
            throw through(err, `[${i}]`);
          }
          out[i - 1] = v === undefined ? null : v;
        }
        return out;
      }
    }
    const keys: (string | number)[] = [];
    const values: unknown[] = [];
    for (let e = t.f; e !== undefined; e = e.n) {
      const key = keyOf(e.key);
      let v: unknown;
      try {
        v = convert(L, e.value, mode, seen, depth + 1, budget);
      } catch (err) {
        throw through(err, `.${String(key)}`);
      }
      if (v === undefined) continue;
      keys.push(key);
      values.push(v);
    }
    return tableValue(keys, values, mode);
  } finally {
    seen.delete(t);
  }
}

function keyOf(k: TValue): string | number {
  switch (k.type & 0x0f) {
    case lua.LUA_TSTRING:
      return stringOf((k.value as LuaString).realstring);
    case lua.LUA_TNUMBER:
      return k.value as number;
    case lua.LUA_TBOOLEAN:
      return String(k.value);
    default: {
      const name = typeNameOf(k);
      throw new PathedConversionError((path) => `cannot convert a table key of type ${name} at ${path}`);
    }
  }
}
