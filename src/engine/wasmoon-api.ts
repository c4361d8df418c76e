/**
 * The C API as the engine core drives it (lua-api.ts) on lua54: Lua 5.4's own functions, compiled to WebAssembly,
 * called on wasmoon's module with names, strings and debug records in its memory.
 */
import type { LuaApi } from './lua-api.ts';
import { int64 } from './wasmoon-int64.ts';
import { cstr, LEN_CELL, M, NULL_PTR, pushString, raise, REGISTRY, RIDX_GLOBALS, T_LIGHTUSERDATA, toStr } from './wasmoon-bridge.ts';

/** a lua_Debug (108 bytes on wasm32): name at +4, namewhat at +8, source at +16 */
export const DEBUG_INFO = M._malloc(128) as number;
export const cString = (p: number) => {
  if (!p) return null;
  let end = p;
  while (M.HEAPU8[end]) end++;
  return String.fromCharCode(...M.HEAPU8.subarray(p, end));
};

export const api: LuaApi<number> = {
  registry: REGISTRY,
  gettop: (L) => M._lua_gettop(L),
  settop: (L, idx) => M._lua_settop(L, idx),
  pushvalue: (L, idx) => M._lua_pushvalue(L, idx),
  rotate: (L, idx, n) => M._lua_rotate(L, idx, n),
  type: (L, idx) => M._lua_type(L, idx),
  pushnil: (L) => M._lua_pushnil(L),
  pushboolean: (L, b) => M._lua_pushboolean(L, b ? 1 : 0),
  pushinteger: (L, n) => M._lua_pushinteger(L, int64(n)),
  pushnumber: (L, n) => M._lua_pushnumber(L, n),
  pushstring: pushString,
  createtable: (L, narr, nrec) => M._lua_createtable(L, narr, nrec),
  getfield: (L, idx, key) => M._lua_getfield(L, idx, cstr(key)),
  setfield: (L, idx, key) => M._lua_setfield(L, idx, cstr(key)),
  getglobal: (L, name) => M._lua_getglobal(L, cstr(name)),
  setglobal: (L, name) => M._lua_setglobal(L, cstr(name)),
  rawgeti: (L, idx, i) => M._lua_rawgeti(L, idx, int64(i)),
  rawseti: (L, idx, i) => M._lua_rawseti(L, idx, int64(i)),
  rawset: (L, idx) => M._lua_rawset(L, idx),
  rawget: (L, idx) => M._lua_rawget(L, idx),
  getmetatable: (L, idx) => M._lua_getmetatable(L, idx) !== 0,
  next: (L, idx) => M._lua_next(L, idx) !== 0,
  pushglobaltable: (L) => M._lua_rawgeti(L, REGISTRY, RIDX_GLOBALS),
  setupvalue: (L, funcIdx, n) => M._lua_setupvalue(L, funcIdx, n) !== 0,
  getupvalue: (L, funcIdx, n) => M._lua_getupvalue(L, funcIdx, n) !== 0,
  tonumber: (L, idx) => M._lua_tonumberx(L, idx, 0) as number,
  tostring: toStr,
  checkstring: (L, arg) => {
    M._luaL_checklstring(L, arg, 0); // raises Lua's own "string expected" error
    return toStr(L, arg);
  },
  display: (L, idx) => {
    M._luaL_tolstring(L, idx, 0);
    const s = toStr(L, -1);
    M._lua_settop(L, -2);
    return s;
  },
  call: (L, nargs, nresults) => M._lua_callk(L, nargs, nresults, 0, 0),
  pcall: (L, nargs, nresults, msgh) => M._lua_pcallk(L, nargs, nresults, msgh, 0, 0),
  error: (L) => M._lua_error(L) as never,
  raise,
  concat: (L, n) => M._lua_concat(L, n),
  copy: (L, from, to) => M._lua_copy(L, from, to),
  tolstring: (L, idx) => void M._luaL_tolstring(L, idx, 0),
  isNull: (L, idx) => M._lua_type(L, idx) === T_LIGHTUSERDATA && M._lua_touserdata(L, idx) === NULL_PTR,
  traceback: (L, level) => M._luaL_traceback(L, L, 0, level),
  where: (L, level) => M._luaL_where(L, level),
  head: (L, idx, n) => {
    const p = M._lua_tolstring(L, idx, LEN_CELL) as number;
    return String.fromCharCode(...M.HEAPU8.subarray(p, p + Math.min(M.HEAPU32[LEN_CELL >> 2] as number, n)));
  },
  pushtail: (L, idx, from) => {
    const p = M._lua_tolstring(L, idx, LEN_CELL) as number;
    M._lua_pushlstring(L, p + from, (M.HEAPU32[LEN_CELL >> 2] as number) - from);
  },
  callName: (L) => {
    M._lua_getstack(L, 0, DEBUG_INFO);
    M._lua_getinfo(L, cstr('n'), DEBUG_INFO);
    return { name: cString(M.HEAP32[(DEBUG_INFO + 4) >> 2] as number), namewhat: cString(M.HEAP32[(DEBUG_INFO + 8) >> 2] as number) ?? '' };
  },
};
