// A Lua linter for AIPack code, over luaparse (Lua 5.3 grammar; AIPack runs Lua 5.4, the simulator fengari 5.3).
//
// Suppression: a comment `-- check:allow <rule>[, <rule>...]` on a line silences findings of those rules
// reported on that same line, e.g.
//   if aip.md.extract_refs then -- check:allow aip-too-new
// (`check:allow all` silences every rule on the line.)

import type { EngineName } from '../engine/engine.ts';
import luaparse from 'luaparse';
import {
  AIPACK_GLOBALS,
  LUA_STD_GLOBALS,
  STAGE_VARIABLES,
  aipackGlobalsAt,
  findAipFunction,
  findAipNamespace,
  isAvailableAt,
} from '../aip/catalog.ts';
import type { LifecycleStage } from '../aip/support/lifecycle.ts';
import type { InputKind } from './contract-types.ts';
import { typeCheck, type TypeRule } from './infer.ts';
import { annotatedStages } from './annotations.ts';

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

// Minimal structural view of luaparse nodes (the bundled @types are stale; we only read what we need).
interface Loc {
  start: { line: number; column: number };
}
interface LNode {
  type: string;
  loc?: Loc;
  [key: string]: unknown;
}

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

  let chunk: LNode;
  try {
    chunk = luaparse.parse(code, { luaVersion: '5.3', scope: true, locations: true, comments: false }) as unknown as LNode;
  } catch (err) {
    const e = err as { message?: string; index?: number; line?: number; column?: number };
    const msg = String(e.message ?? err).replace(/^\[\d+:\d+\]\s*/, '');
    const p =
      typeof e.index === 'number'
        ? position(starts, Math.min(e.index, src.code.length))
        : { line: e.line ?? 1, column: (e.column ?? 0) + 1 };
    // syntax errors are never suppressed: the rest of the file was not checked
    findings.push({ file: src.file, line: p.line + offset, column: p.column, rule: 'syntax', message: msg });
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
  collectGlobalWrites(chunk, defined);

  new Walker(src.scope, version, defined, report).block(chunk.body as LNode[]);
  const annotated = annotatedStages(scan.comments.map((c) => ({ ...c, ...position(starts, c.index) })), report);
  const stages = [...new Set([...(src.subAgentStages ?? []), ...annotated])];
  typeCheck(
    chunk.body as LNode[],
    { scope: src.scope, subAgentStages: stages.length > 0 ? stages : undefined, minAipackVersion: version, agent: src.file },
    report,
  );
  findings.sort((a, b) => a.line - b.line || a.column - b.column);
  return findings;
}

/** Every global the chunk assigns anywhere counts as defined (kept simple on purpose). */
function collectGlobalWrites(node: unknown, out: Set<string>): void {
  if (Array.isArray(node)) {
    for (const n of node) collectGlobalWrites(n, out);
    return;
  }
  if (!node || typeof node !== 'object') return;
  const n = node as LNode;
  if (n.type === 'AssignmentStatement') {
    for (const v of n.variables as LNode[]) if (v.type === 'Identifier' && !v.isLocal) out.add(v.name as string);
  } else if (n.type === 'FunctionDeclaration' && !n.isLocal) {
    const id = n.identifier as LNode | null;
    if (id && id.type === 'Identifier' && !id.isLocal) out.add(id.name as string);
  }
  for (const [k, v] of Object.entries(n)) {
    if (k === 'loc' || k === 'globals') continue;
    if (v && typeof v === 'object') collectGlobalWrites(v, out);
  }
}

type Report = (line: number, column: number, rule: Rule, message: string, severity?: 'warning') => void;

class Walker {
  constructor(
    private readonly scope: LifecycleStage | 'module',
    private readonly version: string,
    private readonly defined: Set<string>,
    private readonly report: Report,
  ) {}

  block(body: LNode[]): void {
    for (const s of body) this.stmt(s);
  }

  stmt(s: LNode): void {
    switch (s.type) {
      case 'LocalStatement':
        this.exprs(s.init as LNode[]);
        break;
      case 'AssignmentStatement':
        for (const v of s.variables as LNode[]) this.target(v);
        this.exprs(s.init as LNode[]);
        break;
      case 'CallStatement':
        this.expr(s.expression as LNode);
        break;
      case 'ReturnStatement':
        this.exprs(s.arguments as LNode[]);
        break;
      case 'IfStatement':
        for (const c of s.clauses as LNode[]) {
          if (c.condition) this.expr(c.condition as LNode);
          this.block(c.body as LNode[]);
        }
        break;
      case 'WhileStatement':
        this.expr(s.condition as LNode);
        this.block(s.body as LNode[]);
        break;
      case 'RepeatStatement':
        this.block(s.body as LNode[]);
        this.expr(s.condition as LNode);
        break;
      case 'DoStatement':
        this.block(s.body as LNode[]);
        break;
      case 'ForNumericStatement':
        this.expr(s.start as LNode);
        this.expr(s.end as LNode);
        if (s.step) this.expr(s.step as LNode);
        this.block(s.body as LNode[]);
        break;
      case 'ForGenericStatement':
        this.exprs(s.iterators as LNode[]);
        this.block(s.body as LNode[]);
        break;
      case 'FunctionDeclaration':
        this.functionDecl(s);
        break;
      default:
        // LabelStatement, GotoStatement, BreakStatement: no expressions
        break;
    }
  }

  private functionDecl(f: LNode): void {
    const id = f.identifier as LNode | null;
    // `function a.b.c()` assigns into a.b (a read of the chain's prefix); `function g()` defines g
    if (id && id.type !== 'Identifier') this.target(id);
    this.block(f.body as LNode[]);
  }

  private exprs(list: LNode[]): void {
    for (const e of list) this.expr(e);
  }

  /** an assignment target: a global name is a write, a member chain is an assignment into its base */
  private target(t: LNode): void {
    if (t.type === 'Identifier') return;
    if (t.type === 'MemberExpression' || t.type === 'IndexExpression') this.chain(t, true);
    else this.expr(t);
  }

  expr(e: LNode | null | undefined): void {
    if (!e) return;
    switch (e.type) {
      case 'Identifier':
        this.identifier(e);
        break;
      case 'NumericLiteral':
        this.numeric(e);
        break;
      case 'MemberExpression':
      case 'IndexExpression':
        this.chain(e, false);
        break;
      case 'CallExpression':
        this.expr(e.base as LNode);
        this.exprs(e.arguments as LNode[]);
        break;
      case 'TableCallExpression':
        this.expr(e.base as LNode);
        this.expr(e.arguments as LNode);
        break;
      case 'StringCallExpression':
        this.expr(e.base as LNode);
        break;
      case 'FunctionDeclaration':
        this.functionDecl(e);
        break;
      case 'TableConstructorExpression':
        for (const f of e.fields as LNode[]) {
          if (f.type === 'TableKey') this.expr(f.key as LNode);
          this.expr(f.value as LNode);
        }
        break;
      case 'BinaryExpression':
      case 'LogicalExpression':
        this.expr(e.left as LNode);
        this.expr(e.right as LNode);
        break;
      case 'UnaryExpression':
        this.expr(e.argument as LNode);
        break;
      default:
        // StringLiteral, BooleanLiteral, NilLiteral, VarargLiteral
        break;
    }
  }

  private at(n: LNode): { line: number; column: number } {
    return { line: n.loc?.start.line ?? 1, column: (n.loc?.start.column ?? 0) + 1 };
  }

  private identifier(id: LNode): void {
    if (id.isLocal) return;
    const name = id.name as string;
    if (this.defined.has(name)) return;
    const { line, column } = this.at(id);
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

  private numeric(n: LNode): void {
    const raw = String(n.raw);
    // only integer literals: decimal digits or hex digits without fraction/exponent
    if (!/^(?:\d+|0[xX][0-9a-fA-F]+)$/.test(raw)) return;
    if (BigInt(raw) <= FENGARI_MAX_INT) return;
    const { line, column } = this.at(n);
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
  private chain(e: LNode, assigned: boolean): void {
    const links: LNode[] = [];
    let cur: LNode = e;
    while (cur.type === 'MemberExpression' || cur.type === 'IndexExpression') {
      links.unshift(cur);
      cur = cur.base as LNode;
    }
    const root = cur;
    this.expr(root);
    const segs: string[] = [];
    let complete = true;
    for (const l of links) {
      if (l.type === 'IndexExpression') this.expr(l.index as LNode);
      if (!complete) continue;
      const name = l.type === 'MemberExpression' ? ((l.identifier as LNode).name as string) : staticKey(l.index as LNode);
      if (name === undefined) complete = false;
      else segs.push(name);
    }
    if (root.type !== 'Identifier' || root.isLocal) return;
    const base = root.name as string;
    if (base !== 'aip' && base !== 'utils') return;
    // a static chain wholly assigned (`aip.x.y = f`, `aip.x = t`) is not a use; a longer one reads its prefix
    const wholeTarget = assigned && complete;
    if (wholeTarget && segs.length <= 2) return;
    const readLen = wholeTarget ? segs.length - 1 : segs.length;
    if (readLen < 1) return;
    const { line, column } = this.at(root);
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

/** `x["name"]` / `x['name']` with a plain key (no escapes) */
function staticKey(index: LNode): string | undefined {
  if (index.type !== 'StringLiteral') return undefined;
  const m = /^(["'])([A-Za-z_]\w*)\1$/.exec(String(index.raw));
  return m ? m[2] : undefined;
}

function availability(e: { since: string; until?: string }, version: string): string {
  const range = e.until ? `exists only from AIPack ${e.since} until before ${e.until}` : `needs AIPack >= ${e.since}`;
  const removed = e.until && !isAvailableAt({ since: '0.0.0', until: e.until }, version);
  const what = removed ? `was removed in AIPack ${e.until} (${range})` : range;
  return `${what}; minimum AIPack version checked: ${version}`;
}
