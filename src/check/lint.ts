// A Lua linter for AIPack code, over luaparse (Lua 5.3 grammar; AIPack runs Lua 5.4, the simulator fengari 5.3).
//
// Suppression: a comment `-- check:allow <rule>[, <rule>...]` on a line silences findings of those rules
// reported on that same line, e.g.
//   if aip.md.extract_refs then -- check:allow aip-too-new
// (`check:allow all` silences every rule on the line.)

import type { EngineName } from '../engine/engine.ts';
import {
  AIPACK_GLOBALS,
  LUA_STD_GLOBALS,
  STAGE_VARIABLES,
  aipackGlobalsAt,
  findAipFunction,
  findAipNamespace,
  isAvailableAt,
} from '../aip/catalog.ts';
import type { LifecycleStage } from '../aip/support/lifecycle-stage.ts';
import type { InputKind } from './contract-types.ts';
import { typeCheck, type TypeRule } from './infer.ts';
import { annotatedStages } from './annotations.ts';
import {
  LuaSyntaxError,
  ScopeWalker,
  chunkWrites,
  parseLua,
  startOf,
  staticKey,
  type Chunk,
  type Expression,
  type Identifier,
  type IndexExpression,
  type Literal,
  type MemberExpression,
  type Node,
} from './lua-syntax.ts';

export type Rule =
  | 'syntax'
  | 'lua54-syntax'
  | 'undefined-global'
  | 'unknown-aip'
  | 'aip-too-new'
  | 'int-too-large'
  | 'options-toml'
  | 'stale-pack'
  | 'stale-types'
  | 'agent-not-found'
  | 'sub-agent-name'
  | 'model-name'
  | 'annotation'
  | TypeRule;

export interface Finding {
  file: string;
  line: number;
  column: number;
  rule: Rule;
  message: string;
  /** a likely bug that does not fail the check */
  severity?: 'warning';
}

export interface LintSource {
  file: string;
  code: string;
  /** added to reported lines (for Lua blocks inside .aip files) */
  lineOffset?: number;
  /** stage variables visible: a stage name, or 'module' for required modules (globals only) */
  scope: LifecycleStage | 'module';
  /** the stages this code runs in as a sub-agent (from its contract file or a prompt file); annotations add to them */
  subAgentStages?: InputKind[];
}

export interface LintOptions {
  minAipackVersion: string;
  /** the engine the code targets: on lua54 (AIPack's Lua 5.4) the fengari-only rules (lua54-syntax, int-too-large) are off */
  engine?: EngineName;
  extraGlobals?: string[];
}

const FENGARI_MAX_INT = 2147483647n;

// --- lexical pass: which characters are code (not string/comment), and the comments -------------

interface Scan {
  /** the code with every string/comment character replaced by a space (newlines kept) */
  masked: string;
  comments: { index: number; text: string }[];
}

function scanLua(code: string): Scan {
  const out = code.split('');
  const comments: Scan['comments'] = [];
  const blank = (from: number, to: number) => {
    for (let i = from; i < to && i < out.length; i++) if (out[i] !== '\n' && out[i] !== '\r') out[i] = ' ';
  };
  // `[` followed by `=`* and `[`: returns the level, or -1
  const longOpen = (at: number): number => {
    if (code[at] !== '[') return -1;
    let j = at + 1;
    while (code[j] === '=') j++;
    return code[j] === '[' ? j - at - 1 : -1;
  };
  const longEnd = (from: number, level: number): number => {
    const close = `]${'='.repeat(level)}]`;
    const k = code.indexOf(close, from);
    return k < 0 ? code.length : k + close.length;
  };
  let i = 0;
  while (i < code.length) {
    const c = code[i];
    if (c === '-' && code[i + 1] === '-') {
      const level = longOpen(i + 2);
      let end: number;
      if (level >= 0) end = longEnd(i + 4 + level, level);
      else {
        end = code.indexOf('\n', i);
        if (end < 0) end = code.length;
      }
      comments.push({ index: i, text: code.slice(i + 2, end) });
      blank(i, end);
      i = end;
    } else if (c === '"' || c === "'") {
      let j = i + 1;
      while (j < code.length && code[j] !== c && code[j] !== '\n') j += code[j] === '\\' ? 2 : 1;
      const end = Math.min(j + 1, code.length);
      blank(i, end);
      i = end;
    } else if (c === '[' && longOpen(i) >= 0) {
      const level = longOpen(i);
      const end = longEnd(i + 2 + level, level);
      blank(i, end);
      i = end;
    } else i++;
  }
  return { masked: out.join(''), comments };
}

function lineStarts(code: string): number[] {
  const starts = [0];
  for (let i = 0; i < code.length; i++) if (code[i] === '\n') starts.push(i + 1);
  return starts;
}

/** 1-based line and column of a 0-based index */
function position(starts: number[], index: number): { line: number; column: number } {
  let lo = 0;
  let hi = starts.length - 1;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if (starts[mid] <= index) lo = mid;
    else hi = mid - 1;
  }
  return { line: lo + 1, column: index - starts[lo] + 1 };
}

// `local a <const>, b <close> = ...` (on masked code, so strings/comments never match)
const LOCAL_ATTRIB_STMT = /\blocal\s+(?!function\b)[A-Za-z_]\w*(?:\s*<\s*[A-Za-z_]\w*\s*>)?(?:\s*,\s*[A-Za-z_]\w*(?:\s*<\s*[A-Za-z_]\w*\s*>)?)*/g;
const ATTRIB = /<\s*(const|close)\s*>/g;

const ALLOW_RE = /check:allow\s+([a-z0-9-]+(?:\s*,\s*[a-z0-9-]+)*)/g;

// --- the linter ------------------------------------------------------------------------------------

export function lintLua(src: LintSource, opts: LintOptions): Finding[] {
  const offset = src.lineOffset ?? 0;
  const findings: Finding[] = [];
  const starts = lineStarts(src.code);
  const scan = scanLua(src.code);

  // line (chunk-relative) -> rules allowed on it
  const allowed = new Map<number, Set<string>>();
  for (const c of scan.comments) {
    for (const m of c.text.matchAll(ALLOW_RE)) {
      const line = position(starts, c.index).line;
      const set = allowed.get(line) ?? new Set<string>();
      for (const r of m[1].split(',')) set.add(r.trim());
      allowed.set(line, set);
    }
  }
  const report = (line: number, column: number, rule: Rule, message: string, severity?: 'warning') => {
    const allow = allowed.get(line);
    if (allow && (allow.has(rule) || allow.has('all'))) return;
    if (opts.engine === 'lua54' && (rule === 'lua54-syntax' || rule === 'int-too-large')) return;
    const f: Finding = { file: src.file, line: line + offset, column, rule, message };
    if (severity) f.severity = severity;
    findings.push(f);
  };

  // Lua 5.4 attribs: report, then blank them with same-length spaces so locations stay exact
  let code = src.code;
  for (const stmt of scan.masked.matchAll(LOCAL_ATTRIB_STMT)) {
    for (const a of stmt[0].matchAll(ATTRIB)) {
      const index = (stmt.index ?? 0) + (a.index ?? 0);
      const p = position(starts, index);
      report(
        p.line,
        p.column,
        'lua54-syntax',
        `Lua 5.4 attribute <${a[1]}> is not supported by fengari (Lua 5.3); use a plain local`,
      );
      code = code.slice(0, index) + ' '.repeat(a[0].length) + code.slice(index + a[0].length);
    }
  }

  let chunk: Chunk;
  try {
    chunk = parseLua(code);
  } catch (err) {
    if (!(err instanceof LuaSyntaxError)) throw err;
    const p =
      typeof err.index === 'number'
        ? position(starts, Math.min(err.index, src.code.length))
        : { line: err.line ?? 1, column: (err.column ?? 0) + 1 };
    // syntax errors are never suppressed: the rest of the file was not checked
    findings.push({ file: src.file, line: p.line + offset, column: p.column, rule: 'syntax', message: err.message });
    return findings;
  }

  const version = opts.minAipackVersion;
  const defined = new Set<string>([
    ...LUA_STD_GLOBALS,
    ...aipackGlobalsAt(version),
    ...(src.scope === 'module' ? [] : STAGE_VARIABLES[src.scope]),
    ...(opts.extraGlobals ?? []),
    '_ENV',
  ]);
  const writes = chunkWrites(chunk);
  for (const g of writes.globals) defined.add(g);

  new Walker(src.scope, version, defined, report).walk(chunk);
  const annotated = annotatedStages(scan.comments.map((c) => ({ ...c, ...position(starts, c.index) })), report);
  const stages = [...new Set([...(src.subAgentStages ?? []), ...annotated])];
  typeCheck(
    chunk,
    writes.fields,
    { scope: src.scope, subAgentStages: stages.length > 0 ? stages : undefined, minAipackVersion: version, agent: src.file },
    report,
  );
  findings.sort((a, b) => a.line - b.line || a.column - b.column);
  return findings;
}

type Report = (line: number, column: number, rule: Rule, message: string, severity?: 'warning') => void;

/** The rules over names: undefined globals, aip.* / utils.* paths and their versions, integer literals. */
class Walker extends ScopeWalker<void> {
  constructor(
    private readonly scope: LifecycleStage | 'module',
    private readonly version: string,
    private readonly defined: Set<string>,
    private readonly report: Report,
  ) {
    super();
  }

  protected none(): void {}

  /** `function a.b.c()` assigns into a.b (a read of the chain's prefix); `function g()` defines g */
  protected override functionName(id: Identifier | MemberExpression): void {
    if (id.type !== 'Identifier') this.chain(id, true);
  }

  /** an assignment target: a member chain is an assignment into its base */
  protected override fieldWrite(t: MemberExpression | IndexExpression): void {
    this.chain(t, true);
  }

  protected override member(e: MemberExpression): void {
    this.chain(e, false);
  }

  protected override index(e: IndexExpression): void {
    this.chain(e, false);
  }

  protected override literal(e: Literal): void {
    if (e.type === 'NumericLiteral') this.numeric(e.raw, e);
  }

  /** a read of a name no local binds */
  protected override global(id: Identifier): void {
    const name = id.name;
    if (this.defined.has(name)) return;
    const { line, column } = startOf(id);
    const g = AIPACK_GLOBALS.find((x) => x.name === name);
    if (g) {
      this.report(line, column, 'aip-too-new', `global ${name} ${availability(g, this.version)}`);
      return;
    }
    let hint = '';
    const stages = (Object.keys(STAGE_VARIABLES) as LifecycleStage[]).filter((s) => STAGE_VARIABLES[s].includes(name));
    if (stages.length > 0) {
      hint =
        this.scope === 'module'
          ? ` (stage variable of ${stages.join(', ')}; required modules do not see stage variables)`
          : ` (stage variable of ${stages.join(', ')}, not of ${this.scope})`;
    }
    this.report(line, column, 'undefined-global', `undefined global '${name}'${hint}`);
  }

  private numeric(raw: string, n: Node): void {
    // only integer literals: decimal digits or hex digits without fraction/exponent
    if (!/^(?:\d+|0[xX][0-9a-fA-F]+)$/.test(raw)) return;
    if (BigInt(raw) <= FENGARI_MAX_INT) return;
    const { line, column } = startOf(n);
    const effect = /^0[xX]/.test(raw) ? 'it wraps around there' : 'it turns into a float there';
    this.report(
      line,
      column,
      'int-too-large',
      `integer literal ${raw} is beyond 2147483647: fengari integers are 32-bit (AIPack's Lua 5.4: 64-bit), so ${effect}; use a float literal (e.g. ${BigInt(raw).toString()}.0) if that is meant`,
    );
  }

  /**
   * A member/index chain. Walks its dynamic parts, and checks `aip.ns.fn` / `utils.ns.fn` against the
   * catalog. `assigned`: the chain is an assignment target (its last segment is written, not read).
   */
  private chain(e: MemberExpression | IndexExpression, assigned: boolean): void {
    const links: (MemberExpression | IndexExpression)[] = [];
    let cur: Expression = e;
    while (cur.type === 'MemberExpression' || cur.type === 'IndexExpression') {
      links.unshift(cur);
      cur = cur.base;
    }
    const root = cur;
    this.expression(root);
    const segs: string[] = [];
    let complete = true;
    for (const l of links) {
      if (l.type === 'IndexExpression') this.expression(l.index);
      if (!complete) continue;
      const name = l.type === 'MemberExpression' ? l.identifier.name : staticKey(l.index);
      if (name === undefined) complete = false;
      else segs.push(name);
    }
    if (root.type !== 'Identifier' || this.resolve(root.name)) return;
    const base = root.name;
    if (base !== 'aip' && base !== 'utils') return;
    // a static chain wholly assigned (`aip.x.y = f`, `aip.x = t`) is not a use; a longer one reads its prefix
    const wholeTarget = assigned && complete;
    if (wholeTarget && segs.length <= 2) return;
    const readLen = wholeTarget ? segs.length - 1 : segs.length;
    if (readLen < 1) return;
    const { line, column } = startOf(root);
    const written = [base, ...segs.slice(0, Math.min(readLen, 2))].join('.');
    const ns = findAipNamespace(`aip.${segs[0]}`);
    if (!ns) {
      this.report(line, column, 'unknown-aip', `${base}.${segs[0]} is not an AIPack namespace`);
      return;
    }
    if (readLen === 1) {
      if (!isAvailableAt(ns, this.version)) this.report(line, column, 'aip-too-new', `${written} ${availability(ns, this.version)}`);
      return;
    }
    const fn = findAipFunction(`aip.${segs[0]}.${segs[1]}`);
    if (!fn) {
      this.report(line, column, 'unknown-aip', `${written} is not an AIPack function or constant`);
      return;
    }
    if (!isAvailableAt(fn, this.version)) this.report(line, column, 'aip-too-new', `${written} ${availability(fn, this.version)}`);
  }
}

function availability(e: { since: string; until?: string }, version: string): string {
  const range = e.until ? `exists only from AIPack ${e.since} until before ${e.until}` : `needs AIPack >= ${e.since}`;
  const removed = e.until && !isAvailableAt({ since: '0.0.0', until: e.until }, version);
  const what = removed ? `was removed in AIPack ${e.until} (${range})` : range;
  return `${what}; minimum AIPack version checked: ${version}`;
}
