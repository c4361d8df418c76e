// The sub-agent contract as Lua types, derived from the zod schemas (src/contract/schemas.ts): the shapes the
// checker follows (input of each stage, the response) and the LuaLS classes of the generated definitions.

import { type AnySchema, type ZodDef, defOf, metaOf } from '../contract/zod-def.ts';
import {
  AgentConfigSchema,
  AgentEntryTableSchema,
  CoderResponseInputSchema,
  CoderResponsesItemSchema,
  CoderTaskSchema,
  EVENT_FORM_STAGES,
  EventHistoryItemSchema,
  EventInputSchemas,
  EventResponsesItemSchema,
  FileChangesStatusSchema,
  ResponseSchema,
  STAGES,
  SubAgentInputSchemas,
  usedIn,
  type EntryForm,
  type SubAgentStage,
} from '../contract/index.ts';
import { ANY_INPUT_CLASS, RESPONSE_CLASS, STAGE_INPUT_CLASS } from '../contract/lua-classes.ts';

export { ANY_INPUT_CLASS, RESPONSE_CLASS, STAGE_INPUT_CLASS };

/**
 * What a sub-agent's input is, for the checker: a stage (the stage form's input), or `on:<stage>` (the event form's
 * input, as upstream pro@coder gives it, in the stage that dispatches the event).
 */
export type EventKind = `on:${(typeof EVENT_FORM_STAGES)[number]}`;
export type InputKind = SubAgentStage | EventKind;
export const EVENT_KINDS: EventKind[] = EVENT_FORM_STAGES.map((s) => `on:${s}` as EventKind);
export const INPUT_KINDS: InputKind[] = [...STAGES, ...EVENT_KINDS];
export const isEventKind = (k: InputKind): k is EventKind => k.startsWith('on:');
export const stageOfKind = (k: InputKind): SubAgentStage => (isEventKind(k) ? (k.slice(3) as SubAgentStage) : k);
export const formOfKind = (k: InputKind): EntryForm => (isEventKind(k) ? 'event' : 'stage');
/** How messages name a kind: `pre`, or `pre (event form)`. */
export const kindLabel = (k: InputKind): string => (isEventKind(k) ? `${stageOfKind(k)} (event form)` : k);
/** The input kind of an entry's form in a stage. */
export const kindOf = (stage: SubAgentStage, form: EntryForm): InputKind => (form === 'event' ? (`on:${stage}` as EventKind) : stage);

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
  stages?: SubAgentStage[];
  /** response fields: the stages that use it in the event form, when they differ */
  eventStages?: SubAgentStage[];
  /** response fields: event-form stages where its use is lax (done as upstream, warned) */
  laxStages?: SubAgentStage[];
  /** response fields used by one form only */
  form?: EntryForm;
  exclusiveWith?: string;
}


/** Lua class name of the event form's input tables (upstream pro@coder's fields) */
export const EVENT_INPUT_CLASS: Record<EventKind, string> = {
  'on:pre': 'CoderEventPreInput',
  'on:post': 'CoderEventPostInput',
};
export const inputClassOf = (k: InputKind): string => (isEventKind(k) ? EVENT_INPUT_CLASS[k] : STAGE_INPUT_CLASS[k]);

const prevItem = defOf(defOf(SubAgentInputSchemas.pre).shape!.sub_agents_prev).element!;

const CLASS_NAMES = new Map<AnySchema, string>([
  [AgentConfigSchema, 'CoderAgentConfig'],
  [AgentEntryTableSchema, 'CoderAgentEntry'],
  [CoderTaskSchema, 'CoderTask'],
  [CoderResponseInputSchema, 'CoderResponseInput'],
  [CoderResponsesItemSchema, 'CoderResponsesItem'],
  [prevItem, 'CoderSubAgentPrev'],
  [ResponseSchema, RESPONSE_CLASS],
  [EventHistoryItemSchema, 'CoderEventPrev'],
  [EventResponsesItemSchema, 'CoderEventResponsesItem'],
  [FileChangesStatusSchema, 'CoderFileChangesStatus'],
  ...STAGES.map((s): [AnySchema, string] => [SubAgentInputSchemas[s], STAGE_INPUT_CLASS[s]]),
  ...EVENT_KINDS.map((k): [AnySchema, string] => [EventInputSchemas[stageOfKind(k) as 'pre' | 'post'], EVENT_INPUT_CLASS[k]]),
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
    if (Array.isArray(meta['x-stages'])) field.stages = [...(meta['x-stages'] as SubAgentStage[])];
    if (Array.isArray(meta['x-event-stages'])) field.eventStages = [...(meta['x-event-stages'] as SubAgentStage[])];
    if (Array.isArray(meta['x-lax-stages'])) field.laxStages = [...(meta['x-lax-stages'] as SubAgentStage[])];
    if (meta['x-form'] === 'event' || meta['x-form'] === 'stage') field.form = meta['x-form'];
    if (typeof meta['x-exclusive-with'] === 'string') field.exclusiveWith = meta['x-exclusive-with'];
    return field;
  });
}

/** The input table of one stage (a stage-form input), or of an event-form input. */
export function stageInputShape(kind: InputKind): Extract<Shape, { t: 'object' }> {
  if (isEventKind(kind)) return shapeOf(EventInputSchemas[stageOfKind(kind) as 'pre' | 'post']) as Extract<Shape, { t: 'object' }>;
  return shapeOf(SubAgentInputSchemas[kind]) as Extract<Shape, { t: 'object' }>;
}

/**
 * The input table of a sub-agent that runs as any of `kinds`: the fields of every one of them (a field that some
 * lack is optional), with `coder_stage` one of those stages.
 */
export function inputShapeFor(kinds: readonly InputKind[], name?: string): Extract<Shape, { t: 'object' }> {
  const byName = new Map<string, ShapeField>();
  const count = new Map<string, number>();
  for (const s of kinds) {
    for (const f of stageInputShape(s).fields) {
      count.set(f.name, (count.get(f.name) ?? 0) + 1);
      const seen = byName.get(f.name);
      if (!seen) byName.set(f.name, { ...f });
      // a literal per stage (coder_stage, event): the field takes any of them
      else if (seen.shape.t === 'string' && f.shape.t === 'string' && seen.shape.values && f.shape.values) {
        seen.shape = { t: 'string', values: [...new Set([...seen.shape.values, ...f.shape.values])] };
      } else if (seen.shape.t === 'string' && f.shape.t === 'string') {
        seen.shape = { t: 'string' };
      }
    }
  }
  const fields = [...byName.values()].map((f) => (count.get(f.name) === kinds.length ? f : { ...f, optional: true }));
  const shape: Extract<Shape, { t: 'object' }> = { t: 'object', fields, open: false };
  if (name) shape.name = name;
  return shape;
}

/** The input kinds whose input has the field. */
export function stagesWithInputField(field: string): InputKind[] {
  return INPUT_KINDS.filter((s) => stageInputShape(s).fields.some((f) => f.name === field));
}

/** Whether a response field counts for a sub-agent of this input kind (else the pipeline ignores it). */
export function responseFieldUsed(f: ShapeField, kind: InputKind): boolean {
  return usedIn(
    { name: f.name, kind: { kind: 'any' }, optional: true, stages: f.stages, eventStages: f.eventStages, form: f.form },
    stageOfKind(kind),
    formOfKind(kind),
  );
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
  for (const kind of INPUT_KINDS) visit(stageInputShape(kind));
  visit(shapeOf(ResponseSchema));
  visit(shapeOf(AgentEntryTableSchema));
  return [...out.values()];
}
