import type { LuaEngine, StateOptions } from './engine.ts';
import { BYTES_PER_INSTRUCTION, CHARGE_ALLOC_FROM } from './limits.ts';
import { api, cString, DEBUG_INFO } from './wasmoon-api.ts';
import { openerName, SANDBOX_LIBS } from './sandbox.ts';
import { ChunkCache } from './chunk-cache.ts';
import { SandboxedState, tracebackHandler, type PatternPrimitives } from './sandboxed-state.ts';
import type { CFunction } from './state-host-libraries.ts';
import { StatePool } from './state-pool.ts';
import { COLLECT_KEY, PRISTINE_KEY } from './state-put-back.ts';
import { LuaRuntimeError, type ConvertMode } from './values.ts';
import { relayLibraryError } from './library-guard.ts';
import { imageOf, layoutHolds, partSizes, putImageBack, unchanged, type TableImage } from './wasmoon-tables.ts';
import { int64 } from './wasmoon-int64.ts';
import { KeptChunks } from './wasmoon-kept-chunks.ts';
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
  T_NIL,
  LEN_CELL,
  T_STRING,
  toJs,
  toStr,
  UD_CELL,
  upvalueIndex,
} from './wasmoon-bridge.ts';

/**
 * Garbage a pooled state may keep for Lua's own collector when it goes back to the pool: the next run tree is
 * charged for it (the default cap is 512 MiB), and a full collection per stage would cost more than a
 * small stage itself.
 */
const GARBAGE_COLLECT_FROM = 256 * 1024;

/** Room above the memory cap for the error handling of a run that hit it (messages, tracebacks). */
const MEMORY_SLACK = 16 * 1024 * 1024;

/**
 * Lua 5.4 (the C Lua that AIPack's mlua vendors) compiled to WebAssembly by wasmoon 1.16.0. The WASM module is
 * loaded once per process when this file is imported (top-level await, ~15 ms); after that every state is created
 * synchronously, like Fengari's. `src/engine/index.ts` loads it on demand (`loadEngine('lua54')`).
 */
export const wasmoonEngine: LuaEngine = {
  name: 'lua54',
  luaVersion: 'Lua 5.4',
  createState: (options) => pool.take(options) ?? new WasmoonState(options),
};

/** Live states by the `ud` of their allocator, so the shared hook and allocator find theirs from any thread. */
const states = new Map<number, WasmoonState>();
let nextStateId = 1;

const ALLOCATOR = M.addFunction((ud: number, ptr: number, osize: number, nsize: number) => {
  const state = states.get(ud);
  if (nsize === 0) {
    if (ptr) {
      if (state) {
        state.limits.memoryUsed -= osize;
        state.bytes -= osize;
      }
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
      state.bytes += delta;
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

const MESSAGE_HANDLER = registerCFunction((L: number) => tracebackHandler(api, L));


/** lua_isinteger with a value at most `max` (or absent) */
const smallPosition = (L: number, idx: number, max: bigint) =>
  M._lua_type(L, idx) <= T_NIL || (M._lua_isinteger(L, idx) && (M._lua_tointegerx(L, idx, 0) as bigint) <= max);

/**
 * Whether arguments 2 and 3 (integers, a relative one counted from the end of a string of `len` bytes) span fewer
 * than DIRECT_SPAN positions: string.byte returns a value per position, which its wrapper charges.
 */
const DIRECT_SPAN = 4096n;
const fewPositions = (L: number, n: number, len: bigint) => {
  if (n < 3 || M._lua_type(L, 3) <= T_NIL) return true;
  const at = (idx: number) => {
    const x = M._lua_tointegerx(L, idx, 0) as bigint;
    return x < 0n ? len + x + 1n : x;
  };
  return at(3) - at(2) < DIRECT_SPAN;
};

/**
 * The sandbox's library guard (see library-guard.ts): upvalue 2 is the Lua wrapper, upvalue 3 the global name.
 * Calls the wrapper; an error the library raised inside it is raised again as if this function had raised it.
 * Upvalue 4, when given, is the C function (string.sub, string.byte) to call directly when argument 1 is a string
 * and the positions after it are in range (the first one given) and few: it cannot fail then, so no protected call
 * is needed.
 */
const GUARD = registerCFunction((L: number) => {
  const n = M._lua_gettop(L);
  if (n >= 2 && n <= 3 && M._lua_type(L, 1) === T_STRING && M._lua_type(L, upvalueIndex(4)) !== T_NIL) {
    M._lua_tolstring(L, 1, LEN_CELL);
    const max = BigInt((M.HEAPU32[LEN_CELL >> 2] as number) + 1);
    if (M._lua_isinteger(L, 2) && smallPosition(L, 2, max) && smallPosition(L, 3, max) && fewPositions(L, n, max - 1n)) {
      M._lua_pushvalue(L, upvalueIndex(4));
      M._lua_rotate(L, 1, 1);
      M._lua_callk(L, n, LUA_MULTRET, 0, 0);
      return M._lua_gettop(L);
    }
  }
  M._lua_pushvalue(L, upvalueIndex(2));
  M._lua_rotate(L, 1, 1);
  if (M._lua_pcallk(L, n, LUA_MULTRET, 0, 0, 0) === LUA_OK) return M._lua_gettop(L);
  return relayLibraryError(api, L, toStr(L, upvalueIndex(3)));
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
const bytecodeCache = new ChunkCache<Uint8Array>(2000);

// a state dropped to make room is closed: its VM lives in the module's memory, which no collector frees
const pool = new StatePool<WasmoonState>(4, (s) => s.evict());

class WasmoonState extends SandboxedState<number> {
  protected readonly L: number;
  protected readonly dialect = '5.4';
  private readonly id: number;
  private readonly ids: number[] = [];
  /** size of the last refused allocation (see ALLOCATOR) */
  refused = -1;
  /** bytes the state holds now (ALLOCATOR), counted in its run tree's memory */
  bytes = 0;
  /** host functions of the installed sandbox (the first ids): those after them are a stage's */
  private readonly installedIds: number;
  private closed = false;
  /** functions of chunks its stages loaded, for its later stages (wasmoon-kept-chunks.ts) */
  private readonly keptChunks = new KeptChunks<Uint8Array>({
    ref: (L) => {
      M._lua_pushvalue(L, -1);
      return M._luaL_ref(L, REGISTRY) as number;
    },
    unref: (L, ref) => M._luaL_unref(L, REGISTRY, ref),
    pushWithGlobals: (L, ref) => {
      M._lua_rawgeti(L, REGISTRY, int64(ref));
      M._lua_rawgeti(L, REGISTRY, RIDX_GLOBALS);
      M._lua_setupvalue(L, -2, 1);
    },
    release: (L, ref) => {
      M._lua_rawgeti(L, REGISTRY, int64(ref));
      M._lua_pushnil(L);
      M._lua_setupvalue(L, -2, 1);
      M._lua_settop(L, -2);
    },
    charge: (L, n) => {
      if (this.chargeQuietly(n)) this.hookEveryInstruction(L);
    },
  });

  constructor(options: StateOptions) {
    super(api, options);
    this.id = nextStateId++;
    states.set(this.id, this);
    this.L = M._lua_newstate(ALLOCATOR, this.id) as number;
    if (!this.L) throw new Error('wasmoon: cannot create a Lua state');
    M._lua_atpanic(this.L, PANIC);
    this.protect((L) => this.install(L));
    this.installTemplate();
    this.takeImages();
    this.installedIds = this.ids.length;
    this.pristineBytes = this.bytes;
    // set up: its first stage begins
    this.keptChunks.newStage();
    M._lua_sethook(this.L, HOOK, LUA_MASKCOUNT, this.firstHookInterval());
  }

  /** the pristine tables as set up (wasmoon-tables.ts), when their layout is known */
  private images?: TableImage[];

  /** Images of the pristine tables as set up, after a full collection (see wasmoon-tables.ts). */
  private takeImages(): void {
    if (!layoutHolds) return;
    this.protect((L) => {
      M._lua_getfield(L, REGISTRY, cstr(COLLECT_KEY));
      pushString(L, 'collect');
      M._lua_callk(L, 1, 0, 0, 0);
      M._lua_getfield(L, REGISTRY, cstr(PRISTINE_KEY));
      const list = M._lua_gettop(L);
      const images: TableImage[] = [];
      for (let i = 1; M._lua_rawgeti(L, list, int64(3 * i - 2)) !== T_NIL; i++) {
        images.push(imageOf(M._lua_topointer(L, -1) as number));
        M._lua_settop(L, -2);
      }
      this.images = images;
    });
  }

  protected override changedTables(): number[] | undefined {
    const images = this.images;
    if (images === undefined) return undefined;
    const changed: number[] = [];
    for (let i = 0; i < images.length; i++) if (!unchanged(images[i])) changed.push(i + 1);
    return changed;
  }

  /**
   * Each changed table's image written back over it (its entries and its iteration order as set up); false, and
   * the state is not reused, when one cannot be (it has another metatable). Without a known layout, the core's
   * put-back through the API.
   */
  protected override putBackTables(L: number, list: number, changed: number[] | undefined): boolean {
    const images = this.images;
    if (images === undefined || changed === undefined) return super.putBackTables(L, list, changed);
    const top = M._lua_gettop(L);
    try {
      return changed.every((i) =>
        putImageBack(images[i - 1], () => {
          const { narr, nrec } = partSizes(images[i - 1]);
          M._lua_createtable(L, narr, nrec);
          return M._lua_topointer(L, -1) as number;
        }),
      );
    } finally {
      M._lua_settop(L, top);
    }
  }

  /** the bytes the state held once set up, before any stage */
  private pristineBytes = 0;

  /** over GARBAGE_COLLECT_FROM bytes more than the state held set up (see restorePristine) */
  protected override garbageWorthCollecting(): boolean {
    return this.bytes - this.pristineBytes - this.keptChunks.bytes > GARBAGE_COLLECT_FROM;
  }

  protected onTaken(): void {
    // the state's memory moves to the run tree that takes it (close took it out of the last one); a kept chunk's
    // function is charged when a stage loads it, as its undump was
    this.keptChunks.newStage();
    this.limits.memoryUsed += this.bytes - this.keptChunks.idleBytes;
    this.refused = -1;
    M._lua_sethook(this.L, HOOK, LUA_MASKCOUNT, this.firstHookInterval());
  }

  hook(L: number): void {
    this.tick(L);
  }

  protected hookEveryInstruction(L: number): void {
    M._lua_sethook(this.L, HOOK, LUA_MASKCOUNT, 1);
    M._lua_sethook(L, HOOK, LUA_MASKCOUNT, 1);
  }

  protected pushFunction(L: number, f: CFunction<number>): void {
    pushCFunction(L, registerCFunction(f, this.ids));
  }

  protected isUnwind(err: unknown): boolean {
    return isLongjmp(err);
  }

  protected openLibraries(L: number): void {
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
    setArrayMetatable(L);
  }

  protected sandboxHelpers(L: number): void {
    this.pushFunction(L, () => 0);
    M._lua_setfield(L, -2, cstr('allow_hooks'));
    // guard(f, globalName[, direct]): f behind a C function (library-guard.ts)
    this.pushFunction(L, (L) => {
      M._lua_settop(L, 3);
      pushCClosure(L, GUARD, 3);
      return 1;
    });
    M._lua_setfield(L, -2, cstr('guard'));
    // a table element moved by the C library's loops (lua_geti/lua_seti) takes ~8 instructions' time
    M._lua_pushinteger(L, 8n);
    M._lua_setfield(L, -2, cstr('element_cost'));
  }

  protected patternPrimitives(): PatternPrimitives<number> {
    return {
      // a view of wasm memory: valid until the next allocation, so results are pushed by pointer (pushSubject)
      bytes: (L, idx) => {
        const p = M._lua_tolstring(L, idx, LEN_CELL) as number;
        return M.HEAPU8.subarray(p, p + (M.HEAPU32[LEN_CELL >> 2] as number));
      },
      integer: (L, idx) => Number(M._lua_tointegerx(L, idx, 0)),
      isNil: (L, idx) => M._lua_type(L, idx) <= T_NIL,
      boolean: (L, idx) => M._lua_toboolean(L, idx) !== 0,
      pushInteger: (L, n) => M._lua_pushinteger(L, int64(n)),
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
      // luaL_error's position prefix, as the library's own errors carry
      raise: (L, message) => {
        M._luaL_where(L, 1);
        const where = toStr(L, -1);
        M._lua_settop(L, -2);
        return raise(L, where + message);
      },
    };
  }

  /**
   * Loads `code` as a text chunk named `chunkName` and leaves the function (or the error message) on the stack.
   * Compiled once per process and chunk: later loads take the cached bytecode (made here, from the same source),
   * or the function this state made of it for an earlier stage (wasmoon-kept-chunks.ts).
   */
  protected loadChunk(L: number, code: string | Uint8Array, chunkName: string): number {
    const cached = bytecodeCache.get(chunkName, code);
    if (cached && this.keptChunks.take(L, cached, this.limits, this.running > 0)) return LUA_OK;
    const name = cstr(chunkName);
    if (cached) {
      const buf = mallocBytes(cached);
      const bytes = this.bytes;
      const used = this.limits.used;
      try {
        const status = M._luaL_loadbufferx(L, buf, cached.length, name, cstr('b'));
        if (status === LUA_OK) this.keptChunks.keep(L, cached, this.bytes - bytes, this.limits.used - used);
        return status;
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
      bytecodeCache.set(chunkName, code, out);
    }
    return status;
  }

  /**
   * Runs `body` inside a protected call (allocation failures and Lua errors become JS errors). `arg`: an index of
   * the caller's stack passed as the body's first value (a C function sees only its own frame).
   */
  protected protect(body: (L: number, arg: number) => void, arg?: number): void {
    const L = this.L;
    const base = M._lua_gettop(L);
    protectedBody = (L) => {
      body(L, 1);
      return 0;
    };
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

  protected pushValue(L: number, value: unknown, topNullIsNil: boolean): void {
    pushJs(L, value, topNullIsNil, this.ids);
  }

  protected toValue(L: number, idx: number, mode: ConvertMode): unknown {
    return toJs(L, idx, mode);
  }

  protected pushMessageHandler(L: number): void {
    pushCFunction(L, MESSAGE_HANDLER);
  }

  protected functionSource(L: number): string | null {
    M._lua_getinfo(L, cstr('>S'), DEBUG_INFO);
    return cString(M.HEAP32[(DEBUG_INFO + 16) >> 2] as number);
  }

  close(): void {
    if (this.closed) return;
    // the put-back is the simulator's work, not the stage's: no budget, no deadline (onTaken arms the hook again)
    M._lua_sethook(this.L, 0, 0, 0);
    this.keptChunks.endStage(this.L);
    if (pool.give(this)) {
      // restored and collected: no Lua value refers to the stage's host functions any more
      releaseCFunctions(this.ids.splice(this.installedIds));
      this.limits.memoryUsed -= this.bytes - this.keptChunks.idleBytes;
      return;
    }
    this.shutDown();
  }

  /** Closes a pooled state the pool dropped. Its bytes left its run's count when it was pooled; lua_close's frees
   * take them off again, so they are counted back first. */
  evict(): void {
    this.limits.memoryUsed += this.bytes;
    this.shutDown();
  }

  private shutDown(): void {
    this.closed = true;
    M._lua_close(this.L);
    states.delete(this.id);
    releaseCFunctions(this.ids);
  }
}

