/**
 * The checkable form of the contract, derived from the zod schemas by walking their definitions.
 *
 * A `Kind` says how a Lua value is checked and what the messages say. check.ts interprets kinds in TS;
 * lua-gen.ts emits the same kinds as Lua data for an interpreter written in Lua. Both read the wording from
 * schemas.ts (CHECK_TEMPLATES) and the expected-type texts computed here, so a field's name, type, default and
 * message exist once.
 */
import { type AnySchema, defOf, metaOf } from './zod-def.ts';
import {
  AgentEntrySchema,
  AgentEntryTableSchema,
  ResponseSchema,
  STAGES,
  type EntryForm,
  type SubAgentStage,
} from './schemas.ts';

export type Kind =
  | { kind: 'any' }
  | { kind: 'string'; nonEmpty: boolean }
  | { kind: 'boolean' }
  | { kind: 'number' }
  | { kind: 'table' }
  | { kind: 'enum'; values: string[]; noun: string }
  | { kind: 'list'; item: Kind; nonEmpty: boolean }
  /** one item (of the item's scalar Lua type) standing for a one-item list, or a list */
  | { kind: 'one_or_list'; item: Kind; nonEmpty: boolean }
  | { kind: 'object'; fields: Field[] }
  /** a list of sub-agent entries, checked by normalising it */
  | { kind: 'entries' };

export interface Field {
  name: string;
  kind: Kind;
  optional: boolean;
  /** filled in by normalisation when the field is absent */
  default?: unknown;
  /** stages that use the field (response fields); undefined: all */
  stages?: SubAgentStage[];
  /** stages that use the field in an event-form entry, when they differ from `stages` */
  eventStages?: SubAgentStage[];
  /** stages where an event-form entry's use of the field is lax: done as upstream, with a warning */
  laxStages?: SubAgentStage[];
  /** per stage, keys of this (table) field that the stage ignores */
  ignoredKeys?: Partial<Record<SubAgentStage, string[]>>;
  /** another field that cannot be given together with this one */
  exclusiveWith?: string;
  /** response fields used only by entries of this form (section 7); undefined: both forms */
  form?: EntryForm;
}

const minLength = (s: AnySchema): number =>
  Math.max(0, ...(defOf(s).checks ?? []).map((c) => (c._zod.def.check === 'min_length' ? c._zod.def.minimum ?? 0 : 0)));

/** The Kind of a zod schema (wrappers such as optional/default are looked through). */
export function kindOf(schema: AnySchema): Kind {
  const def = defOf(schema);
  switch (def.type) {
    case 'optional':
    case 'default':
    case 'nullable':
    case 'readonly':
      return kindOf(def.innerType!);
    case 'any':
    case 'unknown':
      return { kind: 'any' };
    case 'string':
      return { kind: 'string', nonEmpty: minLength(schema) > 0 };
    case 'boolean':
      return { kind: 'boolean' };
    case 'number':
      return { kind: 'number' };
    case 'record':
      return { kind: 'table' };
    case 'enum':
      return {
        kind: 'enum',
        values: Object.values(def.entries!),
        noun: (metaOf(schema).title as string | undefined) ?? 'string',
      };
    case 'literal':
      return { kind: 'enum', values: def.values!.map(String), noun: 'string' };
    case 'array':
      if (def.element === AgentEntrySchema) return { kind: 'entries' };
      return { kind: 'list', item: kindOf(def.element!), nonEmpty: minLength(schema) > 0 };
    case 'object':
      return { kind: 'object', fields: fieldsOf(schema) };
    case 'union': {
      const [one, many] = def.options ?? [];
      if (def.options?.length === 2 && one && many && defOf(many).type === 'array' && defOf(many).element === one) {
        return { kind: 'one_or_list', item: kindOf(one), nonEmpty: minLength(many) > 0 };
      }
      throw new Error(`contract: no Lua check for this union`);
    }
    default:
      throw new Error(`contract: no Lua check for zod type ${def.type}`);
  }
}

function isOptional(schema: AnySchema): boolean {
  const t = defOf(schema).type;
  return t === 'optional' || t === 'default' || t === 'any' || t === 'unknown';
}

function defaultOf(schema: AnySchema): unknown {
  const def = defOf(schema);
  if (def.type === 'default') return structuredClone(def.defaultValue);
  if (def.type === 'optional' || def.type === 'readonly') return defaultOf(def.innerType!);
  return undefined;
}

/** The fields of an object schema, in shape order (the order checks run in, on both sides). */
export function fieldsOf(schema: AnySchema): Field[] {
  const shape = defOf(schema).shape ?? {};
  return Object.entries(shape).map(([name, s]) => {
    const meta = metaOf(s);
    const f: Field = { name, kind: kindOf(s), optional: isOptional(s) };
    const d = defaultOf(s);
    if (d !== undefined) f.default = d;
    if (Array.isArray(meta['x-stages'])) f.stages = [...(meta['x-stages'] as SubAgentStage[])];
    if (Array.isArray(meta['x-event-stages'])) f.eventStages = [...(meta['x-event-stages'] as SubAgentStage[])];
    if (Array.isArray(meta['x-lax-stages'])) f.laxStages = [...(meta['x-lax-stages'] as SubAgentStage[])];
    if (meta['x-ignored-keys']) f.ignoredKeys = meta['x-ignored-keys'] as Partial<Record<SubAgentStage, string[]>>;
    if (typeof meta['x-exclusive-with'] === 'string') f.exclusiveWith = meta['x-exclusive-with'];
    if (meta['x-form'] === 'event' || meta['x-form'] === 'stage') f.form = meta['x-form'];
    return f;
  });
}

// ---------------------------------------------------------------------------------------------------------------
// Wording of expected types

/** The noun for one item of a kind ("string", "stage", "table"). */
export function nounOf(k: Kind): string {
  switch (k.kind) {
    case 'enum':
      return k.noun;
    case 'table':
    case 'object':
      return 'table';
    case 'list':
    case 'one_or_list':
    case 'entries':
      return 'list';
    case 'any':
      return 'value';
    case 'string':
      return k.nonEmpty ? 'non-empty string' : 'string';
    default:
      return k.kind;
  }
}

const article = (noun: string) => (/^[aeiou]/.test(noun) ? `an ${noun}` : `a ${noun}`);

/** What a message says is expected: "a string", "a list of strings", "one of pre, pre_task, post_task, post". */
export function expectedOf(k: Kind): string {
  switch (k.kind) {
    case 'enum':
      return `one of ${k.values.join(', ')}`;
    case 'list':
      return `a list of ${nounOf(k.item)}s`;
    case 'one_or_list':
      return `${article(nounOf(k.item))} or a list of ${nounOf(k.item)}s`;
    case 'entries':
      return 'a list of sub-agent entries'; // not used in messages: entries are checked by normalising them
    default:
      return article(nounOf(k));
  }
}

/** The Lua type of a single item of a kind, when the kind is a scalar (for one_or_list). */
export function scalarTypeOf(k: Kind): string | undefined {
  switch (k.kind) {
    case 'string':
    case 'enum':
      return 'string';
    case 'boolean':
      return 'boolean';
    case 'number':
      return 'number';
    default:
      return undefined;
  }
}

// ---------------------------------------------------------------------------------------------------------------
// The derived contract

/** Fields of the table form of an entry, in check order, with their defaults. */
export const ENTRY_FIELDS: Field[] = fieldsOf(AgentEntryTableSchema);
/** The keys of an entry the contract defines; any other key is kept for the agent but warned about. */
export const ENTRY_KEYS: string[] = ENTRY_FIELDS.map((f) => f.name);
/** Fields of a response table, in check order, with the stages that use them. */
export const RESPONSE_FIELDS: Field[] = fieldsOf(ResponseSchema);

/** Whether a response field counts in `stage` for an entry of `form` (else it is ignored there). */
export function usedIn(f: Field, stage: SubAgentStage, form: EntryForm = 'stage'): boolean {
  if (f.form !== undefined && f.form !== form) return false;
  const stages = form === 'event' && f.eventStages ? f.eventStages : f.stages;
  return !stages || stages.includes(stage);
}

/** Whether an event-form entry's use of a response field in `stage` is lax (done as upstream, with a warning). */
export function laxIn(f: Pick<Field, 'laxStages'>, stage: SubAgentStage, form: EntryForm = 'stage'): boolean {
  return form === 'event' && (f.laxStages ?? []).includes(stage);
}

/** Response fields that a stage ignores (present in a response, they change nothing). */
export function stageIgnores(stage: SubAgentStage, form: EntryForm = 'stage'): string[] {
  return RESPONSE_FIELDS.filter((f) => !usedIn(f, stage, form)).map((f) => f.name);
}

export const ALL_STAGES: readonly SubAgentStage[] = STAGES;
