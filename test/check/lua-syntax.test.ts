import { describe, expect, it } from 'vitest';
import {
  LuaSyntaxError,
  ScopeWalker,
  callArguments,
  chunkWrites,
  parseLua,
  startOf,
  staticKey,
  type Call,
  type Expression,
  type Identifier,
  type Literal,
  type ReturnStatement,
} from '../../src/check/lua-syntax.ts';

/** Records how each name read resolves: `name@line:kind` with kind global, local or upvalue. */
class Resolutions extends ScopeWalker<string> {
  readonly seen: string[] = [];
  protected none(): string {
    return '';
  }
  protected override identifier(id: Identifier): string {
    const b = this.resolve(id.name);
    const kind = !b ? 'global' : this.isUpvalue(b) ? 'upvalue' : 'local';
    this.seen.push(`${id.name}@${startOf(id).line}:${kind}`);
    return super.identifier(id);
  }
}

const resolutions = (code: string): string[] => {
  const w = new Resolutions();
  w.walk(parseLua(code));
  return w.seen;
};

describe('parseLua', () => {
  it('gives luaparse typed tree with locations', () => {
    const chunk = parseLua('local a = 1\nreturn a');
    expect(chunk.body.map((s) => s.type)).toEqual(['LocalStatement', 'ReturnStatement']);
    expect(startOf(chunk.body[1])).toEqual({ line: 2, column: 1 });
  });

  it('throws LuaSyntaxError with the message without its [line:col] prefix, and where', () => {
    let err: unknown;
    try {
      parseLua('local a = (1');
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(LuaSyntaxError);
    expect((err as LuaSyntaxError).message).toBe("')' expected near '<eof>'");
    expect((err as LuaSyntaxError).line).toBe(1);
    expect(typeof (err as LuaSyntaxError).index).toBe('number');
  });
});

describe('ScopeWalker: scopes', () => {
  it('a local is visible after its statement, not in its own initialiser', () => {
    expect(resolutions('local x = x\nreturn x')).toEqual(['x@1:global', 'x@2:local']);
  });

  it('a block local ends with its block; an inner local shadows an outer one', () => {
    expect(resolutions('do local y = 1 end\nreturn y')).toEqual(['y@2:global']);
    expect(resolutions('local z = 1\ndo local z = z end\nreturn z')).toEqual(['z@2:local', 'z@3:local']);
  });

  it('loop variables live in the body; iterators and bounds are read outside', () => {
    expect(resolutions('for i = i, 2 do print(i) end\nreturn i')).toEqual(['i@1:global', 'print@1:global', 'i@1:local', 'i@2:global']);
    expect(resolutions('for k, v in pairs(k) do print(k, v) end')).toEqual([
      'pairs@1:global',
      'k@1:global',
      'print@1:global',
      'k@1:local',
      'v@1:local',
    ]);
  });

  it("a repeat body's locals are visible in its until condition", () => {
    expect(resolutions('repeat local done = true until done\nreturn done')).toEqual(['done@1:local', 'done@2:global']);
  });

  it('parameters, self of a : method, and a local function seeing itself', () => {
    // the function's body is walked before the name it is stored under (values before targets)
    expect(resolutions('local M = {}\nfunction M:f(a) return self, a, M end')).toEqual(['self@2:local', 'a@2:local', 'M@2:upvalue', 'M@2:local']);
    expect(resolutions('local function f(n) return f(n) end')).toEqual(['f@1:upvalue', 'n@1:local']);
    expect(resolutions('local f = function() return f end')).toEqual(['f@1:global']);
  });

  it('an outer function local read in a nested function is an upvalue; the nested function own locals are not', () => {
    expect(resolutions('local a = 1\nreturn function() local b = a; return function() return a, b end end')).toEqual([
      'a@2:upvalue',
      'a@2:upvalue',
      'b@2:upvalue',
    ]);
  });
});

describe('ScopeWalker: values kept in bindings', () => {
  /** Evaluates literals to their raw text and follows assignments through bindings. */
  class Values extends ScopeWalker<string> {
    readonly returned: string[] = [];
    protected none(): string {
      return '?';
    }
    protected override literal(e: Literal): string {
      return e.raw;
    }
    protected override returnStatement(s: ReturnStatement): void {
      this.returned.push(...s.arguments.map((a) => this.expression(a)));
    }
  }
  const returned = (code: string) => {
    const w = new Values();
    w.walk(parseLua(code));
    return w.returned;
  };

  it('a local takes its value, an assignment replaces it, missing values are none', () => {
    expect(returned('local a, b = 1\nreturn a, b')).toEqual(['1', '?']);
    expect(returned('local a = 1\na = "s"\nreturn a')).toEqual(['"s"']);
    expect(returned('local a = 1\ndo local a = 2 end\nreturn a')).toEqual(['1']);
  });
});

describe('chunkWrites', () => {
  it('collects global names assigned or defined by function statements, and assigned field names', () => {
    const w = chunkWrites(
      parseLua('G = 1\nlocal l = 2\nl = 3\nfunction gf() end\nlocal function lf() end\nlocal t = {}\nt.a = 1\nt["b"] = 2\nt[l] = 3\nfunction t.m() end'),
    );
    expect([...w.globals].sort()).toEqual(['G', 'gf']);
    expect([...w.fields].sort()).toEqual(['a', 'b']);
  });

  it('finds writes inside functions too, and not a local assignment shadowing a global name', () => {
    const w = chunkWrites(parseLua('local function f() X = 1; local Y; Y = 2; obj.field = 3 end'));
    expect([...w.globals]).toEqual(['X']);
    expect([...w.fields]).toEqual(['field']);
  });
});

describe('helpers', () => {
  const expr = (code: string): Expression => {
    const s = parseLua(`return ${code}`).body[0];
    if (s.type !== 'ReturnStatement') throw new Error('not a return');
    return s.arguments[0];
  };

  it('staticKey: a plain name in quotes, nothing else', () => {
    const key = (code: string) => {
      const e = expr(code);
      return e.type === 'IndexExpression' ? staticKey(e.index) : 'not an index';
    };
    expect(key('x["name"]')).toBe('name');
    expect(key("x['n_2']")).toBe('n_2');
    expect(key('x["a b"]')).toBeUndefined();
    expect(key('x["\\110"]')).toBeUndefined();
    expect(key('x[1]')).toBeUndefined();
  });

  it('callArguments: the three call forms', () => {
    const args = (code: string) => callArguments(expr(code) as Call).map((a) => a.type);
    expect(args('f(1, "s")')).toEqual(['NumericLiteral', 'StringLiteral']);
    expect(args('f "s"')).toEqual(['StringLiteral']);
    expect(args('f { 1 }')).toEqual(['TableConstructorExpression']);
  });
});
