/**
 * fengari, loaded with a hook on string creation so the engine can guard memory (fengari has no allocator to
 * cap: strings are Uint8Arrays, tables JS objects). Every engine module takes fengari from here, never from
 * 'fengari' directly.
 *
 * fengari's modules destructure `luaS_bless`/`luaS_new` from lstring.js when they load, so the hook must be in
 * place first: this file drops any fengari already in the require cache, patches lstring.js, then loads fengari
 * (a private instance; values of another instance must not be mixed with it), its sources edited as they are
 * compiled (PATCHES: stack slots and CallInfos reused, a table's removed keys kept only once there are some, no
 * closure cache), each edit checked against fengari 0.1.5's text.
 */
import { createRequire } from 'node:module';
import { readFileSync } from 'node:fs';
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

/**
 * fengari gives each stack slot a new TValue whenever its stack grows (at every call, the callee's whole frame), and
 * empties slots with `delete L.stack[i]` as it shrinks: two allocations' worth of work per slot and call, and
 * `delete` on an array element is a slow generic operation in V8 that leaves the array holey. Its modules are loaded
 * here with those `delete`s dropped (the index expression still runs: `--L.top`), so a slot above the top keeps its
 * TValue, and with ldo.js's growth reusing that TValue, set to nil, where there is one. The VM reads no slot above
 * the top: a value popped is copied where it goes (tables, upvalues of JS closures, results); and a Lua closure's
 * upvalue is its slot's TValue only while the frame runs: the frame's return, an error unwinding it, and the end of
 * a block replace the captured slots with new TValues (lfunc.js luaF_close), as C Lua closes its upvalues. A slot
 * above the top holds on to its last value until reused; `clearDeadSlots` drops those, as C Lua's collector clears
 * the dead part of a stack.
 */
export const STACK_DELETE = /\bdelete L\.stack\[([^\]\n]+)\];/g;
/** ldo.js's growth of the stack by one nil slot (adjust_top, luaD_inctop, missing arguments, error objects) */
export const NIL_SLOT = 'L.stack[L.top++] = new lobject.TValue(LUA_TNIL, null);';

/**
 * A table keeps the entries removed since its last new key in `dead_strong` (a Map), so that `next` can go on from a
 * key removed during a traversal; a new key empties it. fengari made that Map with every table and emptied it
 * (`Map.clear`, which allocates a new backing store) at every new key of every table. Here it is made at the first
 * removal and dropped at the next new key: the same entries are found, for a table built without removals no Map.
 */
export const DEAD_KEYS_EAGER = ['this.dead_strong = new Map();', 't.dead_strong.clear();', 't.dead_strong.set(hash, e);', '|| table.dead_strong.get(hash);'];

/**
 * Lua 5.3 reuses a closure when the same function expression is evaluated again with the same upvalues (a
 * prototype's `cache`); Lua 5.4, which AIPack runs, makes a new closure each time. Prototypes are shared across
 * states here (see `protoOf`), so the cache would also hand one state's closure to another: OP_CLOSURE neither
 * looks in it nor fills it.
 */
export const CLOSURE_CACHE = ['let ncl = getcached(p, cl.upvals, L.stack, base);', 'p.cache = ncl;'];

/**
 * fengari made a new CallInfo at every call (`luaE_extendCI`) and dropped the finished one at every return
 * (`luaD_poscall`). As in C Lua, the next call takes the CallInfo a finished call left after the current one, with
 * every field as a new one has it (fengari reads a continuation `c_k` only when it is not null). Nothing holds a
 * finished CallInfo: debug levels are read while their frames run.
 */
export const CALLINFO_NEW = '    let ci = new CallInfo();\n    L.ci.next = ci;\n    ci.previous = L.ci;\n    ci.next = null;\n';
const CALLINFO_REUSED = `    let ci = L.ci.next;
    if (ci === null) {
        ci = new CallInfo();
        L.ci.next = ci;
        ci.previous = L.ci;
        ci.next = null;
    } else {
        ci.func = null; ci.funcOff = NaN; ci.top = NaN; ci.l_base = NaN; ci.l_code = null; ci.l_savedpc = NaN;
        ci.c_k = null; ci.c_old_errfunc = null; ci.c_ctx = null; ci.nresults = NaN; ci.callstatus = NaN;
    }
`;

/** Each patch: the file, the text, what replaces it, and how many times fengari 0.1.5 has that text. */
const PATCHES: { file: string; text: string; by: string; times: number }[] = [
  { file: 'lstate.js', text: CALLINFO_NEW, by: CALLINFO_REUSED, times: 1 },
  { file: 'ldo.js', text: '    L.ci = ci.previous;\n    L.ci.next = null;\n', by: '    L.ci = ci.previous;\n', times: 1 },
  { file: 'lvm.js', text: CLOSURE_CACHE[0]!, by: 'let ncl = null;', times: 1 },
  { file: 'lvm.js', text: CLOSURE_CACHE[1]!, by: '', times: 1 },
  { file: 'ldo.js', text: NIL_SLOT, by: '{ const o = L.stack[L.top]; if (o === undefined) L.stack[L.top] = new lobject.TValue(LUA_TNIL, null); else o.setnilvalue(); L.top++; }', times: 5 },
  { file: 'ltable.js', text: DEAD_KEYS_EAGER[0]!, by: 'this.dead_strong = void 0;', times: 1 },
  { file: 'ltable.js', text: DEAD_KEYS_EAGER[1]!, by: 't.dead_strong = void 0;', times: 1 },
  { file: 'ltable.js', text: DEAD_KEYS_EAGER[2]!, by: '(t.dead_strong || (t.dead_strong = new Map())).set(hash, e);', times: 1 },
  { file: 'ltable.js', text: DEAD_KEYS_EAGER[3]!, by: '|| (table.dead_strong && table.dead_strong.get(hash));', times: 1 },
];

type JsLoader = (m: { _compile(src: string, file: string): void }, file: string) => void;
/** `load()` with fengari's modules compiled as above (any other file as Node compiles it) */
function withFengariPatches<T>(load: () => T): T {
  const cjs = require('node:module') as unknown as { _extensions: Record<string, JsLoader> };
  const loadJs = cjs._extensions['.js'] as JsLoader;
  cjs._extensions['.js'] = (m, file) => {
    if (!file.startsWith(root + 'src' + nodePath.sep)) return loadJs(m, file);
    let code = readFileSync(file, 'utf8').replace(STACK_DELETE, 'void ($1);');
    for (const patch of PATCHES) {
      if (file !== root + 'src' + nodePath.sep + patch.file) continue;
      const found = code.split(patch.text).length - 1;
      // another fengari than the pinned one: its code is not the one these patches reason about
      if (found !== patch.times) throw new Error(`fengari's ${patch.file} has \`${patch.text}\` ${found} times, not ${patch.times}: the installed fengari is not 0.1.5`);
      code = code.replaceAll(patch.text, patch.by);
    }
    m._compile(code, file);
  };
  try {
    return load();
  } finally {
    cjs._extensions['.js'] = loadJs;
  }
}

/** Empties the slots above the top of `L`'s stack and of its main thread's (see the note on STACK_DELETE). */
export function clearDeadSlots(L: LuaState): void {
  const threads = L as unknown as { stack: unknown[]; top: number; l_G: { mainthread: { stack: unknown[]; top: number } } };
  for (const t of [threads, threads.l_G.mainthread]) {
    for (let i = t.top; i < t.stack.length; i++) t.stack[i] = undefined;
  }
}

// lstring.js and what it requires (defs.js, llimits.js) empty no stack slot
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

/**
 * String keys of fengari's tables are JS strings made from the bytes (`luaS_hash`), and string comparison (`<`)
 * compares those keys. fengari writes each byte as unpadded hex, which is slow, collides ("\1#" and "\x12\3" are
 * the same key) and misorders bytes below 0x10. Here each byte is one char code after a "|" (the prefix ltable.js
 * keeps free of its other key kinds): one-to-one, and ordered as the bytes are, as in C Lua.
 */
const latin1 = (s: Uint8Array): string => {
  if (s.length > 64) return '|' + Buffer.from(s.buffer, s.byteOffset, s.length).toString('latin1');
  let out = '|';
  for (let i = 0; i < s.length; i++) out += String.fromCharCode(s[i]);
  return out;
};
lstring.luaS_hash = latin1 as never;
lstring.luaS_hashlongstr = function (ts: unknown) {
  const t = ts as { hash: string | null; realstring: Uint8Array };
  if (t.hash === null) t.hash = latin1(t.realstring);
  return t.hash;
} as never;

const fengari = withFengariPatches(() => require('fengari') as typeof Fengari);
export const { lua, lauxlib, lualib, to_luastring } = fengari;
export type LuaState = Fengari.LuaState;

const lfunc = require(root + 'src/lfunc.js') as { luaF_initupvals(L: unknown, cl: unknown): void };


const lobject = require(root + 'src/lobject.js') as {
  LClosure: new (L: unknown, n: number) => { p: unknown; nupvalues: number; upvals: { setfrom(v: unknown): void }[] };
  TValue: unknown;
  pushsvalue2s(L: unknown, ts: unknown): void;
};
const ldo = require(root + 'src/ldo.js') as { luaD_inctop(L: unknown): void };
const ltable = require(root + 'src/ltable.js') as { luaH_getint(t: unknown, i: number): unknown };

/** A Lua string value of fengari (its bytes are never changed once made, so one may serve every state). */
export type LuaString = { readonly realstring: Uint8Array };

/** A Lua string of exactly these bytes, which it takes without copying (the caller must not change them). */
export function luaString(L: LuaState, bytes: Uint8Array): LuaString {
  return lstring.luaS_bless(L, bytes) as unknown as LuaString;
}

/** Pushes a Lua string made by `luaString` (from any state: strings hold no state). */
export function pushLuaString(L: LuaState, s: LuaString): void {
  lobject.pushsvalue2s(L, s);
}

/** A compiled function prototype, shareable by states (immutable once loaded; see the `cache` note above). */
export type Proto = { readonly __proto: unique symbol };

/** The prototype of the Lua function on top of the stack (as left by a successful load). */
export function protoOf(L: LuaState): Proto {
  const top = (L as unknown as { stack: { value: { p: Proto } }[]; top: number });
  return top.stack[top.top - 1].value.p;
}

/** Names `proto` and the functions it defines as coming from `source` (a chunk name, '@file' or '=name'). */
export function setProtoSource(proto: Proto, source: LuaString): void {
  const p = proto as unknown as { source: unknown; p: Proto[] };
  p.source = source;
  for (const inner of p.p) setProtoSource(inner, source);
}

/** Pushes a new closure of `proto` with fresh upvalues, the first being the globals, as lua_load leaves a chunk. */
export function pushProto(L: LuaState, proto: Proto): void {
  const cl = new lobject.LClosure(L, (proto as unknown as { upvalues: unknown[] }).upvalues.length);
  cl.p = proto;
  ldo.luaD_inctop(L);
  (L as unknown as { stack: { setclLvalue(v: unknown): void }[]; top: number }).stack[(L as unknown as { top: number }).top - 1].setclLvalue(cl);
  lfunc.luaF_initupvals(L, cl);
  if (cl.nupvalues >= 1) {
    const registry = (L as unknown as { l_G: { l_registry: { value: unknown } } }).l_G.l_registry.value;
    cl.upvals[0].setfrom(ltable.luaH_getint(registry, lua.LUA_RIDX_GLOBALS));
  }
}


// ---- fengari's value structures, for the bridge's direct table paths (fengari-bridge.ts) ----------------------

/** A Lua value slot (fengari's TValue): `type` is a variant tag (constant_types), `value` the JS payload. */
export interface TValue {
  type: number;
  value: unknown;
}
/** One key/value entry of a table, in insertion order (`n`); lua_next walks the same list. */
export interface TableEntry {
  key: TValue;
  value: TValue;
  n: TableEntry | undefined;
}
/** A Lua table (fengari's Table). */
export interface LuaTable {
  f: TableEntry | undefined;
  metatable: LuaTable | null;
}

const defs = require(root + 'src/defs.js') as { constant_types: Record<string, number> };
/** fengari's variant tags: LUA_TNUMINT, LUA_TLNGSTR, LUA_TLCF, ... */
export const TAG = defs.constant_types;
const ltableAll = require(root + 'src/ltable.js') as {
  luaH_new(L: unknown): LuaTable;
  luaH_setint(t: LuaTable, key: number, value: TValue): void;
  luaH_setfrom(L: unknown, t: LuaTable, key: TValue, value: TValue): void;
  luaH_getint(t: LuaTable, key: number): TValue;
  luaH_get(L: unknown, t: LuaTable, key: TValue): TValue;
  luaH_getn(t: LuaTable): number;
  invalidateTMcache(t: LuaTable): void;
};
const TValueClass = lobject.TValue as unknown as new (type: number, value: unknown) => TValue;

export const tvalue = (type: number, value: unknown): TValue => new TValueClass(type, value);
export const newTable = (L: LuaState): LuaTable => ltableAll.luaH_new(L);
/** t[key] = value, raw (a nil value deletes), as lua_rawseti */
export const setInt = (t: LuaTable, key: number, value: TValue): void => ltableAll.luaH_setint(t, key, value);
/** t[key] = value, raw, as lua_rawset (string keys may name metamethods: the metamethod cache is reset) */
export function setField(L: LuaState, t: LuaTable, key: TValue, value: TValue): void {
  ltableAll.luaH_setfrom(L, t, key, value);
  ltableAll.invalidateTMcache(t);
}
export const getInt = (t: LuaTable, key: number): TValue => ltableAll.luaH_getint(t, key);
/** t[key], raw, as lua_rawget (nil: a value of type LUA_TNIL) */
export const getField = (L: LuaState, t: LuaTable, key: TValue): TValue => ltableAll.luaH_get(L, t, key);
/** fengari's nil value, for raw sets that delete */
export const NIL: TValue = tvalue(TAG.LUA_TNIL, undefined);
/** the border lua_rawlen gives */
export const rawLength = (t: LuaTable): number => ltableAll.luaH_getn(t);

/** The value at a valid absolute stack index (as lua_absindex gives). */
export function valueAt(L: LuaState, idx: number): TValue {
  const l = L as unknown as { stack: TValue[]; ci: { funcOff: number } };
  return l.stack[l.ci.funcOff + idx];
}

/** Pushes a value slot made by `tvalue` (the caller ensures stack room, as for lua_push*). */
export function pushValue(L: LuaState, v: TValue): void {
  const l = L as unknown as { stack: TValue[]; top: number };
  l.stack[l.top++] = v;
}
