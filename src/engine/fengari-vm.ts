/**
 * fengari, loaded with a hook on string creation so the engine can guard memory (fengari has no allocator to
 * cap: strings are Uint8Arrays, tables JS objects). Every engine module takes fengari from here, never from
 * 'fengari' directly.
 *
 * fengari's modules destructure `luaS_bless`/`luaS_new` from lstring.js when they load, so the hook must be in
 * place first: this file drops any fengari already in the require cache, patches lstring.js, then loads fengari
 * (a private instance; values of another instance must not be mixed with it).
 */
import { createRequire } from 'node:module';
import nodePath from 'node:path';
import type * as Fengari from 'fengari';

const require = createRequire(import.meta.url);
const root = nodePath.dirname(require.resolve('fengari/package.json')) + nodePath.sep;
for (const key of Object.keys(require.cache)) if (key.startsWith(root)) delete require.cache[key];

/** Called for each new Lua string of at least `STRING_HOOK_FROM` bytes, before it exists (may raise a Lua error). */
export type BigStringHook = (L: Fengari.LuaState, bytes: number) => void;
export const STRING_HOOK_FROM = 64 * 1024;
let bigStringHook: BigStringHook | undefined;
export function setBigStringHook(hook: BigStringHook): void {
  bigStringHook = hook;
}

const lstring = require(root + 'src/lstring.js') as Record<string, (L: Fengari.LuaState, s: Uint8Array) => unknown>;
const { luaS_bless, luaS_new } = lstring;
// plain functions, not arrows: ltm.js calls `new luaS_new(...)`
lstring.luaS_bless = function (L, s) {
  if (s.length >= STRING_HOOK_FROM) bigStringHook?.(L, s.length);
  return luaS_bless(L, s);
};
lstring.luaS_new = function (L, s) {
  if (s.length >= STRING_HOOK_FROM) bigStringHook?.(L, s.length);
  return luaS_new(L, s);
};

const fengari = require('fengari') as typeof Fengari;
export const { lua, lauxlib, lualib, to_luastring } = fengari;
export type LuaState = Fengari.LuaState;
