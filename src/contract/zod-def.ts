/**
 * Read access to a zod 4 schema's definition and registry metadata: the one place that knows zod's internal
 * `_zod.def` layout, for the code that derives other forms of the contract (the spec table, Lua classes).
 */
import * as z from 'zod';

export type AnySchema = z.core.$ZodType;

/** The parts of `_zod.def` the derivations read. */
export interface ZodDef {
  type: string;
  innerType?: AnySchema;
  element?: AnySchema;
  options?: readonly AnySchema[];
  entries?: Record<string, string>;
  values?: readonly unknown[];
  shape?: Record<string, AnySchema>;
  catchall?: AnySchema;
  checks?: { _zod: { def: { check: string; minimum?: number; format?: string } } }[];
  defaultValue?: unknown;
  format?: string;
}

export const defOf = (s: AnySchema): ZodDef => (s as unknown as { _zod: { def: ZodDef } })._zod.def;

/** The metadata registered with `.meta()` (empty when none). */
export const metaOf = (s: AnySchema): Record<string, unknown> => (z.globalRegistry.get(s) ?? {}) as Record<string, unknown>;
