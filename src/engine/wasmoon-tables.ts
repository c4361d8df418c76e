/**
 * Lua 5.4 tables read in place in the WebAssembly memory, so that a pooled lua54 state can tell in one compare of
 * bytes whether its pristine tables are as it left them (state-put-back.ts `changedTables`), instead of walking their
 * ~600 entries through the C API or a Lua loop.
 *
 * Layout (Lua 5.4 `lobject.h`, wasm32: pointers and ints of 4 bytes, `Value` of 8):
 *   Table: next @0, tt @4, marked @5, flags @6, lsizenode @7, alimit @8, array @12, node @16, lastfree @20,
 *          metatable @24, gclist @28
 *   TValue (array part): value @0 (8), tt @8; 16 bytes
 *   Node (hash part): value @0 (8), tt @8, key_tt @9, next @12, key_val @16; 24 bytes
 * Equal bytes mean equal entries: the same key and value tags and payloads, and a payload that is a pointer names
 * the same object, which cannot have been freed and its address reused, since the state's copies keep it alive.
 * What the collector changes (marks, gclist, the metamethod cache in `flags`) is not compared. Images are taken
 * after a full collection, so no empty node holds a key the collector has yet to clear.
 *
 * Equal bytes also mean the same iteration order (`next` walks the array part, then the nodes in place), which a
 * put-back through the API does not give back: a key removed, collected and added again lands in another free
 * node. So a table is put back by writing its image's bytes over it (`putImageBack`), into parts of its old sizes.
 *
 * `layoutHolds` probes the layout once on a scratch state; when it does not hold (another Lua build), nothing
 * here is used and the put-back runs every time.
 */
import { M } from './wasmoon-instance.ts';

const FLAGS = 6;
const LSIZENODE = 7;
const ALIMIT = 8;
const ARRAY = 12;
const NODE = 16;
const LASTFREE = 20;
const METATABLE = 24;
export const TVALUE_SIZE = 16;
export const NODE_SIZE = 24;
/** flags bit: `alimit` is not the real size of the array part */
const BITRAS = 0x80;

/** A table's layout fields and the bytes of its hash part then its array part, as they were when taken. */
export interface TableImage {
  readonly ptr: number;
  readonly lsizenode: number;
  readonly alimit: number;
  readonly notRealSize: number;
  readonly array: number;
  readonly node: number;
  readonly flags: number;
  readonly lastfree: number;
  readonly metatable: number;
  readonly nodeBytes: Uint8Array;
  readonly arrayBytes: Uint8Array;
}

/** luaH_realasize: the array part's size, a power of two at least `alimit` when `alimit` is not it. */
function arraySize(alimit: number, notRealSize: number): number {
  if (!notRealSize || (alimit & (alimit - 1)) === 0) return alimit;
  let size = 1;
  while (size < alimit) size *= 2;
  return size;
}

/** Where a table's parts are and how long they are in bytes (its array part: `arrayLength / TVALUE_SIZE` slots). */
export function spans(ptr: number, heap: Uint8Array = M.HEAPU8, words: Uint32Array = M.HEAPU32) {
  const lsizenode = heap[ptr + LSIZENODE];
  const alimit = words[(ptr + ALIMIT) >> 2];
  const notRealSize = heap[ptr + FLAGS] & BITRAS;
  const array = words[(ptr + ARRAY) >> 2];
  const node = words[(ptr + NODE) >> 2];
  const nodeLength = 2 ** lsizenode * NODE_SIZE;
  const arrayLength = arraySize(alimit, notRealSize) * TVALUE_SIZE;
  return { heap, words, lsizenode, alimit, notRealSize, array, node, nodeLength, arrayLength };
}

/** The image of the table at `ptr` (as lua_topointer gives it). */
export function imageOf(ptr: number): TableImage {
  const s = spans(ptr);
  const nodeBytes = s.heap.slice(s.node, s.node + s.nodeLength);
  const arrayBytes = s.heap.slice(s.array, s.array + s.arrayLength);
  return {
    ptr,
    lsizenode: s.lsizenode,
    alimit: s.alimit,
    notRealSize: s.notRealSize,
    array: s.array,
    node: s.node,
    flags: s.heap[ptr + FLAGS],
    lastfree: s.words[(ptr + LASTFREE) >> 2],
    metatable: s.words[(ptr + METATABLE) >> 2],
    nodeBytes,
    arrayBytes,
  };
}

/** the sizes a new table needs for its parts to be as large as the image's: lua_createtable(narr, nrec) */
export function partSizes(image: TableImage): { narr: number; nrec: number } {
  // lastfree is NULL when the hash part is Lua's shared empty node (isdummy)
  return { narr: image.arrayBytes.length / TVALUE_SIZE, nrec: image.lastfree === 0 ? 0 : 2 ** image.lsizenode };
}

/**
 * Writes the image back over its table: entries, `alimit` (a hint `#` updates), the free-node cursor, and `flags`
 * with its metamethod cache cleared (a cleared bit only means "look it up"). No write barrier is needed: every
 * value and key of the image is held by the state's copies, so the collector marks it whatever the table's colour.
 *
 * When the table's parts were reallocated (it grew), `spare` is a new table whose parts have the image's sizes
 * (partSizes): the two tables swap their parts, so the table gets parts of its old sizes to be written over, and
 * the spare, garbage once dropped, takes the grown ones with it. False when the table has another metatable.
 */
export function putImageBack(image: TableImage, spare: () => number): boolean {
  const words = M.HEAPU32;
  const t = image.ptr;
  if (words[(t + METATABLE) >> 2] !== image.metatable) return false;
  let s = spans(t);
  if (s.node !== image.node || s.lsizenode !== image.lsizenode || s.array !== image.array || s.arrayLength !== image.arrayBytes.length) {
    const other = spare();
    const heap = M.HEAPU8;
    for (const at of [LSIZENODE, FLAGS]) [heap[t + at], heap[other + at]] = [heap[other + at], heap[t + at]];
    for (const at of [ALIMIT, ARRAY, NODE, LASTFREE]) {
      [words[(t + at) >> 2], words[(other + at) >> 2]] = [words[(other + at) >> 2], words[(t + at) >> 2]];
    }
    s = spans(t);
    if (s.lsizenode !== image.lsizenode || s.arrayLength !== image.arrayBytes.length) return false;
  }
  const dummy = image.lastfree === 0;
  if (!dummy) M.HEAPU8.set(image.nodeBytes, s.node);
  M.HEAPU8.set(image.arrayBytes, s.array);
  M.HEAPU32[(t + ALIMIT) >> 2] = image.alimit;
  M.HEAPU32[(t + LASTFREE) >> 2] = dummy ? 0 : s.node + (image.lastfree - image.node);
  M.HEAPU8[t + FLAGS] = image.flags & BITRAS;
  return true;
}

/**
 * True when the table is as its image shows, its metatable included. The parts are compared natively (memcmp): a
 * JS loop over their words costs as much as the rest of a small stage until the JIT has compiled it.
 */
export function unchanged(image: TableImage): boolean {
  const s = spans(image.ptr);
  if (s.words[(image.ptr + METATABLE) >> 2] !== image.metatable) return false;
  if (s.lsizenode !== image.lsizenode || s.alimit !== image.alimit || s.notRealSize !== image.notRealSize) return false;
  if (s.array !== image.array || s.node !== image.node) return false;
  if (Buffer.compare(s.heap.subarray(s.node, s.node + s.nodeLength), image.nodeBytes) !== 0) return false;
  return s.arrayLength === 0 || Buffer.compare(s.heap.subarray(s.array, s.array + s.arrayLength), image.arrayBytes) === 0;
}

/**
 * The layout above, checked on a scratch state: { 7, 8, k = 42 } with a metatable must read as two integers in
 * the array part, one integer under a short-string key in a one-node hash part, and the metatable's address.
 */
function probeLayout(): boolean {
  const L = M._luaL_newstate() as number;
  if (!L) return false;
  try {
    M._lua_createtable(L, 2, 1);
    M._lua_pushinteger(L, 7n);
    M._lua_rawseti(L, -2, 1n);
    M._lua_pushinteger(L, 8n);
    M._lua_rawseti(L, -2, 2n);
    M._lua_pushinteger(L, 42n);
    const key = M._malloc(2) as number;
    M.HEAPU8.set([0x6b, 0], key);
    M._lua_setfield(L, -2, key);
    M._free(key);
    const t = M._lua_topointer(L, -1) as number;
    M._lua_createtable(L, 0, 0);
    const mt = M._lua_topointer(L, -1) as number;
    M._lua_setmetatable(L, -2);
    const heap = M.HEAPU8;
    const words = M.HEAPU32;
    const s = spans(t);
    const nodeAt = s.node;
    const arrayAt = s.array;
    const LUA_VNUMINT = 0x03;
    const LUA_VSHRSTR_COLLECTABLE = 0x44;
    return (
      words[(t + METATABLE) >> 2] === mt &&
      s.alimit === 2 &&
      s.lsizenode === 0 &&
      heap[arrayAt + 8] === LUA_VNUMINT &&
      words[arrayAt >> 2] === 7 &&
      heap[arrayAt + TVALUE_SIZE + 8] === LUA_VNUMINT &&
      words[(arrayAt + TVALUE_SIZE) >> 2] === 8 &&
      heap[nodeAt + 8] === LUA_VNUMINT &&
      words[nodeAt >> 2] === 42 &&
      heap[nodeAt + 9] === LUA_VSHRSTR_COLLECTABLE &&
      nodeAt % 8 === 0 &&
      arrayAt % 8 === 0
    );
  } catch {
    return false;
  } finally {
    M._lua_close(L);
  }
}

export const layoutHolds: boolean = probeLayout();
