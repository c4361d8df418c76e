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
import { hostFunctionBody, jsToLua, luaToJs, type HostCallIO, type ValueBuilder, type ValueReader } from './conversion.ts';
import { MAX_NODES, type ConvertMode } from './values.ts';

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

/** fengari's values as the conversion policy reads them (conversion.ts): value slots, tables read in place. */
const reader: ValueReader<L, TValue> = {
  type: (_L, v) => v.type & 0x0f,
  boolean: (_L, v) => v.value as boolean,
  number: (_L, v) => v.value as number,
  string: (_L, v) => stringOf((v.value as LuaString).realstring),
  identity: (_L, t) => t.value,
  rawLength: (_L, t) => rawLength(t.value as LuaTable),
  isArray: (L, t) => {
    const mt = (t.value as LuaTable).metatable;
    return mt !== null && mt === arrayMetatable(L);
  },
  item: (_L, t, i) => getInt(t.value as LuaTable, i),
  drop: () => {},
  forEach: (_L, t, visit) => {
    // fengari's insertion-ordered entry list, the order lua_next walks
    for (let e = (t.value as LuaTable).f; e !== undefined; e = e.n) visit(e.key, e.value);
  },
  reserve: () => {},
};

/**
 * fengari's values as the conversion policy builds them: tables are made directly in fengari's structures (no
 * stack traffic per element), with the same raw sets lua_rawseti/lua_rawset do and the array metatable set as
 * lua_setmetatable does.
 */
const builder: ValueBuilder<L, TValue, LuaTable> = {
  nil: () => tvalue(TAG.LUA_TNIL, null),
  null: () => tvalue(TAG.LUA_TLIGHTUSERDATA, NULL_TOKEN),
  boolean: (_L, b) => tvalue(TAG.LUA_TBOOLEAN, b),
  // fengari integers are 32-bit; anything larger stays a float (docs/engines.md)
  number: (_L, n) => (Number.isInteger(n) && n >= -2147483648 && n <= 2147483647 ? tvalue(TAG.LUA_TNUMINT, n) : tvalue(TAG.LUA_TNUMFLT, n)),
  string: (L, s) => tvalue(TAG.LUA_TLNGSTR, luaStr(L, s)),
  function: (_L, fn) => tvalue(TAG.LUA_TLCF, hostFunctionBody(hostCalls, fn)),
  list: (L) => {
    const t = newTable(L);
    t.metatable = arrayMetatable(L);
    return t;
  },
  record: (L) => newTable(L),
  setIndex: (_L, t, i, item) => setInt(t, i, item),
  setKey: (L, t, key, item) => setField(L, t, tvalue(TAG.LUA_TLNGSTR, luaStr(L, key)), item),
  done: (_L, t) => tvalue(TAG.LUA_TTABLE, t),
};

/** Pushes a JS value (conversion.ts); `topNullIsNil`: a top-level null becomes nil. */
export function pushJs(L: L, value: unknown, topNullIsNil: boolean): void {
  lauxlib.luaL_checkstack(L, 1, null);
  pushValue(L, jsToLua(builder, L, value, topNullIsNil));
}

/** a Lua error in flight: fengari unwinds by throwing the thread's error record (ldo.js luaD_throw) */
export const isUnwind = (err: unknown) => !(err instanceof Error) && typeof err === 'object' && err !== null && 'status' in err;

const hostCalls: HostCallIO<L> = {
  top: (L) => lua.lua_gettop(L),
  arg: (L, i, mode) => toJs(L, i, mode, `argument #${i}`),
  push: (L, values) => {
    lauxlib.luaL_checkstack(L, values.length, null);
    for (const v of values) pushJs(L, v, false);
  },
  isUnwind,
  raise: (L, message) => {
    lua.lua_pushstring(L, luaBytes(message));
    return lua.lua_error(L) as never;
  },
};

/** Converts the Lua value at `idx` to JS data with one of AIPack's two conversions (values.ts). */
export function toJs(L: L, idx: number, mode: ConvertMode, where = 'value', maxNodes = MAX_NODES): unknown {
  const abs = lua.lua_absindex(L, idx);
  if (abs < 1 || abs > lua.lua_gettop(L)) return undefined; // no value there (LUA_TNONE)
  return luaToJs(reader, L, valueAt(L, abs), mode, where, maxNodes);
}
