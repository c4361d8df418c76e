// A light type inference over luaparse's tree: follows `input` (a sub-agent's input table, typed by the zod
// contract), `CTX`, tables built and returned by a stage, and the values aip.* calls return, and reports
//   - reads of fields that the input (or CTX, or a closed aip table such as FileRecord) does not have,
//   - response tables with keys the stage does not accept, coder_prompt + coder_prompts, or coder_params built
//     without the input's params (a warning),
//   - aip.* calls with the wrong number of arguments or an argument of a plainly wrong type.
// It is not a type system: whatever it cannot tell is `unknown` and never reported.

import { CTX_KEYS, LUA_CLASSES, signatureOf, splitTop, type LuaClass, type Param } from '../aip/signatures.ts';
import { isAvailableAt } from '../aip/catalog.ts';
import type { LifecycleStage } from '../aip/support/lifecycle.ts';
import { CHECK_TEMPLATES, EVENT_INPUT_EXTRA_FIELDS, fill, laxIn, messages } from '../contract/index.ts';
import { suggest } from '../support/suggest.ts';
import {
  formOfKind,
  inputShapeFor,
  isEventKind,
  kindLabel,
  luaTypeOf,
  responseFieldUsed,
  responseFields,
  stageOfKind,
  stagesWithInputField,
  type InputKind,
  type Shape,
  type ShapeField,
} from './contract-types.ts';

interface LNode {
  type: string;
  loc?: { start: { line: number; column: number } };
  [key: string]: unknown;
}

export type TypeRule =
  | 'unknown-field'
  | 'response-key'
  | 'response-exclusive'
  | 'response-type'
  | 'dropped-params'
  | 'lax-form'
  | 'aip-arity'
  | 'aip-arg-type'
  | 'aip-too-new';

export type TypeReport = (line: number, column: number, rule: TypeRule, message: string, severity?: 'warning') => void;

export interface TypeCheckOptions {
  scope: LifecycleStage | 'module';
  /** the stages this script's agent runs in as a sub-agent (undefined: not known to be a sub-agent) */
  subAgentStages?: InputKind[];
  minAipackVersion: string;
  /** the agent's file, named in messages that name the sub-agent */
  agent?: string;
}

type Obj = Extract<Shape, { t: 'object' }>;

interface TableT {
  k: 'table';
  /** static keys set in the constructor or by `t.key = v` later, with where they were set */
  keys: Map<string, { node: LNode; value: T }>;
  /** keys set dynamically (`t[k] = v`) */
  open: boolean;
  /** filled from the input's params (a copy loop over them, or aip.lua.merge with them) */
  spread: boolean;
}

type T =
  | { k: 'unknown' }
  | { k: 'nil' | 'boolean' | 'number' | 'function' }
  | { k: 'string'; value?: string }
  | TableT
  /** a value of the contract: `what` names it in messages ("input", "input.coder_task") */
  | { k: 'shape'; shape: Shape; what: string; params?: boolean }
  /** a table an aip.* function returned */
  | { k: 'class'; cls: LuaClass }
  /** any other table (a list of classes, a plain table) */
  | { k: 'list'; item: T }
  | { k: 'opaque-table' }
  | { k: 'ctx' };

const UNKNOWN: T = { k: 'unknown' };
const CLASS_BY_NAME = new Map(LUA_CLASSES.map((c) => [c.name, c]));
const CTX_BY_NAME = new Map(CTX_KEYS.map((k) => [k.name, k]));

/** The value a signature's return type stands for. */
function fromLuaType(type: string): T {
  const parts = splitTop(type, '|');
  const nullable = parts.includes('nil');
  const rest = parts.filter((p) => p !== 'nil');
  if (rest.length !== 1) return UNKNOWN;
  const t = rest[0];
  const cls = CLASS_BY_NAME.get(t);
  if (cls) return { k: 'class', cls };
  if (t.endsWith('[]')) return { k: 'list', item: fromLuaType(t.slice(0, -2)) };
  if (nullable) return UNKNOWN; // a scalar or nil: nothing certain
  if (t === 'string') return { k: 'string' };
  if (t === 'integer' || t === 'number') return { k: 'number' };
  if (t === 'boolean') return { k: 'boolean' };
  if (t === 'table' || t.startsWith('{') || t.startsWith('table<')) return { k: 'opaque-table' };
  return UNKNOWN;
}

function fromShape(shape: Shape, what: string): T {
  switch (shape.t) {
    case 'string':
      return { k: 'string' };
    case 'number':
      return { k: 'number' };
    case 'boolean':
      return { k: 'boolean' };
    case 'any':
    case 'union':
      return UNKNOWN;
    default: {
      const t: T = { k: 'shape', shape, what };
      if (what === 'input.coder_params') t.params = true;
      return t;
    }
  }
}

/** The Lua type a value surely has, when the inference knows it. */
function kindOf(t: T): 'string' | 'number' | 'boolean' | 'nil' | 'table' | 'function' | undefined {
  switch (t.k) {
    case 'string':
    case 'number':
    case 'boolean':
    case 'nil':
    case 'function':
      return t.k;
    case 'table':
    case 'class':
    case 'list':
    case 'opaque-table':
    case 'ctx':
      return 'table';
    case 'shape':
      return t.shape.t === 'object' || t.shape.t === 'list' || t.shape.t === 'map' ? 'table' : undefined;
    default:
      return undefined;
  }
}

/** Lua types a parameter type admits ('any' admits everything). */
function admitted(p: Param): Set<string> {
  const out = new Set<string>();
  if (p.optional) out.add('nil');
  for (const part of splitTop(p.type, '|')) {
    const t = part.replace(/^\((.*)\)$/, '$1').trim();
    if (t === 'any') out.add('any');
    else if (t === 'string' || t.startsWith('"')) out.add('string');
    else if (t === 'number' || t === 'integer') out.add('number');
    else if (t === 'boolean') out.add('boolean');
    else if (t === 'nil') out.add('nil');
    else if (t === 'function') out.add('function');
    else if (t === 'lightuserdata') out.add('userdata');
    else out.add('table'); // table, {..}, X[], table<..>, class names
  }
  return out;
}

function accepts(p: Param, t: T): boolean {
  const kind = kindOf(t);
  if (kind === undefined) return true;
  const ok = admitted(p);
  if (ok.has('any') || ok.has(kind)) return true;
  // mlua converts numbers to strings, and numeric strings to numbers
  if (kind === 'number' && ok.has('string')) return true;
  if (kind === 'string' && ok.has('number')) return !(t.k === 'string' && t.value !== undefined && Number.isNaN(Number(t.value)));
  return false;
}

const describe = (t: T): string => {
  const kind = kindOf(t);
  if (t.k === 'class') return `a ${t.cls.name} table`;
  if (t.k === 'string' && t.value !== undefined) return `the string ${JSON.stringify(t.value)}`;
  return kind === 'nil' ? 'nil' : `a ${kind}`;
};

/** Lua types a contract shape admits (undefined: any). */
function shapeKinds(s: Shape): Set<string> | undefined {
  switch (s.t) {
    case 'any':
      return undefined;
    case 'string':
    case 'boolean':
      return new Set([s.t]);
    case 'number':
      return new Set(['number']);
    case 'union': {
      const out = new Set<string>();
      for (const o of s.of) {
        const k = shapeKinds(o);
        if (!k) return undefined;
        for (const x of k) out.add(x);
      }
      return out;
    }
    default:
      return new Set(['table']);
  }
}

const plural = (n: number, w: string) => `${n} ${w}${n === 1 ? '' : 's'}`;

function arityText(list: Param[]): string {
  const required = list.filter((p) => !p.optional).length;
  const variadic = list.some((p) => p.variadic);
  const count = variadic ? `at least ${plural(required, 'argument')}` : required === list.length ? plural(required, 'argument') : `${required} to ${list.length} arguments`;
  const names = list.map((p) => (p.variadic ? `...${p.name}` : `${p.name}${p.optional ? '?' : ''}`)).join(', ');
  return `${count} (${names})`;
}

const MULTI = new Set(['CallExpression', 'StringCallExpression', 'TableCallExpression', 'VarargLiteral']);

/** `aip.x.y` / `utils.x.y` with `aip`/`utils` global: the catalog path, else undefined. */
function aipPath(e: LNode, isLocal: (name: string) => boolean): string | undefined {
  if (e.type !== 'MemberExpression' || e.indexer !== '.') return undefined;
  const mid = e.base as LNode;
  if (mid.type !== 'MemberExpression' || mid.indexer !== '.') return undefined;
  const root = mid.base as LNode;
  if (root.type !== 'Identifier' || (root.name !== 'aip' && root.name !== 'utils') || isLocal(root.name as string)) return undefined;
  return `aip.${(mid.identifier as LNode).name as string}.${(e.identifier as LNode).name as string}`;
}

function staticKey(n: LNode): string | undefined {
  if (n.type !== 'StringLiteral') return undefined;
  const m = /^(["'])([A-Za-z_]\w*)\1$/.exec(String(n.raw));
  return m ? m[2] : undefined;
}

/** Every field name the chunk writes (`x.name = v`, `x["name"] = v`): such a field is never reported as unknown. */
function writtenFields(node: unknown, out: Set<string>): Set<string> {
  if (Array.isArray(node)) {
    for (const n of node) writtenFields(n, out);
    return out;
  }
  if (!node || typeof node !== 'object') return out;
  const n = node as LNode;
  if (n.type === 'AssignmentStatement') {
    for (const v of n.variables as LNode[]) {
      if (v.type === 'MemberExpression') out.add((v.identifier as LNode).name as string);
      else if (v.type === 'IndexExpression') {
        const k = staticKey(v.index as LNode);
        if (k) out.add(k);
      }
    }
  }
  for (const [k, v] of Object.entries(n)) if (k !== 'loc' && v && typeof v === 'object') writtenFields(v, out);
  return out;
}

class Scope {
  private readonly vars = new Map<string, { t: T }>();
  constructor(readonly parent?: Scope) {}
  find(name: string): { t: T } | undefined {
    return this.vars.get(name) ?? this.parent?.find(name);
  }
  bind(name: string, t: T): void {
    this.vars.set(name, { t });
  }
}

export function typeCheck(body: LNode[], opts: TypeCheckOptions, report: TypeReport): void {
  new Checker(opts, report, writtenFields(body, new Set())).run(body);
}

class Checker {
  private scope = new Scope();
  private depth = 0;
  /** tables filled inside `for k, v in pairs(<params>)` loops */
  private paramsLoops = 0;
  private readonly input?: Obj;
  private readonly stages?: InputKind[];

  constructor(
    private readonly opts: TypeCheckOptions,
    private readonly report: TypeReport,
    private readonly written: Set<string>,
  ) {
    const taskScope = opts.scope === 'Data' || opts.scope === 'Output';
    if (opts.subAgentStages && opts.subAgentStages.length > 0) {
      this.stages = opts.subAgentStages;
      if (taskScope) this.input = inputShapeFor(opts.subAgentStages);
    }
  }

  run(body: LNode[]): void {
    this.block(body);
  }

  private at(n: LNode): [number, number] {
    return [n.loc?.start.line ?? 1, (n.loc?.start.column ?? 0) + 1];
  }

  private isLocal = (name: string) => this.scope.find(name) !== undefined;

  private block(body: LNode[], bind?: (s: Scope) => void): void {
    const saved = this.scope;
    this.scope = new Scope(saved);
    bind?.(this.scope);
    for (const s of body) this.stmt(s);
    this.scope = saved;
  }

  private stmt(s: LNode): void {
    switch (s.type) {
      case 'LocalStatement': {
        const types = this.exprList(s.init as LNode[], (s.variables as LNode[]).length);
        (s.variables as LNode[]).forEach((v, i) => this.scope.bind(v.name as string, types[i] ?? { k: 'nil' }));
        break;
      }
      case 'AssignmentStatement': {
        const vars = s.variables as LNode[];
        const types = this.exprList(s.init as LNode[], vars.length);
        vars.forEach((v, i) => this.assign(v, types[i] ?? { k: 'nil' }));
        break;
      }
      case 'CallStatement':
        this.expr(s.expression as LNode);
        break;
      case 'ReturnStatement': {
        const types = (s.arguments as LNode[]).map((a) => this.expr(a));
        const first = (s.arguments as LNode[])[0];
        if (this.depth === 0 && first && (this.opts.scope === 'Output' || this.opts.scope === 'AfterAll')) {
          if (this.stages) this.checkResponse(types[0], first);
          else this.checkResponseTypos(types[0]);
        }
        break;
      }
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
        // the condition sees the body's locals
        this.block([...(s.body as LNode[]), { type: 'CallStatement', expression: s.condition }]);
        break;
      case 'DoStatement':
        this.block(s.body as LNode[]);
        break;
      case 'ForNumericStatement':
        this.expr(s.start as LNode);
        this.expr(s.end as LNode);
        if (s.step) this.expr(s.step as LNode);
        this.block(s.body as LNode[], (sc) => sc.bind((s.variable as LNode).name as string, { k: 'number' }));
        break;
      case 'ForGenericStatement':
        this.forGeneric(s);
        break;
      case 'FunctionDeclaration':
        this.functionDecl(s);
        break;
      default:
        break;
    }
  }

  private forGeneric(s: LNode): void {
    const iters = s.iterators as LNode[];
    const vars = (s.variables as LNode[]).map((v) => v.name as string);
    let item: T = UNKNOWN;
    let overParams = false;
    const call = iters.length === 1 ? iters[0] : undefined;
    const isCallOf = (name: string) =>
      call?.type === 'CallExpression' && (call.base as LNode).type === 'Identifier' && (call.base as LNode).name === name && !this.isLocal(name);
    if (call && (isCallOf('ipairs') || isCallOf('pairs'))) {
      const args = call.arguments as LNode[];
      const t = args[0] ? this.expr(args[0]) : UNKNOWN;
      for (const a of args.slice(1)) this.expr(a);
      item = this.itemOf(t);
      overParams = t.k === 'shape' && t.params === true;
    } else this.exprList(iters, 3);
    if (overParams) this.paramsLoops++;
    this.block(s.body as LNode[], (sc) => {
      vars.forEach((v, i) => sc.bind(v, i === 1 ? item : UNKNOWN));
    });
    if (overParams) this.paramsLoops--;
  }

  private functionDecl(f: LNode): void {
    const id = f.identifier as LNode | null;
    if (id && id.type === 'Identifier' && f.isLocal) this.scope.bind(id.name as string, { k: 'function' });
    else if (id && id.type !== 'Identifier') this.expr(id.base as LNode);
    this.depth++;
    const params = (f.parameters as LNode[]).filter((p) => p.type === 'Identifier').map((p) => p.name as string);
    const isMethod = id?.type === 'MemberExpression' && id.indexer === ':';
    this.block(f.body as LNode[], (sc) => {
      if (isMethod) sc.bind('self', UNKNOWN);
      for (const p of params) sc.bind(p, UNKNOWN);
    });
    this.depth--;
  }

  /** Values of an expression list, expanded to `want` values (a trailing call gives several). */
  private exprList(list: LNode[], want: number): T[] {
    const out: T[] = [];
    list.forEach((e, i) => {
      const last = i === list.length - 1;
      if (last && e.type === 'CallExpression') out.push(...this.call(e, true));
      else out.push(this.expr(e));
    });
    while (out.length < want) out.push(list.length > 0 && MULTI.has(list[list.length - 1].type) ? UNKNOWN : { k: 'nil' });
    return out;
  }

  private assign(target: LNode, value: T): void {
    if (target.type === 'Identifier') {
      const b = this.scope.find(target.name as string);
      if (b) b.t = value;
      return;
    }
    if (target.type === 'MemberExpression' || target.type === 'IndexExpression') {
      const base = this.expr(target.base as LNode);
      const key = target.type === 'MemberExpression' ? ((target.identifier as LNode).name as string) : staticKey(target.index as LNode);
      if (target.type === 'IndexExpression') this.expr(target.index as LNode);
      if (base.k === 'table') {
        if (key !== undefined) base.keys.set(key, { node: target.type === 'MemberExpression' ? (target.identifier as LNode) : target, value });
        else {
          base.open = true;
          if (this.paramsLoops > 0) base.spread = true;
        }
      }
    }
  }

  expr(e: LNode | null | undefined): T {
    if (!e) return UNKNOWN;
    switch (e.type) {
      case 'StringLiteral': {
        const raw = String(e.raw);
        const m = /^(["'])([^\\"']*)\1$/.exec(raw);
        return m ? { k: 'string', value: m[2] } : { k: 'string' };
      }
      case 'NumericLiteral':
        return { k: 'number' };
      case 'BooleanLiteral':
        return { k: 'boolean' };
      case 'NilLiteral':
        return { k: 'nil' };
      case 'VarargLiteral':
        return UNKNOWN;
      case 'FunctionDeclaration':
        this.functionDecl(e);
        return { k: 'function' };
      case 'Identifier':
        return this.identifier(e);
      case 'MemberExpression': {
        const path = aipPath(e, this.isLocal);
        if (path) return UNKNOWN; // a function value: availability is the lint's job
        const base = this.expr(e.base as LNode);
        return this.field(base, (e.identifier as LNode).name as string, e.identifier as LNode, e.indexer === ':');
      }
      case 'IndexExpression': {
        const base = this.expr(e.base as LNode);
        const idx = this.expr(e.index as LNode);
        const key = staticKey(e.index as LNode);
        if (key !== undefined) return this.field(base, key, e.index as LNode, false);
        if (idx.k === 'number' || idx.k === 'unknown') return this.itemOf(base);
        return UNKNOWN;
      }
      case 'CallExpression':
      case 'StringCallExpression':
      case 'TableCallExpression':
        return this.call(e, false)[0] ?? { k: 'nil' };
      case 'TableConstructorExpression':
        return this.table(e);
      case 'BinaryExpression': {
        this.expr(e.left as LNode);
        this.expr(e.right as LNode);
        const op = e.operator as string;
        if (op === '..') return { k: 'string' };
        if (['==', '~=', '<', '>', '<=', '>='].includes(op)) return { k: 'boolean' };
        return { k: 'number' };
      }
      case 'LogicalExpression': {
        const l = this.expr(e.left as LNode);
        const r = this.expr(e.right as LNode);
        // `x or default` with both sides of one kind keeps that kind
        if (e.operator === 'or' && kindOf(l) !== undefined && kindOf(l) === kindOf(r) && l.k !== 'table' && r.k !== 'table') return r;
        return UNKNOWN;
      }
      case 'UnaryExpression': {
        this.expr(e.argument as LNode);
        return e.operator === 'not' ? { k: 'boolean' } : { k: 'number' };
      }
      default:
        return UNKNOWN;
    }
  }

  private identifier(id: LNode): T {
    const name = id.name as string;
    const b = this.scope.find(name);
    if (b) return b.t;
    if (name === 'CTX') return { k: 'ctx' };
    if (name === 'input' && this.input) return { k: 'shape', shape: this.input, what: 'input' };
    return UNKNOWN;
  }

  private table(e: LNode): TableT {
    const t: TableT = { k: 'table', keys: new Map(), open: false, spread: false };
    for (const f of e.fields as LNode[]) {
      const value = this.expr(f.value as LNode);
      if (f.type === 'TableKeyString') t.keys.set((f.key as LNode).name as string, { node: f.key as LNode, value });
      else if (f.type === 'TableKey') {
        this.expr(f.key as LNode);
        const k = staticKey(f.key as LNode);
        if (k !== undefined) t.keys.set(k, { node: f.key as LNode, value });
        else if ((f.key as LNode).type !== 'NumericLiteral') t.open = true;
      }
    }
    return t;
  }

  private itemOf(t: T): T {
    if (t.k === 'list') return t.item;
    if (t.k === 'shape' && t.shape.t === 'list') return fromShape(t.shape.item, `${t.what}[i]`);
    return UNKNOWN;
  }

  /** `base.name` (or `base:name` when method). */
  private field(base: T, name: string, node: LNode, method: boolean): T {
    if (method) return UNKNOWN;
    const [line, column] = this.at(node);
    if (base.k === 'ctx') {
      const key = CTX_BY_NAME.get(name);
      if (!key) {
        if (!this.written.has(name)) {
          const hint = suggest(name, [...CTX_BY_NAME.keys()]);
          this.report(line, column, 'unknown-field', `CTX has no key '${name}'${hint ? `; did you mean ${hint}?` : ''}`);
        }
        return UNKNOWN;
      }
      if (!isAvailableAt(key, this.opts.minAipackVersion)) {
        this.report(line, column, 'aip-too-new', `CTX.${name} needs AIPack >= ${key.since}; minimum AIPack version checked: ${this.opts.minAipackVersion}`);
      }
      return key.optional ? UNKNOWN : fromLuaType(key.type);
    }
    if (base.k === 'class') {
      const f = base.cls.fields.find((x) => x.name === name);
      if (f) return f.optional ? UNKNOWN : fromLuaType(f.type);
      // AIPack's docs promise `{ error = ... }` on failure (the code raises instead): `res.error` checks are harmless
      if (base.cls.closed && !this.written.has(name) && name !== 'error') {
        const hint = suggest(name, base.cls.fields.map((x) => x.name));
        this.report(line, column, 'unknown-field', `${base.cls.name} has no field '${name}'${hint ? `; did you mean ${hint}?` : ''}`);
      }
      return UNKNOWN;
    }
    if (base.k === 'table') return base.keys.get(name)?.value ?? UNKNOWN;
    if (base.k === 'shape' && base.shape.t === 'object') {
      const obj = base.shape;
      const f = obj.fields.find((x) => x.name === name);
      if (f) return fromShape(f.shape, `${base.what}.${name}`);
      if (!obj.open && !this.written.has(name)) this.report(line, column, 'unknown-field', this.unknownFieldMessage(base.what, obj, name));
      return UNKNOWN;
    }
    return UNKNOWN;
  }

  private unknownFieldMessage(what: string, obj: Obj, name: string): string {
    const hint = suggest(name, obj.fields.map((f) => f.name));
    const mean = hint ? `; did you mean ${hint}?` : '';
    if (what === 'input' && this.stages) {
      const stages = this.stages.map(kindLabel).join(', ');
      // a stage-form field this pack also passes to event-form agents, which upstream's pack does not give
      if (this.stages.every(isEventKind) && (EVENT_INPUT_EXTRA_FIELDS as readonly string[]).includes(name)) {
        return `input.${name}: upstream pro@coder's event-form input has no field '${name}' (this pack passes it too, but the agent would not run unchanged under upstream's pack)${mean}`;
      }
      const elsewhere = stagesWithInputField(name).map(kindLabel);
      const where = `the input of ${this.stages.length === 1 ? 'stage' : 'stages'} ${stages} has no field '${name}'`;
      if (elsewhere.length > 0) return `input.${name}: ${where} (only ${elsewhere.join(', ')} ${elsewhere.length === 1 ? 'gives' : 'give'} it)`;
      return `input.${name}: ${where}${mean}`;
    }
    return `${what}.${name}: ${obj.name ?? 'this table'} has no field '${name}'${mean}`;
  }

  /** A call: checks aip.* calls; returns its values (as many as known). */
  private call(e: LNode, multi: boolean): T[] {
    const base = e.base as LNode;
    const args: LNode[] =
      e.type === 'CallExpression' ? (e.arguments as LNode[]) : e.type === 'StringCallExpression' ? [e.argument as LNode] : [e.arguments as LNode];
    const path = aipPath(base, this.isLocal);
    if (!path) {
      this.expr(base);
      for (const a of args) this.expr(a);
      return [UNKNOWN];
    }
    const types = args.map((a) => this.expr(a));
    const sig = signatureOf(path);
    if (!sig) return [UNKNOWN];
    this.checkArgs(path, sig.params, sig.overloads ?? [], args, types, e);
    if (path === 'aip.lua.merge' || path === 'aip.lua.merge_deep') {
      const target = types[0];
      const fromParams = types.slice(1).some((t) => t.k === 'shape' && t.params === true);
      if (target?.k === 'table' && fromParams) target.spread = true;
      if (target?.k === 'shape' && target.params) return [target];
      return [target ?? UNKNOWN];
    }
    const out = sig.returns.map(fromLuaType);
    return multi ? out : out.slice(0, 1);
  }

  private checkArgs(path: string, params: Param[], overloads: Param[][], args: LNode[], types: T[], call: LNode): void {
    const n = args.length;
    const spreads = n > 0 && MULTI.has(args[n - 1].type);
    const fits = (list: Param[]) => {
      const required = list.filter((p) => !p.optional).length;
      const max = list.some((p) => p.variadic) ? Infinity : list.length;
      return spreads ? n - 1 <= max : n >= required && n <= max;
    };
    const lists = [params, ...overloads];
    const fitting = lists.find(fits);
    const [line, column] = this.at(call);
    if (!fitting) {
      const takes = lists.map(arityText).join(', or ');
      this.report(line, column, 'aip-arity', `${path} takes ${takes}; got ${plural(n, 'argument')}`);
      return;
    }
    types.forEach((t, i) => {
      if (spreads && i === n - 1) return;
      const p = fitting[i] ?? fitting.find((x) => x.variadic);
      if (!p || accepts(p, t)) return;
      // an argument that fits another overload at this position is fine
      if (lists.some((l) => l !== fitting && fits(l) && l[i] && accepts(l[i], t))) return;
      const [al, ac] = this.at(args[i]);
      this.report(al, ac, 'aip-arg-type', `${path}: argument ${i + 1} (${p.name}) must be ${p.type}${p.optional ? ' or nil' : ''}, got ${describe(t)}`);
    });
  }

  /**
   * The stages unknown (no contract file, prompt file or annotation), the returned table may be anything; but a
   * `coder_` key that no stage accepts and that is one typo away from a response field is a response key gone wrong.
   */
  private checkResponseTypos(t: T): void {
    if (t.k !== 'table') return;
    const names = responseFields().map((f) => f.name);
    for (const [key, { node: at }] of t.keys) {
      if (names.includes(key) || !key.startsWith('coder_')) continue;
      const hint = suggest(key, names);
      if (!hint) continue;
      const [line, column] = this.at(at);
      this.report(line, column, 'response-key', `response key '${key}' is not a sub-agent response field (no stage accepts it); did you mean ${hint}?`);
    }
  }

  private checkResponse(t: T, node: LNode): void {
    if (t.k !== 'table' || !this.stages) return;
    const stages = this.stages;
    const fields = responseFields();
    const byName = new Map(fields.map((f) => [f.name, f]));
    const used = (f: ShapeField) => stages.some((k) => responseFieldUsed(f, k));
    const stageWord = `${stages.length === 1 ? 'stage' : 'stages'} ${stages.map(kindLabel).join(', ')}`;
    const only = (f: ShapeField) => `${f.form === 'event' ? 'event-form entries in ' : ''}${(f.stages ?? []).join(', ')}`;
    for (const [key, { node: at, value }] of t.keys) {
      const [line, column] = this.at(at);
      const f = byName.get(key);
      if (!f) {
        const hint = suggest(key, fields.map((x) => x.name));
        this.report(line, column, 'response-key', `response key '${key}' is not a sub-agent response field${hint ? `; did you mean ${hint}?` : ''}`);
        continue;
      }
      if (!used(f)) {
        this.report(line, column, 'response-key', `response key '${key}' is ignored in ${stageWord} (only ${only(f)} ${f.stages!.length === 1 && !f.form ? 'uses' : 'use'} it)`);
        continue;
      }
      const kind = kindOf(value);
      const expected = shapeKinds(f.shape);
      const eventOnly = stages.every(isEventKind);
      // lax forms (section 7): upstream ignores emit_events given as a string, and so does the pack, with a warning
      if (key === 'emit_events' && kind === 'string' && eventOnly) {
        const list = value.k === 'string' && value.value !== undefined ? `{ ${JSON.stringify(value.value)} }` : '{ "..." }';
        this.report(line, column, 'lax-form', messages.lax('laxEmitString', { name: this.opts.agent ?? 'this agent', list }), 'warning');
        continue;
      }
      const laxStages = stages.filter((k) => laxIn(f, stageOfKind(k), formOfKind(k)));
      if (eventOnly && laxStages.length === stages.length) {
        this.report(line, column, 'lax-form', messages.lax('laxEndParams', { name: this.opts.agent ?? 'this agent', keys: key }), 'warning');
      }
      if (kind !== undefined && kind !== 'nil' && expected && !expected.has(kind)) {
        this.report(line, column, 'response-type', `response key '${key}' must be ${luaTypeOf(f.shape)}, got ${describe(value)}`);
        continue;
      }
      // the event form merges coder_params: a partial table is what upstream's agents return
      if (key === 'coder_params' && value.k === 'table' && !value.spread && !stages.every(isEventKind)) {
        this.report(
          line,
          column,
          'dropped-params',
          'coder_params replaces all the params, and this table is not built from input.coder_params: every param it does not list (globs, model, ...) is dropped; change a copy of input.coder_params instead',
          'warning',
        );
      }
    }
    for (const f of fields) {
      if (!f.exclusiveWith || !t.keys.has(f.name) || !t.keys.has(f.exclusiveWith)) continue;
      const a = t.keys.get(f.name)!.node;
      const b = t.keys.get(f.exclusiveWith)!.node;
      const later = this.at(a)[0] * 1e6 + this.at(a)[1] > this.at(b)[0] * 1e6 + this.at(b)[1] ? a : b;
      const [line, column] = this.at(later);
      this.report(line, column, 'response-exclusive', `invalid response: ${fill(CHECK_TEMPLATES.exclusive, { other: f.exclusiveWith, path: f.name })}`);
    }
    void node;
  }
}
