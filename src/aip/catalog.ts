// The AIPack Lua API surface, per version (docs/aipack.md section 3-8): the functions of each version (from the
// entries of functions.ts), the namespaces, the globals and the stage variables; for the runtime (which functions
// exist) and the checker (what code may call).

import { compareSemVer, type SemVer } from './semver.ts';
import { AIP_ENTRIES } from './functions.ts';
import type { LifecycleStage } from './support/lifecycle-stage.ts';

/** The newest AIPack version whose API the simulator knows (functions.ts holds the API up to it). */
export const NEWEST_AIPACK_VERSION = '0.8.33';
/** The oldest AIPack version the pack supports (the contract's MIN_AIPACK_VERSION says the same). */
export const OLDEST_AIPACK_VERSION = '0.8.15';
/** The AIPack version a simulated run is when none is given: the newest, as users run current AIPack. */
export const DEFAULT_AIPACK_VERSION = NEWEST_AIPACK_VERSION;

/** The names a version flag takes besides a version number. */
export const VERSION_ALIASES: Readonly<Record<string, string>> = Object.freeze({ oldest: OLDEST_AIPACK_VERSION, newest: NEWEST_AIPACK_VERSION });

/** A version as given on the command line or in a config file: `oldest` and `newest` stand for their versions. */
export function resolveVersionAlias(v: string): string {
  return VERSION_ALIASES[v.trim().toLowerCase()] ?? v.trim();
}

export interface AipFunction {
  /** full dotted path, e.g. "aip.file.load" */
  path: string;
  /** first AIPack version that has it ("0.8.0" for the v0.8.0 baseline) */
  since: string;
  /** first AIPack version that no longer has it (removed or renamed) */
  until?: string;
  kind: 'function' | 'constant';
}

/**
 * Orders AIPack versions by SemVer precedence (a prerelease sorts before its release; build metadata is ignored).
 * More lenient than aip.semver: a leading "v" and surrounding spaces are accepted, as users write versions.
 */
export function compareVersions(a: string, b: string): number {
  return compareSemVer(parseVersion(a), parseVersion(b));
}

const VERSION_RE = /^v?(\d+)\.(\d+)\.(\d+)(?:-([0-9A-Za-z.-]+))?(?:\+[0-9A-Za-z.-]+)?$/;

export function isValidVersion(v: string): boolean {
  return VERSION_RE.test(v.trim());
}

function parseVersion(v: string): SemVer {
  const m = VERSION_RE.exec(v.trim());
  if (!m) throw new Error(`invalid AIPack version '${v}' (expected MAJOR.MINOR.PATCH, e.g. 0.8.15)`);
  return { major: BigInt(m[1]), minor: BigInt(m[2]), patch: BigInt(m[3]), pre: m[4]?.split('.') ?? [], build: [] };
}

/** true when `version` is within [since, until) */
export function isAvailableAt(entry: { since: string; until?: string }, version: string): boolean {
  if (compareVersions(version, entry.since) < 0) return false;
  return entry.until === undefined || compareVersions(version, entry.until) < 0;
}

const V0 = '0.8.0';

/** Which functions exist in which versions: from the entries of functions.ts. */
export const AIP_FUNCTIONS: readonly AipFunction[] = Object.freeze(
  AIP_ENTRIES.map((e) => {
    const f: AipFunction = { path: e.path, since: e.since, kind: e.kind };
    if (e.until !== undefined) f.until = e.until;
    return Object.freeze(f);
  }),
);

const BY_PATH = new Map(AIP_FUNCTIONS.map((f) => [f.path, f]));

// Asked once per Lua stage by the simulator: remember the answer per version.
const functionsAtCache = new Map<string, readonly AipFunction[]>();

/** Catalog entries available at that AIPack version. */
export function aipFunctionsAt(version: string): AipFunction[] {
  let fns = functionsAtCache.get(version);
  if (!fns) {
    fns = Object.freeze(AIP_FUNCTIONS.filter((f) => isAvailableAt(f, version)));
    functionsAtCache.set(version, fns);
  }
  return [...fns];
}

/** `utils.x` is the old alias of `aip.x`. */
const unaliased = (path: string): string => (path.startsWith('utils.') ? `aip.${path.slice('utils.'.length)}` : path);

/** Lookup by full path ("aip.file.load"); the `utils.` alias is accepted too. */
export function findAipFunction(path: string): AipFunction | undefined {
  return BY_PATH.get(unaliased(path));
}

export interface AipNamespace {
  /** "aip.file" */
  path: string;
  /** since of its earliest member */
  since: string;
  /** set only when every member was removed */
  until?: string;
}

/** The `aip.<ns>` tables, derived from the functions. */
export const AIP_NAMESPACES: readonly AipNamespace[] = Object.freeze(
  [...new Set(AIP_FUNCTIONS.map((f) => f.path.split('.')[1]))].map((ns) => {
    const members = AIP_FUNCTIONS.filter((f) => f.path.split('.')[1] === ns);
    const since = members.map((m) => m.since).sort(compareVersions)[0];
    const ns0: AipNamespace = { path: `aip.${ns}`, since };
    if (members.every((m) => m.until !== undefined)) {
      ns0.until = members.map((m) => m.until as string).sort(compareVersions).at(-1);
    }
    return Object.freeze(ns0);
  }),
);

export function findAipNamespace(path: string): AipNamespace | undefined {
  const p = unaliased(path);
  return AIP_NAMESPACES.find((n) => n.path === p);
}

// --- globals -------------------------------------------------------------------------------------

/**
 * Globals of AIPack's Lua 5.4 state (mlua `Lua::new()` safe stdlib: no `debug`; docs/aipack.md section 6):
 * base functions plus the standard library tables.
 */
export const LUA_STD_GLOBALS: readonly string[] = Object.freeze([
  // libraries
  'coroutine', 'table', 'io', 'os', 'string', 'utf8', 'math', 'package',
  // base library (Lua 5.4)
  '_G', '_VERSION', 'assert', 'collectgarbage', 'dofile', 'error', 'getmetatable', 'ipairs', 'load',
  'loadfile', 'next', 'pairs', 'pcall', 'print', 'rawequal', 'rawget', 'rawlen', 'rawset', 'select',
  'setmetatable', 'tonumber', 'tostring', 'type', 'warn', 'xpcall',
  // package library
  'require',
]);

export interface AipackGlobal {
  name: string;
  since: string;
  /** first version without it */
  until?: string;
}

/** Globals AIPack adds to every Lua state (docs/aipack.md section 6 and 8). */
export const AIPACK_GLOBALS: readonly AipackGlobal[] = Object.freeze(
  [
    { name: 'aip', since: V0 },
    { name: 'utils', since: V0 },
    { name: 'CTX', since: V0 },
    { name: 'print', since: V0 },
    // legacy alias of aip.flow, removed in 0.8.1
    { name: 'aipack', since: V0, until: '0.8.1' },
    { name: 'null', since: '0.8.1' },
    { name: 'Null', since: '0.8.1' },
    { name: 'NULL', since: '0.8.15' },
    { name: 'is_null', since: '0.8.15' },
    { name: 'value_or', since: '0.8.15' },
    { name: 'nil_if_null', since: '0.8.15' },
    { name: 'is_not_null', since: '0.8.27' },
    { name: 'is_table', since: '0.8.27' },
    { name: 'is_list', since: '0.8.27' },
    { name: 'is_object', since: '0.8.27' },
  ].map((g) => Object.freeze(g as AipackGlobal)),
);

/** Names of the AIPack globals available at that version. */
export function aipackGlobalsAt(version: string): string[] {
  return AIPACK_GLOBALS.filter((g) => isAvailableAt(g, version)).map((g) => g.name);
}


/** Variables of each stage's chunk environment (docs/aipack.md section 2). */
export const STAGE_VARIABLES: Record<LifecycleStage, readonly string[]> = Object.freeze({
  BeforeAll: Object.freeze(['inputs', 'options']),
  Data: Object.freeze(['input', 'before_all', 'options']),
  Output: Object.freeze(['input', 'data', 'before_all', 'ai_response', 'options']),
  AfterAll: Object.freeze(['inputs', 'outputs', 'before_all', 'options']),
});
