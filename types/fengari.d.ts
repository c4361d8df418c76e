// fengari ships no types; this declares the slice of its C-like API the engine uses.
declare module 'fengari' {
  export type LuaState = object & { readonly __luaState: unique symbol };
  export type CFunction = (L: LuaState) => number;
  export const lua: Record<string, any> & {
    LUA_OK: number; LUA_ERRRUN: number; LUA_ERRSYNTAX: number; LUA_MULTRET: number;
    LUA_TNIL: number; LUA_TBOOLEAN: number; LUA_TLIGHTUSERDATA: number; LUA_TNUMBER: number;
    LUA_TSTRING: number; LUA_TTABLE: number; LUA_TFUNCTION: number; LUA_TUSERDATA: number; LUA_TTHREAD: number;
    LUA_MASKCOUNT: number; LUA_REGISTRYINDEX: number; LUA_RIDX_GLOBALS: number;
  };
  export const lauxlib: Record<string, any>;
  export const lualib: Record<string, any>;
  export function to_luastring(s: string): Uint8Array;
  export function to_jsstring(s: Uint8Array): string;
}
