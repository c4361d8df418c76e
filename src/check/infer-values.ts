// The values the type inference (infer.ts) follows, and how they meet aip.* signatures and the contract's shapes:
// which Lua type a value surely has, which types a parameter admits, how a value is named in a message.

import { splitTop, type Param } from '../aip/functions.ts';
import { LUA_CLASSES, type LuaClass } from '../aip/signatures.ts';
import type { Shape } from './contract-types.ts';
import type { Node } from './lua-syntax.ts';

export type Obj = Extract<Shape, { t: 'object' }>;

export interface TableT {
  k: 'table';
  /** static keys set in the constructor or by `t.key = v` later, with where they were set */
  keys: Map<string, { node: Node; value: T }>;
  /** keys set dynamically (`t[k] = v`) */
  open: boolean;
  /** filled from the input's params (a copy loop over them, or aip.lua.merge with them) */
  spread: boolean;
  /** the positional values of the constructor (`{ "a", "b" }`), in order */
  items?: T[];
}

export type T =
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

export const UNKNOWN: T = { k: 'unknown' };
const CLASS_BY_NAME = new Map(LUA_CLASSES.map((c) => [c.name, c]));

/** The value a signature's return type stands for. */
export function fromLuaType(type: string): T {
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

export function fromShape(shape: Shape, what: string): T {
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
export function kindOf(t: T): 'string' | 'number' | 'boolean' | 'nil' | 'table' | 'function' | undefined {
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

export function accepts(p: Param, t: T): boolean {
  const kind = kindOf(t);
  if (kind === undefined) return true;
  const ok = admitted(p);
  if (ok.has('any') || ok.has(kind)) return true;
  // mlua converts numbers to strings, and numeric strings to numbers
  if (kind === 'number' && ok.has('string')) return true;
  if (kind === 'string' && ok.has('number')) return !(t.k === 'string' && t.value !== undefined && Number.isNaN(Number(t.value)));
  return false;
}

export const describe = (t: T): string => {
  const kind = kindOf(t);
  if (t.k === 'class') return `a ${t.cls.name} table`;
  if (t.k === 'string' && t.value !== undefined) return `the string ${JSON.stringify(t.value)}`;
  return kind === 'nil' ? 'nil' : `a ${kind}`;
};

/** Lua types a contract shape admits (undefined: any). */
export function shapeKinds(s: Shape): Set<string> | undefined {
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

export const plural = (n: number, w: string) => `${n} ${w}${n === 1 ? '' : 's'}`;

export function arityText(list: Param[]): string {
  const required = list.filter((p) => !p.optional).length;
  const variadic = list.some((p) => p.variadic);
  const count = variadic ? `at least ${plural(required, 'argument')}` : required === list.length ? plural(required, 'argument') : `${required} to ${list.length} arguments`;
  const names = list.map((p) => (p.variadic ? `...${p.name}` : `${p.name}${p.optional ? '?' : ''}`)).join(', ');
  return `${count} (${names})`;
}

/** Expressions that give any number of values at the end of a list. */
export const MULTI = new Set<string>(['CallExpression', 'StringCallExpression', 'TableCallExpression', 'VarargLiteral']);

