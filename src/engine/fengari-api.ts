/**
 * The C API as the engine core drives it (lua-api.ts) on fengari: Lua 5.3's lua.h and lauxlib as fengari writes
 * them in JavaScript, mostly as they are, with strings crossing as JS strings.
 */
import { NULL_TOKEN, luaBytes, jsString } from './fengari-bridge.ts';
import { lua, lauxlib, to_luastring, type LuaState as L } from './fengari-vm.ts';
import type { LuaApi } from './lua-api.ts';

/**
 * A name or message as Lua bytes, made once: the library and the engine core pass constants and field names on
 * every call (type(), string.char, getfield), and fengari's to_luastring walks each one char by char. Lua strings
 * never change their bytes, so one array serves every call. Bounded: long or many strings are made each time.
 */
const names = new Map<string, Uint8Array>();
const NAME_MAX_LENGTH = 128;
const NAMES_MAX = 4096;
export const str = (s: string): Uint8Array => {
  let bytes = names.get(s);
  if (bytes === undefined) {
    bytes = to_luastring(s) as Uint8Array;
    if (s.length <= NAME_MAX_LENGTH && names.size < NAMES_MAX) names.set(s, bytes);
  }
  return bytes;
};

/** luaL_error with a message built in JS: passed as an argument, so a '%' in it is not a format directive. */
export function raise(L: L, message: string): never {
  return lauxlib.luaL_error(L, str('%s'), luaBytes(message)) as never;
}

/** a Lua string's bytes as a JS string of the same bytes (names and sources are ASCII) */
export const latin1 = (b: Uint8Array | null) => (b ? String.fromCharCode(...b) : null);

/** The C API as the engine core drives it (lua-api.ts): fengari's lua.h in JS, mostly as it is. */
export const api: LuaApi<L> = {
  registry: lua.LUA_REGISTRYINDEX,
  gettop: lua.lua_gettop,
  settop: lua.lua_settop,
  pushvalue: lua.lua_pushvalue,
  rotate: lua.lua_rotate,
  type: lua.lua_type,
  pushnil: lua.lua_pushnil,
  pushboolean: lua.lua_pushboolean,
  pushinteger: lua.lua_pushinteger,
  pushnumber: lua.lua_pushnumber,
  pushstring: (L, s) => lua.lua_pushstring(L, luaBytes(s)),
  createtable: lua.lua_createtable,
  getfield: (L, idx, key) => lua.lua_getfield(L, idx, str(key)),
  setfield: (L, idx, key) => lua.lua_setfield(L, idx, str(key)),
  getglobal: (L, name) => lua.lua_getglobal(L, str(name)),
  setglobal: (L, name) => lua.lua_setglobal(L, str(name)),
  rawgeti: lua.lua_rawgeti,
  rawseti: lua.lua_rawseti,
  rawset: lua.lua_rawset,
  rawget: lua.lua_rawget,
  getmetatable: (L, idx) => Boolean(lua.lua_getmetatable(L, idx)),
  next: (L, idx) => lua.lua_next(L, idx) !== 0,
  pushglobaltable: lua.lua_pushglobaltable,
  setupvalue: (L, funcIdx, n) => lua.lua_setupvalue(L, funcIdx, n) !== null,
  getupvalue: (L, funcIdx, n) => lua.lua_getupvalue(L, funcIdx, n) !== null,
  tonumber: (L, idx) => lua.lua_tonumber(L, idx) as number,
  tostring: (L, idx) => jsString(L, idx),
  checkstring: (L, arg) => {
    lauxlib.luaL_checkstring(L, arg);
    return jsString(L, arg);
  },
  display: (L, idx) => {
    lauxlib.luaL_tolstring(L, idx);
    const s = jsString(L, -1);
    lua.lua_pop(L, 1);
    return s;
  },
  call: lua.lua_call,
  pcall: lua.lua_pcall,
  error: (L) => lua.lua_error(L) as never,
  raise,
  concat: lua.lua_concat,
  copy: lua.lua_copy,
  tolstring: (L, idx) => void lauxlib.luaL_tolstring(L, idx),
  isNull: (L, idx) => lua.lua_type(L, idx) === lua.LUA_TLIGHTUSERDATA && lua.lua_touserdata(L, idx) === NULL_TOKEN,
  traceback: (L, level) => lauxlib.luaL_traceback(L, L, null, level),
  where: lauxlib.luaL_where,
  head: (L, idx, n) => latin1((lua.lua_tostring(L, idx) as Uint8Array).subarray(0, n)) as string,
  pushtail: (L, idx, from) => {
    const bytes = lua.lua_tostring(L, idx) as Uint8Array;
    lua.lua_pushlstring(L, bytes.subarray(from), bytes.length - from);
  },
  callName: (L) => {
    const ar = new lua.lua_Debug();
    lua.lua_getstack(L, 0, ar);
    lua.lua_getinfo(L, str('n'), ar);
    return { name: latin1(ar.name), namewhat: latin1(ar.namewhat) ?? '' };
  },
};
