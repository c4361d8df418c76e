/**
 * Argument checks at an aip.* function's entry, derived from its declared parameters (functions.ts), so that a
 * namespace module holds only the function's own work: a `string` parameter must be a string (nil or null too when
 * optional), a `string|nil` one a string or nil, worded as the entry's `args` says AIPack words it. Other types
 * are the function's business, and so are the parameters its entry lists as `own`.
 */
import { HOST_OPTIONS, LuaError, luaTypeName, type HostFunction } from '../engine/values.ts';
import { aipEntry, type AipEntry, type Param } from './functions.ts';

type Check = (v: unknown) => void;

function message(e: AipEntry, p: Param, orNil: boolean, v: unknown): string {
  const got = luaTypeName(v);
  const want = orNil ? 'a string or nil' : 'a string';
  switch (e.args?.style ?? 'expected') {
    case 'expected':
      return `${e.path}: expected '${e.args?.names?.[p.name] ?? p.name}' to be ${want}, got ${got}`;
    case 'must':
      return `${e.path}: ${e.args?.names?.[p.name] ?? p.name} must be ${want}, got ${got}`;
    case 'accepted':
      return `${e.args?.names?.[p.name] ?? e.path} - accepted argument types are ${orNil ? 'String or Nil' : 'String'}, but was ${got}`;
  }
}

/** The check of one parameter, or undefined when its type is not one the entry checks. */
function paramCheck(e: AipEntry, p: Param): Check | undefined {
  if (p.variadic || e.args?.own?.includes(p.name)) return undefined;
  const orNil = p.type === 'string|nil' || (p.type === 'string' && e.args?.nilOk?.includes(p.name) === true);
  if (!orNil && p.type !== 'string') return undefined;
  const fail = (v: unknown): never => {
    throw new LuaError(message(e, p, orNil, v));
  };
  if (orNil) return (v) => void (v !== undefined && typeof v !== 'string' && fail(v));
  if (p.optional) return (v) => void (v !== undefined && v !== null && typeof v !== 'string' && fail(v));
  return (v) => void (typeof v !== 'string' && fail(v));
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

/** `f` behind the checks of its entry's parameters (f itself when none applies). */
function checkedFunction(e: AipEntry, f: HostFunction): HostFunction {
  const at = checksOf(e);
  if (at.length === 0) return f;
  // unrolled for the usual one to three checks: a loop over `at` or `arguments` + apply cost 2-3x as much
  let g: HostFunction;
  if (at.length === 1) {
    const [[i, c]] = at;
    g = (...args: unknown[]) => {
      c(args[i]);
      return f(...args);
    };
  } else if (at.length === 2) {
    const [[i, c], [j, d]] = at;
    g = (...args: unknown[]) => {
      c(args[i]);
      d(args[j]);
      return f(...args);
    };
  } else {
    g = (...args: unknown[]) => {
      for (const [i, c] of at) c(args[i]);
      return f(...args);
    };
  }
  const options = f[HOST_OPTIONS];
  if (options) g[HOST_OPTIONS] = options;
  return g;
}

// Pure namespaces hand out the same functions in every stage: they are wrapped once (the others once per stage).
const wrapped = new WeakMap<HostFunction, { path: string; checked: HostFunction }>();

/**
 * The functions of `aip.<ns>` behind their entries' argument checks. A function registered under two names (an
 * old name kept by AIPack) stays one function, checked and named in messages as the first of them.
 */
export function withArgChecks<T extends Record<string, unknown>>(ns: string, impl: T): T {
  const out: Record<string, unknown> = {};
  const here = new Map<unknown, unknown>();
  for (const [name, f] of Object.entries(impl)) {
    if (typeof f !== 'function') {
      out[name] = f;
      continue;
    }
    if (!here.has(f)) {
      const path = `aip.${ns}.${name}`;
      let w = wrapped.get(f as HostFunction);
      if (!w || w.path !== path) {
        const e = aipEntry(path);
        if (!e) throw new Error(`${path} has no entry in functions.ts`);
        w = { path, checked: checkedFunction(e, f as HostFunction) };
        wrapped.set(f as HostFunction, w);
      }
      here.set(f, w.checked);
    }
    out[name] = here.get(f);
  }
  return out as T;
}
