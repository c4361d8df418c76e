// Lua syntax for `check`: parsing with luaparse (Lua 5.3 grammar; AIPack runs Lua 5.4, whose attribs the linter
// blanks before parsing) and one walker over luaparse's own node types that keeps Lua's scopes. The linter and the
// type inference are rules over it: subclasses that override the handlers they care about and leave the rest of the
// traversal, and the scoping, to the walker.

import luaparse from 'luaparse';
import type * as L from 'luaparse';

export type {
  BinaryExpression,
  Chunk,
  Expression,
  ForGenericStatement,
  FunctionDeclaration,
  Identifier,
  IndexExpression,
  LogicalExpression,
  MemberExpression,
  Node,
  ReturnStatement,
  Statement,
  TableConstructorExpression,
  UnaryExpression,
} from 'luaparse';

export type Literal = L.StringLiteral | L.NumericLiteral | L.BooleanLiteral | L.NilLiteral | L.VarargLiteral;

/** The three call forms: `f(a, b)`, `f "s"`, `f { ... }`. */
export type Call = L.CallExpression | L.StringCallExpression | L.TableCallExpression;

/** A syntax error: luaparse's message without its `[line:column]` prefix, and where it is. */
export class LuaSyntaxError extends Error {
  constructor(
    message: string,
    /** 0-based character index, when luaparse gives one */
    readonly index?: number,
    readonly line?: number,
    /** 0-based */
    readonly column?: number,
  ) {
    super(message);
  }
}

/** The chunk's tree, with locations; a syntax error throws LuaSyntaxError. */
export function parseLua(code: string): L.Chunk {
  try {
    return luaparse.parse(code, { luaVersion: '5.3', locations: true, comments: false });
  } catch (err) {
    const e = err as { message?: string; index?: number; line?: number; column?: number };
    throw new LuaSyntaxError(String(e.message ?? err).replace(/^\[\d+:\d+\]\s*/, ''), e.index, e.line, e.column);
  }
}

/** 1-based line and column where a node starts. */
export function startOf(n: { loc?: L.Node['loc'] }): { line: number; column: number } {
  return { line: n.loc?.start.line ?? 1, column: (n.loc?.start.column ?? 0) + 1 };
}

/** The key of `x["name"]` / `x['name']` when it is a plain name without escapes, else undefined. */
export function staticKey(index: L.Expression): string | undefined {
  if (index.type !== 'StringLiteral') return undefined;
  const m = /^(["'])([A-Za-z_]\w*)\1$/.exec(index.raw);
  return m ? m[2] : undefined;
}

/** The arguments of a call, whatever its form. */
export function callArguments(c: Call): L.Expression[] {
  if (c.type === 'CallExpression') return c.arguments;
  return c.type === 'StringCallExpression' ? [c.argument] : [c.arguments];
}

/** A local variable, function parameter, loop variable or `self`, with the value a rule keeps for it. */
export interface Binding<V> {
  readonly name: string;
  /** how many functions enclose its declaration (0: the chunk's main body) */
  readonly level: number;
  value: V;
}

class Scope<V> {
  readonly vars = new Map<string, Binding<V>>();
  constructor(readonly parent?: Scope<V>) {}
  find(name: string): Binding<V> | undefined {
    return this.vars.get(name) ?? this.parent?.find(name);
  }
}

/**
 * A walk over a chunk, statement by statement (an assignment's values before its targets), with Lua's scoping: a
 * `local` is visible after its statement, a loop's variables and a function's parameters (and `self` of a `:`
 * method) in its body, a `repeat` body's locals in its `until` condition. A name that resolves to no binding is a
 * global; a binding declared in an enclosing function is an upvalue. `V` is what a rule computes for an expression
 * (and keeps in bindings); `none()` is its "nothing known".
 */
export abstract class ScopeWalker<V> {
  private current = new Scope<V>();
  /** how many functions enclose the current node (0: the chunk's main body) */
  protected level = 0;

  /** The value of an expression the rule does not evaluate. */
  protected abstract none(): V;

  walk(chunk: L.Chunk): void {
    this.block(chunk.body);
  }

  // --- scopes ------------------------------------------------------------------------------------------

  /** The binding a name refers to here, or undefined for a global. */
  protected resolve(name: string): Binding<V> | undefined {
    return this.current.find(name);
  }

  /** A binding of an enclosing function (a closure captures it). */
  protected isUpvalue(b: Binding<V>): boolean {
    return b.level < this.level;
  }

  /** Declares a local in the current scope (shadowing any outer one of that name). */
  protected declare(name: string, value: V): Binding<V> {
    const b: Binding<V> = { name, level: this.level, value };
    this.current.vars.set(name, b);
    return b;
  }

  /** Runs a block in a scope of its own; `bind` declares its first locals, `after` runs inside it at the end. */
  protected block(body: L.Statement[], bind?: () => void, after?: () => void): void {
    const saved = this.current;
    this.current = new Scope(saved);
    try {
      bind?.();
      for (const s of body) this.statement(s);
      after?.();
    } finally {
      this.current = saved;
    }
  }

  // --- statements --------------------------------------------------------------------------------------

  protected statement(s: L.Statement): void {
    switch (s.type) {
      case 'LocalStatement':
        return this.localStatement(s);
      case 'AssignmentStatement':
        return this.assignmentStatement(s);
      case 'CallStatement':
        this.expression(s.expression);
        return;
      case 'ReturnStatement':
        return this.returnStatement(s);
      case 'IfStatement':
        for (const c of s.clauses) {
          if (c.type !== 'ElseClause') this.expression(c.condition);
          this.block(c.body);
        }
        return;
      case 'WhileStatement':
        this.expression(s.condition);
        this.block(s.body);
        return;
      case 'RepeatStatement':
        this.block(s.body, undefined, () => this.expression(s.condition));
        return;
      case 'DoStatement':
        this.block(s.body);
        return;
      case 'ForNumericStatement':
        this.expression(s.start);
        this.expression(s.end);
        if (s.step) this.expression(s.step);
        this.block(s.body, () => this.declare(s.variable.name, this.counterValue()));
        return;
      case 'ForGenericStatement':
        return this.forGeneric(s);
      case 'FunctionDeclaration':
        return this.functionStatement(s);
      default:
        // LabelStatement, GotoStatement, BreakStatement: no expressions, no names
        return;
    }
  }

  protected localStatement(s: L.LocalStatement): void {
    const values = this.values(s.init, s.variables.length);
    s.variables.forEach((v, i) => this.declare(v.name, values[i]));
  }

  protected assignmentStatement(s: L.AssignmentStatement): void {
    const values = this.values(s.init, s.variables.length);
    s.variables.forEach((t, i) => this.assign(t, values[i]));
  }

  protected returnStatement(s: L.ReturnStatement): void {
    for (const a of s.arguments) this.expression(a);
  }

  /** The value of a numeric for's counter. */
  protected counterValue(): V {
    return this.none();
  }

  protected forGeneric(s: L.ForGenericStatement): void {
    for (const e of s.iterators) this.expression(e);
    this.block(s.body, () => {
      for (const v of s.variables) this.declare(v.name, this.none());
    });
  }

  /** `function f()`, `local function f()`, `function a.b:c()`: the name is bound (or assigned) to the function. */
  protected functionStatement(f: L.FunctionDeclaration): void {
    const id = f.identifier;
    // a local function sees itself
    if (id?.type === 'Identifier' && f.isLocal) this.declare(id.name, this.none());
    const value = this.functionExpression(f);
    if (id) this.functionName(id, value);
  }

  /** Where a function statement puts its function: by default an assignment to the name. */
  protected functionName(id: L.Identifier | L.MemberExpression, value: V): void {
    this.assign(id, value);
  }

  /** Values of an expression list, as many as `want` (padded with none()). */
  protected values(list: L.Expression[], want: number): V[] {
    const out = list.map((e) => this.expression(e));
    while (out.length < want) out.push(this.none());
    return out;
  }

  /** An assignment: a local's binding takes the value; a global name is a globalWrite; a field a fieldWrite. */
  protected assign(target: L.Identifier | L.MemberExpression | L.IndexExpression, value: V): void {
    if (target.type !== 'Identifier') return this.fieldWrite(target, value);
    const b = this.resolve(target.name);
    if (b) b.value = value;
    else this.globalWrite(target, value);
  }

  protected globalWrite(_id: L.Identifier, _value: V): void {}

  protected fieldWrite(target: L.MemberExpression | L.IndexExpression, _value: V): void {
    this.expression(target.base);
    if (target.type === 'IndexExpression') this.expression(target.index);
  }

  // --- expressions -------------------------------------------------------------------------------------

  expression(e: L.Expression): V {
    switch (e.type) {
      case 'Identifier':
        return this.identifier(e);
      case 'FunctionDeclaration':
        return this.functionExpression(e);
      case 'MemberExpression':
        return this.member(e);
      case 'IndexExpression':
        return this.index(e);
      case 'CallExpression':
      case 'StringCallExpression':
      case 'TableCallExpression':
        return this.call(e);
      case 'TableConstructorExpression':
        return this.table(e);
      case 'BinaryExpression':
      case 'LogicalExpression':
        return this.binary(e);
      case 'UnaryExpression':
        return this.unary(e);
      default:
        return this.literal(e);
    }
  }

  protected identifier(id: L.Identifier): V {
    const b = this.resolve(id.name);
    return b ? b.value : this.global(id);
  }

  /** A read of a name that no local binds. */
  protected global(_id: L.Identifier): V {
    return this.none();
  }

  protected literal(_e: Literal): V {
    return this.none();
  }

  /** A function's body, in a scope with its parameters (and `self` for a `:` method). */
  protected functionExpression(f: L.FunctionDeclaration): V {
    const method = f.identifier?.type === 'MemberExpression' && f.identifier.indexer === ':';
    this.level++;
    try {
      this.block(f.body, () => {
        if (method) this.declare('self', this.none());
        for (const p of f.parameters) if (p.type === 'Identifier') this.declare(p.name, this.none());
      });
    } finally {
      this.level--;
    }
    return this.none();
  }

  protected member(e: L.MemberExpression): V {
    this.expression(e.base);
    return this.none();
  }

  protected index(e: L.IndexExpression): V {
    this.expression(e.base);
    this.expression(e.index);
    return this.none();
  }

  protected call(e: Call): V {
    this.expression(e.base);
    for (const a of callArguments(e)) this.expression(a);
    return this.none();
  }

  protected table(e: L.TableConstructorExpression): V {
    for (const f of e.fields) {
      if (f.type === 'TableKey') this.expression(f.key);
      this.expression(f.value);
    }
    return this.none();
  }

  protected binary(e: L.BinaryExpression | L.LogicalExpression): V {
    this.expression(e.left);
    this.expression(e.right);
    return this.none();
  }

  protected unary(e: L.UnaryExpression): V {
    this.expression(e.argument);
    return this.none();
  }
}

/** What a chunk writes anywhere: global names assigned (or defined by `function g()`) and field names assigned. */
export function chunkWrites(chunk: L.Chunk): { globals: Set<string>; fields: Set<string> } {
  const w = new WriteCollector();
  w.walk(chunk);
  return { globals: w.globals, fields: w.fields };
}

class WriteCollector extends ScopeWalker<void> {
  readonly globals = new Set<string>();
  readonly fields = new Set<string>();
  protected none(): void {}
  protected override globalWrite(id: L.Identifier): void {
    this.globals.add(id.name);
  }
  protected override fieldWrite(t: L.MemberExpression | L.IndexExpression, value: void): void {
    const key = t.type === 'MemberExpression' ? t.identifier.name : staticKey(t.index);
    if (key !== undefined) this.fields.add(key);
    super.fieldWrite(t, value);
  }
  // `function a.b()` is not a field write for the checks that use these names (only assignments are)
  protected override functionName(id: L.Identifier | L.MemberExpression, value: void): void {
    if (id.type === 'Identifier') this.assign(id, value);
    else this.expression(id.base);
  }
}
