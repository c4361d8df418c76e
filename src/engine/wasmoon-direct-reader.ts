/**
 * Lua 5.4 tables converted in place for the `aip` conversion (conversion.ts), the one `aip.*` arguments and
 * `aip.agent.run` inputs go through: their entries are read from the WebAssembly memory in `next` order (the
 * array part, then the nodes in place, as luaH_next walks them), strings from their TString, with no C API call per
 * value. Through the API each entry cost about six calls into WebAssembly (lua_next, lua_type twice, lua_tolstring,
 * the value, lua_settop).
 *
 * Layout (Lua 5.4 `lobject.h`, wasm32), beside the table's (wasmoon-tables.ts):
 *   value slot: a TValue (payload @0, tag @8) or a Node's key (tag @9, payload @16)
 *   tags: the basic type in the low 4 bits (lua.h's numbering), the variant above; true is 0x11, an integer 0x03,
 *         a float 0x13; collectable values add 0x40
 *   TString: tag @4, short length @7, long length @12, bytes @16 (short strings have tag 0x04, long ones 0x14)
 * `directHolds` checks all of it once on a scratch state against the API reader; when it does not hold (another
 * Lua build), every conversion goes through the API.
 *
 * Reading in place is safe while the conversion runs: no Lua code runs and nothing in the state is allocated, so
 * no table changes, no value is collected and the memory does not grow.
 */
import { luaToJs, T_TABLE, type ValueReader } from './conversion.ts';
import { MAX_NODES, type ConvertMode } from './values.ts';
import { M } from './wasmoon-instance.ts';
import { layoutHolds, NODE_SIZE, spans, TVALUE_SIZE } from './wasmoon-tables.ts';
import { decodeAt } from './wasmoon-text.ts';

const TAG = 8;
const KEY_TAG = 9;
const KEY_VALUE = 16;
const LUA_VTRUE = 0x11;
const LUA_VNUMINT = 0x03;
const LUA_VTABLE_COLLECTABLE = 0x45;
const LUA_VSHRSTR = 0x04;
const TSTRING_TAG = 4;
const TSTRING_SHORT_LENGTH = 7;
const TSTRING_LONG_LENGTH = 12;
const TSTRING_BYTES = 16;

/** value slots of the conversion's own: the top-level table, and an array-part key (its index) */
const TOP_CELL = M._malloc(TVALUE_SIZE) as number;
const INDEX_CELL = M._malloc(TVALUE_SIZE) as number;

/**
 * The memory's views, taken when a conversion starts (the module's properties are slow to look up, and the
 * memory cannot grow while a conversion reads it).
 */
let u8 = M.HEAPU8;
let u32 = M.HEAPU32;
let i32 = M.HEAP32;
let f64 = (M as unknown as { HEAPF64: Float64Array }).HEAPF64;
function takeViews(): void {
  u8 = M.HEAPU8;
  u32 = M.HEAPU32;
  i32 = M.HEAP32;
  f64 = (M as unknown as { HEAPF64: Float64Array }).HEAPF64;
}

// A slot is a number: the address of a TValue, or the negated address of a Node whose key it is.
const tagOf = (v: number): number => (v >= 0 ? u8[v + TAG] : u8[-v + KEY_TAG]);
const payloadOf = (v: number): number => (v >= 0 ? v : -v + KEY_VALUE);

function integerAt(at: number): number {
  // the exact high half times 2^32 plus the low half: one rounding, as Number() of the integer rounds it
  return i32[(at + 4) >> 2] * 4294967296 + u32[at >> 2];
}

function setIndexCell(i: number): void {
  u32[INDEX_CELL >> 2] = i;
  u32[(INDEX_CELL + 4) >> 2] = 0;
  u8[INDEX_CELL + TAG] = LUA_VNUMINT;
}

const serdeOnly = (what: string) => (): never => {
  throw new Error(`wasmoon direct reader: ${what} is read through the C API (the serde conversion)`);
};

/** The reader of value slots in place (see above); only what the `aip` conversion asks of a reader. */
const directReader: ValueReader<number, number> = {
  type: (_L, v) => tagOf(v) & 0x0f,
  boolean: (_L, v) => tagOf(v) === LUA_VTRUE,
  number: (_L, v) => {
    const at = payloadOf(v);
    return tagOf(v) === LUA_VNUMINT ? integerAt(at) : f64[at >> 3];
  },
  string: (_L, v) => {
    const ts = u32[payloadOf(v) >> 2];
    const n = u8[ts + TSTRING_TAG] === LUA_VSHRSTR ? u8[ts + TSTRING_SHORT_LENGTH] : u32[(ts + TSTRING_LONG_LENGTH) >> 2];
    return decodeAt(ts + TSTRING_BYTES, n, u8);
  },
  identity: (_L, t) => u32[payloadOf(t) >> 2],
  rawLength: serdeOnly('a length'),
  isArray: serdeOnly('a metatable'),
  item: serdeOnly('an item'),
  drop: () => {},
  forEach: (_L, t, visit) => {
    const s = spans(u32[payloadOf(t) >> 2], u8, u32);
    const slots = s.arrayLength / TVALUE_SIZE;
    for (let i = 0; i < slots; i++) {
      const at = s.array + i * TVALUE_SIZE;
      if ((u8[at + TAG] & 0x0f) === 0) continue; // nil or empty
      // the key is read before the value is converted (keyOf), so one cell serves every level
      setIndexCell(i + 1);
      visit(INDEX_CELL, at);
    }
    for (let at = s.node; at < s.node + s.nodeLength; at += NODE_SIZE) {
      if ((u8[at + TAG] & 0x0f) === 0) continue;
      visit(-at, at);
    }
  },
  reserve: () => {},
};

/**
 * The `aip` conversion of the table at stack index `idx` (absolute), read in place, or undefined when it cannot be
 * (not a table, another conversion, or a layout that does not hold): the caller then converts through the API.
 */
export function tableInPlace(L: number, idx: number, mode: ConvertMode, where: string, maxNodes: number): { value: unknown } | undefined {
  if (mode !== 'aip' || !directHolds || M._lua_type(L, idx) !== T_TABLE) return undefined;
  const table = M._lua_topointer(L, idx) as number;
  takeViews();
  u32[TOP_CELL >> 2] = table;
  u8[TOP_CELL + TAG] = LUA_VTABLE_COLLECTABLE;
  return { value: luaToJs(directReader, L, TOP_CELL, mode, where, maxNodes) };
}

let directHolds = false;

/**
 * Checks the layout on a scratch state: a table of every kind of value an entry can hold (integers past 2^53 and
 * negative ones, floats, true and false, short, long and non-ASCII strings, a nested table, keys of every kind,
 * an array part with a hole, a removed key) converts in place as through the API, in the same order.
 * `apiConversion` converts the value at the top of the stack through the API.
 */
export function probeDirectReading(apiConversion: (L: number) => unknown, newProbeTable: (L: number) => void): boolean {
  directHolds = false;
  if (!layoutHolds) return false;
  const L = M._luaL_newstate() as number;
  if (!L) return false;
  try {
    newProbeTable(L);
    const top = M._lua_gettop(L);
    const viaApi = JSON.stringify(apiConversion(L));
    const inPlace = JSON.stringify(convertInPlace(L, top));
    directHolds = viaApi === inPlace;
  } catch {
    directHolds = false;
  } finally {
    M._lua_close(L);
  }
  return directHolds;
}

function convertInPlace(L: number, idx: number): unknown {
  directHolds = true;
  try {
    return tableInPlace(L, idx, 'aip', 'value', MAX_NODES)?.value;
  } finally {
    directHolds = false;
  }
}

/** Whether `aip` conversions of tables read in place (the probe held). */
export const readsInPlace = (): boolean => directHolds;
