/**
 * fengari's tables read and written in their own JS structures (a table is a JS object here, its entries a linked
 * list in the order their keys were added): the put-back of a pooled fengari state (state-put-back.ts) and a
 * stage's copy of the globals, where the C API's loops cost ~1 microsecond an entry.
 */
import { getField, lua, newTable, NIL, setField, TAG, valueAt, type LuaState as L, type LuaTable, type TValue } from './fengari-vm.ts';

/** a table Lua could reach, its copy and its metatable then (PRISTINE_LUA's triple) */
export type PristineTriple = [LuaTable, LuaTable, LuaTable | null];

/** the fengari closures and userdata whose values the walk follows (fengari's LClosure, CClosure, Udata) */
interface LuaClosure {
  p: { upvalues: unknown[] };
  upvals: TValue[];
}
interface HostClosure {
  upvalue: TValue[];
}

/**
 * PRISTINE_LUA's walk (state-put-back.ts) done in fengari's own structures, where it runs once per new state and
 * the Lua walk costs ~100 ms: every table Lua can reach from `roots` (the globals, the string metatable, the array
 * metatable), through table keys and values, the metatables of tables and userdata, and the upvalues of functions,
 * with a copy of its entries in their order and its metatable then. The tables of `privateTables` (its keys) are
 * left out, as PRISTINE_LUA leaves them. The triples are in another order than PRISTINE_LUA's list (the put-back
 * does not depend on it).
 */
export function reachableTriples(L: L, roots: LuaTable[], privateTables: LuaTable): PristineTriple[] {
  const g = (L as unknown as { l_G: { mt: (LuaTable | null | undefined)[] } }).l_G;
  const seen = new Set<unknown>();
  for (let e = privateTables.f; e !== undefined; e = e.n) seen.add(e.key.value);
  const triples: PristineTriple[] = [];
  // values still to follow (an explicit stack: a deeply nested template value must not overflow the JS stack)
  const pending: (TValue | undefined)[] = roots.map((t) => ({ type: TAG.LUA_TTABLE, value: t }));
  const follow = (t: LuaTable | null | undefined) => {
    if (t) pending.push({ type: TAG.LUA_TTABLE, value: t });
  };
  while (pending.length > 0) {
    const v = pending.pop();
    if (v === undefined) continue;
    const { type, value } = v;
    if (type !== TAG.LUA_TTABLE && type !== TAG.LUA_TLCL && type !== TAG.LUA_TCCL && type !== TAG.LUA_TLCF && type !== TAG.LUA_TUSERDATA && type !== TAG.LUA_TLIGHTUSERDATA) continue;
    if (seen.has(value)) continue;
    seen.add(value);
    if (type === TAG.LUA_TTABLE) {
      const t = value as LuaTable;
      const copy = newTable(L);
      for (let e = t.f; e !== undefined; e = e.n) {
        setField(L, copy, e.key, e.value);
        pending.push(e.key, e.value);
      }
      triples.push([t, copy, t.metatable]);
      follow(t.metatable);
    } else if (type === TAG.LUA_TLCL) {
      // as lua_getupvalue counts a Lua closure's upvalues: by its prototype
      const f = value as LuaClosure;
      for (let i = 0; i < f.p.upvalues.length; i++) pending.push(f.upvals[i]);
    } else if (type === TAG.LUA_TCCL) {
      for (const up of (value as HostClosure).upvalue) pending.push(up);
    } else if (type === TAG.LUA_TUSERDATA) {
      follow((value as { metatable: LuaTable | null }).metatable);
    } else if (type === TAG.LUA_TLIGHTUSERDATA) {
      follow(g.mt[lua.LUA_TLIGHTUSERDATA]);
    }
  }
  return triples;
}

/**
 * The put-back's check done in JS (a table is a JS object here): its stack traffic through lua_next costs ~1
 * microsecond an entry, and a pooled state's tables hold ~700 entries, of which a stage changes a few. The
 * 1-based positions of the triples whose table is not as its copy.
 */
export function changedTriples(triples: PristineTriple[]): number[] {
  const changed: number[] = [];
  triples.forEach(([table, copy, mt], i) => {
    if (table.metatable !== mt || !sameEntries(table, copy)) changed.push(i + 1);
  });
  return changed;
}

/**
 * The changed tables put back in their own structures (a Lua loop here costs a JS call per key), in their
 * order: a table iterates in the order its keys were added, so a key removed and added again, which the entry by
 * entry put-back leaves last, makes the table be built again from its copy. False when a table has another
 * metatable than it had.
 */
export function putTriplesBack(L: L, triples: PristineTriple[]): boolean {
  if (triples.some(([table, , mt]) => table.metatable !== mt)) return false;
  for (const [table, copy] of triples) {
    // a removed entry keeps its link to the next one, so the walk goes on past it
    for (let e = table.f; e !== undefined; e = e.n) {
      if (getField(L, copy, e.key).type === TAG.LUA_TNIL) setField(L, table, e.key, NIL);
    }
    for (let e = copy.f; e !== undefined; e = e.n) {
      const now = getField(L, table, e.key);
      if (now.type !== e.value.type || now.value !== e.value.value) setField(L, table, e.key, e.value);
    }
    if (sameEntries(table, copy)) continue;
    for (let e = table.f; e !== undefined; e = e.n) setField(L, table, e.key, NIL);
    for (let e = copy.f; e !== undefined; e = e.n) setField(L, table, e.key, e.value);
    if (!sameEntries(table, copy)) return false;
  }
  return true;
}

/** The globals copied entry by entry in JS (a stage's scope; the C API's loop costs ~1 microsecond an entry). */
export function pushGlobalsCopy(L: L): void {
  lua.lua_createtable(L, 0, 64);
  const env = valueAt(L, lua.lua_gettop(L)).value as LuaTable;
  lua.lua_pushglobaltable(L);
  const globals = valueAt(L, lua.lua_gettop(L)).value as LuaTable;
  for (let e = globals.f; e !== undefined; e = e.n) setField(L, env, e.key, e.value);
  lua.lua_settop(L, -2);
}

/**
 * The two tables' entry lists walked side by side: the same keys and values (as rawequal compares the same
 * objects) in the same order. A string key the stage made anew is another object: false, and the table is merely
 * put back.
 */
function sameEntries(t: LuaTable, copy: LuaTable): boolean {
  let a = t.f;
  let b = copy.f;
  for (; a !== undefined && b !== undefined; a = a.n, b = b.n) {
    if (a.key.type !== b.key.type || a.key.value !== b.key.value || a.value.type !== b.value.type || a.value.value !== b.value.value) return false;
  }
  return a === b;
}
