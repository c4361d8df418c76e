/** The contract's schemas as JSON Schema (zod 4 `z.toJSONSchema`), for `coder-subagents schema`. */
import * as z from 'zod';
import {
  AgentConfigSchema,
  AgentEntriesSchema,
  AgentEntrySchema,
  ResponseSchema,
  SubAgentInputSchemas,
  SubAgentStageSchema,
} from './schemas.ts';

/** Every published schema by name; `io` says whether the JSON Schema describes what is written (defaults optional). */
export const SCHEMAS: Record<string, { schema: z.ZodType; io: 'input' | 'output' }> = {
  stage: { schema: SubAgentStageSchema, io: 'output' },
  agent_entry: { schema: AgentEntrySchema, io: 'input' },
  sub_agents: { schema: AgentEntriesSchema, io: 'input' },
  agent_config: { schema: AgentConfigSchema, io: 'output' },
  input_pre: { schema: SubAgentInputSchemas.pre, io: 'output' },
  input_pre_task: { schema: SubAgentInputSchemas.pre_task, io: 'output' },
  input_post_task: { schema: SubAgentInputSchemas.post_task, io: 'output' },
  input_post: { schema: SubAgentInputSchemas.post, io: 'output' },
  response: { schema: ResponseSchema, io: 'input' },
};

export const SCHEMA_NAMES = Object.keys(SCHEMAS);

/** One schema as JSON Schema, or undefined for an unknown name. */
export function jsonSchemaOf(name: string): Record<string, unknown> | undefined {
  const entry = SCHEMAS[name];
  if (!entry) return undefined;
  return z.toJSONSchema(entry.schema, { io: entry.io, unrepresentable: 'any' }) as Record<string, unknown>;
}

/** All schemas, keyed by name. */
export function contractJsonSchemas(): Record<string, Record<string, unknown>> {
  const out: Record<string, Record<string, unknown>> = {};
  for (const name of SCHEMA_NAMES) out[name] = jsonSchemaOf(name)!;
  return out;
}
