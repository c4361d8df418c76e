import { describe, expect, it } from 'vitest';
import { CaseFileSchema } from '../../src/harness/case-schema.ts';

describe('the case file schema', () => {
  it('reads an agent and its cases, and refuses a key it does not know', () => {
    expect(CaseFileSchema.safeParse({ agent: 'x.aip', case: [{ name: 'a', stage: 'pre' }] }).success).toBe(true);
    const bad = CaseFileSchema.safeParse({ agent: 'x.aip', case: [{ name: 'a', stagee: 'pre' }] });
    expect(bad.success).toBe(false);
    expect(bad.error?.issues[0]).toMatchObject({ code: 'unrecognized_keys', keys: ['stagee'] });
  });
});
