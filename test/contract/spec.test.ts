import * as z from 'zod';
import { describe, expect, it } from 'vitest';
import { ENTRY_KEYS, RESPONSE_FIELDS, expectedOf, fieldsOf, kindOf, nounOf, scalarTypeOf, stageIgnores, usedIn } from '../../src/contract/spec.ts';

describe('kinds of the zod schemas', () => {
  it('kindOf looks through wrappers and reads lists, enums and non-empty strings', () => {
    expect(kindOf(z.string().min(1).optional())).toEqual({ kind: 'string', nonEmpty: true });
    expect(kindOf(z.array(z.number()).default([]))).toMatchObject({ kind: 'list', item: { kind: 'number' }, nonEmpty: false });
    expect(kindOf(z.boolean().nullable())).toEqual({ kind: 'boolean' });
  });

  it('fieldsOf keeps shape order, optionality and defaults', () => {
    const fields = fieldsOf(z.object({ b: z.string(), a: z.boolean().default(true) }));
    expect(fields.map((f) => [f.name, f.optional, f.default])).toEqual([['b', false, undefined], ['a', true, true]]);
  });

  it('expectedOf / nounOf / scalarTypeOf word expected types as the messages need them', () => {
    expect(expectedOf({ kind: 'string', nonEmpty: false })).toBe('a string');
    expect(expectedOf({ kind: 'list', item: { kind: 'table' }, nonEmpty: false })).toBe('a list of tables');
    expect(expectedOf({ kind: 'one_or_list', item: { kind: 'enum', values: ['pre'], noun: 'stage' }, nonEmpty: false })).toBe('a stage or a list of stages');
    expect(expectedOf({ kind: 'enum', values: ['a', 'b'], noun: 'x' })).toBe('one of a, b');
    expect(nounOf({ kind: 'any' })).toBe('value');
    expect(expectedOf({ kind: 'object', fields: [] })).toBe('a table');
    expect(scalarTypeOf({ kind: 'enum', values: [], noun: 'n' })).toBe('string');
    expect(scalarTypeOf({ kind: 'table' })).toBeUndefined();
  });
});

describe('the derived contract', () => {
  it('entry keys and response fields come from the schemas', () => {
    expect(ENTRY_KEYS.slice(0, 4)).toEqual(['name', 'enabled', 'stages', 'options']);
    const response = RESPONSE_FIELDS.find((f) => f.name === 'coder_response');
    expect(response?.stages).toEqual(['post_task']);
  });

  it('usedIn / stageIgnores say which response fields count in a stage', () => {
    const response = RESPONSE_FIELDS.find((f) => f.name === 'coder_response')!;
    expect(usedIn(response, 'post_task')).toBe(true);
    expect(usedIn(response, 'pre')).toBe(false);
    expect(stageIgnores('pre')).toContain('coder_response');
    expect(stageIgnores('post_task')).not.toContain('coder_response');
  });
});
