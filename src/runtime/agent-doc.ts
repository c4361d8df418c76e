/**
 * `.aip` parsing, following docs/aipack.md section 1 (AIPack's `agent_doc.rs`): one pass over the lines,
 * no Markdown library, level-1 headings only outside fences.
 */
import { parse as parseToml, TomlError } from 'smol-toml';
import { nextFence, rustLines, type Fence } from '../support/lines.ts';
import { ChunkCache, CHUNK_CACHE_BYTES } from '../engine/chunk-cache.ts';

export interface AgentOptions {
  model?: string;
  temperature?: number;
  top_p?: number;
  input_concurrency?: number;
  allow_run_on_task_fail?: boolean;
  model_aliases?: Record<string, string>;
}

export interface LuaScript {
  code: string;
  /** 1-based line in the .aip file of the first code line, so Lua errors can be mapped to file:line */
  startLine: number;
  /**
   * One entry per captured block (several when a stage heading is repeated and the blocks are concatenated):
   * code line `codeLine` (1-based) sits at file line `fileLine`. Use `mapScriptLine` rather than `startLine`
   * arithmetic so lines in a second block map correctly. Absent: one block starting at `startLine`.
   */
  segments?: ScriptSegment[];
}

export interface ScriptSegment {
  codeLine: number;
  fileLine: number;
}

export interface PromptPart {
  kind: 'instruction' | 'system' | 'assistant';
  /** raw lines after the heading: `lines.join("\n") + "\n"` */
  content: string;
  /** text inside the first backtick pair of the (lowercased) heading, e.g. `cache = true` */
  headerOptions?: string;
  /** 1-based line of the part's heading; content starts on the next line */
  line: number;
}

export interface AgentDoc {
  path: string;
  options: AgentOptions;
  beforeAll?: LuaScript;
  data?: LuaScript;
  output?: LuaScript;
  afterAll?: LuaScript;
  parts: PromptPart[];
}

export class AgentLoadError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'AgentLoadError';
  }
}

/** A wrong-typed agent option; `key` is the offending option (dotted for model_aliases entries). */
export class AgentOptionsError extends Error {
  constructor(
    readonly where: string,
    readonly key: string | undefined,
    readonly detail: string,
  ) {
    super(`${where}: ${detail}`);
    this.name = 'AgentOptionsError';
  }
}

/** AIPack runs the task loop iff there are inputs or one of these exists (`Agent::has_task_stages`). */
export function hasTaskStages(doc: AgentDoc): boolean {
  return doc.data !== undefined || doc.output !== undefined || doc.parts.length > 0;
}

/** Maps a 1-based line of `script.code` to the 1-based line in the .aip file. */
export function mapScriptLine(script: LuaScript, codeLine: number): number {
  const segments = script.segments ?? [];
  let seg = segments[0];
  for (const s of segments) {
    if (s.codeLine <= codeLine) seg = s;
    else break;
  }
  if (!seg) return script.startLine + codeLine - 1;
  return seg.fileLine + (codeLine - seg.codeLine);
}

/**
 * The chunk a stage's script runs as: each code line at its .aip line (blocks of a repeated heading included), so
 * Lua's own line numbers are the file's.
 */
export function stageChunk(script: LuaScript): string {
  // a parsed agent serves many runs (parseAgentDocCached), and each of its stages builds this text at every run
  let chunk = chunks.get(script);
  if (chunk === undefined) chunks.set(script, (chunk = buildStageChunk(script)));
  return chunk;
}

const chunks = new WeakMap<LuaScript, string>();

function buildStageChunk(script: LuaScript): string {
  const lines = script.code.split('\n');
  const out: string[] = [];
  lines.forEach((line, i) => {
    const target = mapScriptLine(script, i + 1);
    while (out.length < target - 1) out.push('');
    out.push(line);
  });
  return out.join('\n');
}

/** The chunks of an agent's Lua stages, in lifecycle order (what fengari's build precompiles of the driver). */
export function stageChunks(doc: AgentDoc): string[] {
  return [doc.beforeAll, doc.data, doc.output, doc.afterAll].filter((s) => s !== undefined).map(stageChunk);
}

// ---------------------------------------------------------------------------------------------------
// Options

function describe(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  if (value instanceof Date) return 'date';
  if (typeof value === 'bigint') return 'integer';
  if (typeof value === 'object') return 'table';
  if (typeof value === 'string') return `string ${JSON.stringify(value)}`;
  return `${typeof value} ${String(value)}`;
}

function isTable(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value) && !(value instanceof Date);
}

/**
 * Typed reads of AgentOptions. `strictIntegers` is for TOML, where serde rejects a float (even `2.0`) for
 * `input_concurrency`; smol-toml must then be run with `integersAsBigInt` so integers arrive as bigint.
 * From Lua (mlua typed reads) an integral float is accepted.
 */
function readAgentOptions(value: unknown, where: string, strictIntegers: boolean): AgentOptions {
  // nil / null sentinel: no options. An array (an empty Lua table converts to []) has no named keys.
  if (value === undefined || value === null || Array.isArray(value)) return {};
  if (!isTable(value)) {
    throw new AgentOptionsError(where, undefined, `Agent Options must be a table, got ${describe(value)}`);
  }
  const fail = (key: string, expected: string, got: unknown): never => {
    throw new AgentOptionsError(where, key, `option '${key}' must be ${expected}, got ${describe(got)}`);
  };
  const present = (v: unknown): boolean => v !== undefined && v !== null;
  const out: AgentOptions = {};

  const model = value.model;
  if (present(model)) {
    if (typeof model !== 'string') fail('model', 'a string', model);
    out.model = model as string;
  }
  for (const key of ['temperature', 'top_p'] as const) {
    const v = value[key];
    if (!present(v)) continue;
    if (typeof v === 'bigint') out[key] = Number(v);
    else if (typeof v === 'number' && Number.isFinite(v)) out[key] = v;
    else fail(key, 'a number', v);
  }
  const conc = value.input_concurrency;
  if (present(conc)) {
    if (typeof conc === 'bigint' && conc >= 0n) out.input_concurrency = Number(conc);
    else if (!strictIntegers && typeof conc === 'number' && Number.isInteger(conc) && conc >= 0) out.input_concurrency = conc;
    else fail('input_concurrency', 'a non-negative integer', conc);
  }
  const allow = value.allow_run_on_task_fail;
  if (present(allow)) {
    if (typeof allow !== 'boolean') fail('allow_run_on_task_fail', 'a boolean', allow);
    out.allow_run_on_task_fail = allow as boolean;
  }
  const aliases = value.model_aliases;
  if (present(aliases)) {
    if (Array.isArray(aliases) && aliases.length === 0) {
      out.model_aliases = {};
    } else {
      if (!isTable(aliases)) fail('model_aliases', 'a table of alias = "model"', aliases);
      const map: Record<string, string> = {};
      for (const [alias, target] of Object.entries(aliases as Record<string, unknown>)) {
        if (typeof target !== 'string') fail(`model_aliases.${alias}`, 'a string', target);
        map[alias] = target as string;
      }
      out.model_aliases = map;
    }
  }
  return out;
}

/**
 * Typed reads used for `# Options`, `aip.agent.run` `options` and before_all_response / data_response
 * options. Unknown keys are ignored; a wrong type throws AgentOptionsError naming `where` and the key.
 * nil/null values count as absent.
 */
export function parseAgentOptions(value: unknown, where: string): AgentOptions {
  return readAgentOptions(value, where, false);
}

// ---------------------------------------------------------------------------------------------------
// Parsing

type StageKey = 'beforeAll' | 'data' | 'output' | 'afterAll';
const STAGE_HEADINGS: Record<string, StageKey> = {
  'before all': 'beforeAll',
  data: 'data',
  output: 'output',
  'after all': 'afterAll',
};

const PART_KINDS: Record<string, PromptPart['kind']> = {
  instruction: 'instruction',
  inst: 'instruction',
  user: 'instruction',
  system: 'system',
  assistant: 'assistant',
  model: 'assistant',
  'mind trick': 'assistant',
  'jedi trick': 'assistant',
};

interface Segment {
  fileLine: number;
  lines: string[];
}

type Capture =
  | { kind: 'none' }
  | { kind: 'code'; target: Segment[]; lang: 'lua' | 'toml'; current?: Segment }
  | { kind: 'part'; index: number };

function buildScript(segments: Segment[]): LuaScript | undefined {
  const used = segments.filter((s) => s.lines.length > 0);
  if (used.length === 0) return undefined;
  const out: ScriptSegment[] = [];
  let code = '';
  let codeLine = 1;
  for (const s of used) {
    out.push({ codeLine, fileLine: s.fileLine });
    for (const l of s.lines) code += l + '\n';
    codeLine += s.lines.length;
  }
  return { code, startLine: used[0].fileLine, segments: out };
}

/** Parses an `.aip` document. Throws AgentLoadError (naming `path` and the line) for bad `# Options`. */
export function parseAgentDoc(content: string, path: string): AgentDoc {
  const lines = rustLines(content);
  const stageSegments: Record<StageKey, Segment[]> = { beforeAll: [], data: [], output: [], afterAll: [] };
  const optionSegments: Segment[] = [];
  const parts: PromptPart[] = [];
  const partLines: string[][] = [];

  let fence: Fence = 'out';
  let capture: Capture = { kind: 'none' };

  for (let i = 0; i < lines.length; i++) {
    const line = lines[i];
    const lineNo = i + 1;
    const before = fence;
    fence = nextFence(fence, line);

    if (fence === 'out' && line.startsWith('#') && !line.startsWith('##')) {
      const name = line.slice(1).trim().toLowerCase();
      const stage = STAGE_HEADINGS[name];
      if (stage) {
        // Buffers are not reset: a repeated heading appends another block.
        capture = { kind: 'code', target: stageSegments[stage], lang: 'lua' };
      } else if (name === 'options') {
        capture = { kind: 'code', target: optionSegments, lang: 'toml' };
      } else {
        const tick = name.indexOf('`');
        const kind = PART_KINDS[(tick < 0 ? name : name.slice(0, tick)).trim()];
        if (kind) {
          const part: PromptPart = { kind, content: '', line: lineNo };
          const close = tick < 0 ? -1 : name.indexOf('`', tick + 1);
          if (close > tick) part.headerOptions = name.slice(tick + 1, close);
          parts.push(part);
          partLines.push([]);
          capture = { kind: 'part', index: parts.length - 1 };
        } else {
          // Unknown headings (# Description, # Config, ...) end the previous section.
          capture = { kind: 'none' };
        }
      }
      continue;
    }

    if (capture.kind === 'part') {
      partLines[capture.index].push(line);
    } else if (capture.kind === 'code') {
      if (!capture.current) {
        const opening = before === 'out' && fence !== 'out';
        // prefix match: "```lua x" and even "```luax" open a lua block
        if (opening && (line.startsWith('```' + capture.lang) || line.startsWith('````' + capture.lang))) {
          capture.current = { fileLine: lineNo + 1, lines: [] };
          capture.target.push(capture.current);
        }
      } else if (fence === 'out') {
        // Closing fence: only the first matching block of a section counts.
        capture = { kind: 'none' };
      } else {
        capture.current.lines.push(line);
      }
    }
  }

  parts.forEach((part, i) => {
    part.content = partLines[i].join('\n') + '\n';
  });

  const doc: AgentDoc = { path, options: parseOptionsBlock(optionSegments, path), parts };
  const beforeAll = buildScript(stageSegments.beforeAll);
  const data = buildScript(stageSegments.data);
  const output = buildScript(stageSegments.output);
  const afterAll = buildScript(stageSegments.afterAll);
  if (beforeAll) doc.beforeAll = beforeAll;
  if (data) doc.data = data;
  if (output) doc.output = output;
  if (afterAll) doc.afterAll = afterAll;
  return doc;
}

function parseOptionsBlock(segments: Segment[], path: string): AgentOptions {
  const script = buildScript(segments);
  if (!script) return {};
  let raw: unknown;
  try {
    raw = parseToml(script.code, { integersAsBigInt: true });
  } catch (e) {
    if (e instanceof TomlError) {
      const firstLine = e.message.split('\n')[0];
      throw new AgentLoadError(`${path}:${mapScriptLine(script, e.line)}: invalid TOML in # Options: ${firstLine}`);
    }
    throw e;
  }
  try {
    return readAgentOptions(raw, `${path}: # Options`, true);
  } catch (e) {
    if (!(e instanceof AgentOptionsError)) throw e;
    const line = findKeyLine(script, e.key) ?? script.startLine;
    throw new AgentLoadError(`${path}:${line}: # Options: ${e.detail}`);
  }
}

/** Best-effort file line of `key = ...` (or `[key]`) inside the options block, for the error message. */
function findKeyLine(script: LuaScript, key: string | undefined): number | undefined {
  if (!key) return undefined;
  const top = key.split('.')[0];
  const esc = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  const re = new RegExp(`^\\s*(${esc(top)}\\s*=|\\[\\s*${esc(top)}\\s*\\])`);
  const codeLines = script.code.split('\n');
  const idx = codeLines.findIndex((l) => re.test(l));
  return idx < 0 ? undefined : mapScriptLine(script, idx + 1);
}

/**
 * Parsed agents, by file and text, for the process: bounded in entries and in bytes (a parsed agent holds about
 * its text again), so a case with huge agents does not leave them held for every later case.
 */
const DOC_CACHE_LIMIT = 500;
const docCache = new ChunkCache<AgentDoc>(DOC_CACHE_LIMIT, CHUNK_CACHE_BYTES);

/** parseAgentDoc, kept for the process by file and text. */
export function parseAgentDocCached(content: string, file: string): AgentDoc {
  let doc = docCache.get(file, content);
  if (!doc) {
    doc = parseAgentDoc(content, file);
    docCache.set(file, content, doc);
  }
  return doc;
}
