/**
 * The part of the Lua C API the engine core (sandboxed-state.ts) drives, one small adapter per engine: fengari's
 * API mirrors lua.h in JS, wasmoon's is lua.h itself compiled to WebAssembly. `L` is the engine's thread handle.
 * Indexes, type tags and statuses are Lua's own; strings cross as JS strings (UTF-8 on the Lua side).
 */
/** How a C function was called (lua_getinfo "n" of level 0). */
export interface CallName {
  name: string | null;
  namewhat: string;
}

export interface LuaApi<L> {
  /** LUA_REGISTRYINDEX */
  readonly registry: number;
  gettop(L: L): number;
  settop(L: L, idx: number): void;
  pushvalue(L: L, idx: number): void;
  rotate(L: L, idx: number, n: number): void;
  /** the type tag at `idx` (conversion.ts T_*) */
  type(L: L, idx: number): number;
  pushnil(L: L): void;
  pushboolean(L: L, b: boolean): void;
  pushinteger(L: L, n: number): void;
  pushnumber(L: L, n: number): void;
  pushstring(L: L, s: string): void;
  createtable(L: L, narr: number, nrec: number): void;
  getfield(L: L, idx: number, key: string): void;
  setfield(L: L, idx: number, key: string): void;
  getglobal(L: L, name: string): void;
  setglobal(L: L, name: string): void;
  rawgeti(L: L, idx: number, i: number): void;
  rawseti(L: L, idx: number, i: number): void;
  rawset(L: L, idx: number): void;
  /** lua_rawget: pops a key, pushes t[key] of the table at `idx` */
  rawget(L: L, idx: number): void;
  /** lua_getmetatable: pushes the metatable of the value at `idx` and answers true, or pushes nothing */
  getmetatable(L: L, idx: number): boolean;
  next(L: L, idx: number): boolean;
  pushglobaltable(L: L): void;
  setupvalue(L: L, funcIdx: number, n: number): boolean;
  /** lua_getupvalue: pushes upvalue `n` of the function at `funcIdx` and answers true, or pushes nothing */
  getupvalue(L: L, funcIdx: number, n: number): boolean;
  tonumber(L: L, idx: number): number;
  /** the string (or number, converted in place) at `idx` */
  tostring(L: L, idx: number): string;
  /** luaL_checklstring: the argument as a string, or Lua's own "string expected" error */
  checkstring(L: L, arg: number): string;
  /** luaL_tolstring without the pushed copy: any value as `tostring` shows it */
  display(L: L, idx: number): string;
  call(L: L, nargs: number, nresults: number): void;
  /** lua_pcall; the status */
  pcall(L: L, nargs: number, nresults: number, msgh: number): number;
  /** lua_error with the value on top */
  error(L: L): never;
  /** raises `message` as this engine's host functions raise their errors */
  raise(L: L, message: string): never;
  concat(L: L, n: number): void;
  /** luaL_where: pushes "chunkname:line: " of the function at `level` ("" for a C function) */
  where(L: L, level: number): void;
  /** the first `n` bytes of the string at `idx`, one char per byte */
  head(L: L, idx: number, n: number): string;
  /** pushes the bytes of the string at `idx` from byte `from` on */
  pushtail(L: L, idx: number, from: number): void;
  /** lua_copy */
  copy(L: L, from: number, to: number): void;
  /** luaL_tolstring: pushes any value as `tostring` shows it */
  tolstring(L: L, idx: number): void;
  /** the value at `idx` is AIPack's `null` sentinel */
  isNull(L: L, idx: number): boolean;
  /** luaL_traceback without a message: pushes "stack traceback:..." of `L` from `level` */
  traceback(L: L, level: number): void;
  /** how the running C function was called (lua_getstack level 0, lua_getinfo "n") */
  callName(L: L): CallName;
}
