/**
 * The engine core: a Lua state as the simulator sees it (engine.ts), written once over a small C-API adapter
 * (lua-api.ts). Here: the sandbox's installation (what is opened, removed and replaced, the `__sandbox` host
 * helpers, the Lua side of sandbox.ts), `require`'s searcher, `dofile`/`loadfile`, chunk runs and their error
 * shaping, and the budget policy (charges, the spent tree that no pcall can resume). An engine subclass keeps what
 * its VM needs: state creation, hooks, the allocator or memory guard, chunk compilation and its own library fixes.
 *
 * Set-up order (a later change may share the library set-up between states): the engine creates its VM and opens
 * the libraries (`openLibraries`), then `install` runs once, then the engine arms its instruction hook.
 */
import { readText } from '../support/host-fs.ts';
import type { LuaState, StateOptions } from './engine.ts';
import type { LuaApi } from './lua-api.ts';
import { hostWork, T_BOOLEAN, T_FUNCTION, T_NIL, T_NUMBER, T_STRING } from './conversion.ts';
import { BYTES_PER_INSTRUCTION, CHARGE_FROM_BYTES, chargeInstructions, chargeState, checkDeadline, createLimits, limitMessage, spent, type RunLimits } from './limits.ts';
import { patternHost, type PatternIO } from './pattern-hosts.ts';
import { PATTERN_ROUTE_STEPS } from './pattern.ts';
import { loadablePath, OS_REMOVED, packagePath, SANDBOX_ARGS, SANDBOX_LUA, searchPath } from './sandbox.ts';
import { chunkFailure, ConversionError, locationOf, LuaRuntimeError, type ConvertMode } from './values.ts';

/** lua.h statuses and counts, the same on both engines */
const LUA_OK = 0;
const LUA_ERRMEM = 4;
const LUA_MULTRET = -1;

/** instructions between two hook calls */
export const HOOK_INTERVAL = 1000;
/** hooks between two looks at the clock (the run tree's deadline) */
const DEADLINE_CHECK_HOOKS = 16;
/** the registry key of the `package` table, for the searcher (a script may replace the global) */
const PACKAGE_KEY = 'coder_subagents.package';
/** the registry keys of PRISTINE_LUA's list of tables and copies, its put-back function, the raw `collectgarbage` and
 * `math.randomseed` (taken before the sandbox wraps them), the sandbox's private tables */
export const PRISTINE_KEY = 'coder_subagents.pristine';
const RESTORE_KEY = 'coder_subagents.restore';
export const COLLECT_KEY = 'coder_subagents.collect';
const RANDOMSEED_KEY = 'coder_subagents.randomseed';
const PRIVATE_KEY = 'coder_subagents.private';
/** the registry key of the array metatable (conversion.ts; both bridges set it) */
const ARRAY_MT_KEY = 'coder_subagents.array_mt';

/**
 * The put-back's Lua (pristine.lua, beside this module): run once after the sandbox and the template are installed,
 * with the array metatable, `upvalues`, `rawmeta` and the private tables as its arguments; it returns the list of
 * (table, copy, metatable) triples of every table Lua can reach and the function that puts them back (see the
 * file's top).
 */
export const PRISTINE_LUA = readText(new URL('./pristine.lua', import.meta.url));

/** The states whose Lua runs now, innermost last (a host call runs in the last: nested runs stack up). */
const active: { chargeHostWork(L: unknown, nodes: number, bytes: number): string | undefined }[] = [];
hostWork.charge = (L, nodes, bytes) => active[active.length - 1]?.chargeHostWork(L, nodes, bytes);

/** A host C function of the engine (fengari: a JS function of the thread; wasmoon: behind a dispatch closure). */
export type CFunction<L> = (L: L) => number;

/** The pattern IO of an engine, less what the core gives it (the charges). */
export type PatternPrimitives<L> = Omit<PatternIO<L>, 'charge' | 'tooLarge' | 'memoryMax'>;

/**
 * The message handler of chunk runs: the error becomes "message\nstack traceback:..."; an error that is not a
 * string goes through tostring (AIPack's null sentinel is named).
 */
export function tracebackHandler<L>(api: LuaApi<L>, L: L): number {
  if (api.type(L, 1) !== T_STRING) {
    if (api.isNull(L, 1)) api.pushstring(L, 'error object is the null sentinel');
    else api.tolstring(L, 1);
    api.copy(L, -1, 1);
    api.settop(L, 1);
  }
  api.pushstring(L, '\n');
  api.traceback(L, 1);
  api.concat(L, 3);
  return 1;
}

/**
 * States given back by close(), restored to how the sandbox left them (restorePristine), for the next createState
 * of the same engine: a stage then costs the set-up of its own globals, not a new VM with its libraries and the
 * sandbox's Lua. A few are kept (a chain of sub-agent calls nests one state per level that runs at once).
 */
export class StatePool<S extends { readonly templateKey: string; takeFor(options: StateOptions): void; restorePristine(): boolean }> {
  /** by template key; the least recently used key first */
  private readonly free = new Map<string, S[]>();
  private count = 0;
  constructor(private readonly max: number) {}

  /** a pooled state of `options`' template taken for `options`, or undefined */
  take(options: StateOptions): S | undefined {
    const key = options.template?.key ?? '';
    const list = this.free.get(key);
    const s = list?.pop();
    if (!s) return undefined;
    this.count--;
    if (list?.length === 0) this.free.delete(key);
    s.takeFor(options);
    return s;
  }

  /** true when `s` was restored and kept; false: the caller disposes of it */
  give(s: S): boolean {
    if (!s.restorePristine()) return false;
    if (this.count >= this.max) {
      // the states of the least recently given template make room
      const [oldest, list] = this.free.entries().next().value as [string, S[]];
      list.shift();
      this.count--;
      if (list.length === 0) this.free.delete(oldest);
    }
    const list = this.free.get(s.templateKey) ?? [];
    this.free.delete(s.templateKey);
    list.push(s);
    this.free.set(s.templateKey, list);
    this.count++;
    return true;
  }
}

export abstract class SandboxedState<L> implements LuaState {
  // not readonly: a state given back to its engine's pool is taken again by another stage (reuse)
  limits: RunLimits;
  protected memoryMessage: string;
  /** names of the simulator's own chunks (the sandbox, preludes): their functions stand for AIPack's native ones */
  private readonly hostChunks = new Set(['=sandbox']);
  /** instructions this state charged */
  private used = 0;
  private hooks = 0;
  /** > 0 while Lua code of this state runs (limits that watch memory apply then; set-up is the simulator's) */
  running = 0;

  protected constructor(
    protected readonly api: LuaApi<L>,
    protected options: StateOptions,
  ) {
    this.limits = options.limits ?? createLimits(options.budget);
    this.memoryMessage = options.memoryMessage ?? 'memory limit exceeded';
  }

  /** the main thread */
  protected abstract readonly L: L;
  /**
   * the standard libraries of SANDBOX_LIBS (as globals and in package.loaded), the engine's fixes of them, and the
   * array metatable (conversion.ts); the stack left as it was
   */
  protected abstract openLibraries(L: L): void;
  /** runs `body` with errors caught: a Lua error becomes a JS error; `arg`, a stack index, is passed to it */
  protected abstract protect(body: (L: L, arg: number) => void, arg?: number): void;
  /** pushes a host C function */
  protected abstract pushFunction(L: L, fn: CFunction<L>): void;
  /** true for the exception by which the engine unwinds a Lua error (it must pass through host frames) */
  protected abstract isUnwind(err: unknown): boolean;

  /**
   * Pushes a core function whose work reaches the host (files, print): a JS error thrown by that work (a read
   * refused, a file too large) is raised as a Lua error, which pcall catches like any other, instead of unwinding
   * through the VM (lua54: past every pcall; fengari: as an error object of its own).
   */
  private pushHostFunction(L: L, fn: CFunction<L>): void {
    this.pushFunction(L, (L) => {
      let failure: string;
      try {
        return fn(L);
      } catch (err) {
        if (this.isUnwind(err)) throw err;
        failure = err instanceof Error ? err.message : String(err);
      }
      // raised after the catch: the raise unwinds with an exception that must not be caught above
      return this.api.raise(L, failure);
    });
  }
  /** pushes a JS value (conversion.ts) */
  protected abstract pushValue(L: L, value: unknown, topNullIsNil: boolean): void;
  /** the Lua value at `idx` as JS data */
  protected abstract toValue(L: L, idx: number, mode: ConvertMode): unknown;
  /** loads a text chunk (or a file's bytes) as a function on the stack, or its error message; the status */
  protected abstract loadChunk(L: L, code: string | Uint8Array, chunkName: string): number;
  /** pushes the message handler of chunk runs: the error as "message\nstack traceback:..." */
  protected abstract pushMessageHandler(L: L): void;
  /** makes the hook fire at every instruction of the main thread and of `L` (hooks are per thread) */
  protected abstract hookEveryInstruction(L: L): void;
  /** the `source` of the Lua function on top of the stack (popped) */
  protected abstract functionSource(L: L): string | null;
  /** the engine's own entries of `__sandbox` (`guard`, `allow_hooks`, `element_cost`...), set in the table on top */
  protected abstract sandboxHelpers(L: L): void;
  protected abstract patternPrimitives(): PatternPrimitives<L>;
  /** the Lua dialect of the pattern matcher, '5.3' or '5.4' */
  protected abstract readonly dialect: '5.3' | '5.4';
  /** a compile error's message, with what this engine wants to add */
  protected compileMessage(message: string, _code: string | Uint8Array): string {
    return message;
  }
  abstract close(): void;

  /** Installs the sandbox over opened libraries (runs protected, before the hook is armed). */
  protected install(L: L): void {
    const api = this.api;
    this.openLibraries(L);
    // os: only the clock functions; execute/remove/rename/exit/getenv/tmpname would reach the host.
    api.getglobal(L, 'os');
    for (const name of OS_REMOVED) {
      api.pushnil(L);
      api.setfield(L, -2, name);
    }
    api.settop(L, -2);
    // package: no C loader, no file searchers that read the host, a searchpath over the simulation. package.path
    // is AIPack's: the module dirs, then Lua's default, of which only "./?.lua;./?/init.lua" (relative to the
    // process cwd = `baseDir`) is simulated.
    api.getglobal(L, 'package');
    api.pushvalue(L, -1);
    api.setfield(L, api.registry, PACKAGE_KEY);
    // as AIPack's Lua has them: mlua's safe mode (`Lua::new`) replaces loadlib by a function that refuses, and the
    // C searchers by one that says so in require's message
    this.pushFunction(L, (L) => api.raise(L, 'package.loadlib is disabled in safe mode'));
    api.setfield(L, -2, 'loadlib');
    api.pushstring(L, '');
    api.setfield(L, -2, 'cpath');
    this.installedPath = packagePath(this.options);
    api.pushstring(L, this.installedPath);
    api.setfield(L, -2, 'path');
    this.pushHostFunction(L, this.searchpath);
    api.setfield(L, -2, 'searchpath');
    api.createtable(L, 3, 0);
    api.getfield(L, -2, 'searchers');
    api.rawgeti(L, -1, 1); // the preload searcher
    api.rawseti(L, -3, 1);
    api.settop(L, -2);
    this.pushHostFunction(L, this.searcher);
    api.rawseti(L, -2, 2);
    this.pushFunction(L, (L) => {
      api.pushstring(L, "\n\tcan't load C modules in safe mode");
      return 1;
    });
    api.rawseti(L, -2, 3);
    api.setfield(L, -2, 'searchers');
    api.settop(L, -2);
    // io: AIPack has it; here only write(), routed to print (no files, no process streams).
    api.createtable(L, 0, 1);
    this.pushHostFunction(L, this.ioWrite);
    api.setfield(L, -2, 'write');
    api.getfield(L, api.registry, '_LOADED');
    api.pushvalue(L, -2);
    api.setfield(L, -2, 'io');
    api.settop(L, -2);
    api.setglobal(L, 'io');
    this.pushHostFunction(L, this.print);
    api.setglobal(L, 'print');
    this.pushHostFunction(L, this.loadfile);
    api.setglobal(L, 'loadfile');
    this.pushHostFunction(L, this.dofile);
    api.setglobal(L, 'dofile');
    // the library functions the put-back resets the state with, before the sandbox wraps them
    api.getglobal(L, 'collectgarbage');
    api.setfield(L, api.registry, COLLECT_KEY);
    api.getglobal(L, 'math');
    api.getfield(L, -1, 'randomseed');
    api.setfield(L, api.registry, RANDOMSEED_KEY);
    api.settop(L, -2);
    api.createtable(L, 0, 1);
    api.setfield(L, api.registry, PRIVATE_KEY);
    // the sandbox's Lua side (sandbox.ts) and its host helpers
    api.createtable(L, 0, 12);
    this.pushFunction(L, (L) => {
      const n = Math.min(Number.MAX_SAFE_INTEGER, api.tonumber(L, 1));
      if (n > 0) this.charge(L, Math.ceil(n));
      return 0;
    });
    api.setfield(L, -2, 'charge');
    this.pushFunction(L, (L) => {
      const hit = limitMessage(this.limits, this.options);
      if (hit === undefined) return 0;
      api.pushstring(L, hit);
      return 1;
    });
    api.setfield(L, -2, 'limit_hit');
    // hosted(f): f was defined by the simulator's own code
    this.pushFunction(L, (L) => {
      api.settop(L, 1);
      const source = this.functionSource(L);
      api.pushboolean(L, source !== null && this.hostChunks.has(source));
      return 1;
    });
    api.setfield(L, -2, 'hosted');
    this.pushFunction(L, this.rawMetatable);
    api.setfield(L, -2, 'rawmeta');
    // private(t): t is the sandbox's own memo, never handed to a script: the put-back leaves it out (PRISTINE_LUA)
    this.pushFunction(L, (L) => {
      api.getfield(L, api.registry, PRIVATE_KEY);
      api.pushvalue(L, 1);
      api.pushboolean(L, true);
      api.rawset(L, -3);
      return 0;
    });
    api.setfield(L, -2, 'private');
    // gc_changed(): a script changed the collector's mode or parameters; the put-back resets them
    this.pushFunction(L, () => {
      this.collectorChanged = true;
      return 0;
    });
    api.setfield(L, -2, 'gc_changed');
    this.sandboxHelpers(L);
    this.setPatternHost(L);
    api.setglobal(L, '__sandbox');
    if (this.loadChunk(L, SANDBOX_LUA, '=sandbox') !== LUA_OK) api.error(L);
    for (const n of SANDBOX_ARGS) api.pushinteger(L, n);
    api.call(L, SANDBOX_ARGS.length, 0);
    this.afterSandbox(L);
  }

  /** the key of the template this state was made with ('' for none) */
  get templateKey(): string {
    return this.templateKeyOf;
  }
  private templateKeyOf = '';

  /**
   * After install and before the hook is armed: the template's globals, then a copy of what a stage may change
   * of the state, to be put back (restorePristine). The template's instructions are the simulator's own work.
   */
  protected installTemplate(): void {
    const template = this.options.template;
    if (template) {
      template.install(this);
      this.templateKeyOf = template.key;
    }
    this.used = 0;
    this.protect((L) => {
      const api = this.api;
      this.hostChunks.add('=pristine');
      if (this.loadChunk(L, PRISTINE_LUA, '=pristine') !== LUA_OK) api.error(L);
      api.getfield(L, api.registry, ARRAY_MT_KEY);
      this.pushFunction(L, this.upvaluesOf);
      this.pushFunction(L, this.rawMetatable);
      api.getfield(L, api.registry, PRIVATE_KEY);
      api.call(L, 4, 2);
      api.setfield(L, api.registry, RESTORE_KEY);
      api.setfield(L, api.registry, PRISTINE_KEY);
    });
  }

  /** upvalues(f): f's upvalues as { n = count, ... } (PRISTINE_LUA) */
  private readonly upvaluesOf = (L: L) => {
    const api = this.api;
    api.createtable(L, 8, 1);
    let n = 0;
    while (api.getupvalue(L, 1, n + 1)) api.rawseti(L, -2, ++n);
    api.pushinteger(L, n);
    api.setfield(L, -2, 'n');
    return 1;
  };

  /** rawmeta(v): v's metatable, `__metatable` ignored, or nil (PRISTINE_LUA) */
  private readonly rawMetatable = (L: L) => {
    if (!this.api.getmetatable(L, 1)) this.api.pushnil(L);
    return 1;
  };

  /** a script changed the collector's mode or parameters (lua54's `collectgarbage`; see sandbox.ts) */
  protected collectorChanged = false;

  /** failures that may have left the state half-way through something: it is not reused then */
  private doubtful = false;

  /**
   * Puts back every table reachable from the globals as the sandbox left them (the globals, the libraries,
   * package.loaded/preload/searchers) and the string and array metatables, in place: what one stage set or
   * changed is gone for the next, as with a new state. False (the state must not be reused) when a limit was hit,
   * a failure may have left it half-way, or one of those tables got a metatable (only C could remove a protected one).
   */
  restorePristine(): boolean {
    if (this.doubtful || this.running !== 0 || spent(this.limits)) return false;
    let restored = false;
    try {
      this.protect((L) => {
        this.resetCollector(L);
        this.resetRandom(L);
        restored = this.putBack(L);
        // the stage's garbage is freed before the state waits in the pool, so it is not counted against the
        // memory of the run tree that takes the state next (lua54; fengari's memory is V8's heap); a little of it
        // is left to Lua's own collector, as in any state (a full collection per stage costs more than the stage)
        this.api.getfield(L, this.api.registry, COLLECT_KEY);
        if (restored && this.api.type(L, -1) === T_FUNCTION && this.garbageWorthCollecting()) {
          this.api.pushstring(L, 'collect');
          this.api.call(L, 1, 0);
        } else this.api.settop(L, -2);
      });
    } catch {
      return false;
    }
    return restored;
  }

  /**
   * The collector as a new state has it, when a script changed its mode or parameters: Lua 5.4's defaults
   * (lgc.h: LUAI_GENMINORMUL 20, LUAI_GENMAJORMUL 100, LUAI_GCPAUSE 200, LUAI_GCMUL 100, LUAI_GCSTEPSIZE 13),
   * running, incremental. Generational parameters are only set by entering that mode (a full collection), so
   * this runs only after a change.
   */
  private resetCollector(L: L): void {
    if (!this.collectorChanged) return;
    const api = this.api;
    const collect = (...args: (string | number)[]) => {
      api.getfield(L, api.registry, COLLECT_KEY);
      for (const a of args) {
        if (typeof a === 'string') api.pushstring(L, a);
        else api.pushinteger(L, a);
      }
      api.call(L, args.length, 0);
    };
    collect('generational', 20, 100);
    collect('incremental', 200, 100, 13);
    collect('restart');
    this.collectorChanged = false;
  }

  /**
   * The PRNG as unpredictable as a new state's, whatever the stage seeded or drew (the seed of a new Lua 5.4
   * state is its own too). Here through the library's `math.randomseed` (taken before any script ran); an engine
   * whose generator lives outside the state resets it itself.
   */
  protected resetRandom(L: L): void {
    const api = this.api;
    api.getfield(L, api.registry, RANDOMSEED_KEY);
    api.pushnumber(L, Math.floor(Math.random() * 2 ** 52));
    api.pushnumber(L, Math.floor(Math.random() * 2 ** 52));
    api.call(L, 2, 0);
  }

  /** True when the stage left enough garbage that the next run tree should not be charged for it (see lua54). */
  protected garbageWorthCollecting(): boolean {
    return true;
  }

  /** The tables the stage changed (changedTables) put back as PRISTINE_LUA's copies hold them; false: no reuse. */
  private putBack(L: L): boolean {
    const api = this.api;
    const base = api.gettop(L);
    api.getfield(L, api.registry, PRISTINE_KEY);
    try {
      const changed = this.changedTables(L, base + 1);
      return changed?.length === 0 || this.putBackTables(L, base + 1, changed);
    } finally {
      api.settop(L, base);
    }
  }

  /**
   * Puts back triples `changed` of the pristine list at `list` (all of them: undefined), raw: keys the stage added
   * removed, the others set again. False when one of those tables has another metatable than it had (a protected
   * one cannot be removed from Lua). Here by PRISTINE_LUA's restore(), one call into the VM; an engine whose Lua
   * loops cost a call per key, or that can put the table's own layout back (its iteration order), does it in its
   * own structures.
   */
  protected putBackTables(L: L, list: number, changed: number[] | undefined): boolean {
    const api = this.api;
    api.getfield(L, api.registry, RESTORE_KEY);
    for (const i of changed ?? []) api.pushinteger(L, i);
    api.call(L, changed?.length ?? 0, 1);
    const restored = api.type(L, -1) === T_BOOLEAN;
    api.settop(L, list);
    return restored;
  }

  /**
   * Which triples of the pristine list at `list` (1-based triple positions, see PRISTINE_LUA) hold a table that is
   * not as its copy (its entries or order differ, or its metatable is another): [] when none, undefined when the engine
   * cannot tell (all are put back). Most stages change one or two of the ~40 tables (the globals, for CTX).
   */
  protected changedTables(_L: L, _list: number): number[] | undefined {
    return undefined;
  }

  /** Pushes a new table holding the globals' entries (raw): a stage's scope starts as that shallow copy. */
  protected pushGlobalsCopy(L: L): void {
    const api = this.api;
    api.createtable(L, 0, 64);
    api.pushglobaltable(L);
    api.pushnil(L);
    while (api.next(L, -2)) {
      api.pushvalue(L, -2);
      api.rotate(L, -2, 1);
      api.rawset(L, -5);
    }
    api.settop(L, -2);
  }

  /** Takes the state for another stage, after restorePristine: its options, limits and counters are the new stage's. */
  takeFor(options: StateOptions): void {
    this.options = options;
    this.limits = options.limits ?? createLimits(options.budget);
    this.memoryMessage = options.memoryMessage ?? 'memory limit exceeded';
    this.used = 0;
    this.hooks = 0;
    // the put-back left package.path as installed: most stages of a run have the same module dirs
    const path = packagePath(options);
    if (path !== this.installedPath) {
      this.protect((L) => {
        this.api.getfield(L, this.api.registry, PACKAGE_KEY);
        this.api.pushstring(L, path);
        this.api.setfield(L, -2, 'path');
        this.api.settop(L, -2);
      });
    }
    this.onTaken();
  }

  /** package.path as install() set it, which every put-back restores */
  private installedPath = '';

  /** the engine's part of takeFor: its memory accounting, its hook armed for the new limits */
  protected abstract onTaken(): void;

  /** the engine's replacements of the sandbox's own wrappers */
  protected afterSandbox(_L: L): void {}

  /** The step-counting pattern matcher's host functions (sandbox.ts routes costly pattern calls to them). */
  private setPatternHost(L: L): void {
    const api = this.api;
    const host = patternHost<L>(this.dialect, {
      ...this.patternPrimitives(),
      charge: (L, n) => this.charge(L, n),
      tooLarge: (L) => this.memoryFull(L),
      memoryMax: () => this.limits.memoryMax,
    });
    for (const [name, fn] of Object.entries(host)) {
      this.pushFunction(L, fn);
      api.setfield(L, -2, name);
    }
    api.pushstring(L, this.dialect);
    api.setfield(L, -2, 'dialect');
    api.pushnumber(L, this.options.patternRouteSteps ?? PATTERN_ROUTE_STEPS);
    api.setfield(L, -2, 'route_steps');
  }

  /** The hook interval a new state starts with: a state of a spent tree stops at its first instruction. */
  protected firstHookInterval(): number {
    return chargeState(this.limits) ? 1 : HOOK_INTERVAL;
  }

  /** One hook call (every HOOK_INTERVAL instructions): the deadline now and then, the interval's charge. */
  protected tick(L: L): void {
    const hooks = ++this.hooks;
    this.onHook(L, hooks);
    if (hooks % DEADLINE_CHECK_HOOKS === 0 && checkDeadline(this.limits)) this.failFast(L);
    this.charge(L, HOOK_INTERVAL);
  }

  /** the engine's own look at each hook call, before the core's (`hooks`: calls so far) */
  protected onHook(_L: L, _hooks: number): void {}

  /**
   * Counts `n` instructions against the run tree's budget: the hook's steps, and work a library function does in
   * one call (unseen by the hook). Once a limit is hit the hook fires on every instruction, so a pcall that
   * swallowed the error cannot run on: the next instruction outside it raises again.
   */
  protected charge(L: L, n: number): void {
    this.used += n;
    if (chargeInstructions(this.limits, n)) this.failFast(L);
  }

  /** instructions' time one table element takes a C loop or a host conversion of this engine */
  protected get elementCost(): number {
    return 8;
  }

  /**
   * Charges a host call's conversions (conversion.ts hostFunctionBody): `nodes` values at the cost of an element,
   * string bytes as library calls pay for them. The limit's message once spent, every later instruction raising it.
   */
  chargeHostWork(L: unknown, nodes: number, bytes: number): string | undefined {
    const n = nodes * this.elementCost + (bytes > CHARGE_FROM_BYTES ? Math.floor(bytes / BYTES_PER_INSTRUCTION) : 0);
    if (n <= 0 || !this.chargeQuietly(n)) return undefined;
    this.hookEveryInstruction(L as L);
    return limitMessage(this.limits, this.options);
  }

  /** Charges work seen where no error may be raised (an allocator, a string being built); true when spent. */
  chargeQuietly(n: number): boolean {
    this.used += n;
    return chargeInstructions(this.limits, n);
  }

  /** Raises the limit's error in thread `L`, after making every later instruction of the tree raise it again. */
  protected failFast(L: L): never {
    this.hookEveryInstruction(L);
    return this.api.raise(L, limitMessage(this.limits, this.options) as string);
  }

  protected memoryFull(L: L): never {
    this.limits.memoryExceeded = true;
    return this.failFast(L);
  }

  instructionsUsed(): number {
    return this.used;
  }

  // print(...) joins its arguments with "\n" as AIPack's override does; tables/nil go through tostring.
  private readonly print = (L: L) => {
    const n = this.api.gettop(L);
    const parts: string[] = [];
    for (let i = 1; i <= n; i++) parts.push(this.api.display(L, i));
    this.options.print(parts.join('\n'));
    return 0;
  };

  // io.write is charged by the bytes it writes, as print's text is when it is built (prelude.lua)
  private readonly ioWrite = (L: L) => {
    const n = this.api.gettop(L);
    const parts: string[] = [];
    let bytes = 0;
    for (let i = 1; i <= n; i++) {
      const part = this.stringArg(L, i);
      parts.push(part);
      bytes += part.length;
    }
    if (bytes > CHARGE_FROM_BYTES) this.charge(L, Math.floor(bytes / BYTES_PER_INSTRUCTION));
    this.options.print(parts.join(''));
    return 0;
  };

  /** a string or number argument as Lua's library takes it */
  private stringArg(L: L, i: number): string {
    const t = this.api.type(L, i);
    return t === T_STRING || t === T_NUMBER ? this.api.tostring(L, i) : this.api.checkstring(L, i);
  }

  /**
   * The files a search tried, as the dialect's searchers give them: each "\n\tno file '...'" in 5.3; in 5.4 without
   * the first "\n\t", which `require` adds itself before each searcher's message (loadlib.c findloader)
   */
  private triedText(tried: string): string {
    return this.dialect === '5.4' ? tried.replace(/^\n\t/, '') : tried;
  }

  private readonly searchpath = (L: L) => {
    const name = this.stringArg(L, 1);
    const path = this.stringArg(L, 2);
    const opt = (i: number, def: string) => (this.api.type(L, i) <= T_NIL ? def : this.stringArg(L, i));
    const found = searchPath(this.options, name, path, opt(3, '.'), opt(4, '/'), this.dialect === '5.4');
    if ('file' in found) {
      this.api.pushstring(L, found.file);
      return 1;
    }
    this.api.pushnil(L);
    this.api.pushstring(L, this.triedText(found.tried));
    return 2;
  };

  // The Lua searcher (package.searchers[2]): follows package.path as it is when `require` runs.
  private readonly searcher = (L: L) => {
    const api = this.api;
    const name = this.stringArg(L, 1);
    api.getfield(L, api.registry, PACKAGE_KEY);
    api.getfield(L, -1, 'path');
    if (api.type(L, -1) !== T_STRING) api.raise(L, "'package.path' must be a string");
    const path = api.tostring(L, -1);
    api.settop(L, -3);
    const found = searchPath(this.options, name, path, '.', '/', this.dialect === '5.4');
    if (!('file' in found)) {
      api.pushstring(L, this.triedText(found.tried));
      return 1;
    }
    if (this.loadChunk(L, found.code, '@' + this.options.displayPath(found.abs)) !== LUA_OK) {
      api.raise(L, this.compileMessage(`error loading module '${name}' from file '${found.file}':\n\t${api.tostring(L, -1)}`, found.code));
    }
    api.pushstring(L, found.file);
    return 2;
  };

  /** loadfile's results: the chunk (1 value), or nil and the message (2) */
  private loadFileOnStack(L: L, fname: string): number {
    const api = this.api;
    const where = loadablePath(this.options, fname);
    if ('error' in where) return api.raise(L, where.error);
    const code = this.options.readFile(where.abs);
    if (code === undefined) {
      api.pushnil(L);
      api.pushstring(L, `cannot open ${fname}`);
      return 2;
    }
    if (this.loadChunk(L, code, '@' + this.options.displayPath(where.abs)) !== LUA_OK) {
      api.pushnil(L);
      api.rotate(L, -2, 1);
      return 2;
    }
    return 1;
  }

  private readonly loadfile = (L: L) => this.loadFileOnStack(L, this.stringArg(L, 1));

  private readonly dofile = (L: L) => {
    const fname = this.stringArg(L, 1);
    this.api.settop(L, 1);
    if (this.loadFileOnStack(L, fname) !== 1) return this.api.error(L);
    this.api.call(L, 0, LUA_MULTRET);
    return this.api.gettop(L) - 1;
  };

  setGlobal(name: string, value: unknown): void {
    this.doubtfulOnThrow(() =>
      this.protect((L) => {
        this.pushValue(L, value, false);
        this.api.setglobal(L, name);
      }),
    );
  }

  exec(code: string, chunkName: string): void {
    this.hostChunks.add(chunkName);
    this.doubtfulOnThrow(() => this.protectedRun(code, chunkName, 1, undefined));
  }

  private doubtfulOnThrow<T>(fn: () => T): T {
    try {
      return fn();
    } catch (err) {
      this.doubtful = true;
      throw err;
    }
  }

  runChunk(code: string, file: string, firstLine: number, scope: Record<string, unknown>, mode: ConvertMode): unknown {
    const api = this.api;
    return this.doubtfulOnThrow(() => this.protectedRun(code, '@' + this.options.displayPath(file), firstLine, mode, (L, chunk) => {
      // _ENV = scope variables + shallow copy of the globals (AIPack's upgrade_scope)
      this.pushGlobalsCopy(L);
      for (const [key, value] of Object.entries(scope)) {
        this.pushValue(L, value, true);
        api.setfield(L, -2, key);
      }
      if (!api.setupvalue(L, chunk, 1)) api.settop(L, -2);
    }));
  }

  /** Loads `code` (padded so its lines match its file), prepares it with `setup`, calls it under the message handler. */
  private protectedRun(code: string, chunkName: string, firstLine: number, mode: ConvertMode | undefined, setup?: (L: L, chunk: number) => void): unknown {
    const api = this.api;
    const L = this.L;
    const base = api.gettop(L);
    this.pushMessageHandler(L);
    const loadStatus = this.loadChunk(L, '\n'.repeat(Math.max(0, firstLine - 1)) + code, chunkName);
    if (loadStatus !== LUA_OK) {
      const msg = loadStatus === LUA_ERRMEM ? this.memoryMessage : api.type(L, -1) === T_STRING ? api.tostring(L, -1) : 'syntax error';
      api.settop(L, base);
      throw new LuaRuntimeError(this.compileMessage(msg, code), '', locationOf(msg));
    }
    if (setup) {
      try {
        this.protect(setup, api.gettop(L));
      } catch (err) {
        api.settop(L, base);
        throw err;
      }
    }
    this.running++;
    active.push(this);
    let status: number;
    try {
      status = api.pcall(L, 0, 1, base + 1);
    } finally {
      active.pop();
      this.running--;
    }
    if (status !== LUA_OK) {
      if (status === LUA_ERRMEM || this.limits.memoryExceeded) {
        api.settop(L, base);
        throw new LuaRuntimeError(this.memoryMessage, '');
      }
      const full = api.type(L, -1) === T_STRING ? api.tostring(L, -1) : 'unknown Lua error';
      api.settop(L, base);
      throw chunkFailure(full);
    }
    try {
      return mode ? this.toValue(L, -1, mode) : undefined;
    } catch (err) {
      if (err instanceof ConversionError) throw new LuaRuntimeError(`${chunkName.replace(/^@/, '')}: ${err.message}`, '');
      throw err;
    } finally {
      api.settop(L, base);
    }
  }
}
