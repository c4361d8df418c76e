import type { LuaEngine, LuaState, StateOptions } from './engine.ts';
import { BYTES_PER_INSTRUCTION, CHARGE_ALLOC_FROM, chargeInstructions, chargeState, checkDeadline, createLimits, limitMessage, type RunLimits } from './limits.ts';
import { loadablePath, openerName, OS_REMOVED, packagePath, SANDBOX_LIBS, SANDBOX_LUA, searchPath } from './sandbox.ts';
import { chunkFailure, ConversionError, locationOf, LuaRuntimeError, type ConvertMode } from './values.ts';
import { patternHost } from './pattern-hosts.ts';
import { RELAY_HEAD_BYTES, relayedError } from './library-guard.ts';
import { PATTERN_ROUTE_STEPS } from './pattern.ts';
import {
  cstr,
  freeTempCStrings,
  isLongjmp,
  LUA_ERRMEM,
  LUA_MASKCOUNT,
  LUA_MULTRET,
  LUA_OK,
  M,
  mallocBytes,
  NULL_PTR,
  pushCClosure,
  pushCFunction,
  pushJs,
  pushString,
  raise,
  registerCFunction,
  releaseCFunctions,
  REGISTRY,
  RIDX_GLOBALS,
  setArrayMetatable,
  T_LIGHTUSERDATA,
  T_NIL,
  T_NUMBER,
  LEN_CELL,
  T_STRING,
  toJs,
  toStr,
  UD_CELL,
  upvalueIndex,
} from './wasmoon-bridge.ts';

const HOOK_INTERVAL = 1000;
/** hooks between two looks at the clock (the run tree's deadline) */
const DEADLINE_CHECK_HOOKS = 16;
/** Room above the memory cap for the error handling of a run that hit it (messages, tracebacks). */
const MEMORY_SLACK = 16 * 1024 * 1024;
const PACKAGE_KEY = 'coder_subagents.package';

/**
 * Lua 5.4 (the C Lua that AIPack's mlua vendors) compiled to WebAssembly by wasmoon 1.16.0. The WASM module is
 * loaded once per process when this file is imported (top-level await, ~15 ms); after that every state is created
 * synchronously, like Fengari's. `src/engine/index.ts` loads it on demand (`loadEngine('lua54')`).
 */
export const wasmoonEngine: LuaEngine = {
  name: 'lua54',
  luaVersion: 'Lua 5.4',
  createState: (options) => new WasmoonState(options),
};

/** Live states by the `ud` of their allocator, so the shared hook and allocator find theirs from any thread. */
const states = new Map<number, WasmoonState>();
let nextStateId = 1;

const ALLOCATOR = M.addFunction((ud: number, ptr: number, osize: number, nsize: number) => {
  const state = states.get(ud);
  if (nsize === 0) {
    if (ptr) {
      if (state) state.limits.memoryUsed -= osize;
      M._free(ptr);
    }
    return 0;
  }
  const delta = ptr ? nsize - osize : nsize;
  if (state && delta > 0 && state.running > 0) {
    const limits = state.limits;
    // a big block is made in one instruction (`..`, a C loop building a string or a table): charged by size; the
    // hook raises the limit within its interval (an allocator must not raise)
    if (delta >= CHARGE_ALLOC_FROM) state.chargeQuietly(Math.floor(delta / BYTES_PER_INSTRUCTION));
    // a block that moves holds its old and new copies at once: the cap bounds that peak, not only what stays
    const end = limits.memoryUsed + (ptr && nsize >= CHARGE_ALLOC_FROM ? nsize : delta);
    if (end > limits.memoryMax + (limits.memoryExceeded ? MEMORY_SLACK : 0)) {
      // Lua collects garbage in an emergency and asks again before it raises: only a second refusal of the same
      // request means the run tree really holds that much.
      if (state.refused === nsize) limits.memoryExceeded = true;
      state.refused = nsize;
      return 0;
    }
  }
  const out = M._realloc(ptr, nsize) as number;
  if (out) {
    if (state) {
      state.limits.memoryUsed += delta;
      state.refused = -1;
    }
  }
  return out;
}, 'iiiii');

const HOOK = M.addFunction((L: number) => {
  M._lua_getallocf(L, UD_CELL);
  states.get(M.HEAP32[UD_CELL >> 2])?.hook(L);
}, 'vii');

const PANIC = M.addFunction((L: number) => {
  throw new Error(`Lua panic: ${M._lua_type(L, -1) === T_STRING ? toStr(L, -1) : 'unprotected error'}`);
}, 'ii');

let dumpChunks: Uint8Array[] = [];
const WRITER = M.addFunction((_L: number, p: number, size: number) => {
  dumpChunks.push(M.HEAPU8.slice(p, p + size));
  return 0;
}, 'iiiii');

// Error values become "message\nstack traceback:..." strings; non-string errors go through tostring.
const MESSAGE_HANDLER = registerCFunction((L: number) => {
  const type = M._lua_type(L, 1);
  if (type !== T_STRING) {
    if (type === T_LIGHTUSERDATA && M._lua_touserdata(L, 1) === NULL_PTR) pushString(L, 'error object is the null sentinel');
    else M._luaL_tolstring(L, 1, 0);
    M._lua_copy(L, -1, 1);
    M._lua_settop(L, 1);
  }
  M._luaL_traceback(L, L, 0, 1);
  pushString(L, '\n');
  M._lua_rotate(L, 2, 1);
  M._lua_concat(L, 3);
  return 1;
});

/** a lua_Debug (108 bytes on wasm32): name at +4, namewhat at +8 */
const DEBUG_INFO = M._malloc(128) as number;
const cString = (p: number) => {
  if (!p) return null;
  let end = p;
  while (M.HEAPU8[end]) end++;
  return String.fromCharCode(...M.HEAPU8.subarray(p, end));
};

/** lua_isinteger with a value at most `max` (or absent) */
const smallPosition = (L: number, idx: number, max: bigint) =>
  M._lua_type(L, idx) <= T_NIL || (M._lua_isinteger(L, idx) && (M._lua_tointegerx(L, idx, 0) as bigint) <= max);

/**
 * The sandbox's library guard (see library-guard.ts): upvalue 2 is the Lua wrapper, upvalue 3 the global name.
 * Calls the wrapper; an error the library raised inside it is raised again as if this function had raised it.
 * Upvalue 4, when given, is the C function (string.sub, string.byte) to call directly when argument 1 is a string
 * and the positions after it are in range (the first one given): it cannot fail then, so no protected call is needed.
 */
const GUARD = registerCFunction((L: number) => {
  const n = M._lua_gettop(L);
  if (n >= 2 && n <= 3 && M._lua_type(L, 1) === T_STRING && M._lua_type(L, upvalueIndex(4)) !== T_NIL) {
    M._lua_tolstring(L, 1, LEN_CELL);
    const max = BigInt((M.HEAPU32[LEN_CELL >> 2] as number) + 1);
    if (M._lua_isinteger(L, 2) && smallPosition(L, 2, max) && smallPosition(L, 3, max)) {
      M._lua_pushvalue(L, upvalueIndex(4));
      M._lua_rotate(L, 1, 1);
      M._lua_callk(L, n, LUA_MULTRET, 0, 0);
      return M._lua_gettop(L);
    }
  }
  M._lua_pushvalue(L, upvalueIndex(2));
  M._lua_rotate(L, 1, 1);
  if (M._lua_pcallk(L, n, LUA_MULTRET, 0, 0, 0) === LUA_OK) return M._lua_gettop(L);
  if (M._lua_type(L, -1) !== T_STRING) return M._lua_error(L);
  const message = M._lua_gettop(L);
  const p = M._lua_tolstring(L, message, LEN_CELL) as number;
  const size = M.HEAPU32[LEN_CELL >> 2] as number;
  const start = String.fromCharCode(...M.HEAPU8.subarray(p, p + Math.min(size, RELAY_HEAD_BYTES)));
  M._lua_getstack(L, 0, DEBUG_INFO);
  M._lua_getinfo(L, cstr('n'), DEBUG_INFO);
  const call = { name: cString(M.HEAP32[(DEBUG_INFO + 4) >> 2] as number), namewhat: cString(M.HEAP32[(DEBUG_INFO + 8) >> 2] as number) ?? '' };
  const relayed = relayedError(start, call, toStr(L, upvalueIndex(3)));
  if (!relayed) return M._lua_error(L);
  M._luaL_where(L, 1);
  pushString(L, relayed.head);
  if (relayed.all) {
    M._lua_concat(L, 2);
  } else {
    const q = M._lua_tolstring(L, message, LEN_CELL) as number;
    M._lua_pushlstring(L, q + relayed.skip, (M.HEAPU32[LEN_CELL >> 2] as number) - relayed.skip);
    M._lua_concat(L, 3);
  }
  return M._lua_error(L);
});

/** Runs the JS function stored for it, inside a protected call (setup work that allocates must be protected). */
let protectedBody: ((L: number) => number) | undefined;
const TRAMPOLINE = registerCFunction((L: number) => {
  const body = protectedBody as (L: number) => number;
  protectedBody = undefined;
  let failure: string | undefined;
  let n = 0;
  try {
    n = body(L);
  } catch (err) {
    if (isLongjmp(err)) throw err;
    failure = (err as Error).message;
  }
  if (failure !== undefined) raise(L, failure);
  return n;
});

// Compiled chunks by name and source: a fresh state per stage no longer re-parses the prelude, modules, agents.
const BYTECODE_LIMIT = 2000;
const bytecodeCache = new Map<string, Uint8Array>();

class WasmoonState implements LuaState {
  readonly limits: RunLimits;
  private readonly L: number;
  private readonly id: number;
  private readonly ids: number[] = [];
  private used = 0;
  /** > 0 while Lua code of this state runs: the memory cap applies then (setup is the simulator's own work) */
  running = 0;
  /** size of the last refused allocation (see ALLOCATOR) */
  refused = -1;
  private closed = false;
  private readonly memoryMessage: string;
  /** names of the simulator's own chunks (the sandbox, preludes): their functions stand for AIPack's native ones */
  private readonly hostChunks = new Set(['=sandbox']);

  constructor(private readonly options: StateOptions) {
    this.limits = options.limits ?? createLimits(options.budget);
    this.memoryMessage = options.memoryMessage ?? 'memory limit exceeded';
    this.id = nextStateId++;
    states.set(this.id, this);
    this.L = M._lua_newstate(ALLOCATOR, this.id) as number;
    if (!this.L) throw new Error('wasmoon: cannot create a Lua state');
    M._lua_atpanic(this.L, PANIC);
    this.protect((L) => this.openSandboxedLibs(L));
    // a state of a spent tree stops at its first instruction
    M._lua_sethook(this.L, HOOK, LUA_MASKCOUNT, chargeState(this.limits) ? 1 : HOOK_INTERVAL);
  }

  private hooks = 0;
  hook(L: number): void {
    if (++this.hooks % DEADLINE_CHECK_HOOKS === 0 && checkDeadline(this.limits)) this.failFast(L);
    this.charge(L, HOOK_INTERVAL);
  }

  /** Charges work seen where no error may be raised (the allocator); the next hook raises. */
  chargeQuietly(n: number): void {
    this.used += n;
    chargeInstructions(this.limits, n);
  }

  /**
   * Counts `n` instructions against the run tree's budget. Once a limit is hit the hook fires on every
   * instruction, so a pcall that swallowed the error cannot run on: the next instruction outside it raises again.
   */
  private charge(L: number, n: number): void {
    this.used += n;
    if (chargeInstructions(this.limits, n)) this.failFast(L);
  }

  /**
   * Raises the limit's error in thread `L`. The hook then fires on every instruction of the main thread and of `L`
   * (hooks are per thread: a coroutine whose hook fires later is re-armed then), so no pcall can run on.
   */
  private failFast(L: number): never {
    M._lua_sethook(this.L, HOOK, LUA_MASKCOUNT, 1);
    M._lua_sethook(L, HOOK, LUA_MASKCOUNT, 1);
    return raise(L, limitMessage(this.limits, this.options) as string);
  }

  instructionsUsed(): number {
    return this.used;
  }

  private fn(L: number, f: (L: number) => number): void {
    pushCFunction(L, registerCFunction(f, this.ids));
  }

  private openSandboxedLibs(L: number): number {
    // luaL_requiref, done by hand: each luaopen_* leaves its table, stored as a global and in package.loaded
    M._luaL_getsubtable(L, REGISTRY, cstr('_LOADED'));
    const loaded = M._lua_gettop(L);
    for (const name of SANDBOX_LIBS) {
      // called directly, not through lua_call as luaL_requiref does: the library is the top value, and anything
      // below it (luaopen_package leaves its C-library table) is dropped here
      M[`_${openerName(name)}`](L);
      M._lua_pushvalue(L, -1);
      M._lua_setfield(L, loaded, cstr(name));
      M._lua_setglobal(L, cstr(name));
      M._lua_settop(L, loaded);
    }
    M._lua_settop(L, loaded - 1);
    // os: only the clock functions; execute/remove/rename/exit/getenv/tmpname would reach the host.
    M._lua_getglobal(L, cstr('os'));
    for (const name of OS_REMOVED) {
      M._lua_pushnil(L);
      M._lua_setfield(L, -2, cstr(name));
    }
    M._lua_settop(L, -2);
    // package: no C loader, no file searchers that read the host, a searchpath over the simulation; package.path
    // is AIPack's: the module dirs, then Lua's default, of which only "./?.lua;./?/init.lua" is simulated.
    M._lua_getglobal(L, cstr('package'));
    M._lua_pushvalue(L, -1);
    M._lua_setfield(L, REGISTRY, cstr(PACKAGE_KEY));
    M._lua_pushnil(L);
    M._lua_setfield(L, -2, cstr('loadlib'));
    pushString(L, '');
    M._lua_setfield(L, -2, cstr('cpath'));
    pushString(L, packagePath(this.options));
    M._lua_setfield(L, -2, cstr('path'));
    this.fn(L, this.searchpathFn);
    M._lua_setfield(L, -2, cstr('searchpath'));
    M._lua_createtable(L, 2, 0);
    M._lua_getfield(L, -2, cstr('searchers'));
    M._lua_rawgeti(L, -1, 1n); // the preload searcher
    M._lua_rawseti(L, -3, 1n);
    M._lua_settop(L, -2);
    this.fn(L, this.searcher);
    M._lua_rawseti(L, -2, 2n);
    M._lua_setfield(L, -2, cstr('searchers'));
    M._lua_settop(L, -2);
    // io: AIPack has it; here only write(), routed to print (no files, no process streams).
    M._lua_createtable(L, 0, 1);
    this.fn(L, this.ioWrite);
    M._lua_setfield(L, -2, cstr('write'));
    M._lua_pushvalue(L, -1);
    M._luaL_getsubtable(L, REGISTRY, cstr('_LOADED'));
    M._lua_rotate(L, -2, 1);
    M._lua_setfield(L, -2, cstr('io'));
    M._lua_settop(L, -2);
    M._lua_setglobal(L, cstr('io'));
    this.fn(L, this.printFn);
    M._lua_setglobal(L, cstr('print'));
    this.fn(L, this.loadfile);
    M._lua_setglobal(L, cstr('loadfile'));
    this.fn(L, this.dofile);
    M._lua_setglobal(L, cstr('dofile'));
    setArrayMetatable(L);
    // the sandbox's Lua side (sandbox.ts), with its host helpers
    M._lua_createtable(L, 0, 3);
    this.fn(L, (L) => {
      const n = Math.min(Number.MAX_SAFE_INTEGER, M._lua_tonumberx(L, 1, 0) as number);
      if (n > 0) this.charge(L, Math.ceil(n));
      return 0;
    });
    M._lua_setfield(L, -2, cstr('charge'));
    this.fn(L, (L) => {
      const hit = limitMessage(this.limits, this.options);
      if (hit === undefined) return 0;
      pushString(L, hit);
      return 1;
    });
    M._lua_setfield(L, -2, cstr('limit_hit'));
    this.fn(L, () => 0);
    M._lua_setfield(L, -2, cstr('allow_hooks'));
    // guard(f, globalName[, direct]): f behind a C function (library-guard.ts)
    this.fn(L, (L) => {
      M._lua_settop(L, 3);
      pushCClosure(L, GUARD, 3);
      return 1;
    });
    M._lua_setfield(L, -2, cstr('guard'));
    // hosted(f): f was defined by the simulator's own code
    this.fn(L, (L) => {
      M._lua_settop(L, 1);
      M._lua_getinfo(L, cstr('>S'), DEBUG_INFO);
      const source = cString(M.HEAP32[(DEBUG_INFO + 16) >> 2] as number);
      M._lua_pushboolean(L, source !== null && this.hostChunks.has(source) ? 1 : 0);
      return 1;
    });
    M._lua_setfield(L, -2, cstr('hosted'));
    this.setPatternHost(L);
    M._lua_setglobal(L, cstr('__sandbox'));
    if (this.loadChunk(L, SANDBOX_LUA, '=sandbox', true) !== LUA_OK) raise(L, toStr(L, -1));
    M._lua_callk(L, 0, 0, 0, 0);
    return 0;
  }

  /** The step-counting pattern matcher's host functions (sandbox.ts routes costly pattern calls to them). */
  private setPatternHost(L: number): void {
    const host = patternHost<number>('5.4', {
      // a view of wasm memory: valid until the next allocation, so results are pushed by pointer (pushSubject)
      bytes: (L, idx) => {
        const p = M._lua_tolstring(L, idx, LEN_CELL) as number;
        return M.HEAPU8.subarray(p, p + (M.HEAPU32[LEN_CELL >> 2] as number));
      },
      integer: (L, idx) => Number(M._lua_tointegerx(L, idx, 0)),
      isNil: (L, idx) => M._lua_type(L, idx) <= T_NIL,
      boolean: (L, idx) => M._lua_toboolean(L, idx) !== 0,
      pushInteger: (L, n) => M._lua_pushinteger(L, BigInt(n)),
      pushNil: (L) => M._lua_pushnil(L),
      checkStack: (L, n) => M._luaL_checkstack(L, n, cstr('too many captures')),
      pushSubject: (L, init, len) => M._lua_pushlstring(L, (M._lua_tolstring(L, 1, LEN_CELL) as number) + init, len),
      pushBytes: (L, bytes) => {
        const p = mallocBytes(bytes);
        try {
          M._lua_pushlstring(L, p, bytes.length);
        } finally {
          M._free(p);
        }
      },
      charge: (L, n) => this.charge(L, n),
      tooLarge: (L) => {
        this.limits.memoryExceeded = true;
        return this.failFast(L);
      },
      memoryMax: () => this.limits.memoryMax,
      // luaL_error's position prefix, as the library's own errors carry
      raise: (L, message) => {
        M._luaL_where(L, 1);
        const where = toStr(L, -1);
        M._lua_settop(L, -2);
        return raise(L, where + message);
      },
    });
    for (const [name, fn] of Object.entries(host)) {
      this.fn(L, fn);
      M._lua_setfield(L, -2, cstr(name));
    }
    pushString(L, '5.4');
    M._lua_setfield(L, -2, cstr('dialect'));
    // a table element moved by the C library's loops (lua_geti/lua_seti) takes ~8 instructions' time
    M._lua_pushinteger(L, 8n);
    M._lua_setfield(L, -2, cstr('element_cost'));
    M._lua_pushnumber(L, this.options.patternRouteSteps ?? PATTERN_ROUTE_STEPS);
    M._lua_setfield(L, -2, cstr('route_steps'));
  }

  // print(...) joins its arguments with "\n" as AIPack's override does; tables/nil go through tostring.
  private readonly printFn = (L: number) => {
    const n = M._lua_gettop(L);
    const parts: string[] = [];
    for (let i = 1; i <= n; i++) {
      M._luaL_tolstring(L, i, 0);
      parts.push(toStr(L, -1));
      M._lua_settop(L, -2);
    }
    this.options.print(parts.join('\n'));
    return 0;
  };

  private readonly ioWrite = (L: number) => {
    const n = M._lua_gettop(L);
    const parts: string[] = [];
    for (let i = 1; i <= n; i++) parts.push(this.checkString(L, i));
    this.options.print(parts.join(''));
    return 0;
  };

  private checkString(L: number, i: number): string {
    const t = M._lua_type(L, i);
    if (t !== T_STRING && t !== T_NUMBER) M._luaL_checklstring(L, i, 0); // raises Lua's own "string expected" error
    return toStr(L, i);
  }

  private readonly searchpathFn = (L: number) => {
    const name = this.checkString(L, 1);
    const path = this.checkString(L, 2);
    const opt = (i: number, def: string) => (M._lua_type(L, i) <= T_NIL ? def : this.checkString(L, i));
    const found = searchPath(this.options, name, path, opt(3, '.'), opt(4, '/'));
    if ('file' in found) {
      pushString(L, found.file);
      return 1;
    }
    M._lua_pushnil(L);
    pushString(L, found.tried);
    return 2;
  };

  // The Lua searcher (package.searchers[2]): follows package.path as it is when `require` runs.
  private readonly searcher = (L: number) => {
    const name = this.checkString(L, 1);
    M._lua_getfield(L, REGISTRY, cstr(PACKAGE_KEY));
    M._lua_getfield(L, -1, cstr('path'));
    if (M._lua_type(L, -1) !== T_STRING) raise(L, "'package.path' must be a string");
    const path = toStr(L, -1);
    M._lua_settop(L, -3);
    const found = searchPath(this.options, name, path, '.', '/');
    if (!('file' in found)) {
      pushString(L, found.tried);
      return 1;
    }
    if (this.loadChunk(L, found.code, '@' + this.options.displayPath(found.abs), false) !== LUA_OK) {
      raise(L, `error loading module '${name}' from file '${found.file}':\n\t${toStr(L, -1)}`);
    }
    pushString(L, found.file);
    return 2;
  };

  private loadFileOnStack(L: number, fname: string): number {
    const where = loadablePath(this.options, fname);
    if ('error' in where) raise(L, where.error);
    const code = this.options.readFile(where.abs);
    if (code === undefined) {
      M._lua_pushnil(L);
      pushString(L, `cannot open ${fname}`);
      return 2;
    }
    if (this.loadChunk(L, code, '@' + this.options.displayPath(where.abs), false) !== LUA_OK) {
      M._lua_pushnil(L);
      M._lua_rotate(L, -2, 1);
      return 2;
    }
    return 1;
  }

  private readonly loadfile = (L: number) => this.loadFileOnStack(L, this.checkString(L, 1));

  private readonly dofile = (L: number) => {
    const fname = this.checkString(L, 1);
    M._lua_settop(L, 1);
    if (this.loadFileOnStack(L, fname) !== 1) return M._lua_error(L);
    M._lua_callk(L, 0, LUA_MULTRET, 0, 0);
    return M._lua_gettop(L) - 1;
  };

  /**
   * Loads `code` as a text chunk named `chunkName` and leaves the function (or the error message) on the stack.
   * Compiled once per process and chunk: later loads take the cached bytecode (made here, from the same source).
   */
  private loadChunk(L: number, code: string | Uint8Array, chunkName: string, _trusted: boolean): number {
    // a file's bytes are keyed as latin1, marked apart from source text
    const key = typeof code === 'string' ? chunkName + '\0' + code : chunkName + '\0\u0001' + Buffer.from(code).toString('latin1');
    const cached = bytecodeCache.get(key);
    const name = cstr(chunkName);
    if (cached) {
      const buf = mallocBytes(cached);
      try {
        return M._luaL_loadbufferx(L, buf, cached.length, name, cstr('b'));
      } finally {
        M._free(buf);
        freeTempCStrings();
      }
    }
    const bytes = typeof code === 'string' ? new TextEncoder().encode(code) : code;
    const buf = mallocBytes(bytes);
    let status: number;
    try {
      status = M._luaL_loadbufferx(L, buf, bytes.length, name, cstr('t'));
    } finally {
      M._free(buf);
      freeTempCStrings();
    }
    if (status === LUA_OK) {
      dumpChunks = [];
      M._lua_dump(L, WRITER, 0, 0);
      const size = dumpChunks.reduce((n, c) => n + c.length, 0);
      const out = new Uint8Array(size);
      let at = 0;
      for (const c of dumpChunks) {
        out.set(c, at);
        at += c.length;
      }
      dumpChunks = [];
      if (bytecodeCache.size >= BYTECODE_LIMIT) bytecodeCache.delete(bytecodeCache.keys().next().value as string);
      bytecodeCache.set(key, out);
    }
    return status;
  }

  /**
   * Runs `body` inside a protected call (allocation failures and Lua errors become JS errors). `arg`: an index of
   * the caller's stack passed as the body's first value (a C function sees only its own frame).
   */
  private protect(body: (L: number) => number, arg?: number): void {
    const L = this.L;
    const base = M._lua_gettop(L);
    protectedBody = body;
    pushCFunction(L, TRAMPOLINE);
    if (arg !== undefined) M._lua_pushvalue(L, arg);
    const status = M._lua_pcallk(L, arg !== undefined ? 1 : 0, 0, 0, 0, 0);
    if (status !== LUA_OK) {
      const msg = status === LUA_ERRMEM || this.limits.memoryExceeded ? this.memoryMessage : M._lua_type(L, -1) === T_STRING ? toStr(L, -1) : 'Lua error';
      M._lua_settop(L, base);
      throw new LuaRuntimeError(msg, '');
    }
    M._lua_settop(L, base);
  }

  setGlobal(name: string, value: unknown): void {
    this.protect((L) => {
      pushJs(L, value, false, this.ids);
      M._lua_setglobal(L, cstr(name));
      return 0;
    });
  }

  exec(code: string, chunkName: string): void {
    this.hostChunks.add(chunkName);
    this.protectedRun(code, chunkName, 1, undefined);
  }

  runChunk(code: string, file: string, firstLine: number, scope: Record<string, unknown>, mode: ConvertMode): unknown {
    return this.protectedRun(code, '@' + this.options.displayPath(file), firstLine, mode, (L) => {
      // _ENV = scope variables + shallow copy of the globals (AIPack's upgrade_scope); arg 1 is the chunk
      M._lua_createtable(L, 0, 64);
      M._lua_rawgeti(L, REGISTRY, RIDX_GLOBALS);
      M._lua_pushnil(L);
      while (M._lua_next(L, -2) !== 0) {
        M._lua_pushvalue(L, -2);
        M._lua_rotate(L, -2, 1);
        M._lua_rawset(L, -5);
      }
      M._lua_settop(L, -2);
      for (const [key, value] of Object.entries(scope)) {
        pushJs(L, value, true, this.ids);
        M._lua_setfield(L, -2, cstr(key));
      }
      if (!M._lua_setupvalue(L, 1, 1)) M._lua_settop(L, -2);
      return 0;
    });
  }

  /** Loads `code` (padded so its lines match its file), prepares it with `setup`, calls it under a traceback handler. */
  private protectedRun(code: string, chunkName: string, firstLine: number, mode: ConvertMode | undefined, setup?: (L: number) => number): unknown {
    const L = this.L;
    const base = M._lua_gettop(L);
    pushCFunction(L, MESSAGE_HANDLER);
    const loadStatus = this.loadChunk(L, '\n'.repeat(Math.max(0, firstLine - 1)) + code, chunkName, false);
    if (loadStatus !== LUA_OK) {
      const msg = loadStatus === LUA_ERRMEM ? this.memoryMessage : toStr(L, -1);
      M._lua_settop(L, base);
      throw new LuaRuntimeError(msg, '', locationOf(msg));
    }
    if (setup) {
      const fnIndex = M._lua_gettop(L);
      try {
        this.protect(setup, fnIndex);
      } catch (err) {
        M._lua_settop(L, base);
        throw err;
      }
    }
    this.running++;
    let status: number;
    try {
      status = M._lua_pcallk(L, 0, 1, base + 1, 0, 0);
    } finally {
      this.running--;
    }
    if (status !== LUA_OK) {
      if (status === LUA_ERRMEM || this.limits.memoryExceeded) {
        M._lua_settop(L, base);
        throw new LuaRuntimeError(this.memoryMessage, '');
      }
      const full = M._lua_type(L, -1) === T_STRING ? toStr(L, -1) : 'unknown Lua error';
      M._lua_settop(L, base);
      throw chunkFailure(full);
    }
    try {
      return mode ? toJs(L, -1, mode) : undefined;
    } catch (err) {
      if (err instanceof ConversionError) throw new LuaRuntimeError(`${chunkName.replace(/^@/, '')}: ${err.message}`, '');
      throw err;
    } finally {
      M._lua_settop(L, base);
    }
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    M._lua_close(this.L);
    states.delete(this.id);
    releaseCFunctions(this.ids);
  }
}

