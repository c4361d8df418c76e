/**
 * The engine core: a Lua state as the simulator sees it (engine.ts), written once over a small C-API adapter
 * (lua-api.ts), in layers of one job each: the budget policy (state-budget.ts), the library functions that reach
 * the host (state-host-libraries.ts), the put-back of a pooled state (state-put-back.ts), and here the sandbox's
 * installation (what is opened, removed and replaced, the `__sandbox` host helpers, the Lua side of sandbox.ts),
 * chunk runs and their error shaping. An engine subclass keeps what its VM needs: state creation, hooks, the
 * allocator or memory guard, chunk compilation and its own library fixes.
 *
 * Set-up order (a later change may share the library set-up between states): the engine creates its VM and opens
 * the libraries (`openLibraries`), then `install` runs once, then `installTemplate`, then the engine arms its
 * instruction hook.
 */
import type { LuaState } from './engine.ts';
import type { LuaApi } from './lua-api.ts';
import { T_STRING } from './conversion.ts';
import { limitMessage } from './limits.ts';
import { patternHost, type PatternIO } from './pattern-hosts.ts';
import { PATTERN_ROUTE_STEPS } from './pattern.ts';
import { OS_REMOVED, SANDBOX_ARGS, SANDBOX_LUA } from './sandbox.ts';
import { PRIVATE_KEY, ReusableState } from './state-put-back.ts';
import { chunkFailure, ConversionError, locationOf, LuaRuntimeError, type ConvertMode } from './values.ts';

/** lua.h statuses, the same on both engines */
const LUA_OK = 0;
const LUA_ERRMEM = 4;

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

export abstract class SandboxedState<L> extends ReusableState<L> implements LuaState {
  /** names of the simulator's own chunks (the sandbox, preludes): their functions stand for AIPack's native ones */
  private readonly hostChunks = new Set(['=sandbox']);

  /** the main thread */
  protected abstract readonly L: L;
  /**
   * the standard libraries of SANDBOX_LIBS (as globals and in package.loaded), the engine's fixes of them, and the
   * array metatable (conversion.ts); the stack left as it was
   */
  protected abstract openLibraries(L: L): void;
  /** pushes a JS value (conversion.ts) */
  protected abstract pushValue(L: L, value: unknown, topNullIsNil: boolean): void;
  /** the Lua value at `idx` as JS data */
  protected abstract toValue(L: L, idx: number, mode: ConvertMode): unknown;
  /** pushes the message handler of chunk runs: the error as "message\nstack traceback:..." */
  protected abstract pushMessageHandler(L: L): void;
  /** the `source` of the Lua function on top of the stack (popped) */
  protected abstract functionSource(L: L): string | null;
  /** the engine's own entries of `__sandbox` (`guard`, `allow_hooks`, `element_cost`...), set in the table on top */
  protected abstract sandboxHelpers(L: L): void;
  protected abstract patternPrimitives(): PatternPrimitives<L>;
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
    // package, io, print, loadfile, dofile over the simulation; then what the put-back needs, taken before the
    // sandbox wraps it
    this.installHostLibraries(L);
    this.keepResetFunctions(L);
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

  /**
   * After install and before the hook is armed: the template's globals, then a copy of what a stage may change
   * of the state, to be put back (restorePristine). The template's instructions are the simulator's own work.
   */
  protected installTemplate(): void {
    const template = this.options.template;
    if (template) template.install(this);
    this.used = 0;
    this.hostChunks.add('=pristine');
    this.keepPristine(template?.key ?? '');
  }

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
    const status = this.asRunning(() => api.pcall(L, 0, 1, base + 1));
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
