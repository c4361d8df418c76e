// A light type inference over luaparse's tree, a rule over the scope walker (lua-syntax.ts): follows `input` (a
// sub-agent's input table, typed by the zod contract), `CTX`, tables built and returned by a stage, and the values
// aip.* calls return, and reports
//   - reads of fields that the input (or CTX, or a closed aip table such as FileRecord) does not have,
//   - response tables with keys the stage does not accept, coder_prompt + coder_prompts, or coder_params built
//     without the input's params (a warning),
//   - aip.* calls with the wrong number of arguments or an argument of a plainly wrong type.
// It is not a type system: whatever it cannot tell is `unknown` and never reported.

import { signatureOf, type Param } from '../aip/functions.ts';
import { CTX_KEYS } from '../aip/signatures.ts';
import { isAvailableAt } from '../aip/catalog.ts';
import type { LifecycleStage } from '../aip/support/lifecycle-stage.ts';
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
  type ShapeField,
} from './contract-types.ts';
import {
  MULTI,
  UNKNOWN,
  accepts,
  arityText,
  describe,
  fromLuaType,
  fromShape,
  kindOf,
  plural,
  shapeKinds,
  type Obj,
  type T,
  type TableT,
} from './infer-values.ts';
import {
  ScopeWalker,
  callArguments,
  staticKey,
  startOf,
  type BinaryExpression,
  type Call,
  type Chunk,
  type Expression,
  type ForGenericStatement,
  type FunctionDeclaration,
  type Identifier,
  type IndexExpression,
  type Literal,
  type LogicalExpression,
  type MemberExpression,
  type Node,
  type ReturnStatement,
  type TableConstructorExpression,
  type UnaryExpression,
} from './lua-syntax.ts';

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

const CTX_BY_NAME = new Map(CTX_KEYS.map((k) => [k.name, k]));

/** `aip.x.y` / `utils.x.y` with `aip`/`utils` global: the catalog path, else undefined. */
function aipPath(e: Expression, isLocal: (name: string) => boolean): string | undefined {
  if (e.type !== 'MemberExpression' || e.indexer !== '.') return undefined;
  const mid = e.base;
  if (mid.type !== 'MemberExpression' || mid.indexer !== '.') return undefined;
  const root = mid.base;
  if (root.type !== 'Identifier' || (root.name !== 'aip' && root.name !== 'utils') || isLocal(root.name)) return undefined;
  return `aip.${mid.identifier.name}.${e.identifier.name}`;
}

/** `written`: every field name the chunk assigns (`x.name = v`): such a field is never reported as unknown. */
export function typeCheck(chunk: Chunk, written: Set<string>, opts: TypeCheckOptions, report: TypeReport): void {
  new Checker(opts, report, written).walk(chunk);
}

class Checker extends ScopeWalker<T> {
  /** tables filled inside `for k, v in pairs(<params>)` loops */
  private paramsLoops = 0;
  private readonly input?: Obj;
  private readonly stages?: InputKind[];

  constructor(
    private readonly opts: TypeCheckOptions,
    private readonly report: TypeReport,
    private readonly written: Set<string>,
  ) {
    super();
    const taskScope = opts.scope === 'Data' || opts.scope === 'Output';
    if (opts.subAgentStages && opts.subAgentStages.length > 0) {
      this.stages = opts.subAgentStages;
      if (taskScope) this.input = inputShapeFor(opts.subAgentStages);
    }
  }

  protected none(): T {
    return UNKNOWN;
  }

  private at(n: Node): [number, number] {
    const { line, column } = startOf(n);
    return [line, column];
  }

  private isLocal = (name: string) => this.resolve(name) !== undefined;

  // --- statements --------------------------------------------------------------------------------------

  protected override returnStatement(s: ReturnStatement): void {
    const types = s.arguments.map((a) => this.expression(a));
    const first = s.arguments[0];
    if (this.level === 0 && first && (this.opts.scope === 'Output' || this.opts.scope === 'AfterAll')) {
      if (this.stages) this.checkResponse(types[0]);
      else this.checkResponseTypos(types[0]);
    }
  }

  protected override counterValue(): T {
    return { k: 'number' };
  }

  protected override forGeneric(s: ForGenericStatement): void {
    const iters = s.iterators;
    let item: T = UNKNOWN;
    let overParams = false;
    const call = iters.length === 1 ? iters[0] : undefined;
    const isCallOf = (name: string) =>
      call?.type === 'CallExpression' && call.base.type === 'Identifier' && call.base.name === name && !this.isLocal(name);
    if (call?.type === 'CallExpression' && (isCallOf('ipairs') || isCallOf('pairs'))) {
      const args = call.arguments;
      const t = args[0] ? this.expression(args[0]) : UNKNOWN;
      for (const a of args.slice(1)) this.expression(a);
      item = this.itemOf(t);
      overParams = t.k === 'shape' && t.params === true;
    } else this.values(iters, 3);
    if (overParams) this.paramsLoops++;
    this.block(s.body, () => {
      s.variables.forEach((v, i) => this.declare(v.name, i === 1 ? item : UNKNOWN));
    });
    if (overParams) this.paramsLoops--;
  }

  /** `function a.b()` reads a (the new field is not followed) */
  protected override functionName(id: Identifier | MemberExpression, value: T): void {
    if (id.type === 'Identifier') this.assign(id, value);
    else this.expression(id.base);
  }

  /** Values of an expression list, expanded to `want` values (a trailing call gives several). */
  protected override values(list: Expression[], want: number): T[] {
    const out: T[] = [];
    list.forEach((e, i) => {
      const last = i === list.length - 1;
      if (last && e.type === 'CallExpression') out.push(...this.callValues(e, true));
      else out.push(this.expression(e));
    });
    while (out.length < want) out.push(list.length > 0 && MULTI.has(list[list.length - 1].type) ? UNKNOWN : { k: 'nil' });
    return out;
  }

  protected override fieldWrite(target: MemberExpression | IndexExpression, value: T): void {
    const base = this.expression(target.base);
    const key = target.type === 'MemberExpression' ? target.identifier.name : staticKey(target.index);
    if (target.type === 'IndexExpression') this.expression(target.index);
    if (base.k !== 'table') return;
    if (key !== undefined) base.keys.set(key, { node: target.type === 'MemberExpression' ? target.identifier : target, value });
    else {
      base.open = true;
      if (this.paramsLoops > 0) base.spread = true;
    }
  }

  // --- expressions -------------------------------------------------------------------------------------

  protected override literal(e: Literal): T {
    switch (e.type) {
      case 'StringLiteral': {
        const m = /^(["'])([^\\"']*)\1$/.exec(e.raw);
        return m ? { k: 'string', value: m[2] } : { k: 'string' };
      }
      case 'NumericLiteral':
        return { k: 'number' };
      case 'BooleanLiteral':
        return { k: 'boolean' };
      case 'NilLiteral':
        return { k: 'nil' };
      default:
        return UNKNOWN;
    }
  }

  protected override functionExpression(f: FunctionDeclaration): T {
    super.functionExpression(f);
    return { k: 'function' };
  }

  protected override global(id: Identifier): T {
    if (id.name === 'CTX') return { k: 'ctx' };
    if (id.name === 'input' && this.input) return { k: 'shape', shape: this.input, what: 'input' };
    return UNKNOWN;
  }

  protected override member(e: MemberExpression): T {
    if (aipPath(e, this.isLocal)) return UNKNOWN; // a function value: availability is the lint's job
    const base = this.expression(e.base);
    return this.field(base, e.identifier.name, e.identifier, e.indexer === ':');
  }

  protected override index(e: IndexExpression): T {
    const base = this.expression(e.base);
    const idx = this.expression(e.index);
    const key = staticKey(e.index);
    if (key !== undefined) return this.field(base, key, e.index, false);
    if (idx.k === 'number' || idx.k === 'unknown') return this.itemOf(base);
    return UNKNOWN;
  }

  protected override call(e: Call): T {
    return this.callValues(e, false)[0] ?? { k: 'nil' };
  }

  protected override binary(e: BinaryExpression | LogicalExpression): T {
    const l = this.expression(e.left);
    const r = this.expression(e.right);
    if (e.type === 'LogicalExpression') {
      // `x or default` with both sides of one kind keeps that kind
      if (e.operator === 'or' && kindOf(l) !== undefined && kindOf(l) === kindOf(r) && l.k !== 'table' && r.k !== 'table') return r;
      return UNKNOWN;
    }
    if (e.operator === '..') return { k: 'string' };
    if (['==', '~=', '<', '>', '<=', '>='].includes(e.operator)) return { k: 'boolean' };
    return { k: 'number' };
  }

  protected override unary(e: UnaryExpression): T {
    this.expression(e.argument);
    return e.operator === 'not' ? { k: 'boolean' } : { k: 'number' };
  }

  protected override table(e: TableConstructorExpression): TableT {
    const t: TableT = { k: 'table', keys: new Map(), open: false, spread: false };
    for (const f of e.fields) {
      const value = this.expression(f.value);
      if (f.type === 'TableValue') (t.items ??= []).push(value);
      else if (f.type === 'TableKeyString') t.keys.set(f.key.name, { node: f.key, value });
      else if (f.type === 'TableKey') {
        this.expression(f.key);
        const k = staticKey(f.key);
        if (k !== undefined) t.keys.set(k, { node: f.key, value });
        else if (f.key.type !== 'NumericLiteral') t.open = true;
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
  private field(base: T, name: string, node: Node, method: boolean): T {
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
  private callValues(e: Call, multi: boolean): T[] {
    const base = e.base;
    const args = callArguments(e);
    const path = aipPath(base, this.isLocal);
    if (!path) {
      this.expression(base);
      for (const a of args) this.expression(a);
      return [UNKNOWN];
    }
    const types = args.map((a) => this.expression(a));
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

  private checkArgs(path: string, params: Param[], overloads: Param[][], args: Expression[], types: T[], call: Call): void {
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

  private checkResponse(t: T): void {
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
      // and drops an empty event name of the list
      if (key === 'emit_events' && value.k === 'table' && eventOnly && value.items?.some((i) => i.k === 'string' && i.value === '')) {
        const kept = value.items.filter((i) => !(i.k === 'string' && i.value === '')).map((i) => (i.k === 'string' && i.value !== undefined ? JSON.stringify(i.value) : '...'));
        const list = kept.length === 0 ? '{}' : `{ ${kept.join(', ')} }`;
        this.report(line, column, 'lax-form', messages.lax('laxEmitBlank', { name: this.opts.agent ?? 'this agent', list }), 'warning');
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
  }
}
