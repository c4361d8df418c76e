/**
 * fengari's library functions that the fengari engine replaces: loops that are charged to the budget as they go
 * (fengari's own loop in JS for any range they are given) and results sized before they are made
 * (`table.move`, `table.concat`, `table.unpack`, `string.rep`), Lua's messages where fengari's lose the argument
 * (`string.char`), a random generator of each state's own (fengari's is one for the process), and `type`, whose
 * names are made once (it is the most called function of a contract-checking run).
 */
import { lua, lauxlib, luaString, pushLuaString, getInt, TAG, valueAt, type LuaState as L, type LuaString, type LuaTable } from './fengari-vm.ts';
import { CHARGE_FROM_BYTES } from './limits.ts';
import { MAX_REP_BYTES } from './sandbox.ts';
import { raise, str } from './fengari-api.ts';

/** a table element moved by fengari's library loops (lua_geti/lua_seti in JS) takes ~16 instructions' time */
export const ELEMENT_COST = 16;

/** What the metered replacements need of their state: its charges and its memory cap. */
export interface LibraryMeter {
  /** counts `n` instructions against the run tree's budget (raises once spent) */
  charge(L: L, n: number): void;
  /** raises the memory limit's error */
  memoryFull(L: L): never;
  memoryMax(): number;
}

/** `table.concat` and `table.unpack` of one state, charged to it. */
export function meteredTableFunctions(meter: LibraryMeter) {
  return {
    /**
     * table.concat, ported from ltablib.c with one allocation sized first: fengari's doubles a buffer per element,
     * ~3x the result at its peak, out of the memory guard's sight. A result over half the memory cap is refused
     * before it is made, as a big string is (fengari-engine.ts onBigString).
     */
    concat: (L: L) => {
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
          if (2 * total >= meter.memoryMax()) meter.memoryFull(L);
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
        if (2 * total >= meter.memoryMax()) meter.memoryFull(L);
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
    },

    /**
     * table.unpack as fengari's (ltablib.js), charged by the number of values first. It replaces the sandbox's Lua
     * wrapper: passing 10^5 values through Lua vararg functions costs fengari microseconds a value.
     */
    unpack: (L: L) => {
      let i: number = lauxlib.luaL_optinteger(L, 2, 1);
      const len: number = lauxlib.luaL_len(L, 1); // evaluated whether or not `e` is given, as fengari's own does
      const e: number = lua.lua_isnoneornil(L, 3) ? len : lauxlib.luaL_checkinteger(L, 3);
      if (i > e) return 0;
      let n = e - i;
      if (n >= Number.MAX_SAFE_INTEGER || !lua.lua_checkstack(L, ++n)) return lauxlib.luaL_error(L, str('too many results to unpack'));
      if (n > CHARGE_FROM_BYTES) meter.charge(L, n * ELEMENT_COST);
      for (; i < e; i++) lua.lua_geti(L, 1, i);
      lua.lua_geti(L, 1, e);
      return n;
    },
  };
}

/**
 * table.move, ported from Lua 5.3's ltablib.c so that each moved element is charged to the budget: fengari's
 * own loops in JS for any range it is given (`table.move({1}, 1, 2^30, 2)` ran for minutes).
 */
export function tableMove(L: L): number {
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
}

/**
 * fengari's math.random and math.randomseed (lmathlib.js) keep their generator in a variable of the module, so a
 * seed set by one state would hold for every state of the process. These are the same functions (Math.random
 * until a seed is set, then glibc's LCG) over a generator of one state, which the put-back clears (`reset`).
 */
export class StateRandom {
  private randState: number | undefined;

  private nextRandom(): number {
    this.randState = (1103515245 * (this.randState as number) + 12345) & 0x7fffffff;
    return this.randState;
  }

  readonly random = (L: L) => {
    const r = this.randState === undefined ? Math.random() : this.nextRandom() / 0x80000000;
    let low: number;
    let up: number;
    switch (lua.lua_gettop(L)) {
      case 0:
        lua.lua_pushnumber(L, r);
        return 1;
      case 1:
        low = 1;
        up = lauxlib.luaL_checkinteger(L, 1);
        break;
      case 2:
        low = lauxlib.luaL_checkinteger(L, 1);
        up = lauxlib.luaL_checkinteger(L, 2);
        break;
      default:
        return lauxlib.luaL_error(L, str('wrong number of arguments'));
    }
    lauxlib.luaL_argcheck(L, low <= up, 1, str('interval is empty'));
    lauxlib.luaL_argcheck(L, low >= 0 || up <= 0x7fffffff + low, 1, str('interval too large'));
    lua.lua_pushinteger(L, Math.floor(r * (up - low + 1)) + low);
    return 1;
  };

  readonly randomseed = (L: L) => {
    this.randState = lauxlib.luaL_checknumber(L, 1) | 0;
    if (this.randState === 0) this.randState = 1;
    this.nextRandom(); // fengari discards the first value
    return 0;
  };

  /** a new state's generator: Math.random until the next stage sets a seed */
  reset(): void {
    this.randState = undefined;
  }
}

/** string.rep built with block copies (fengari's copies per repeat), refusing results over MAX_REP_BYTES. */
export function strRep(L: L): number {
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
export function strChar(L: L): number {
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

/** the name of each basic type as a Lua string, made once (fengari's `type` made and hashed a new one per call) */
const typeNames: (LuaString | undefined)[] = [];

/** `type(v)`, as lbaselib.c's: the basic type's name, "value expected" when no argument is given. */
export function luaType(L: L): number {
  const t: number = lua.lua_type(L, 1);
  lauxlib.luaL_argcheck(L, t !== lua.LUA_TNONE, 1, str('value expected'));
  let name = typeNames[t];
  if (name === undefined) {
    name = luaString(L, lua.lua_typename(L, t));
    typeNames[t] = name;
  }
  pushLuaString(L, name);
  return 1;
}
