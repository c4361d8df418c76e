/**
 * Lua 5.3 on fengari: state creation, the count hook, the memory guard (fengari has no allocator: the JS heap is
 * read), the engine's side of the sandbox (its helpers, its library replacements in fengari-libraries.ts), the
 * put-back in fengari's own structures (fengari-tables.ts) and chunk loading through the prototype cache, over the
 * engine core (sandboxed-state.ts) and its C API adapter (fengari-api.ts).
 */
import v8 from 'node:v8';
import vm from 'node:vm';
import type { LuaEngine, StateOptions } from './engine.ts';
import { api, latin1, raise, str } from './fengari-api.ts';
import { pushJs, toJs, setArrayMetatable, luaBytes, isUnwind } from './fengari-bridge.ts';
import { ELEMENT_COST, luaType, meteredTableFunctions, StateRandom, strChar, strRep, tableMove } from './fengari-libraries.ts';
import { changedTriples, pushGlobalsCopy, putTriplesBack, reachableTriples, type PristineTriple } from './fengari-tables.ts';
import { clearDeadSlots, lua, lauxlib, lualib, newTable, protoOf, pushProto, setBigStringHook, TAG, valueAt, type LuaState as L, type LuaTable, type Proto } from './fengari-vm.ts';
import { BYTES_PER_INSTRUCTION, spent, type RunLimits } from './limits.ts';
import { openerName, SANDBOX_LIBS, withLua54Hint } from './sandbox.ts';
import { SandboxedState, tracebackHandler, type PatternPrimitives } from './sandboxed-state.ts';
import { ARRAY_MT_KEY, PRIVATE_KEY } from './state-put-back.ts';
import type { CFunction } from './state-host-libraries.ts';
import { StatePool } from './state-pool.ts';
import type { ConvertMode } from './values.ts';
import { relayLibraryError } from './library-guard.ts';
import { ChunkCache } from './chunk-cache.ts';
import { loadPrecompiled } from './fengari-chunks.ts';

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
    // what the stack no longer holds is garbage, as C Lua's collector takes it
    clearDeadSlots(L);
    collectGarbage();
    limits.memoryUsed = heapNow() - base;
    if (limits.memoryUsed <= limits.memoryMax) return;
    this.memoryFull(L);
  }

  /** table.concat and table.unpack of this state, charged to it (fengari-libraries.ts) */
  private readonly tables = meteredTableFunctions({
    charge: (L, n) => this.charge(L, n),
    memoryFull: (L) => this.memoryFull(L),
    memoryMax: () => this.limits.memoryMax,
  });

  /** math.random and math.randomseed over a generator of this state (fengari's is one for the process) */
  private readonly random = new StateRandom();

  protected override get elementCost(): number {
    return ELEMENT_COST;
  }

  /** a new state's generator: Math.random until the next stage sets a seed */
  protected override resetRandom(): void {
    this.random.reset();
  }

  protected openLibraries(L: L): void {
    for (const name of SANDBOX_LIBS) {
      lauxlib.luaL_requiref(L, str(name), lualib[openerName(name)] as (L: L) => number, 1);
      lua.lua_pop(L, 1);
    }
    lua.lua_pushjsfunction(L, luaType);
    lua.lua_setglobal(L, str('type'));
    lua.lua_getglobal(L, str('string'));
    lua.lua_pushjsfunction(L, strRep);
    lua.lua_setfield(L, -2, str('rep'));
    lua.lua_pushjsfunction(L, strChar);
    lua.lua_setfield(L, -2, str('char'));
    lua.lua_pop(L, 1);
    lua.lua_getglobal(L, str('table'));
    lua.lua_pushjsfunction(L, tableMove);
    lua.lua_setfield(L, -2, str('move'));
    lua.lua_pushjsfunction(L, this.tables.concat);
    lua.lua_setfield(L, -2, str('concat'));
    lua.lua_pop(L, 1);
    lua.lua_getglobal(L, str('math'));
    lua.lua_pushjsfunction(L, this.random.random);
    lua.lua_setfield(L, -2, str('random'));
    lua.lua_pushjsfunction(L, this.random.randomseed);
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

  /** table.unpack replaces the sandbox's Lua wrapper (fengari-libraries.ts) */
  protected override afterSandbox(L: L): void {
    lua.lua_getglobal(L, str('table'));
    lua.lua_pushjsfunction(L, this.tables.unpack);
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

  protected override changedTables(L: L, list: number): number[] {
    return changedTriples(this.pristineTriples());
  }

  protected override putBackTables(L: L, list: number, changed: number[] | undefined): boolean {
    const all = this.pristineTriples();
    return putTriplesBack(L, changed === undefined ? all : changed.map((i) => all[i - 1]!));
  }

  /** the (table, copy, metatable) triples of every table Lua can reach: the list is made once, at set-up */
  private triples?: PristineTriple[];

  /** PRISTINE_LUA's walk in fengari's own structures (fengari-tables.ts): the Lua walk costs ~100 ms a state here */
  protected override copyReachableTables(L: L): void {
    const table = (push: () => void): LuaTable | undefined => {
      push();
      const v = valueAt(L, lua.lua_gettop(L));
      lua.lua_settop(L, -2);
      return v.type === TAG.LUA_TTABLE ? (v.value as LuaTable) : undefined;
    };
    const globals = table(() => lua.lua_pushglobaltable(L));
    const stringMt = table(() => {
      lua.lua_pushliteral(L, '');
      if (!lua.lua_getmetatable(L, -1)) lua.lua_pushnil(L);
      lua.lua_remove(L, -2);
    });
    const arrayMt = table(() => lua.lua_getfield(L, lua.LUA_REGISTRYINDEX, str(ARRAY_MT_KEY)));
    const privateTables = table(() => lua.lua_getfield(L, lua.LUA_REGISTRYINDEX, str(PRIVATE_KEY)));
    const roots = [globals, stringMt, arrayMt].filter((t): t is LuaTable => t !== undefined);
    this.triples = reachableTriples(L, roots, privateTables ?? newTable(L));
  }

  private pristineTriples(): PristineTriple[] {
    if (!this.triples) throw new Error('fengari state: the put-back has no copy of the tables (keepPristine did not run)');
    return this.triples;
  }

  protected override pushGlobalsCopy(L: L): void {
    pushGlobalsCopy(L);
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
    // nothing of this stage stays reachable from the state the next stage gets
    clearDeadSlots(this.L);
    pool.give(this);
  }
}

/** Re-enables hooks on the calling thread (see the allow_hooks note in sandboxHelpers); `allowhook` is fengari's field. */
function allowHooks(L: L): number {
  (L as unknown as { allowhook: number }).allowhook = 1;
  return 0;
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
