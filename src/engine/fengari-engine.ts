import v8 from 'node:v8';
import vm from 'node:vm';
import type { LuaEngine, StateOptions } from './engine.ts';
import { pushJs, toJs, NULL_TOKEN, setArrayMetatable, luaBytes, jsString, isUnwind } from './fengari-bridge.ts';
import { getField, getInt, lua, lauxlib, NIL, setField, lualib, luaString, protoOf, pushLuaString, pushProto, setBigStringHook, TAG, to_luastring, valueAt, type LuaState as L, type LuaString, type LuaTable, type Proto } from './fengari-vm.ts';
import { BYTES_PER_INSTRUCTION, CHARGE_FROM_BYTES, spent, type RunLimits } from './limits.ts';
import type { LuaApi } from './lua-api.ts';
import { MAX_REP_BYTES, openerName, SANDBOX_LIBS, withLua54Hint } from './sandbox.ts';
import { SandboxedState, tracebackHandler, type PatternPrimitives } from './sandboxed-state.ts';
import type { CFunction } from './state-host-libraries.ts';
import { StatePool } from './state-pool.ts';
import type { ConvertMode } from './values.ts';
import { relayLibraryError } from './library-guard.ts';
import { ChunkCache } from './chunk-cache.ts';
import { loadPrecompiled } from './fengari-chunks.ts';

/** a table element moved by fengari's library loops (lua_geti/lua_seti in JS) takes ~16 instructions' time */
const ELEMENT_COST = 16;
const str = (s: string) => to_luastring(s);

/** luaL_error with a message built in JS: passed as an argument, so a '%' in it is not a format directive. */
function raise(L: L, message: string): never {
  return lauxlib.luaL_error(L, str('%s'), luaBytes(message)) as never;
}

const latin1 = (b: Uint8Array | null) => (b ? String.fromCharCode(...b) : null);

/**
 * The sandbox's library guard (see library-guard.ts): upvalue 1 is the Lua wrapper, upvalue 2 the global name.
 * Calls the wrapper; an error the library raised inside it is raised again as if this function had raised it.
 */
function libraryGuard(L: L): number {
  const n = lua.lua_gettop(L);
  lua.lua_pushvalue(L, lua.lua_upvalueindex(1));
  lua.lua_rotate(L, 1, 1);
  if (lua.lua_pcall(L, n, lua.LUA_MULTRET, 0) === lua.LUA_OK) return lua.lua_gettop(L);
  return relayLibraryError(api, L, latin1(lua.lua_tostring(L, lua.lua_upvalueindex(2))) ?? '?');
}

/** The C API as the engine core drives it (lua-api.ts): fengari's lua.h in JS, mostly as it is. */
const api: LuaApi<L> = {
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

/**
 * Memory guard. fengari has no allocator to cap, so the run tree's memory is read from the JS heap (V8's used
 * heap + external memory, where Lua strings live) against its value when the tree started: every
 * MEMORY_CHECK_HOOKS hooks (table and string growth by instructions), and after each MEMORY_CHECK_BYTES of new big
 * strings (a string can double in one instruction). Garbage counts until collected, so over the cap a full GC runs
 * before the verdict.
 */
const MEMORY_CHECK_HOOKS = 64;
const MEMORY_CHECK_BYTES = 32 * 1024 * 1024;
/**
 * A full GC, for the verdict over the cap only. The process's own `gc` when it has one; else one is taken from a
 * fresh context made while V8's expose-gc flag is on for a synchronous moment, then turned off again, so the
 * caller's process (its flags, its global `gc`) is left as it was. Made at the first need, never on import.
 */
let fullGc: (() => void) | undefined;
function collectGarbage(): void {
  if (!fullGc) {
    const own = (globalThis as { gc?: () => void }).gc;
    if (typeof own === 'function') fullGc = own;
    else {
      v8.setFlagsFromString('--expose-gc');
      try {
        fullGc = vm.runInNewContext('gc') as () => void;
      } finally {
        v8.setFlagsFromString('--no-expose-gc');
      }
    }
  }
  fullGc();
}
const heapNow = () => {
  const h = v8.getHeapStatistics() as v8.HeapInfo & { external_memory?: number };
  return h.used_heap_size + (h.external_memory ?? 0);
};

/** Lua states by their global state (shared by their coroutines), for the string hook. */
const byGlobal = new WeakMap<object, FengariState>();
setBigStringHook((L, bytes) => byGlobal.get((L as unknown as { l_G: object }).l_G)?.onBigString(L, bytes));

/** Lua 5.3 on fengari, opened with only what AIPack gives and nothing that escapes the simulation. */
export const fengariEngine: LuaEngine = {
  name: 'fengari',
  luaVersion: 'Lua 5.3',
  createState: (options) => pool.take(options) ?? new FengariState(options),
};

const pool = new StatePool<FengariState>(4);

class FengariState extends SandboxedState<L> {
  protected readonly L: L;
  declare readonly limits: RunLimits & { heapBaseline?: number; pressure?: number };
  protected readonly dialect = '5.3';

  constructor(options: StateOptions) {
    super(api, options);
    this.limits.heapBaseline ??= heapNow();
    this.L = lauxlib.luaL_newstate();
    byGlobal.set((this.L as unknown as { l_G: object }).l_G, this);
    this.install(this.L);
    this.installTemplate();
    lua.lua_sethook(this.L, this.hook, lua.LUA_MASKCOUNT, this.firstHookInterval());
  }

  private readonly hook = (L: L) => this.tick(L);

  protected onTaken(): void {
    this.limits.heapBaseline ??= heapNow();
    lua.lua_sethook(this.L, this.hook, lua.LUA_MASKCOUNT, this.firstHookInterval());
  }

  protected override onHook(L: L, hooks: number): void {
    if (hooks % MEMORY_CHECK_HOOKS === 0) this.checkMemory(L);
  }

  protected hookEveryInstruction(L: L): void {
    lua.lua_sethook(this.L, this.hook, lua.LUA_MASKCOUNT, 1);
    lua.lua_sethook(L, this.hook, lua.LUA_MASKCOUNT, 1);
  }

  onBigString(L: L, bytes: number): void {
    if (this.running === 0) return;
    const limits = this.limits;
    if (spent(limits)) return; // the hook raises; error handling may still build strings
    // the string's bytes are allocated before this hook sees it, so a check against the cap alone lets a doubling
    // loop hold 1.5x the cap (a 512 MiB string beside the 256 MiB one: over 1 GB of RSS, see docs/sandbox.md); refusing a
    // string of half the cap stops it one step earlier
    if (2 * bytes >= limits.memoryMax) this.memoryFull(L);
    limits.pressure = (limits.pressure ?? 0) + bytes;
    if (limits.pressure >= MEMORY_CHECK_BYTES) this.checkMemory(L);
    // made in one instruction (`..`, a library call): charged by size. Raised at the next instruction, by the
    // hook: an error thrown while the VM builds a string (luaV_concat) loses its message.
    if (this.chargeQuietly(Math.floor(bytes / BYTES_PER_INSTRUCTION))) this.hookEveryInstruction(L);
  }

  private checkMemory(L: L): void {
    const limits = this.limits;
    limits.pressure = 0;
    if (this.running === 0 || limits.memoryExceeded) return;
    const base = limits.heapBaseline ?? 0;
    if (heapNow() - base <= limits.memoryMax) return;
    collectGarbage();
    limits.memoryUsed = heapNow() - base;
    if (limits.memoryUsed <= limits.memoryMax) return;
    this.memoryFull(L);
  }

  /**
   * table.move, ported from Lua 5.3's ltablib.c so that each moved element is charged to the budget: fengari's
   * own loops in JS for any range it is given (`table.move({1}, 1, 2^30, 2)` ran for minutes).
   */
  private readonly tableMove = (L: L) => {
    const f: number = lauxlib.luaL_checkinteger(L, 2);
    const e: number = lauxlib.luaL_checkinteger(L, 3);
    const t: number = lauxlib.luaL_checkinteger(L, 4);
    const tt = lua.lua_isnoneornil(L, 5) ? 1 : 5;
    checkTab(L, 1, '__index');
    checkTab(L, tt, '__newindex');
    if (e >= f) {
      lauxlib.luaL_argcheck(L, f > 0 || e < MAX_INTEGER + f, 3, str('too many elements to move'));
      const n = e - f + 1;
      lauxlib.luaL_argcheck(L, t <= MAX_INTEGER - n + 1, 4, str('destination wrap around'));
      if (t > e || t <= f || (tt !== 1 && !lua.lua_compare(L, 1, tt, lua.LUA_OPEQ))) {
        for (let i = 0; i < n; i++) {
          lua.lua_geti(L, 1, f + i);
          lua.lua_seti(L, tt, t + i);
        }
      } else {
        for (let i = n - 1; i >= 0; i--) {
          lua.lua_geti(L, 1, f + i);
          lua.lua_seti(L, tt, t + i);
        }
      }
    }
    lua.lua_pushvalue(L, tt);
    return 1;
  };

  /**
   * table.concat, ported from ltablib.c with one allocation sized first: fengari's doubles a buffer per element,
   * ~3x the result at its peak, out of the memory guard's sight. A result over half the memory cap is refused
   * before it is made, as a big string is (onBigString).
   */
  private readonly tableConcat = (L: L) => {
    checkTab(L, 1, '__index');
    checkTab(L, 1, '__len');
    const last0: number = lauxlib.luaL_len(L, 1);
    const sep: Uint8Array = lauxlib.luaL_optlstring(L, 2, str(''));
    const first: number = lauxlib.luaL_optinteger(L, 3, 1);
    const last: number = lauxlib.luaL_optinteger(L, 4, last0);
    const parts: Uint8Array[] = [];
    let total = 0;
    // a plain table's strings are read in place (the API path costs ~1 microsecond an element)
    let raw: LuaTable | undefined;
    if (lua.lua_type(L, 1) === lua.LUA_TTABLE) {
      if (lua.lua_getmetatable(L, 1)) lua.lua_pop(L, 1);
      else raw = valueAt(L, 1).value as LuaTable;
    }
    for (let i = first; i <= last; i++) {
      const slot = raw && getInt(raw, i);
      if (slot && (slot.type === TAG.LUA_TSHRSTR || slot.type === TAG.LUA_TLNGSTR)) {
        const part = (slot.value as LuaString).realstring;
        parts.push(part);
        total += part.length + (i < last ? sep.length : 0);
        if (2 * total >= this.limits.memoryMax) this.memoryFull(L);
        continue;
      }
      lua.lua_geti(L, 1, i);
      if (!lua.lua_isstring(L, -1)) {
        lauxlib.luaL_error(L, str("invalid value (%s) at index %d in table for 'concat'"), lauxlib.luaL_typename(L, -1), i);
      }
      const part = lua.lua_tolstring(L, -1) as Uint8Array;
      lua.lua_pop(L, 1);
      parts.push(part);
      total += part.length + (i < last ? sep.length : 0);
      if (2 * total >= this.limits.memoryMax) this.memoryFull(L);
    }
    const out = new Uint8Array(total);
    let at = 0;
    for (let k = 0; k < parts.length; k++) {
      out.set(parts[k], at);
      at += parts[k].length;
      if (k < parts.length - 1 && sep.length > 0) {
        out.set(sep, at);
        at += sep.length;
      }
    }
    pushLuaString(L, luaString(L, out));
    return 1;
  };

  /**
   * table.unpack as fengari's (ltablib.js), charged by the number of values first. It replaces the sandbox's Lua
   * wrapper: passing 10^5 values through Lua vararg functions costs fengari microseconds a value.
   */
  private readonly tableUnpack = (L: L) => {
    let i: number = lauxlib.luaL_optinteger(L, 2, 1);
    const len: number = lauxlib.luaL_len(L, 1); // evaluated whether or not `e` is given, as fengari's own does
    const e: number = lua.lua_isnoneornil(L, 3) ? len : lauxlib.luaL_checkinteger(L, 3);
    if (i > e) return 0;
    let n = e - i;
    if (n >= Number.MAX_SAFE_INTEGER || !lua.lua_checkstack(L, ++n)) return lauxlib.luaL_error(L, str('too many results to unpack'));
    if (n > CHARGE_FROM_BYTES) this.charge(L, n * ELEMENT_COST);
    for (; i < e; i++) lua.lua_geti(L, 1, i);
    lua.lua_geti(L, 1, e);
    return n;
  };

  /**
   * fengari's math.random and math.randomseed (lmathlib.js) keep their generator in a variable of the module, so a
   * seed set by one state would hold for every state of the process. These are the same functions (Math.random
   * until a seed is set, then glibc's LCG) over a generator of this state, which the put-back clears.
   */
  private randState: number | undefined;

  private nextRandom(): number {
    this.randState = (1103515245 * (this.randState as number) + 12345) & 0x7fffffff;
    return this.randState;
  }

  private readonly mathRandom = (L: L) => {
    const r = this.randState === undefined ? Math.random() : this.nextRandom() / 0x80000000;
    let low: number;
    let up: number;
    switch (lua.lua_gettop(L)) {
      case 0:
        lua.lua_pushnumber(L, r);
        return 1;
      case 1:
        low = 1;
        up = lauxlib.luaL_checkinteger(L, 1);
        break;
      case 2:
        low = lauxlib.luaL_checkinteger(L, 1);
        up = lauxlib.luaL_checkinteger(L, 2);
        break;
      default:
        return lauxlib.luaL_error(L, str('wrong number of arguments'));
    }
    lauxlib.luaL_argcheck(L, low <= up, 1, str('interval is empty'));
    lauxlib.luaL_argcheck(L, low >= 0 || up <= 0x7fffffff + low, 1, str('interval too large'));
    lua.lua_pushinteger(L, Math.floor(r * (up - low + 1)) + low);
    return 1;
  };

  private readonly mathRandomseed = (L: L) => {
    this.randState = lauxlib.luaL_checknumber(L, 1) | 0;
    if (this.randState === 0) this.randState = 1;
    this.nextRandom(); // fengari discards the first value
    return 0;
  };

  protected override get elementCost(): number {
    return ELEMENT_COST;
  }

  /** a new state's generator: Math.random until the next stage sets a seed */
  protected override resetRandom(): void {
    this.randState = undefined;
  }

  protected openLibraries(L: L): void {
    for (const name of SANDBOX_LIBS) {
      lauxlib.luaL_requiref(L, str(name), lualib[openerName(name)] as (L: L) => number, 1);
      lua.lua_pop(L, 1);
    }
    lua.lua_getglobal(L, str('string'));
    lua.lua_pushjsfunction(L, strRep);
    lua.lua_setfield(L, -2, str('rep'));
    lua.lua_pushjsfunction(L, strChar);
    lua.lua_setfield(L, -2, str('char'));
    lua.lua_pop(L, 1);
    lua.lua_getglobal(L, str('table'));
    lua.lua_pushjsfunction(L, this.tableMove);
    lua.lua_setfield(L, -2, str('move'));
    lua.lua_pushjsfunction(L, this.tableConcat);
    lua.lua_setfield(L, -2, str('concat'));
    lua.lua_pop(L, 1);
    lua.lua_getglobal(L, str('math'));
    lua.lua_pushjsfunction(L, this.mathRandom);
    lua.lua_setfield(L, -2, str('random'));
    lua.lua_pushjsfunction(L, this.mathRandomseed);
    lua.lua_setfield(L, -2, str('randomseed'));
    lua.lua_pop(L, 1);
    lua.lua_pushnil(L);
    lua.lua_setglobal(L, str('collectgarbage')); // fengari throws on every call; absent is clearer
    setArrayMetatable(L);
  }

  /**
   * allow_hooks: fengari 0.1.5's yieldable pcall (used inside coroutines) never saves 'allowhook' (lapi.js
   * lua_pcallk: `callstatus &= ~CIST_OAH | allowhook` cannot set the bit), so after it catches an error the
   * coroutine would run with hooks off for good; hooks are always allowed in Lua code here, so the sandbox's
   * pcall/xpcall wrappers turn them back on.
   */
  protected sandboxHelpers(L: L): void {
    lua.lua_pushjsfunction(L, allowHooks);
    lua.lua_setfield(L, -2, str('allow_hooks'));
    // guard(f, globalName): f behind a C function (library-guard.ts)
    lua.lua_pushjsfunction(L, (L: L) => {
      lua.lua_settop(L, 2);
      lua.lua_pushcclosure(L, libraryGuard, 2);
      return 1;
    });
    lua.lua_setfield(L, -2, str('guard'));
    lua.lua_pushinteger(L, ELEMENT_COST);
    lua.lua_setfield(L, -2, str('element_cost'));
  }

  /** table.unpack replaces the sandbox's Lua wrapper (see tableUnpack) */
  protected override afterSandbox(L: L): void {
    lua.lua_getglobal(L, str('table'));
    lua.lua_pushjsfunction(L, this.tableUnpack);
    lua.lua_setfield(L, -2, str('unpack'));
    lua.lua_pop(L, 1);
  }

  protected patternPrimitives(): PatternPrimitives<L> {
    return {
      bytes: (L, idx) => lua.lua_tostring(L, idx) as Uint8Array,
      integer: (L, idx) => lua.lua_tointeger(L, idx) as number,
      isNil: (L, idx) => lua.lua_type(L, idx) <= lua.LUA_TNIL,
      boolean: (L, idx) => lua.lua_toboolean(L, idx) as boolean,
      pushInteger: (L, n) => lua.lua_pushinteger(L, n),
      pushNil: (L) => lua.lua_pushnil(L),
      checkStack: (L, n) => lauxlib.luaL_checkstack(L, n, str('too many captures')),
      // as fengari's lstrlib pushes a capture
      pushSubject: (L, init, len) => lua.lua_pushlstring(L, (lua.lua_tostring(L, 1) as Uint8Array).subarray(init), len),
      pushBytes: (L, bytes) => lua.lua_pushlstring(L, bytes, bytes.length),
      raise,
    };
  }

  /**
   * The put-back's check done in JS (a table is a JS object here): its stack traffic through lua_next costs ~1
   * microsecond an entry, and a pooled state's tables hold ~700 entries, of which a stage changes a few.
   */
  protected override changedTables(L: L, list: number): number[] {
    const changed: number[] = [];
    this.pristineTriples(L, list).forEach(([table, copy, mt], i) => {
      if (table.metatable !== mt || !sameEntries(table, copy)) changed.push(i + 1);
    });
    return changed;
  }

  /**
   * The changed tables put back in their own structures (a Lua loop here costs a JS call per key), in their
   * order: a table iterates in the order its keys were added, so a key removed and added again, which the entry by
   * entry put-back leaves last, makes the table be built again from its copy. False when a table has another
   * metatable than it had.
   */
  protected override putBackTables(L: L, list: number, changed: number[] | undefined): boolean {
    const all = this.pristineTriples(L, list);
    const triples = changed === undefined ? all : changed.map((i) => all[i - 1]!);
    if (triples.some(([table, , mt]) => table.metatable !== mt)) return false;
    for (const [table, copy] of triples) {
      // a removed entry keeps its link to the next one, so the walk goes on past it
      for (let e = table.f; e !== undefined; e = e.n) {
        if (getField(L, copy, e.key).type === TAG.LUA_TNIL) setField(L, table, e.key, NIL);
      }
      for (let e = copy.f; e !== undefined; e = e.n) {
        const now = getField(L, table, e.key);
        if (now.type !== e.value.type || now.value !== e.value.value) setField(L, table, e.key, e.value);
      }
      if (sameEntries(table, copy)) continue;
      for (let e = table.f; e !== undefined; e = e.n) setField(L, table, e.key, NIL);
      for (let e = copy.f; e !== undefined; e = e.n) setField(L, table, e.key, e.value);
      if (!sameEntries(table, copy)) return false;
    }
    return true;
  }

  /** the (table, copy, metatable) triples of PRISTINE_LUA's list, in its order: the list is made once, at set-up */
  private triples?: [LuaTable, LuaTable, LuaTable | null][];

  private pristineTriples(L: L, list: number): [LuaTable, LuaTable, LuaTable | null][] {
    if (this.triples === undefined) {
      const t = valueAt(L, list).value as LuaTable;
      this.triples = [];
      for (let i = 1; getInt(t, i).type === TAG.LUA_TTABLE; i += 3) {
        const mt = getInt(t, i + 2);
        this.triples.push([getInt(t, i).value as LuaTable, getInt(t, i + 1).value as LuaTable, mt.type === TAG.LUA_TTABLE ? (mt.value as LuaTable) : null]);
      }
    }
    return this.triples;
  }

  /** The globals copied entry by entry in JS (a stage's scope; the C API's loop costs ~1 microsecond an entry). */
  protected override pushGlobalsCopy(L: L): void {
    lua.lua_createtable(L, 0, 64);
    const env = valueAt(L, lua.lua_gettop(L)).value as LuaTable;
    lua.lua_pushglobaltable(L);
    const globals = valueAt(L, lua.lua_gettop(L)).value as LuaTable;
    for (let e = globals.f; e !== undefined; e = e.n) setField(L, env, e.key, e.value);
    lua.lua_settop(L, -2);
  }

  /** fengari's set-up runs unprotected: its errors are JS exceptions already */
  protected protect(body: (L: L, arg: number) => void, arg?: number): void {
    body(this.L, arg ?? 0);
  }

  protected pushFunction(L: L, fn: CFunction<L>): void {
    lua.lua_pushjsfunction(L, fn);
  }

  protected isUnwind(err: unknown): boolean {
    return isUnwind(err);
  }

  protected pushValue(L: L, value: unknown, topNullIsNil: boolean): void {
    pushJs(L, value, topNullIsNil);
  }

  protected toValue(L: L, idx: number, mode: ConvertMode): unknown {
    return toJs(L, idx, mode);
  }

  protected loadChunk(L: L, code: string | Uint8Array, chunkName: string): number {
    return loadChunk(L, code, chunkName);
  }

  protected pushMessageHandler(L: L): void {
    lua.lua_pushjsfunction(L, messageHandler);
  }

  protected functionSource(L: L): string | null {
    const ar = new lua.lua_Debug();
    lua.lua_getinfo(L, str('>S'), ar);
    return latin1(ar.source);
  }

  /** Lua 5.4 syntax gets a hint that this engine is Lua 5.3 */
  protected override compileMessage(message: string, code: string | Uint8Array): string {
    return withLua54Hint(message, code);
  }

  close(): void {
    // fengari states are garbage-collected JS objects; drop the hook so a retained state cannot run on.
    lua.lua_sethook(this.L, null, 0, 0);
    pool.give(this);
  }
}

/**
 * The two tables' entry lists walked side by side: the same keys and values (as rawequal compares the same
 * objects) in the same order. A string key the stage made anew is another object: false, and the table is merely
 * put back.
 */
function sameEntries(t: LuaTable, copy: LuaTable): boolean {
  let a = t.f;
  let b = copy.f;
  for (; a !== undefined && b !== undefined; a = a.n, b = b.n) {
    if (a.key.type !== b.key.type || a.key.value !== b.key.value || a.value.type !== b.value.type || a.value.value !== b.value.value) return false;
  }
  return a === b;
}

/** string.rep built with block copies (fengari's copies per repeat), refusing results over MAX_REP_BYTES. */
function strRep(L: L): number {
  const s: Uint8Array = lauxlib.luaL_checkstring(L, 1);
  const n: number = lauxlib.luaL_checkinteger(L, 2);
  const sep: Uint8Array = lua.lua_isnoneornil(L, 3) ? new Uint8Array(0) : lauxlib.luaL_checkstring(L, 3);
  if (n <= 0) {
    lua.lua_pushstring(L, str(''));
    return 1;
  }
  const total = n * s.length + (n - 1) * sep.length;
  if (total > MAX_REP_BYTES) raise(L, `resulting string too large (string.rep is limited to ${MAX_REP_BYTES} bytes in the simulator)`);
  const out = new Uint8Array(total);
  // one unit ("s" + sep), then double the filled prefix until done
  out.set(s, 0);
  if (n > 1) out.set(sep, s.length);
  let filled = Math.min(total, s.length + sep.length);
  while (filled < total) {
    const len = Math.min(filled, total - filled);
    out.copyWithin(filled, 0, len);
    filled += len;
  }
  lua.lua_pushlstring(L, out, total);
  return 1;
}

/** Re-enables hooks on the calling thread (see the allow_hooks note in sandboxHelpers); `allowhook` is fengari's field. */
function allowHooks(L: L): number {
  (L as unknown as { allowhook: number }).allowhook = 1;
  return 0;
}

/** fengari's integers are 32-bit */
const MAX_INTEGER = 2147483647;

/** ltablib.c checktab: a table, or a value whose metatable has the needed metamethod. */
function checkTab(L: L, arg: number, metamethod: string): void {
  if (lua.lua_type(L, arg) === lua.LUA_TTABLE) return;
  if (lua.lua_getmetatable(L, arg)) {
    lua.lua_pushstring(L, str(metamethod));
    const has = lua.lua_rawget(L, -2) !== lua.LUA_TNIL;
    lua.lua_pop(L, 2);
    if (has) return;
  }
  lauxlib.luaL_checktype(L, arg, lua.LUA_TTABLE);
}

/** string.char with Lua's messages (fengari's "value out of range" check loses the argument number). */
function strChar(L: L): number {
  const n = lua.lua_gettop(L);
  const out = new Uint8Array(n);
  for (let i = 1; i <= n; i++) {
    const c: number = lauxlib.luaL_checkinteger(L, i);
    lauxlib.luaL_argcheck(L, c >= 0 && c <= 255, i, str('value out of range'));
    out[i - 1] = c;
  }
  lua.lua_pushlstring(L, out, n);
  return 1;
}

// Compiled chunks by name and source: a fresh state per stage (AIPack's rule) no longer re-parses the prelude, the
// pack modules and the agent chunks. fengari's parser costs milliseconds per chunk, and even undumping bytecode
// allocates a whole prototype tree, so the prototypes themselves are kept and shared (fengari-vm.ts protoOf).
const protoCache = new ChunkCache<Proto>(2000);

/**
 * Loads `code` (a text chunk as given, or the bytes of a file) as a text chunk: from the prototype compiled from
 * the same name and source when there is one, else from the build's bytecode of the simulator's own sources
 * (fengari-chunks.ts), else parsed.
 */
function loadChunk(L: L, code: string | Uint8Array, chunkName: string): number {
  const cached = protoCache.get(chunkName, code);
  if (cached) {
    pushProto(L, cached);
    return lua.LUA_OK;
  }
  if (loadPrecompiled(L, code, chunkName)) {
    protoCache.set(chunkName, code, protoOf(L));
    return lua.LUA_OK;
  }
  const status = lauxlib.luaL_loadbufferx(L, typeof code === 'string' ? luaBytes(code) : code, null, luaBytes(chunkName), str('t'));
  if (status === lua.LUA_OK) {
    protoCache.set(chunkName, code, protoOf(L));
  }
  return status;
}

const messageHandler = (L: L) => tracebackHandler(api, L);

