/**
 * The engine core's library functions that reach the host, over the simulation: `require`'s searcher and
 * `package.searchpath` (package.path as AIPack sets it), `loadfile` and `dofile` (below the load roots), `print`
 * and `io.write` (to the stage's print), and their installation in place of the standard ones. A layer of the
 * engine core (sandboxed-state.ts), over the budget (io.write is charged by its bytes).
 */
import { T_NIL, T_NUMBER, T_STRING } from './conversion.ts';
import { BYTES_PER_INSTRUCTION, CHARGE_FROM_BYTES } from './limits.ts';
import { loadablePath, packagePath, searchPath } from './sandbox.ts';
import { BudgetedState } from './state-budget.ts';

/** lua.h statuses and counts, the same on both engines */
const LUA_OK = 0;
const LUA_MULTRET = -1;

/** the registry key of the `package` table, for the searcher (a script may replace the global) */
export const PACKAGE_KEY = 'coder_subagents.package';

/** A host C function of the engine (fengari: a JS function of the thread; wasmoon: behind a dispatch closure). */
export type CFunction<L> = (L: L) => number;

export abstract class HostLibraryState<L> extends BudgetedState<L> {
  /** pushes a host C function */
  protected abstract pushFunction(L: L, fn: CFunction<L>): void;
  /** true for the exception by which the engine unwinds a Lua error (it must pass through host frames) */
  protected abstract isUnwind(err: unknown): boolean;
  /** loads a text chunk (or a file's bytes) as a function on the stack, or its error message; the status */
  protected abstract loadChunk(L: L, code: string | Uint8Array, chunkName: string): number;
  /** the Lua dialect of the searchers' messages and of the pattern matcher, '5.3' or '5.4' */
  protected abstract readonly dialect: '5.3' | '5.4';
  /** a compile error's message, with what this engine wants to add */
  protected compileMessage(message: string, _code: string | Uint8Array): string {
    return message;
  }

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

  /** package, io, print, loadfile and dofile over the simulation (install's part; the stack left as it was) */
  protected installHostLibraries(L: L): void {
    const api = this.api;
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
  }

  /** package.path as installHostLibraries set it, which every put-back restores */
  protected installedPath = '';

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
}
