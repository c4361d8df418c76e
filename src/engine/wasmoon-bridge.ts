/**
 * Lua 5.4 (wasmoon's WebAssembly build) driven through its raw C API, and the JS <-> Lua value bridge on it.
 *
 * wasmoon's own JS interop (Global/Thread, type extensions) is never used: it hands Lua proxies of JS objects and
 * functions, and JS callbacks that accept JS values. Here Lua sees only plain tables, strings, numbers and the
 * host functions the simulator pushes; JS sees only plain data (values.ts). The module is instantiated once per
 * process (top-level await: importing this file loads the engine).
 */
import { BIG_STRING, bigStringBytes } from './big-strings.ts';
import { hostFunctionBody, jsToLua, luaToJs, type HostCallIO, type ValueBuilder, type ValueReader } from './conversion.ts';
import { MAX_NODES, type ConvertMode } from './values.ts';
import { M } from './wasmoon-instance.ts';
import { int64 } from './wasmoon-int64.ts';
import { decodeAt } from './wasmoon-text.ts';
import { probeDirectReading, tableInPlace } from './wasmoon-direct-reader.ts';
import { readText } from '../support/host-fs.ts';

/** the probe of the in-place reader (wasmoon-direct-probe.lua, beside this module) */
const DIRECT_PROBE_LUA = readText(new URL('./wasmoon-direct-probe.lua', import.meta.url));

/** The WebAssembly build of Lua 5.4 with its raw exports (wasmoon-module.ts), loaded once per process. */
export { M };

export const LUA_OK = 0;
export const LUA_ERRMEM = 4;
export { T_FUNCTION, T_LIGHTUSERDATA, T_NIL, T_NUMBER, T_STRING, T_TABLE } from './conversion.ts';
export const LUA_MASKCOUNT = 8;
export const LUA_MULTRET = -1;
export const REGISTRY = -1_000_000 - 1000;
export const RIDX_GLOBALS = 2n;
export const upvalueIndex = (i: number) => REGISTRY - i;


/** A size_t out-parameter and the `ud` out-parameter of lua_getallocf: fixed cells, never freed. */
export const LEN_CELL = M._malloc(8) as number;
export const UD_CELL = M._malloc(8) as number;

/** The identity behind AIPack's `null` global: one light userdata pointer shared by every state. */
export const NULL_PTR = M._malloc(1) as number;

// ---- strings ----------------------------------------------------------------------------------------------

const encoder = new TextEncoder();

let scratch = 0;
let scratchSize = 0;

/** A reusable wasm buffer of at least `n` bytes (contents are only valid until the next call). */
function scratchBuffer(n: number): number {
  if (n > scratchSize) {
    if (scratch) M._free(scratch);
    scratchSize = Math.max(n, scratchSize * 2, 1024);
    scratch = M._malloc(scratchSize);
    if (!scratch) throw new Error('wasmoon: out of memory for a string buffer');
  }
  return scratch;
}

/** Pushes a JS string as UTF-8 bytes (one encodeInto, no per-byte arrays). */
export function pushString(L: number, s: string): void {
  const n = s.length;
  if (n <= 64) {
    // short ASCII strings: a loop beats encodeInto's call overhead
    const p = scratchBuffer(n + 1);
    const heap = M.HEAPU8;
    let i = 0;
    for (; i < n; i++) {
      const c = s.charCodeAt(i);
      if (c >= 0x80) break;
      heap[p + i] = c;
    }
    if (i === n) {
      M._lua_pushlstring(L, p, n);
      return;
    }
  }
  if (n >= BIG_STRING) {
    const bytes = bigStringBytes(s, (x) => encoder.encode(x));
    const p = scratchBuffer(bytes.length + 1);
    M.HEAPU8.set(bytes, p);
    M._lua_pushlstring(L, p, bytes.length);
    return;
  }
  const max = n * 3;
  const p = scratchBuffer(max + 1);
  const { written } = encoder.encodeInto(s, M.HEAPU8.subarray(p, p + max));
  M._lua_pushlstring(L, p, written);
}

/** The string at `idx` (must be a string or a number, which Lua converts in place). */
export function toStr(L: number, idx: number): string {
  const p = M._lua_tolstring(L, idx, LEN_CELL);
  if (!p) return '';
  return decodeAt(p, M.HEAPU32[LEN_CELL >> 2]);
}

/** Bytes of the string at `idx`, copied out of wasm memory. */
export function toBytes(L: number, idx: number): Uint8Array {
  const p = M._lua_tolstring(L, idx, LEN_CELL);
  return M.HEAPU8.slice(p, p + M.HEAPU32[LEN_CELL >> 2]);
}

// NUL-terminated names (fields, globals, chunk names, modes): encoded once and kept.
const cstrings = new Map<string, number>();
export function cstr(s: string): number {
  let p = cstrings.get(s);
  if (p === undefined) {
    const bytes = encoder.encode(s);
    p = M._malloc(bytes.length + 1) as number;
    M.HEAPU8.set(bytes, p);
    M.HEAPU8[p + bytes.length] = 0;
    if (cstrings.size < 20_000) cstrings.set(s, p);
    else tempCStrings.push(p);
  }
  return p;
}
const tempCStrings: number[] = [];
/** frees names that did not fit the cache (call when no Lua call is using them) */
export function freeTempCStrings(): void {
  for (const p of tempCStrings.splice(0)) M._free(p);
}

/** Copies bytes into a fresh malloc'd buffer (the caller frees it). */
export function mallocBytes(bytes: Uint8Array): number {
  const p = M._malloc(Math.max(1, bytes.length)) as number;
  M.HEAPU8.set(bytes, p);
  return p;
}

// ---- host functions: one C trampoline for all, the JS function found by an id upvalue ------------------------

type CFunction = (L: number) => number;
const cfunctions: (CFunction | undefined)[] = [];
const freeIds: number[] = [];

const DISPATCH = M.addFunction((L: number) => {
  const id = Number(M._lua_tointegerx(L, upvalueIndex(1), 0));
  return (cfunctions[id] as CFunction)(L);
}, 'ii');

/** Registers a JS C-function; `owner` collects ids to release when the state closes (omit for permanent ones). */
export function registerCFunction(fn: CFunction, owner?: number[]): number {
  const id = freeIds.pop() ?? cfunctions.length;
  cfunctions[id] = fn;
  owner?.push(id);
  return id;
}

export function pushCFunction(L: number, id: number): void {
  M._lua_pushinteger(L, BigInt(id));
  M._lua_pushcclosure(L, DISPATCH, 1);
}

/** Pushes a C closure of a registered function over the top `nups` values (its upvalues 2..nups+1; 1 is the id). */
export function pushCClosure(L: number, id: number, nups: number): void {
  M._lua_pushinteger(L, BigInt(id));
  M._lua_rotate(L, -(nups + 1), 1);
  M._lua_pushcclosure(L, DISPATCH, nups + 1);
}

export function releaseCFunctions(ids: number[]): void {
  for (const id of ids) {
    cfunctions[id] = undefined;
    freeIds.push(id);
  }
  ids.length = 0;
}

/** Raises a Lua error with a message built in JS (never returns: lua_error unwinds with emscripten's longjmp). */
export function raise(L: number, message: string): never {
  pushString(L, message);
  return M._lua_error(L) as never;
}

/** emscripten's longjmp is a thrown number: it must pass through JS frames untouched. */
export const isLongjmp = (err: unknown) => typeof err === 'number';

// ---- the array metatable ----------------------------------------------------------------------------------

const ARRAY_MT_KEY = 'coder_subagents.array_mt';
/** its C string, looked up once: the builder asks for the metatable at every list it makes */
const ARRAY_MT_NAME = cstr(ARRAY_MT_KEY);

export function setArrayMetatable(L: number): void {
  M._lua_createtable(L, 0, 1);
  pushString(L, 'array');
  M._lua_setfield(L, -2, cstr('__name'));
  M._lua_setfield(L, REGISTRY, ARRAY_MT_NAME);
}

function hasArrayMetatable(L: number, idx: number): boolean {
  if (!M._lua_getmetatable(L, idx)) return false;
  M._lua_getfield(L, REGISTRY, ARRAY_MT_NAME);
  const same = M._lua_rawequal(L, -1, -2) !== 0;
  M._lua_settop(L, -3);
  return same;
}

// ---- values, as the conversion policy reads and builds them (conversion.ts) --------------------------------------

/** Lua values by stack index, read through the C API. */
const reader: ValueReader<number, number> = {
  type: (L, idx) => M._lua_type(L, idx),
  boolean: (L, idx) => M._lua_toboolean(L, idx) !== 0,
  // an integer comes out as the nearest double, as Number() of it would round it
  number: (L, idx) => M._lua_tonumberx(L, idx, 0) as number,
  // a string key is never converted in place by lua_tolstring, so lua_next stays valid
  string: (L, idx) => toStr(L, idx),
  identity: (L, idx) => M._lua_topointer(L, idx) as number,
  rawLength: (L, idx) => Number(M._lua_rawlen(L, idx)),
  isArray: (L, idx) => hasArrayMetatable(L, idx),
  item: (L, idx, i) => {
    M._lua_rawgeti(L, idx, int64(i));
    return M._lua_gettop(L);
  },
  drop: (L) => M._lua_settop(L, -2),
  forEach: (L, idx, visit) => {
    M._lua_pushnil(L);
    // the key is where the nil was pushed, its value above it
    const key = M._lua_gettop(L);
    while (M._lua_next(L, idx) !== 0) {
      visit(key, key + 1);
      M._lua_settop(L, -2);
    }
  },
  reserve: (L, n) => M._luaL_checkstack(L, n, 0),
};

/** Converts the Lua value at `idx` to JS data with one of AIPack's two conversions (values.ts). */
export function toJs(L: number, idx: number, mode: ConvertMode, where = 'value', maxNodes = MAX_NODES): unknown {
  const abs = M._lua_absindex(L, idx);
  const inPlace = tableInPlace(L, abs, mode, where, maxNodes);
  if (inPlace !== undefined) return inPlace.value;
  return luaToJs(reader, L, abs, mode, where, maxNodes);
}

/** The same conversion through the C API only (the in-place reader's oracle). */
export function toJsThroughApi(L: number, idx: number, mode: ConvertMode, where = 'value', maxNodes = MAX_NODES): unknown {
  return luaToJs(reader, L, M._lua_absindex(L, idx), mode, where, maxNodes);
}

// the in-place reader is used once it read its probe table as the API does
probeDirectReading(
  (L) => toJsThroughApi(L, -1, 'aip'),
  (L) => {
    const code = new TextEncoder().encode(DIRECT_PROBE_LUA);
    const p = mallocBytes(code);
    try {
      M._luaL_openlibs(L);
      if (M._luaL_loadbufferx(L, p, code.length, cstr('=probe'), 0) !== LUA_OK || M._lua_pcallk(L, 0, 1, 0, 0, 0) !== LUA_OK) {
        throw new Error(toStr(L, -1));
      }
    } finally {
      M._free(p);
    }
  },
);

/**
 * Values built on the stack: each is pushed, a table's items are set from the top. `owner` receives the ids of
 * the host functions made (released with the state).
 */
function stackBuilder(owner: number[]): ValueBuilder<number, void, void> {
  const hostCalls: HostCallIO<number> = {
    top: (L) => M._lua_gettop(L),
    arg: (L, i, mode) => toJs(L, i, mode, `argument #${i}`),
    push: (L, values) => {
      M._luaL_checkstack(L, values.length + 3, 0);
      for (const v of values) pushJs(L, v, false, owner);
    },
    isUnwind: isLongjmp,
    raise,
  };
  return {
    nil: (L) => M._lua_pushnil(L),
    null: (L) => M._lua_pushlightuserdata(L, NULL_PTR),
    boolean: (L, b) => M._lua_pushboolean(L, b ? 1 : 0),
    // integers JS holds exactly become Lua integers (64-bit here); others stay floats
    number: (L, n) => (Number.isInteger(n) && Math.abs(n) <= Number.MAX_SAFE_INTEGER ? M._lua_pushinteger(L, int64(n)) : M._lua_pushnumber(L, n)),
    string: pushString,
    function: (L, fn) => pushCFunction(L, registerCFunction(hostFunctionBody(hostCalls, fn), owner)),
    list: (L, n) => {
      M._luaL_checkstack(L, 3, 0);
      M._lua_createtable(L, n, 0);
      M._lua_getfield(L, REGISTRY, ARRAY_MT_NAME);
      M._lua_setmetatable(L, -2);
    },
    record: (L, n) => {
      M._luaL_checkstack(L, 3, 0);
      M._lua_createtable(L, 0, n);
    },
    setIndex: (L, _t, i) => M._lua_rawseti(L, -2, int64(i)),
    setKey: (L, _t, key) => {
      if (key.includes('\0')) {
        pushString(L, key);
        M._lua_rotate(L, -2, 1);
        M._lua_rawset(L, -3);
      } else {
        M._lua_setfield(L, -2, cstr(key));
      }
    },
    done: () => {},
  };
}

const builders = new WeakMap<number[], ValueBuilder<number, void, void>>();

/**
 * Pushes a JS value (conversion.ts). `topNullIsNil`: a top-level null becomes nil. `owner` receives the ids of
 * host functions.
 */
export function pushJs(L: number, value: unknown, topNullIsNil: boolean, owner: number[]): void {
  let builder = builders.get(owner);
  if (!builder) {
    builder = stackBuilder(owner);
    builders.set(owner, builder);
  }
  jsToLua(builder, L, value, topNullIsNil);
}
