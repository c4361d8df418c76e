import { lua, lauxlib, lualib, to_luastring, type LuaState as L } from 'fengari';
import nodePath from 'node:path';
import type { LuaEngine, LuaState, StateOptions } from './engine.ts';
import { pushJs, toJs, ConversionError, NULL_TOKEN, setArrayMetatable } from './fengari-bridge.ts';
import { LuaRuntimeError, type ConvertMode } from './values.ts';

const HOOK_INTERVAL = 1000;
const str = (s: string) => to_luastring(s);

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

  // Counted in hook steps; once over budget the hook fires on every instruction, so a pcall that swallowed the
  // error cannot run on: the next instruction outside it raises again.
  private readonly hook = (L: L) => {
    if (!this.exceeded) {
      this.used += HOOK_INTERVAL;
      if (this.used <= this.options.budget) return;
      this.exceeded = true;
      lua.lua_sethook(L, this.hook, lua.LUA_MASKCOUNT, 1);
    }
    lauxlib.luaL_error(L, str(this.options.budgetMessage));
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
    // package: no C loader, no file searchers of fengari's own (they read any file through Node's fs).
    lua.lua_getglobal(L, str('package'));
    lua.lua_pushnil(L);
    lua.lua_setfield(L, -2, str('loadlib'));
    lua.lua_pushstring(L, str(''));
    lua.lua_setfield(L, -2, str('cpath'));
    lua.lua_pushstring(L, str(this.options.moduleDirs.flatMap((d) => [`${d}/?.lua`, `${d}/?/init.lua`]).join(';')));
    lua.lua_setfield(L, -2, str('path'));
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
    // load(): text chunks only; binary chunks can corrupt the VM.
    this.execTrusted(
      'local raw_load = load\n' +
        'load = function(chunk, name, mode, env)\n' +
        '  if env == nil then return raw_load(chunk, name, "t") end\n' +
        '  return raw_load(chunk, name, "t", env)\n' +
        'end\n',
      '=sandbox',
    );
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

  private readonly searcher = (L: L) => {
    const name = lua.lua_tojsstring(L, 1) as string;
    const rel = name.replace(/\./g, '/');
    const tried: string[] = [];
    for (const dir of this.options.moduleDirs) {
      for (const candidate of [`${dir}/${rel}.lua`, `${dir}/${rel}/init.lua`]) {
        const code = this.options.readFile(candidate);
        if (code === undefined) {
          tried.push(`\n\tno file '${this.options.displayPath(candidate)}'`);
          continue;
        }
        const status = lauxlib.luaL_loadbufferx(L, str(code), null, str('@' + this.options.displayPath(candidate)), str('t'));
        if (status !== lua.LUA_OK) return lua.lua_error(L);
        lua.lua_pushstring(L, str(candidate));
        return 2;
      }
    }
    lua.lua_pushstring(L, str(tried.join('')));
    return 1;
  };

  private resolveLoadable(L: L, fname: string): string {
    const abs = nodePath.resolve(this.options.baseDir, fname);
    const allowed = this.options.loadRoots.some((root) => abs === root || abs.startsWith(root + nodePath.sep));
    if (!allowed) lauxlib.luaL_error(L, str(`cannot open ${fname}: outside the workspace`));
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
