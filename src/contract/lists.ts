/**
 * Lists at the library boundary. A Lua table carries no mark of being a list, so an empty one crosses the bridge
 * as `{}` or `[]` depending on the engine and the path it took. Where the contract knows a field is a list, the JS
 * side gives `[]`: a user's `toEqual(['...'])` / `toEqual([])` then works without `luaEqual`.
 */
import * as z from 'zod';
import { type AnySchema, defOf } from './zod-def.ts';
import { CoderResponsesItemSchema, EVENT_GLOB_DEFAULT_KEYS } from './schemas.ts';

/** The coder params that are lists of globs (the meta block's `*_globs` keys). */
export const LIST_PARAM_KEYS = [...EVENT_GLOB_DEFAULT_KEYS, 'working_globs'] as const;

/** The coder params as far as their list-typed keys go; any other key is kept as it is. */
export const CoderParamListsSchema = z.looseObject(Object.fromEntries(LIST_PARAM_KEYS.map((k) => [k, z.array(z.string()).optional()])));

/** The summary the coder's After All returns: its `tasks` are the `coder_responses` items. */
export const CoderSummarySchema = z.looseObject({ tasks: z.array(CoderResponsesItemSchema).optional() });

const isEmptyObject = (v: unknown) =>
  typeof v === 'object' && v !== null && !Array.isArray(v) && Object.getPrototypeOf(v) === Object.prototype && Object.keys(v).length === 0;

/**
 * `value` with every empty table the schema types as a list given as `[]`, inside lists and objects too. Nothing
 * else changes: values the schema does not describe, or that do not have its shape, are returned as they are.
 */
export function listsFromLua(schema: AnySchema, value: unknown): unknown {
  const def = defOf(schema);
  switch (def.type) {
    case 'optional':
    case 'nullable':
    case 'default':
    case 'prefault':
    case 'readonly':
      return listsFromLua(def.innerType!, value);
    case 'array':
      if (isEmptyObject(value)) return [];
      return Array.isArray(value) ? value.map((v) => listsFromLua(def.element!, v)) : value;
    case 'union':
      if (isEmptyObject(value) && def.options!.some((o) => defOf(o).type === 'array')) return [];
      return value;
    case 'object': {
      if (typeof value !== 'object' || value === null || Array.isArray(value)) return value;
      const out: Record<string, unknown> = { ...(value as Record<string, unknown>) };
      for (const [key, s] of Object.entries(def.shape ?? {})) {
        if (Object.hasOwn(out, key) && out[key] !== undefined) out[key] = listsFromLua(s, out[key]);
      }
      return out;
    }
    default:
      return value;
  }
}

/** Coder params with their glob lists as arrays (an empty one is `[]`, never `{}`). */
export const paramsFromLua = (params: Record<string, unknown>): Record<string, unknown> =>
  listsFromLua(CoderParamListsSchema, params) as Record<string, unknown>;
