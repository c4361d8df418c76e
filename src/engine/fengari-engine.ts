import { lua, lauxlib, lualib, to_luastring, type LuaState as L } from 'fengari';
import nodePath from 'node:path';
import type { LuaEngine, LuaState, StateOptions } from './engine.ts';
import { pushJs, toJs, ConversionError, NULL_TOKEN, setArrayMetatable } from './fengari-bridge.ts';
import { LuaRuntimeError, type ConvertMode } from './values.ts';

const HOOK_INTERVAL = 1000;
/**
 * Largest string `string.rep` builds. Real Lua would try any size, but here a huge repeat runs in one library
 * call that no instruction budget sees (fengari's own rep took ~70 s for 1 GiB), so it is refused like an overflow.
 */
export const MAX_REP_BYTES = 16 * 1024 * 1024;
const str = (s: string) => to_luastring(s);
const PACKAGE_KEY = str('coder_subagents.package');

/** luaL_error with a message built in JS: passed as an argument, so a '%' in it is not a format directive. */
function raise(L: L, message: string): never {
  return lauxlib.luaL_error(L, str('%s'), str(message)) as never;
}

/** Lua 5.3 on fengari, opened with only what AIPack gives and nothing that escapes the simulation. */
export const fengariEngine: LuaEngine = {
  name: 'fengari',
  luaVersion: 'Lua 5.3',
  createState: (options) => new FengariState(options),
};

class FengariState implements LuaState {
  private readonly L: L;
  private used = 0;
  private exceeded = false;

  constructor(private readonly options: StateOptions) {
    this.L = lauxlib.luaL_newstate();
    this.openSandboxedLibs();
    lua.lua_sethook(this.L, this.hook, lua.LUA_MASKCOUNT, HOOK_INTERVAL);
  }

  private readonly hook = (L: L) => this.charge(L, HOOK_INTERVAL);

  /**
   * Counts `n` instructions: the hook's steps, and work a library function does in one call (unseen by the hook).
   * Once over budget the hook fires on every instruction, so a pcall that swallowed the error cannot run on: the
   * next instruction outside it raises again. Hooks are per thread and `L` may be a coroutine, so the main thread
   * and each thread whose hook fires afterwards are re-armed; else a loop on one thread could keep swallowing it.
   */
  private charge(L: L, n: number): void {
    if (!this.exceeded) {
      this.used += n;
      if (this.used <= this.options.budget) return;
      this.exceeded = true;
      lua.lua_sethook(this.L, this.hook, lua.LUA_MASKCOUNT, 1);
    }
    lua.lua_sethook(L, this.hook, lua.LUA_MASKCOUNT, 1);
    raise(L, this.options.budgetMessage);
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
      this.charge(L, n);
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

  instructionsUsed(): number {
    return this.used;
  }

  private openSandboxedLibs(): void {
    const L = this.L;
    const libs: [string, (L: L) => number][] = [
      ['_G', lualib.luaopen_base],
      ['package', lualib.luaopen_package],
      ['coroutine', lualib.luaopen_coroutine],
      ['table', lualib.luaopen_table],
      ['string', lualib.luaopen_string],
      ['math', lualib.luaopen_math],
      ['utf8', lualib.luaopen_utf8],
      ['os', lualib.luaopen_os],
    ];
    for (const [name, open] of libs) {
      lauxlib.luaL_requiref(L, str(name), open, 1);
      lua.lua_pop(L, 1);
    }
    // os: only the clock functions; execute/remove/rename/exit/getenv/tmpname would reach the host.
    lua.lua_getglobal(L, str('os'));
    for (const name of ['execute', 'remove', 'rename', 'exit', 'getenv', 'tmpname', 'setlocale']) {
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
    const templates = [...this.options.moduleDirs.flatMap((d) => [`${d}/?.lua`, `${d}/?/init.lua`]), './?.lua', './?/init.lua'];
    lua.lua_pushstring(L, str(templates.join(';')));
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
    // load(): text chunks only; binary chunks can corrupt the VM. A mode without "t" loads nothing (as Lua says
    // for a text chunk in mode "b"), and an env passed explicitly, even nil, is kept.
    this.execTrusted(
      'local raw_load, find, select = load, string.find, select\n' +
        'load = function(chunk, name, mode, ...)\n' +
        '  local m = "t"\n' +
        '  if mode ~= nil and type(mode) == "string" and not find(mode, "t", 1, true) then m = "" end\n' +
        '  if select("#", ...) == 0 then return raw_load(chunk, name, m) end\n' +
        '  return raw_load(chunk, name, m, (...))\n' +
        'end\n',
      '=sandbox',
    );
    // pcall/xpcall: fengari 0.1.5's yieldable pcall (used inside coroutines) never saves 'allowhook' (lapi.js
    // lua_pcallk: `callstatus &= ~CIST_OAH | allowhook` cannot set the bit), so after it catches an error the
    // coroutine runs with hooks off for good: `coroutine.wrap(function() pcall(error) while true do end end)()`
    // would never be stopped by the budget. Hooks are always allowed in Lua code here, so turn them back on.
    lua.lua_pushjsfunction(L, allowHooks);
    lua.lua_setglobal(L, str('__allow_hooks'));
    this.execTrusted(
      'local raw_pcall, raw_xpcall, allow_hooks = pcall, xpcall, __allow_hooks\n' +
        '__allow_hooks = nil\n' +
        'local function done(...) allow_hooks() return ... end\n' +
        'pcall = function(...) return done(raw_pcall(...)) end\n' +
        'xpcall = function(...) return done(raw_xpcall(...)) end\n',
      '=sandbox-pcall',
    );
    lua.lua_getglobal(L, str('string'));
    lua.lua_pushjsfunction(L, strRep);
    lua.lua_setfield(L, -2, str('rep'));
    lua.lua_pushjsfunction(L, strChar);
    lua.lua_setfield(L, -2, str('char'));
    lua.lua_pop(L, 1);
    lua.lua_getglobal(L, str('table'));
    lua.lua_pushjsfunction(L, this.tableMove);
    lua.lua_setfield(L, -2, str('move'));
    lua.lua_pop(L, 1);
    lua.lua_pushnil(L);
    lua.lua_setglobal(L, str('collectgarbage')); // fengari throws on every call; absent is clearer
    setArrayMetatable(L);
  }

  // print(...) joins its arguments with "\n" as AIPack's override does; tables/nil go through tostring.
  private readonly printFn = (L: L) => {
    const n = lua.lua_gettop(L);
    const parts: string[] = [];
    for (let i = 1; i <= n; i++) {
      lauxlib.luaL_tolstring(L, i);
      parts.push(lua.lua_tojsstring(L, -1) ?? '');
      lua.lua_pop(L, 1);
    }
    this.options.print(parts.join('\n'));
    return 0;
  };

  /**
   * Lua's searchpath over the simulation: each `?` of each `;`-separated template is replaced by the name (with
   * `sep` turned into `dirsep`); relative files are taken from `baseDir`. Files outside the load roots and the
   * module dirs are never read, so they cannot be probed either.
   */
  private searchPath(name: string, path: string, sep: string, dirsep: string): { file: string; abs: string; code: string } | { tried: string } {
    const roots = [...this.options.loadRoots, ...this.options.moduleDirs];
    const readable = (abs: string) => roots.some((root) => abs === root || abs.startsWith(root + nodePath.sep));
    const sub = sep === '' ? name : name.split(sep).join(dirsep);
    let tried = '';
    for (const template of path.split(';')) {
      if (template === '') continue;
      const file = template.split('?').join(sub);
      const abs = nodePath.resolve(this.options.baseDir, file);
      if (!readable(abs)) {
        tried += `\n\tno file '${file}' (outside the workspace: not read)`;
        continue;
      }
      const code = this.options.readFile(abs);
      if (code !== undefined) return { file, abs, code };
      tried += `\n\tno file '${file}'`;
    }
    return { tried };
  }

  private readonly searchpathFn = (L: L) => {
    lauxlib.luaL_checkstring(L, 1);
    lauxlib.luaL_checkstring(L, 2);
    const opt = (i: number, def: string) => (lua.lua_isnoneornil(L, i) ? def : (lauxlib.luaL_checkstring(L, i), lua.lua_tojsstring(L, i) as string));
    const found = this.searchPath(lua.lua_tojsstring(L, 1) as string, lua.lua_tojsstring(L, 2) as string, opt(3, '.'), opt(4, '/'));
    if ('file' in found) {
      lua.lua_pushstring(L, str(found.file));
      return 1;
    }
    lua.lua_pushnil(L);
    lua.lua_pushstring(L, str(found.tried));
    return 2;
  };

  // The Lua searcher (package.searchers[2]): follows package.path as it is when `require` runs.
  private readonly searcher = (L: L) => {
    lauxlib.luaL_checkstring(L, 1);
    const name = lua.lua_tojsstring(L, 1) as string;
    lua.lua_getfield(L, lua.LUA_REGISTRYINDEX, PACKAGE_KEY);
    lua.lua_getfield(L, -1, str('path'));
    if (lua.lua_type(L, -1) !== lua.LUA_TSTRING) raise(L, "'package.path' must be a string");
    const path = lua.lua_tojsstring(L, -1) as string;
    lua.lua_pop(L, 2);
    const found = this.searchPath(name, path, '.', '/');
    if (!('file' in found)) {
      lua.lua_pushstring(L, str(found.tried));
      return 1;
    }
    const status = lauxlib.luaL_loadbufferx(L, str(found.code), null, str('@' + this.options.displayPath(found.abs)), str('t'));
    if (status !== lua.LUA_OK) {
      raise(L, `error loading module '${name}' from file '${found.file}':\n\t${lua.lua_tojsstring(L, -1)}`);
    }
    lua.lua_pushstring(L, str(found.file));
    return 2;
  };

  private resolveLoadable(L: L, fname: string): string {
    const abs = nodePath.resolve(this.options.baseDir, fname);
    const allowed = this.options.loadRoots.some((root) => abs === root || abs.startsWith(root + nodePath.sep));
    if (!allowed) raise(L, `cannot open ${fname}: outside the workspace`);
    return abs;
  }

  private loadFileOnStack(L: L, fname: string): number {
    const abs = this.resolveLoadable(L, fname);
    const code = this.options.readFile(abs);
    if (code === undefined) {
      lua.lua_pushnil(L);
      lua.lua_pushstring(L, str(`cannot open ${fname}`));
      return 2;
    }
    const status = lauxlib.luaL_loadbufferx(L, str(code), null, str('@' + this.options.displayPath(abs)), str('t'));
    if (status !== lua.LUA_OK) {
      lua.lua_pushnil(L);
      lua.lua_insert(L, -2);
      return 2;
    }
    return 1;
  }

  private readonly loadfile = (L: L) => {
    lauxlib.luaL_checkstring(L, 1);
    return this.loadFileOnStack(L, lua.lua_tojsstring(L, 1) as string);
  };

  private readonly dofile = (L: L) => {
    lauxlib.luaL_checkstring(L, 1);
    const fname = lua.lua_tojsstring(L, 1) as string;
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
    this.protectedRun(code, chunkName, 1, () => 0);
  }

  execTrusted(code: string, chunkName: string): void {
    this.protectedRun(code, chunkName, 1, () => 0, undefined, compiled(code, chunkName));
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
  private protectedRun(code: string, chunkName: string, firstLine: number, setup: () => number, mode?: ConvertMode, bytecode?: Uint8Array): unknown {
    const L = this.L;
    const base = lua.lua_gettop(L);
    lua.lua_pushjsfunction(L, messageHandler);
    const loadStatus = bytecode
      ? lauxlib.luaL_loadbufferx(L, bytecode, null, str(chunkName), str('b'))
      : lauxlib.luaL_loadbufferx(L, str('\n'.repeat(Math.max(0, firstLine - 1)) + code), null, str(chunkName), str('t'));
    if (loadStatus !== lua.LUA_OK) {
      const msg = lua.lua_tojsstring(L, -1) ?? 'syntax error';
      lua.lua_settop(L, base);
      throw new LuaRuntimeError(msg, '', locationOf(msg));
    }
    setup();
    const status = lua.lua_pcall(L, 0, 1, base + 1);
    if (status !== lua.LUA_OK) {
      const full = lua.lua_tojsstring(L, -1) ?? 'unknown Lua error';
      lua.lua_settop(L, base);
      const cut = full.indexOf('\nstack traceback:');
      const message = cut >= 0 ? full.slice(0, cut) : full;
      const traceback = cut >= 0 ? full.slice(cut + 1) : '';
      throw new LuaRuntimeError(message, traceback, locationOf(message));
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

// Our own preludes are compiled once per process: fengari's parser costs milliseconds per state otherwise.
const bytecodeCache = new Map<string, Uint8Array>();

function compiled(code: string, chunkName: string): Uint8Array {
  const key = chunkName + '\0' + code;
  let bytes = bytecodeCache.get(key);
  if (!bytes) {
    const L = lauxlib.luaL_newstate();
    if (lauxlib.luaL_loadbufferx(L, str(code), null, str(chunkName), str('t')) !== lua.LUA_OK) {
      throw new LuaRuntimeError(lua.lua_tojsstring(L, -1) ?? 'syntax error', '');
    }
    const chunks: Uint8Array[] = [];
    lua.lua_dump(L, (_L: L, b: Uint8Array, size: number) => {
      chunks.push(b.slice(0, size));
      return 0;
    }, null, false);
    bytes = new Uint8Array(chunks.reduce((n, c) => n + c.length, 0));
    let at = 0;
    for (const c of chunks) {
      bytes.set(c, at);
      at += c.length;
    }
    bytecodeCache.set(key, bytes);
  }
  return bytes;
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

function locationOf(message: string): string | undefined {
  const m = /^(.+?:\d+):/.exec(message);
  return m ? m[1] : undefined;
}
