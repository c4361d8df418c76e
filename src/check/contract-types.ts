// The sub-agent contract as Lua types, derived from the zod schemas (src/contract/schemas.ts): the shapes the
// checker follows (input of each stage, the response) and the LuaLS classes of the generated definitions.

import { type AnySchema, type ZodDef, defOf, metaOf } from '../contract/zod-def.ts';
import {
  AgentConfigSchema,
  AgentEntryTableSchema,
  CoderResponseInputSchema,
  CoderResponsesItemSchema,
  CoderTaskSchema,
  ResponseSchema,
  STAGES,
  StageInputSchemas,
  type Stage,
} from '../contract/index.ts';
import { ANY_INPUT_CLASS, RESPONSE_CLASS, STAGE_INPUT_CLASS } from '../contract/lua-classes.ts';

export { ANY_INPUT_CLASS, RESPONSE_CLASS, STAGE_INPUT_CLASS };

export type Shape =
  | { t: 'any' }
  | { t: 'string'; values?: string[] }
  | { t: 'number'; integer: boolean }
  | { t: 'boolean' }
  | { t: 'list'; item: Shape }
  /** a table with any string keys (coder_params, options) */
  | { t: 'map' }
  | { t: 'object'; name?: string; fields: ShapeField[]; open: boolean }
  | { t: 'union'; of: Shape[] };

export interface ShapeField {
  name: string;
  shape: Shape;
  optional: boolean;
  doc?: string;
  /** response fields: the stages that use it (undefined: all) */
  stages?: Stage[];
  exclusiveWith?: string;
}


const prevItem = defOf(defOf(StageInputSchemas.pre).shape!.sub_agents_prev).element!;

const CLASS_NAMES = new Map<AnySchema, string>([
  [AgentConfigSchema, 'CoderAgentConfig'],
  [AgentEntryTableSchema, 'CoderAgentEntry'],
  [CoderTaskSchema, 'CoderTask'],
  [CoderResponseInputSchema, 'CoderResponseInput'],
  [CoderResponsesItemSchema, 'CoderResponsesItem'],
  [prevItem, 'CoderSubAgentPrev'],
  [ResponseSchema, RESPONSE_CLASS],
  ...STAGES.map((s): [AnySchema, string] => [StageInputSchemas[s], STAGE_INPUT_CLASS[s]]),
]);

const isInteger = (d: ZodDef) => d.format === 'safeint' || d.format === 'int32' || (d.checks ?? []).some((c) => c._zod.def.format === 'safeint');

/** The shape of a zod schema (optional/default wrappers looked through). */
function shapeOf(schema: AnySchema): Shape {
  const def = defOf(schema);
  switch (def.type) {
    case 'optional':
    case 'default':
    case 'nullable':
    case 'readonly':
      return shapeOf(def.innerType!);
    case 'string':
      return { t: 'string' };
    case 'enum':
      return { t: 'string', values: Object.values(def.entries!) };
    case 'literal':
      return { t: 'string', values: def.values!.map(String) };
    case 'number':
      return { t: 'number', integer: isInteger(def) };
    case 'boolean':
      return { t: 'boolean' };
    case 'array':
      return { t: 'list', item: shapeOf(def.element!) };
    case 'record':
      return { t: 'map' };
    case 'union':
      return { t: 'union', of: (def.options ?? []).map(shapeOf) };
    case 'object': {
      const s: Shape = { t: 'object', fields: fieldsOfSchema(schema), open: def.catchall !== undefined && defOf(def.catchall).type !== 'never' };
      const name = CLASS_NAMES.get(schema);
      if (name) s.name = name;
      return s;
    }
    default:
      return { t: 'any' };
  }
}

function isOptional(schema: AnySchema): boolean {
  const t = defOf(schema).type;
  return t === 'optional' || t === 'default' || t === 'any' || t === 'unknown';
}

function fieldsOfSchema(schema: AnySchema): ShapeField[] {
  return Object.entries(defOf(schema).shape ?? {}).map(([name, s]) => {
    const meta = { ...metaOf(s), ...(defOf(s).innerType ? metaOf(defOf(s).innerType!) : {}) };
    const field: ShapeField = { name, shape: shapeOf(s), optional: isOptional(s) };
    if (typeof meta.description === 'string') field.doc = meta.description;
    if (Array.isArray(meta['x-stages'])) field.stages = [...(meta['x-stages'] as Stage[])];
    if (typeof meta['x-exclusive-with'] === 'string') field.exclusiveWith = meta['x-exclusive-with'];
    return field;
  });
}

/** The input table of one stage. */
export function stageInputShape(stage: Stage): Extract<Shape, { t: 'object' }> {
  return shapeOf(StageInputSchemas[stage]) as Extract<Shape, { t: 'object' }>;
}

/**
 * The input table of a sub-agent that runs in any of `stages`: the fields of every one of them (a field that some
 * lack is optional), with `coder_stage` one of those stages.
 */
export function inputShapeFor(stages: readonly Stage[], name?: string): Extract<Shape, { t: 'object' }> {
  const byName = new Map<string, ShapeField>();
  const count = new Map<string, number>();
  for (const s of stages) {
    for (const f of stageInputShape(s).fields) {
      count.set(f.name, (count.get(f.name) ?? 0) + 1);
      const seen = byName.get(f.name);
      if (!seen) byName.set(f.name, { ...f });
      // a literal per stage (coder_stage, event): the field takes any of them
      else if (seen.shape.t === 'string' && f.shape.t === 'string' && seen.shape.values && f.shape.values) {
        seen.shape = { t: 'string', values: [...new Set([...seen.shape.values, ...f.shape.values])] };
      }
    }
  }
  const fields = [...byName.values()].map((f) => (count.get(f.name) === stages.length ? f : { ...f, optional: true }));
  const shape: Extract<Shape, { t: 'object' }> = { t: 'object', fields, open: false };
  if (name) shape.name = name;
  return shape;
}

/** The stages whose input has the field. */
export function stagesWithInputField(field: string): Stage[] {
  return STAGES.filter((s) => stageInputShape(s).fields.some((f) => f.name === field));
}

/** The response table's fields, with the stages that use them. */
export function responseFields(): ShapeField[] {
  return (shapeOf(ResponseSchema) as Extract<Shape, { t: 'object' }>).fields;
}

/** The LuaLS type of a shape (named objects by their class name). */
export function luaTypeOf(s: Shape): string {
  switch (s.t) {
    case 'any':
      return 'any';
    case 'string':
      return s.values ? s.values.map((v) => JSON.stringify(v)).join('|') : 'string';
    case 'number':
      return s.integer ? 'integer' : 'number';
    case 'boolean':
      return 'boolean';
    case 'map':
      return 'table<string, any>';
    case 'list': {
      const item = luaTypeOf(s.item);
      return /[|]/.test(item) ? `(${item})[]` : `${item}[]`;
    }
    case 'union':
      return s.of.map(luaTypeOf).join('|');
    case 'object':
      if (s.name) return s.name;
      return `{ ${s.fields.map((f) => `${f.name}${f.optional ? '?' : ''}: ${luaTypeOf(f.shape)}`).join(', ')} }`;
  }
}

/** Every named object reachable from the contract's entry points, in a stable order. */
export function contractClasses(): Extract<Shape, { t: 'object' }>[] {
  const out = new Map<string, Extract<Shape, { t: 'object' }>>();
  const visit = (s: Shape): void => {
    if (s.t === 'object') {
      if (s.name && !out.has(s.name)) out.set(s.name, s);
      for (const f of s.fields) visit(f.shape);
    } else if (s.t === 'list') visit(s.item);
    else if (s.t === 'union') s.of.forEach(visit);
  };
  visit(inputShapeFor(STAGES, ANY_INPUT_CLASS));
  for (const stage of STAGES) visit(stageInputShape(stage));
  visit(shapeOf(ResponseSchema));
  visit(shapeOf(AgentEntryTableSchema));
  return [...out.values()];
}
