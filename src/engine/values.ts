/**
 * How Lua values look on the JS side of the bridge (docs/aipack.md section 7.0).
 *
 *   Lua nil            <-> undefined   (a nil hole in a list is an `undefined` array slot)
 *   the `null` global  <-> null        (AIPack's light-userdata sentinel)
 *   boolean / number / string  <-> the same JS primitive
 *   table              <-> JS array or plain object, chosen by the conversion mode
 *   JS function        ->  Lua function (a host function; see HostFunction)
 */

/** Raised from a host function: becomes a Lua error carrying exactly this message (catchable by pcall). */
export class LuaError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'LuaError';
  }
}

/** A Lua error that escaped a chunk: message as Lua printed it, plus the traceback. */
export class LuaRuntimeError extends Error {
  constructor(
    message: string,
    readonly traceback: string,
    /** `chunkname:line` of the innermost Lua frame, when known. */
    readonly location?: string,
  ) {
    super(message);
    this.name = 'LuaRuntimeError';
  }
}

/** A JS value that cannot cross to Lua, or a Lua value that cannot cross to JS (a Lua error when raised in Lua). */
export class ConversionError extends Error {}

/** Deepest table nesting converted before giving up (AIPack's serde stops far earlier than Lua's own limits). */
export const MAX_DEPTH = 128;

/**
 * Most values one Lua -> JS conversion visits. A table shared at every level (`for i = 1, 40 do t = {t, t} end`)
 * is tiny in Lua but expands exponentially when copied, which no instruction budget sees; this stops it.
 */
export const MAX_NODES = 2_000_000;

/**
 * A conversion failure deep inside a value. The path it names (`value.a[2]`) is assembled only when it is raised:
 * each table level on the way out adds its key, so converting the good elements builds no path strings.
 */
export class PathedConversionError {
  private readonly segments: string[] = [];
  constructor(private readonly message: (path: string) => string) {}
  /** adds the key of the level the failure passed through: `[3]` in a list, `.name` in a table */
  through(segment: string): this {
    this.segments.push(segment);
    return this;
  }
  /** the error naming the whole path, from `root` (e.g. "value", "argument #2") */
  at(root: string): ConversionError {
    return new ConversionError(this.message(root + this.segments.reverse().join('')));
  }
}

/** A failure raised while converting an element, with the element's key added to its path. */
export function through(err: unknown, segment: string): unknown {
  return err instanceof PathedConversionError ? err.through(segment) : err;
}

/** `chunkname:line` at the start of a Lua error message, when there is one. */
export function locationOf(message: string): string | undefined {
  const m = /^(.+?:\d+):/.exec(message);
  return m ? m[1] : undefined;
}

/** The error of a chunk that failed under the engines' message handler ("message\nstack traceback:..."). */
export function chunkFailure(full: string): LuaRuntimeError {
  const cut = full.indexOf('\nstack traceback:');
  const message = cut >= 0 ? full.slice(0, cut) : full;
  const traceback = cut >= 0 ? full.slice(cut + 1) : '';
  return new LuaRuntimeError(message, traceback, locationOf(message));
}

/** Several return values from a host function (Lua multiple returns). */
export class LuaMulti {
  constructor(readonly values: unknown[]) {}
}
export const multi = (...values: unknown[]): LuaMulti => new LuaMulti(values);

/**
 * Two Lua -> JS conversions exist in AIPack (docs/aipack.md section 7.0):
 * - `aip`:   lua_value_to_serde_value, used by aip.json.stringify, aip.toml.stringify, aip.agent.run inputs and
 *            most aip.* arguments: keys 1..n without gaps -> array, else object; EMPTY TABLE -> [].
 * - `serde`: mlua's serializer, used for stage return values, prompt data and aip.hbs.render:
 *            raw length > 0 -> array of 1..#t; else object; EMPTY TABLE -> {}.
 */
export type ConvertMode = 'aip' | 'serde';

export interface HostFunctionOptions {
  /** How Lua arguments are converted before the JS function sees them (default `aip`). */
  argMode?: ConvertMode;
}

export const HOST_OPTIONS = Symbol('hostOptions');

export type HostFunction = ((...args: any[]) => unknown) & { [HOST_OPTIONS]?: HostFunctionOptions };

/** Marks a JS function with its argument conversion mode. */
export function hostFn<F extends (...args: any[]) => unknown>(fn: F, options: HostFunctionOptions): F {
  (fn as HostFunction)[HOST_OPTIONS] = options;
  return fn;
}

/** Plain JS data as it crossed the bridge. */
export type LuaData = undefined | null | boolean | number | string | LuaData[] | { [key: string]: LuaData };

export const isPlainObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * An options argument, as aip functions receive it. In `aip` mode an empty Lua table `{}` arrives as `[]`,
 * so "no options" may be undefined, null or []: all mean none.
 */
export function optionsArg(v: unknown, fnName: string): Record<string, unknown> {
  if (v === undefined || v === null) return {};
  if (Array.isArray(v) && v.length === 0) return {};
  if (isPlainObject(v)) return v;
  throw new LuaError(`${fnName}: options must be a table, got ${luaTypeName(v)}`);
}

/** The Lua type name of a converted value, for error messages. */
export function luaTypeName(v: unknown): string {
  if (v === undefined) return 'nil';
  if (v === null) return 'userdata';
  if (typeof v === 'object') return 'table';
  if (typeof v === 'function') return 'function';
  return typeof v;
}

/**
 * The JS value of a converted Lua table from its keys and values in traversal order: a list in the `aip`
 * conversion when the keys are exactly 1..n, else an object.
 */
export function tableValue(keys: (string | number)[], values: unknown[], mode: ConvertMode): unknown {
  if (mode === 'aip') {
    // a list read in order (the usual case): the values are the list as they are
    if (inOrder(keys)) return values;
    if (isSequence(keys)) {
      const out: unknown[] = new Array(keys.length);
      keys.forEach((k, i) => (out[(k as number) - 1] = values[i]));
      return out;
    }
  }
  const obj: Record<string, unknown> = {};
  keys.forEach((k, i) => setOwn(obj, String(k), values[i]));
  return obj;
}

/** Sets an own, enumerable key: a Lua key "__proto__" is an ordinary key, not the object's prototype. */
export function setOwn(obj: Record<string, unknown>, key: string, value: unknown): void {
  if (key === '__proto__') Object.defineProperty(obj, key, { value, enumerable: true, writable: true, configurable: true });
  else obj[key] = value;
}

/** keys are 1..n in that order */
function inOrder(keys: unknown[]): boolean {
  for (let i = 0; i < keys.length; i++) if (keys[i] !== i + 1) return false;
  return true;
}

/** keys are exactly 1..n (n = 0 included: an empty table is a list in the `aip` conversion) */
function isSequence(keys: unknown[]): boolean {
  const n = keys.length;
  // a table with a string key (a record) is told before anything is allocated
  for (let i = 0; i < n; i++) if (typeof keys[i] !== 'number') return false;
  const present = new Array<boolean>(n + 1).fill(false);
  for (const k of keys) {
    if (typeof k !== 'number' || !Number.isInteger(k) || k < 1 || k > n || present[k]) return false;
    present[k] = true;
  }
  return true;
}
