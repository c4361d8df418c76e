/**
 * Argument checks at an aip.* function's entry, derived from its declared parameters (functions.ts), so that a
 * namespace module holds only the function's own work: a `string` parameter must be a string (nil or null too when
 * optional), a `string|nil` one a string or nil, worded as the entry's `args` says AIPack words it; a task-only
 * entry (`taskOnly`) is refused outside Data and Output before that. Other types are the function's business, and so are the parameters its entry lists as `own`; the few checks a function
 * makes itself (an option table's fields, a parameter read only after another) use the helpers at the end of this
 * file, so each wording lives here once.
 */
import { HOST_OPTIONS, LuaError, luaTypeName, type HostFunction } from '../engine/values.ts';
import { aipEntry, type AipEntry, type Param } from './functions.ts';
import type { LifecycleStage } from './support/lifecycle-stage.ts';

/** Checks argument i of args; may replace it (a number taken as its text). */
type Check = (args: unknown[], i: number) => void;

const TEMPLATES = {
  expected: "{path}: expected '{name}' to be {want}, got {got}",
  must: '{path}: {name} must be {want}, got {got}',
  accepted: '{name} - accepted argument types are {types}, but was {got}',
} as const;

function message(e: AipEntry, p: Param, orNil: boolean, v: unknown): string {
  const style = e.args?.style ?? 'expected';
  const vars: Record<string, string> = {
    path: e.path,
    name: e.args?.names?.[p.name] ?? (style === 'accepted' && !e.args?.message ? e.path : p.name),
    want: orNil ? 'a string or nil' : 'a string',
    types: orNil ? 'String or Nil' : 'String',
    got: luaTypeName(v),
  };
  return (e.args?.message ?? TEMPLATES[style]).replace(/\{(\w+)\}/g, (_, k: string) => vars[k]);
}

/** The check of one parameter, or undefined when its type is not one the entry checks. */
function paramCheck(e: AipEntry, p: Param): Check | undefined {
  if (p.variadic || e.args?.own?.includes(p.name)) return undefined;
  const nullOk = e.args?.nullAsNil?.includes(p.name) === true;
  const orNil = p.type === 'string|nil' || (p.type === 'string' && (e.args?.nilOk?.includes(p.name) === true || nullOk));
  if (!orNil && p.type !== 'string') return undefined;
  const fail = (v: unknown): never => {
    throw new LuaError(message(e, p, orNil, v));
  };
  // nil (and null where the entry says so) passes; so does a string, and a number where the entry takes its text
  const passes = nullOk || (p.optional && !orNil) ? (v: unknown) => v === undefined || v === null : orNil ? (v: unknown) => v === undefined : () => false;
  if (e.args?.numberAsText) {
    return (args, i) => {
      const v = args[i];
      if (typeof v === 'number') args[i] = String(v);
      else if (typeof v !== 'string' && !passes(v)) fail(v);
    };
  }
  return (args, i) => {
    const v = args[i];
    if (typeof v !== 'string' && !passes(v)) fail(v);
  };
}

const checksByEntry = new Map<AipEntry, [number, Check][]>();

/** The checks of an entry's parameters, by argument position (derived once). */
function checksOf(e: AipEntry): [number, Check][] {
  let at = checksByEntry.get(e);
  if (!at) {
    at = [];
    for (const [i, p] of e.params.entries()) {
      const c = paramCheck(e, p);
      if (c) at.push([i, c]);
    }
    checksByEntry.set(e, at);
  }
  return at;
}

/**
 * `f` as called in lifecycle stage `stage`: refused outright where its entry does not let it run (a task-only
 * function outside Data and Output), else behind the checks of its entry's parameters (f itself when none applies).
 */
function checkedFunction(e: AipEntry, f: HostFunction, stage: LifecycleStage | undefined): HostFunction {
  if (e.taskOnly) {
    if (stage === undefined) throw new Error(`${e.path} runs only in Data and Output: its namespace must give withArgChecks the stage`);
    if (stage === 'BeforeAll' || stage === 'AfterAll') {
      return withOptions(f, () => {
        throw new LuaError(`Cannot call '${e.path}(...)' in a before all or after all code block. Only in Data or Output.`);
      });
    }
  }
  const at = checksOf(e);
  if (at.length === 0) return f;
  // unrolled for the usual one to three checks: a loop over `at` or `arguments` + apply cost 2-3x as much
  let g: HostFunction;
  if (at.length === 1) {
    const [[i, c]] = at;
    g = (...args: unknown[]) => {
      c(args, i);
      return f(...args);
    };
  } else if (at.length === 2) {
    const [[i, c], [j, d]] = at;
    g = (...args: unknown[]) => {
      c(args, i);
      d(args, j);
      return f(...args);
    };
  } else {
    g = (...args: unknown[]) => {
      for (const [i, c] of at) c(args, i);
      return f(...args);
    };
  }
  return withOptions(f, g);
}

/** `g`, which stands for `f`, with f's argument conversion mode */
function withOptions(f: HostFunction, g: HostFunction): HostFunction {
  const options = f[HOST_OPTIONS];
  if (options) g[HOST_OPTIONS] = options;
  return g;
}

/** A function's checked form, kept on the function (see withArgChecks). */
const WRAPPED = Symbol('argChecked');
type Wrapped = { path: string; stage?: LifecycleStage; checked: HostFunction };

/** Each namespace's entries by function name, looked up once: a stage's namespace is made anew for every stage. */
const entriesByNs = new Map<string, Map<string, AipEntry>>();

function entryOf(ns: string, name: string): AipEntry {
  let byName = entriesByNs.get(ns);
  if (!byName) entriesByNs.set(ns, (byName = new Map()));
  let e = byName.get(name);
  if (!e) {
    const path = `aip.${ns}.${name}`;
    e = aipEntry(path);
    if (!e) throw new Error(`${path} has no entry in functions.ts`);
    byName.set(name, e);
  }
  return e;
}

/**
 * The functions of `aip.<ns>` behind their entries' argument checks. A function registered under two names (an
 * old name kept by AIPack) stays one function, checked and named in messages as the first of them. A namespace
 * with task-only functions gives the lifecycle stage its functions are made for. `impl` may come in groups (one
 * object each), which are not merged first.
 *
 * A function handed again (a pure namespace's, in every stage) keeps its checked form, on itself: a stage's own
 * functions are new at each stage, and a WeakMap entry for each of them cost the collector more than the wrapping.
 */
export function withArgChecks<T extends Record<string, unknown>>(ns: string, impl: T | readonly Record<string, unknown>[], stage?: LifecycleStage): T {
  const out: Record<string, unknown> = {};
  let here: Map<unknown, unknown> | undefined;
  const groups = Array.isArray(impl) ? impl : [impl as Record<string, unknown>];
  for (const group of groups) {
    for (const name of Object.keys(group)) {
      const f = group[name];
      if (typeof f !== 'function') {
        out[name] = f;
        continue;
      }
      const known = here?.get(f);
      if (known !== undefined) {
        out[name] = known;
        continue;
      }
      const e = entryOf(ns, name);
      const holder = f as HostFunction & { [WRAPPED]?: Wrapped };
      let w = holder[WRAPPED];
      if (!w || w.path !== e.path || w.stage !== stage) {
        w = { path: e.path, stage, checked: checkedFunction(e, f as HostFunction, stage) };
        holder[WRAPPED] = w;
      }
      (here ??= new Map()).set(f, w.checked);
      out[name] = w.checked;
    }
  }
  return out as T;
}

// --- the checks a function makes itself (option fields; a parameter its entry leaves to it) ---------------

/** A string-or-nil value: nil -> undefined; anything else (the `null` sentinel too) is an error. */
export function optStr(v: unknown, fnName: string, argName = 'content'): string | undefined {
  if (v === undefined) return undefined;
  if (typeof v === 'string') return v;
  throw new LuaError(`${fnName}: expected '${argName}' to be a string or nil, got ${luaTypeName(v)}`);
}

/** A required string value. */
export function reqStr(v: unknown, fnName: string, argName: string): string {
  if (typeof v === 'string') return v;
  throw new LuaError(`${fnName}: expected '${argName}' to be a string, got ${luaTypeName(v)}`);
}

/** A required integer-valued number (>= 0 unless allowNegative). */
export function reqInt(v: unknown, fnName: string, argName: string, allowNegative = false): number {
  if (typeof v === 'number' && Number.isInteger(v) && (allowNegative || v >= 0)) return v;
  const want = allowNegative ? 'an integer' : 'a non-negative integer';
  throw new LuaError(`${fnName}: expected '${argName}' to be ${want}, got ${luaTypeName(v)}${typeof v === 'number' ? ` ${v}` : ''}`);
}

/** A path value as AIPack reads one: a string, or a number as its text (Lua's string coercion). */
export function pathArg(v: unknown, fnName: string, argName = 'path'): string {
  if (typeof v === 'string') return v;
  if (typeof v === 'number') return String(v);
  throw new LuaError(`${fnName}: expected '${argName}' to be a string, got ${luaTypeName(v)}`);
}
