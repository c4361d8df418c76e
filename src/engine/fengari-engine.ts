import v8 from 'node:v8';
import vm from 'node:vm';
import type { LuaEngine, LuaState, StateOptions } from './engine.ts';
import { pushJs, toJs, NULL_TOKEN, setArrayMetatable, luaBytes, jsString } from './fengari-bridge.ts';
import { getInt, lua, lauxlib, lualib, luaString, protoOf, pushLuaString, pushProto, setBigStringHook, TAG, to_luastring, valueAt, type LuaState as L, type LuaString, type LuaTable, type Proto } from './fengari-vm.ts';
import { BYTES_PER_INSTRUCTION, CHARGE_FROM_BYTES, chargeInstructions, chargeState, checkDeadline, createLimits, limitMessage, spent, type RunLimits } from './limits.ts';
import { loadablePath, MAX_REP_BYTES, openerName, OS_REMOVED, packagePath, SANDBOX_LIBS, SANDBOX_LUA, searchPath, withLua54Hint } from './sandbox.ts';
import { chunkFailure, ConversionError, locationOf, LuaRuntimeError, type ConvertMode } from './values.ts';
import { patternHost } from './pattern-hosts.ts';
import { RELAY_HEAD_BYTES, relayedError } from './library-guard.ts';
import { PATTERN_ROUTE_STEPS } from './pattern.ts';


const HOOK_INTERVAL = 1000;
/** a table element moved by fengari's library loops (lua_geti/lua_seti in JS) takes ~16 instructions' time */
const ELEMENT_COST = 16;
const str = (s: string) => to_luastring(s);
const PACKAGE_KEY = str('coder_subagents.package');

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
  if (lua.lua_type(L, -1) !== lua.LUA_TSTRING) return lua.lua_error(L);
  const bytes = lua.lua_tostring(L, -1) as Uint8Array;
  const ar = new lua.lua_Debug();
  lua.lua_getstack(L, 0, ar);
  lua.lua_getinfo(L, str('n'), ar);
  const call = { name: latin1(ar.name), namewhat: latin1(ar.namewhat) ?? '' };
  const global = latin1(lua.lua_tostring(L, lua.lua_upvalueindex(2))) ?? '?';
  const relayed = relayedError(latin1(bytes.subarray(0, RELAY_HEAD_BYTES)) as string, call, global);
  if (!relayed) return lua.lua_error(L);
  lauxlib.luaL_where(L, 1);
  lua.lua_pushstring(L, str(relayed.head));
  if (relayed.all) {
    lua.lua_concat(L, 2);
  } else {
    lua.lua_pushlstring(L, bytes.subarray(relayed.skip), bytes.length - relayed.skip);
    lua.lua_concat(L, 3);
  }
  return lua.lua_error(L);
}

/**
 * Memory guard. fengari has no allocator to cap, so the run tree's memory is read from the JS heap (V8's used
 * heap + external memory, where Lua strings live) against its value when the tree started: every
 * MEMORY_CHECK_HOOKS hooks (table and string growth by instructions), and after each MEMORY_CHECK_BYTES of new big
 * strings (a string can double in one instruction). Garbage counts until collected, so over the cap a full GC runs
 * before the verdict.
 */
const MEMORY_CHECK_HOOKS = 64;
/** hooks between two looks at the clock (the run tree's deadline) */
const DEADLINE_CHECK_HOOKS = 16;
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
  createState: (options) => new FengariState(options),
};

class FengariState implements LuaState {
  private readonly L: L;
  private readonly limits: RunLimits & { heapBaseline?: number; pressure?: number };
  private readonly memoryMessage: string;
  /** names of the simulator's own chunks (the sandbox, preludes): their functions stand for AIPack's native ones */
  private readonly hostChunks = new Set(['=sandbox']);
  private used = 0;
  private hooks = 0;
  private running = 0;

  constructor(private readonly options: StateOptions) {
    this.limits = options.limits ?? createLimits(options.budget);
    this.limits.heapBaseline ??= heapNow();
    this.memoryMessage = options.memoryMessage ?? 'memory limit exceeded';
    this.L = lauxlib.luaL_newstate();
    byGlobal.set((this.L as unknown as { l_G: object }).l_G, this);
    this.openSandboxedLibs();
    // a state of a spent tree stops at its first instruction
    lua.lua_sethook(this.L, this.hook, lua.LUA_MASKCOUNT, chargeState(this.limits) ? 1 : HOOK_INTERVAL);
  }

  private readonly hook = (L: L) => {
    const hooks = ++this.hooks;
    if (hooks % MEMORY_CHECK_HOOKS === 0) this.checkMemory(L);
    if (hooks % DEADLINE_CHECK_HOOKS === 0 && checkDeadline(this.limits)) this.failFast(L);
    this.charge(L, HOOK_INTERVAL);
  };

  /**
   * Counts `n` instructions against the run tree's budget: the hook's steps, and work a library function does in
   * one call (unseen by the hook). Once a limit is hit the hook fires on every instruction, so a pcall that
   * swallowed the error cannot run on: the next instruction outside it raises again. Hooks are per thread and `L`
   * may be a coroutine, so the main thread and each thread whose hook fires afterwards are re-armed.
   */
  private charge(L: L, n: number): void {
    this.used += n;
    if (chargeInstructions(this.limits, n)) this.failFast(L);
  }

  private failFast(L: L): never {
    lua.lua_sethook(this.L, this.hook, lua.LUA_MASKCOUNT, 1);
    lua.lua_sethook(L, this.hook, lua.LUA_MASKCOUNT, 1);
    return raise(L, limitMessage(this.limits, this.options) as string);
  }

  private memoryFull(L: L): never {
    this.limits.memoryExceeded = true;
    return this.failFast(L);
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
    const n = Math.floor(bytes / BYTES_PER_INSTRUCTION);
    this.used += n;
    if (chargeInstructions(limits, n)) {
      lua.lua_sethook(this.L, this.hook, lua.LUA_MASKCOUNT, 1);
      lua.lua_sethook(L, this.hook, lua.LUA_MASKCOUNT, 1);
    }
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
    limits.memoryExceeded = true;
    this.failFast(L);
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

  instructionsUsed(): number {
    return this.used;
  }

  private openSandboxedLibs(): void {
    const L = this.L;
    for (const name of SANDBOX_LIBS) {
      lauxlib.luaL_requiref(L, str(name), lualib[openerName(name)] as (L: L) => number, 1);
      lua.lua_pop(L, 1);
    }
    // os: only the clock functions; execute/remove/rename/exit/getenv/tmpname would reach the host.
    lua.lua_getglobal(L, str('os'));
    for (const name of OS_REMOVED) {
      lua.lua_pushnil(L);
      lua.lua_setfield(L, -2, str(name));
    }
    lua.lua_pop(L, 1);
    // package: no C loader, no file searchers of fengari's own (they read any file through Node's fs), and a
    // searchpath that does not probe the host either. package.path is AIPack's: the module dirs, then Lua's
    // default, of which only "./?.lua;./?/init.lua" (relative to the process cwd = `baseDir`) is simulated.
    lua.lua_getglobal(L, str('package'));
    lua.lua_pushvalue(L, -1);
    lua.lua_setfield(L, lua.LUA_REGISTRYINDEX, PACKAGE_KEY);
    lua.lua_pushnil(L);
    lua.lua_setfield(L, -2, str('loadlib'));
    lua.lua_pushstring(L, str(''));
    lua.lua_setfield(L, -2, str('cpath'));
    lua.lua_pushstring(L, luaBytes(packagePath(this.options)));
    lua.lua_setfield(L, -2, str('path'));
    lua.lua_pushjsfunction(L, this.searchpathFn);
    lua.lua_setfield(L, -2, str('searchpath'));
    lua.lua_createtable(L, 2, 0);
    lua.lua_getfield(L, -2, str('searchers'));
    lua.lua_rawgeti(L, -1, 1); // the preload searcher
    lua.lua_rawseti(L, -3, 1);
    lua.lua_pop(L, 1);
    lua.lua_pushjsfunction(L, this.searcher);
    lua.lua_rawseti(L, -2, 2);
    lua.lua_setfield(L, -2, str('searchers'));
    lua.lua_pop(L, 1);
    // io: AIPack has it, but fengari's can only reach the process streams; give write() routed to print.
    this.setGlobal('io', {
      write: (...args: unknown[]) => {
        this.options.print(args.map((a) => String(a)).join(''));
      },
    });
    lua.lua_pushjsfunction(L, this.printFn);
    lua.lua_setglobal(L, str('print'));
    lua.lua_pushjsfunction(L, this.loadfile);
    lua.lua_setglobal(L, str('loadfile'));
    lua.lua_pushjsfunction(L, this.dofile);
    lua.lua_setglobal(L, str('dofile'));
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
    lua.lua_pushnil(L);
    lua.lua_setglobal(L, str('collectgarbage')); // fengari throws on every call; absent is clearer
    setArrayMetatable(L);
    // the sandbox's Lua side (sandbox.ts). allow_hooks: fengari 0.1.5's yieldable pcall (used inside coroutines)
    // never saves 'allowhook' (lapi.js lua_pcallk: `callstatus &= ~CIST_OAH | allowhook` cannot set the bit), so
    // after it catches an error the coroutine would run with hooks off for good; hooks are always allowed in Lua
    // code here, so the pcall/xpcall wrappers turn them back on.
    lua.lua_createtable(L, 0, 3);
    lua.lua_pushjsfunction(L, (L: L) => {
      const n = Math.min(Number.MAX_SAFE_INTEGER, lua.lua_tonumber(L, 1) as number);
      if (n > 0) this.charge(L, Math.ceil(n));
      return 0;
    });
    lua.lua_setfield(L, -2, str('charge'));
    lua.lua_pushjsfunction(L, (L: L) => {
      const hit = limitMessage(this.limits, this.options);
      if (hit === undefined) return 0;
      lua.lua_pushstring(L, luaBytes(hit));
      return 1;
    });
    lua.lua_setfield(L, -2, str('limit_hit'));
    lua.lua_pushjsfunction(L, allowHooks);
    lua.lua_setfield(L, -2, str('allow_hooks'));
    // guard(f, globalName): f behind a C function (library-guard.ts)
    lua.lua_pushjsfunction(L, (L: L) => {
      lua.lua_settop(L, 2);
      lua.lua_pushcclosure(L, libraryGuard, 2);
      return 1;
    });
    lua.lua_setfield(L, -2, str('guard'));
    // hosted(f): f was defined by the simulator's own code
    lua.lua_pushjsfunction(L, (L: L) => {
      lua.lua_settop(L, 1);
      const ar = new lua.lua_Debug();
      lua.lua_getinfo(L, str('>S'), ar);
      const source = latin1(ar.source);
      lua.lua_pushboolean(L, source !== null && this.hostChunks.has(source));
      return 1;
    });
    lua.lua_setfield(L, -2, str('hosted'));
    this.setPatternHost(L);
    lua.lua_setglobal(L, str('__sandbox'));
    this.exec(SANDBOX_LUA, '=sandbox');
    lua.lua_getglobal(L, str('table'));
    lua.lua_pushjsfunction(L, this.tableUnpack);
    lua.lua_setfield(L, -2, str('unpack'));
    lua.lua_pop(L, 1);
  }

  /** The step-counting pattern matcher's host functions (sandbox.ts routes costly pattern calls to them). */
  private setPatternHost(L: L): void {
    const host = patternHost<L>('5.3', {
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
      charge: (L, n) => this.charge(L, n),
      tooLarge: (L) => this.memoryFull(L),
      memoryMax: () => this.limits.memoryMax,
      raise,
    });
    for (const [name, fn] of Object.entries(host)) {
      lua.lua_pushjsfunction(L, fn);
      lua.lua_setfield(L, -2, str(name));
    }
    lua.lua_pushstring(L, str('5.3'));
    lua.lua_setfield(L, -2, str('dialect'));
    lua.lua_pushinteger(L, ELEMENT_COST);
    lua.lua_setfield(L, -2, str('element_cost'));
    lua.lua_pushnumber(L, this.options.patternRouteSteps ?? PATTERN_ROUTE_STEPS);
    lua.lua_setfield(L, -2, str('route_steps'));
  }

  // print(...) joins its arguments with "\n" as AIPack's override does; tables/nil go through tostring.
  private readonly printFn = (L: L) => {
    const n = lua.lua_gettop(L);
    const parts: string[] = [];
    for (let i = 1; i <= n; i++) {
      lauxlib.luaL_tolstring(L, i);
      parts.push(jsString(L, -1));
      lua.lua_pop(L, 1);
    }
    this.options.print(parts.join('\n'));
    return 0;
  };

  private readonly searchpathFn = (L: L) => {
    lauxlib.luaL_checkstring(L, 1);
    lauxlib.luaL_checkstring(L, 2);
    const opt = (i: number, def: string) => (lua.lua_isnoneornil(L, i) ? def : (lauxlib.luaL_checkstring(L, i), jsString(L, i)));
    const found = searchPath(this.options, jsString(L, 1), jsString(L, 2), opt(3, '.'), opt(4, '/'));
    if ('file' in found) {
      lua.lua_pushstring(L, luaBytes(found.file));
      return 1;
    }
    lua.lua_pushnil(L);
    lua.lua_pushstring(L, luaBytes(found.tried));
    return 2;
  };

  // The Lua searcher (package.searchers[2]): follows package.path as it is when `require` runs.
  private readonly searcher = (L: L) => {
    lauxlib.luaL_checkstring(L, 1);
    const name = jsString(L, 1);
    lua.lua_getfield(L, lua.LUA_REGISTRYINDEX, PACKAGE_KEY);
    lua.lua_getfield(L, -1, str('path'));
    if (lua.lua_type(L, -1) !== lua.LUA_TSTRING) raise(L, "'package.path' must be a string");
    const path = jsString(L, -1);
    lua.lua_pop(L, 2);
    const found = searchPath(this.options, name, path, '.', '/');
    if (!('file' in found)) {
      lua.lua_pushstring(L, luaBytes(found.tried));
      return 1;
    }
    if (loadChunk(L, found.code, '@' + this.options.displayPath(found.abs)) !== lua.LUA_OK) {
      raise(L, withLua54Hint(`error loading module '${name}' from file '${found.file}':\n\t${jsString(L, -1)}`, found.code));
    }
    lua.lua_pushstring(L, luaBytes(found.file));
    return 2;
  };

  private loadFileOnStack(L: L, fname: string): number {
    const where = loadablePath(this.options, fname);
    if ('error' in where) raise(L, where.error);
    const code = this.options.readFile(where.abs);
    if (code === undefined) {
      lua.lua_pushnil(L);
      lua.lua_pushstring(L, luaBytes(`cannot open ${fname}`));
      return 2;
    }
    if (loadChunk(L, code, '@' + this.options.displayPath(where.abs)) !== lua.LUA_OK) {
      lua.lua_pushnil(L);
      lua.lua_insert(L, -2);
      return 2;
    }
    return 1;
  }

  private readonly loadfile = (L: L) => {
    lauxlib.luaL_checkstring(L, 1);
    return this.loadFileOnStack(L, jsString(L, 1));
  };

  private readonly dofile = (L: L) => {
    lauxlib.luaL_checkstring(L, 1);
    const fname = jsString(L, 1);
    lua.lua_settop(L, 1);
    if (this.loadFileOnStack(L, fname) !== 1) return lua.lua_error(L);
    lua.lua_call(L, 0, lua.LUA_MULTRET);
    return lua.lua_gettop(L) - 1;
  };

  setGlobal(name: string, value: unknown): void {
    pushJs(this.L, value, false);
    lua.lua_setglobal(this.L, str(name));
  }

  exec(code: string, chunkName: string): void {
    this.hostChunks.add(chunkName);
    this.protectedRun(code, chunkName, 1, () => 0);
  }

  runChunk(code: string, file: string, firstLine: number, scope: Record<string, unknown>, mode: ConvertMode): unknown {
    const L = this.L;
    return this.protectedRun(code, '@' + this.options.displayPath(file), firstLine, () => {
      // _ENV = scope variables + shallow copy of the globals (AIPack's upgrade_scope)
      lua.lua_createtable(L, 0, 64);
      lua.lua_pushglobaltable(L);
      lua.lua_pushnil(L);
      while (lua.lua_next(L, -2) !== 0) {
        lua.lua_pushvalue(L, -2);
        lua.lua_insert(L, -2);
        lua.lua_rawset(L, -5);
      }
      lua.lua_pop(L, 1);
      for (const [key, value] of Object.entries(scope)) {
        pushJs(L, value, true);
        lua.lua_setfield(L, -2, str(key));
      }
      if (lua.lua_setupvalue(L, -2, 1) === null) lua.lua_pop(L, 1);
      return 1;
    }, mode);
  }

  /** Loads `code` (padded so its lines match its file), prepares it with `setup`, calls it under a traceback handler. */
  private protectedRun(code: string, chunkName: string, firstLine: number, setup: () => number, mode?: ConvertMode): unknown {
    const L = this.L;
    const base = lua.lua_gettop(L);
    lua.lua_pushjsfunction(L, messageHandler);
    const loadStatus = loadChunk(L, '\n'.repeat(Math.max(0, firstLine - 1)) + code, chunkName);
    if (loadStatus !== lua.LUA_OK) {
      const msg = lua.lua_type(L, -1) === lua.LUA_TSTRING ? jsString(L, -1) : 'syntax error';
      lua.lua_settop(L, base);
      throw new LuaRuntimeError(withLua54Hint(msg, code), '', locationOf(msg));
    }
    setup();
    this.running++;
    let status: number;
    try {
      status = lua.lua_pcall(L, 0, 1, base + 1);
    } finally {
      this.running--;
    }
    if (status !== lua.LUA_OK) {
      if (this.limits.memoryExceeded) {
        lua.lua_settop(L, base);
        throw new LuaRuntimeError(this.memoryMessage, '');
      }
      const full = lua.lua_type(L, -1) === lua.LUA_TSTRING ? jsString(L, -1) : 'unknown Lua error';
      lua.lua_settop(L, base);
      throw chunkFailure(full);
    }
    try {
      return mode ? toJs(L, -1, mode) : undefined;
    } catch (err) {
      if (err instanceof ConversionError) throw new LuaRuntimeError(`${chunkName.replace(/^@/, '')}: ${err.message}`, '');
      throw err;
    } finally {
      lua.lua_settop(L, base);
    }
  }

  close(): void {
    // fengari states are garbage-collected JS objects; drop the hook so a retained state cannot run on.
    lua.lua_sethook(this.L, null, 0, 0);
  }
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

/** Re-enables hooks on the calling thread (see the pcall note in openSandboxedLibs); `allowhook` is fengari's field. */
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
const PROTO_LIMIT = 2000;
const protoCache = new Map<string, Proto>();

/** Loads `code` as a text chunk, from the prototype compiled from the same name and source when there is one. */
/** A text chunk as given, or the bytes of a file (its cache key: the bytes as latin1, marked apart). */
function loadChunk(L: L, code: string | Uint8Array, chunkName: string): number {
  const key = typeof code === 'string' ? chunkName + '\0' + code : chunkName + '\0\u0001' + Buffer.from(code).toString('latin1');
  const cached = protoCache.get(key);
  if (cached) {
    pushProto(L, cached);
    return lua.LUA_OK;
  }
  const status = lauxlib.luaL_loadbufferx(L, typeof code === 'string' ? luaBytes(code) : code, null, luaBytes(chunkName), str('t'));
  if (status === lua.LUA_OK) {
    if (protoCache.size >= PROTO_LIMIT) protoCache.delete(protoCache.keys().next().value as string);
    protoCache.set(key, protoOf(L));
  }
  return status;
}

// Error values become "message\nstack traceback:..." strings; non-string errors go through tostring.
function messageHandler(L: L): number {
  if (lua.lua_type(L, 1) !== lua.LUA_TSTRING) {
    if (lua.lua_type(L, 1) === lua.LUA_TLIGHTUSERDATA && lua.lua_touserdata(L, 1) === NULL_TOKEN) {
      lua.lua_pushstring(L, str('error object is the null sentinel'));
    } else {
      lauxlib.luaL_tolstring(L, 1);
    }
    lua.lua_replace(L, 1);
  }
  lauxlib.luaL_traceback(L, L, lua.lua_tostring(L, 1), 1);
  return 1;
}

