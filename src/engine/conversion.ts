/**
 * The JS <-> Lua value conversion policy (values.ts says what each value becomes), written once for both engines.
 * An engine only says how its values are read (`ValueReader`) and built (`ValueBuilder`): fengari reads and
 * builds its table structures in place, wasmoon goes through the C API stack.
 */
import {
  ConversionError,
  HOST_OPTIONS,
  LuaError,
  LuaMulti,
  MAX_DEPTH,
  MAX_NODES,
  PathedConversionError,
  setOwn,
  tableValue,
  through,
  type ConvertMode,
  type HostFunction,
} from './values.ts';

/** Lua's basic type tags (lua.h), the same on both engines. */
export const T_NONE = -1;
export const T_NIL = 0;
export const T_BOOLEAN = 1;
export const T_LIGHTUSERDATA = 2;
export const T_NUMBER = 3;
export const T_STRING = 4;
export const T_TABLE = 5;
export const T_FUNCTION = 6;

const TYPE_NAMES = ['nil', 'boolean', 'userdata', 'number', 'string', 'table', 'function', 'userdata', 'thread'];
/** Lua's name of a basic type tag */
export const typeName = (t: number): string => (t === T_NONE ? 'no value' : (TYPE_NAMES[t] ?? 'value'));

/**
 * How an engine reads a Lua value `V` (fengari: a value slot; wasmoon: a stack index) in thread `L`. `item` and
 * `forEach` may leave values on the stack for the duration of the callback; `drop` releases what `item` left.
 */
export interface ValueReader<L, V> {
  type(L: L, v: V): number;
  boolean(L: L, v: V): boolean;
  /** a number as JS holds it (a Lua integer becomes the nearest double) */
  number(L: L, v: V): number;
  string(L: L, v: V): string;
  /** what identifies a table (cycles are refused) */
  identity(L: L, t: V): unknown;
  rawLength(L: L, t: V): number;
  /** the table carries the array metatable (made from a JS array, or marked by the script) */
  isArray(L: L, t: V): boolean;
  /** element `i` of a table, read raw */
  item(L: L, t: V, i: number): V;
  drop(L: L, v: V): void;
  /** visits the pairs of a table in `next` order */
  forEach(L: L, t: V, visit: (key: V, value: V) => void): void;
  /** room for `n` more values, when reading a table needs the stack */
  reserve(L: L, n: number): void;
}

interface NodeBudget {
  left: number;
  limit: number;
  /** the tables this conversion has converted, by identity (see convertTable) */
  done: Map<unknown, Converted>;
  /** the deepest table depth reached so far */
  deepest: number;
}

/** A table converted whole: its value, and what converting it took (values after its own, bytes, levels). */
interface Converted {
  value: unknown;
  nodes: number;
  bytes: number;
  height: number;
}

/**
 * Values and string bytes converted so far, both ways (a running count: a host call charges the difference its
 * own conversions made, see hostFunctionBody).
 */
const work = { nodes: 0, bytes: 0 };

/** The running count of values and string bytes converted (for tests of what conversions charge). */
export const workDone = (): Readonly<typeof work> => work;

/**
 * How a host call's conversions are charged: `charge(L, nodes, bytes)` counts the values and string bytes
 * converted against the budget of the state whose Lua runs in `L` and answers the limit's message once spent
 * (set by the engine core's budget, state-budget.ts).
 */
export const hostWork = {
  charge: (_L: unknown, _nodes: number, _bytes: number): string | undefined => undefined,
};

/** Converts a Lua value to JS data with one of AIPack's two conversions (values.ts). */
export function luaToJs<L, V>(io: ValueReader<L, V>, L: L, v: V, mode: ConvertMode, where = 'value', maxNodes = MAX_NODES): unknown {
  const budget: NodeBudget = { left: maxNodes, limit: maxNodes, done: new Map(), deepest: 0 };
  try {
    return convert(io, L, v, mode, new Set(), 0, budget);
  } catch (err) {
    if (err instanceof PathedConversionError) throw err.at(where);
    throw err;
  } finally {
    work.nodes += maxNodes - budget.left;
  }
}

function convert<L, V>(io: ValueReader<L, V>, L: L, v: V, mode: ConvertMode, seen: Set<unknown>, depth: number, budget: NodeBudget): unknown {
  if (--budget.left < 0) throw new PathedConversionError((path) => `cannot convert a value of more than ${budget.limit} elements (simulator limit, at ${path})`);
  const type = io.type(L, v);
  switch (type) {
    case T_NIL:
    case T_NONE:
      return undefined;
    case T_BOOLEAN:
      return io.boolean(L, v);
    case T_NUMBER: {
      const n = io.number(L, v);
      if (Number.isFinite(n)) return n;
      if (mode === 'aip') throw new PathedConversionError((path) => `cannot convert ${n} to JSON at ${path}`);
      return null; // serde_json turns a non-finite f64 into null (Value::from(f64))
    }
    case T_STRING: {
      const str = io.string(L, v);
      work.bytes += str.length;
      return str;
    }
    case T_LIGHTUSERDATA:
      return null; // the null sentinel, or any light userdata (AIPack >= 0.8.3)
    case T_TABLE:
      return convertTable(io, L, v, mode, seen, depth, budget);
    case T_FUNCTION:
      throw new PathedConversionError((path) => `cannot convert a Lua function at ${path}`);
    default:
      throw new PathedConversionError((path) => `cannot convert a Lua ${typeName(type)} at ${path}`);
  }
}

function convertTable<L, V>(io: ValueReader<L, V>, L: L, t: V, mode: ConvertMode, seen: Set<unknown>, depth: number, budget: NodeBudget): unknown {
  const id = io.identity(L, t);
  // A table met again in the same conversion (the same config in several lists, one workbench in many inputs) has
  // not changed, as no Lua runs meanwhile: its value is copied from the first conversion, which is charged again in
  // full (values, bytes), so limits and charges are as if it were read again. Where the limit or the depth would be
  // passed inside it, it is read again, to fail where and as it did.
  const known = budget.done.get(id);
  if (known !== undefined && known.nodes <= budget.left && depth + known.height <= MAX_DEPTH) {
    budget.left -= known.nodes;
    work.bytes += known.bytes;
    if (depth + known.height - 1 > budget.deepest) budget.deepest = depth + known.height - 1;
    return copyOf(known.value);
  }
  const left = budget.left;
  const bytes = work.bytes;
  const outer = budget.deepest;
  budget.deepest = depth;
  const value = convertTableOnce(io, L, t, id, mode, seen, depth, budget);
  budget.done.set(id, { value, nodes: left - budget.left, bytes: work.bytes - bytes, height: budget.deepest - depth + 1 });
  if (outer > budget.deepest) budget.deepest = outer;
  return value;
}

/** A copy of converted data (arrays and records of scalars): a value met twice is never one shared object. */
function copyOf(value: unknown): unknown {
  if (typeof value !== 'object' || value === null) return value;
  if (Array.isArray(value)) {
    const out: unknown[] = new Array(value.length);
    for (let i = 0; i < value.length; i++) out[i] = copyOf(value[i]);
    return out;
  }
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(value)) setOwn(out, key, copyOf((value as Record<string, unknown>)[key]));
  return out;
}

function convertTableOnce<L, V>(io: ValueReader<L, V>, L: L, t: V, id: unknown, mode: ConvertMode, seen: Set<unknown>, depth: number, budget: NodeBudget): unknown {
  if (seen.has(id)) throw new PathedConversionError((path) => `cannot convert a table that contains itself (cycle at ${path})`);
  if (depth >= MAX_DEPTH) throw new PathedConversionError((path) => `cannot convert a table nested deeper than ${MAX_DEPTH} levels (at ${path})`);
  seen.add(id);
  io.reserve(L, 4);
  try {
    if (mode === 'serde') {
      const len = io.rawLength(L, t);
      if (len > 0 || io.isArray(L, t)) {
        const out: unknown[] = new Array(len);
        for (let i = 1; i <= len; i++) {
          const item = io.item(L, t, i);
          let v: unknown;
          try {
            v = convert(io, L, item, mode, seen, depth + 1, budget);
          } catch (err) {
            throw through(err, `[${i}]`);
          }
          io.drop(L, item);
          out[i - 1] = v === undefined ? null : v;
        }
        return out;
      }
    }
    const keys: (string | number)[] = [];
    const values: unknown[] = [];
    io.forEach(L, t, (k, item) => {
      const key = keyOf(io, L, k);
      let v: unknown;
      try {
        v = convert(io, L, item, mode, seen, depth + 1, budget);
      } catch (err) {
        throw through(err, `.${String(key)}`);
      }
      if (v === undefined) return;
      keys.push(key);
      values.push(v);
    });
    return tableValue(keys, values, mode);
  } finally {
    seen.delete(id);
  }
}

function keyOf<L, V>(io: ValueReader<L, V>, L: L, k: V): string | number {
  const type = io.type(L, k);
  switch (type) {
    case T_STRING:
      return io.string(L, k);
    case T_NUMBER:
      return io.number(L, k);
    case T_BOOLEAN:
      return String(io.boolean(L, k));
    default:
      throw new PathedConversionError((path) => `cannot convert a table key of type ${typeName(type)} at ${path}`);
  }
}

/**
 * How an engine builds Lua values in thread `L`: each call makes one value `S` (fengari: a value slot; wasmoon:
 * pushed on the stack) and a table `T` is filled with the values made after it.
 */
export interface ValueBuilder<L, S, T> {
  nil(L: L): S;
  /** AIPack's `null` sentinel */
  null(L: L): S;
  boolean(L: L, b: boolean): S;
  number(L: L, n: number): S;
  string(L: L, s: string): S;
  /** a host function (see `hostFunctionBody`) */
  function(L: L, fn: HostFunction): S;
  /** a new list table for `n` items, carrying the array metatable */
  list(L: L, n: number): T;
  /** a new table for `n` string keys */
  record(L: L, n: number): T;
  setIndex(L: L, t: T, i: number, item: S): void;
  setKey(L: L, t: T, key: string, item: S): void;
  /** the value of a filled table */
  done(L: L, t: T): S;
}

/**
 * Makes the Lua value of a JS value. `topNullIsNil`: a top-level null becomes nil, as for stage variables
 * (docs/aipack.md section 7.0); nested nulls always become the `null` sentinel; undefined items are nil holes.
 */
export function jsToLua<L, S, T>(io: ValueBuilder<L, S, T>, L: L, value: unknown, topNullIsNil: boolean): S {
  if (value === null && topNullIsNil) return io.nil(L);
  return build(io, L, value, new Set());
}

function build<L, S, T>(io: ValueBuilder<L, S, T>, L: L, value: unknown, seen: Set<object>): S {
  work.nodes++;
  if (typeof value === 'string') work.bytes += value.length;
  if (value === undefined) return io.nil(L);
  if (value === null) return io.null(L);
  switch (typeof value) {
    case 'boolean':
      return io.boolean(L, value);
    case 'number':
      return io.number(L, value);
    case 'string':
      return io.string(L, value);
    case 'function':
      return io.function(L, value as HostFunction);
    case 'object':
      break;
    default:
      throw new ConversionError(`cannot pass a JS ${typeof value} to Lua`);
  }
  const obj = value as object;
  if (seen.has(obj)) throw new ConversionError('cannot pass a cyclic value to Lua');
  if (seen.size >= MAX_DEPTH) throw new ConversionError(`cannot pass a value nested deeper than ${MAX_DEPTH} levels to Lua`);
  seen.add(obj);
  let t: T;
  if (Array.isArray(obj)) {
    t = io.list(L, obj.length);
    for (let i = 0; i < obj.length; i++) {
      const item = obj[i];
      if (item !== undefined) io.setIndex(L, t, i + 1, build(io, L, item, seen));
    }
  } else {
    const keys = Object.keys(obj);
    t = io.record(L, keys.length);
    for (const key of keys) {
      const item = (obj as Record<string, unknown>)[key];
      if (item !== undefined) io.setKey(L, t, key, build(io, L, item, seen));
    }
  }
  seen.delete(obj);
  return io.done(L, t);
}

/** What a host function's C body needs of its engine. */
export interface HostCallIO<L> {
  /** number of arguments */
  top(L: L): number;
  arg(L: L, i: number, mode: ConvertMode): unknown;
  /** pushes the results (room for them is the engine's job) */
  push(L: L, values: unknown[]): void;
  /** the engine's own unwinding (a Lua error in flight), which must pass through JS frames untouched */
  isUnwind(err: unknown): boolean;
  raise(L: L, message: string): never;
}

/**
 * The C function body of a host function: arguments converted with its `argMode` (default `aip`), a `LuaMulti`
 * result as several values, and any JS error relayed as a Lua error carrying its message (catchable by pcall).
 */
export function hostFunctionBody<L>(io: HostCallIO<L>, fn: HostFunction): (L: L) => number {
  const mode = fn[HOST_OPTIONS]?.argMode ?? 'aip';
  return (L: L) => {
    let failure: string | undefined;
    let count = 0;
    try {
      // the conversions are charged per value and by bytes, each once it is done (a nested run's between them is
      // its own); a spent budget raises the limit's message in place of the call's result
      let nodes = work.nodes;
      let bytes = work.bytes;
      const n = io.top(L);
      const args: unknown[] = [];
      for (let i = 1; i <= n; i++) args.push(io.arg(L, i, mode));
      failure = hostWork.charge(L, work.nodes - nodes, work.bytes - bytes);
      if (failure === undefined) {
        const result = fn(...args);
        if (result !== undefined) {
          const values = result instanceof LuaMulti ? result.values : [result];
          nodes = work.nodes;
          bytes = work.bytes;
          io.push(L, values);
          count = values.length;
          failure = hostWork.charge(L, work.nodes - nodes, work.bytes - bytes);
        }
      }
    } catch (err) {
      if (io.isUnwind(err)) throw err;
      // raised after the try: the raise unwinds with a throw that must not be caught here
      failure = err instanceof LuaError || err instanceof ConversionError || err instanceof Error ? err.message : String(err);
    }
    if (failure !== undefined) io.raise(L, failure);
    return count;
  };
}
