import type { RunLimits } from './limits.ts';
import type { ConvertMode } from './values.ts';

/**
 * The Lua engine seen by the rest of the simulator. Only the `fengari-*` files know fengari and only the
 * `wasmoon-*` files know wasmoon (Lua 5.4); both implement these two interfaces, synchronously, on the engine core
 * (`sandboxed-state.ts`).
 */
export interface LuaEngine {
  readonly name: EngineName;
  /** `_VERSION` of the Lua it runs, e.g. "Lua 5.3" */
  readonly luaVersion: string;
  createState(options: StateOptions): LuaState;
}

export type EngineName = 'fengari' | 'lua54';

export interface StateOptions {
  /** instructions this state may execute before it is stopped, when no shared `limits` are given */
  budget: number;
  /** the limits of the run tree this state belongs to (shared by its states); default: own limits from `budget` */
  limits?: RunLimits;
  /** the text raised when the budget is exhausted */
  budgetMessage: string;
  /** the text raised when the memory cap is hit (default: "memory limit exceeded") */
  memoryMessage?: string;
  /** the text raised when the run tree's deadline passes (default: "timed out after <n> s") */
  timeoutMessage?: string;
  /**
   * directories searched by `require`, in order (`?.lua` then `?/init.lua` in each): the start of `package.path`,
   * which then ends with Lua's "./?.lua;./?/init.lua"; `require` follows `package.path` as scripts leave it
   */
  moduleDirs: string[];
  /**
   * reads a file for `require`, `dofile` and `loadfile`; undefined when missing. Bytes are loaded as they are (as
   * Lua reads a file: a string literal keeps bytes that are not UTF-8); a string is loaded as its UTF-8 encoding.
   */
  readFile(abs: string): Uint8Array | string | undefined;
  /** `dofile`/`loadfile` may only read below these directories; `require` below these and `moduleDirs` */
  loadRoots: string[];
  /** the process cwd: resolves relative `dofile`/`loadfile` paths and `package.path` templates */
  baseDir: string;
  /**
   * pattern calls whose worst-case steps exceed this run on the step-counting matcher (pattern.ts); default
   * PATTERN_ROUTE_STEPS. Tests set 0 (route every pattern call) or Infinity (none) to compare the two.
   */
  patternRouteSteps?: number;
  /** Lua `print` (arguments already joined with "\n" as AIPack does) */
  print(text: string): void;
  /** how chunk names are shown in messages (absolute file path -> display path) */
  displayPath(abs: string): string;
  /**
   * globals every state of the same `key` starts with (the `aip` table, preludes): installed once on a new state,
   * then kept with the libraries when the engine reuses the state, and put back in place like them
   */
  template?: StateTemplate;
}

/** What a stage's globals have in common with the other stages of the same `key` (see StateOptions.template). */
export interface StateTemplate {
  key: string;
  /** sets the globals on a new state (setGlobal, exec); their instructions are not charged */
  install(state: LuaState): void;
}

export interface LuaState {
  /** sets a global; JS functions become Lua functions (see values.ts) */
  setGlobal(name: string, value: unknown): void;
  /**
   * runs the simulator's own code (preludes, mocks) in the global environment; its functions count as host
   * functions. Every chunk, this and `runChunk`'s, is compiled once per process by name and source.
   */
  exec(code: string, chunkName: string): void;
  /**
   * Runs a stage chunk the way AIPack does: in a fresh environment holding the scope variables plus a shallow
   * copy of the globals. `firstLine` is the line of the code in its file, so messages carry the file's lines.
   * Returns the chunk's first return value converted with `mode`.
   */
  runChunk(code: string, file: string, firstLine: number, scope: Record<string, unknown>, mode: ConvertMode): unknown;
  /** instructions executed so far (in hook steps) */
  instructionsUsed(): number;
  close(): void;
}
