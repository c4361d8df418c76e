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

// A string's table key: fengari builds it by appending each byte's hex digits to a JS string, which for a string
// of megabytes (a file's content used as a key) takes seconds and a rope of gigabytes. Latin-1 maps bytes to
// chars one to one, so this key is as unique, built natively. llex builds its token keys with luaS_hash at load.
const hashKey = (s: Uint8Array): string => {
  if (s.length >= 64) return '|' + Buffer.from(s.buffer, s.byteOffset, s.length).toString('latin1');
  let key = '|';
  for (let i = 0; i < s.length; i++) key += String.fromCharCode(s[i] as number);
  return key;
};
const lstringKeys = lstring as unknown as { luaS_hash: (s: Uint8Array) => string; luaS_hashlongstr: (ts: { hash: string | null; getstr(): Uint8Array }) => string };
lstringKeys.luaS_hash = hashKey;
lstringKeys.luaS_hashlongstr = (ts) => (ts.hash ??= hashKey(ts.getstr()));

const fengari = require('fengari') as typeof Fengari;
export const { lua, lauxlib, lualib, to_luastring } = fengari;
export type LuaState = Fengari.LuaState;
