import { describe, expect, it } from 'vitest';
import { STAGES } from '../../src/contract/schemas.ts';
import { contractJsonSchemas, jsonSchemaOf, SCHEMA_NAMES } from '../../src/contract/json-schema.ts';

describe('contractJsonSchemas / jsonSchemaOf', () => {
  it('are published as JSON Schema', () => {
    const all = contractJsonSchemas();
    expect(Object.keys(all)).toEqual(SCHEMA_NAMES);
    expect(jsonSchemaOf('nope')).toBeUndefined();
    const response = jsonSchemaOf('response') as { properties: Record<string, { type?: string; 'x-stages'?: string[] }> };
    expect(response.properties.coder_prompts?.type).toBe('array');
    expect(response.properties.coder_response?.['x-stages']).toEqual(['post_task']);
    expect((jsonSchemaOf('stage') as { enum: string[] }).enum).toEqual([...STAGES]);
  });
});
