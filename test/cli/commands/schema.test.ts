import { describe, expect, it } from 'vitest';
import { jsonSchemaOf, SCHEMA_NAMES } from '../../../src/contract/json-schema.ts';

describe('coder-subagents schema', () => {
  it('prints all schemas keyed by name, or one', async () => {
    const { runCli } = await import('../../helpers/cli.ts');
    const all = await runCli(['schema'], process.cwd());
    expect(all.code).toBe(0);
    expect(Object.keys(JSON.parse(all.stdout))).toEqual(SCHEMA_NAMES);
    const one = await runCli(['schema', 'agent_config'], process.cwd());
    expect(JSON.parse(one.stdout)).toEqual(jsonSchemaOf('agent_config'));
    const bad = await runCli(['schema', 'nope'], process.cwd());
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('unknown schema "nope"');
  });
});
