/**
 * The engine core's put-back of a pooled state (a layer of sandboxed-state.ts, over its host libraries): after the
 * sandbox and the template are installed, PRISTINE_LUA (pristine.lua, beside this module) copies every table a
 * stage may change; when the stage closes the state, what it changed is put back in place, the collector and the
 * PRNG reset, so the next stage of the same template (state-pool.ts) takes a state that is as new.
 */
import { readText } from '../support/host-fs.ts';
import type { StateOptions } from './engine.ts';
import { T_BOOLEAN, T_FUNCTION } from './conversion.ts';
import { createLimits, spent } from './limits.ts';
import { packagePath } from './sandbox.ts';
import { HostLibraryState, PACKAGE_KEY } from './state-host-libraries.ts';

/** lua.h statuses, the same on both engines */
const LUA_OK = 0;

/** the registry keys of PRISTINE_LUA's list of tables and copies, its put-back function, the raw `collectgarbage` and
 * `math.randomseed` (taken before the sandbox wraps them), the sandbox's private tables */
export const PRISTINE_KEY = 'coder_subagents.pristine';
const RESTORE_KEY = 'coder_subagents.restore';
export const COLLECT_KEY = 'coder_subagents.collect';
const RANDOMSEED_KEY = 'coder_subagents.randomseed';
export const PRIVATE_KEY = 'coder_subagents.private';
/** the registry key of the array metatable (conversion.ts; both bridges set it) */
export const ARRAY_MT_KEY = 'coder_subagents.array_mt';

/**
 * The put-back's Lua (pristine.lua, beside this module): run once after the sandbox and the template are installed,
 * with the array metatable, `upvalues`, `rawmeta` and the private tables as its arguments; it returns the list of
 * (table, copy, metatable) triples of every table Lua can reach and the function that puts them back (see the
 * file's top).
 */
export const PRISTINE_LUA = readText(new URL('./pristine.lua', import.meta.url));

export abstract class ReusableState<L> extends HostLibraryState<L> {
  /** runs `body` with errors caught: a Lua error becomes a JS error; `arg`, a stack index, is passed to it */
  protected abstract protect(body: (L: L, arg: number) => void, arg?: number): void;
  /** the engine's part of takeFor: its memory accounting, its hook armed for the new limits */
  protected abstract onTaken(): void;

  /** the key of the template this state was made with ('' for none) */
  get templateKey(): string {
    return this.templateKeyOf;
  }
  private templateKeyOf = '';

  /**
   * The library functions the put-back resets the state with, taken before the sandbox wraps them, and the table
   * of the sandbox's private tables (install's part, after the host libraries; the stack left as it was).
   */
  protected keepResetFunctions(L: L): void {
    const api = this.api;
    api.getglobal(L, 'collectgarbage');
    api.setfield(L, api.registry, COLLECT_KEY);
    api.getglobal(L, 'math');
    api.getfield(L, -1, 'randomseed');
    api.setfield(L, api.registry, RANDOMSEED_KEY);
    api.settop(L, -2);
    api.createtable(L, 0, 1);
    api.setfield(L, api.registry, PRIVATE_KEY);
  }

  /**
   * A copy of what a stage may change of the state, to be put back (restorePristine): taken once, after the
   * template of `templateKey` is installed and before the hook is armed.
   */
  protected keepPristine(templateKey: string): void {
    this.templateKeyOf = templateKey;
    this.protect((L) => this.copyReachableTables(L));
  }

  /**
   * PRISTINE_LUA's list and put-back function, kept in the registry (keepPristine's part). An engine whose tables
   * are JS objects may walk them itself instead, and then puts back by its own changedTables and putBackTables.
   */
  protected copyReachableTables(L: L): void {
    const api = this.api;
    if (this.loadChunk(L, PRISTINE_LUA, '=pristine') !== LUA_OK) api.error(L);
    api.getfield(L, api.registry, ARRAY_MT_KEY);
    this.pushFunction(L, this.upvaluesOf);
    this.pushFunction(L, this.rawMetatable);
    api.getfield(L, api.registry, PRIVATE_KEY);
    api.call(L, 4, 2);
    api.setfield(L, api.registry, RESTORE_KEY);
    api.setfield(L, api.registry, PRISTINE_KEY);
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
  protected readonly rawMetatable = (L: L) => {
    if (!this.api.getmetatable(L, 1)) this.api.pushnil(L);
    return 1;
  };

  /** a script changed the collector's mode or parameters (lua54's `collectgarbage`; see sandbox.ts) */
  protected collectorChanged = false;

  /** failures that may have left the state half-way through something: it is not reused then */
  protected doubtful = false;

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
}
