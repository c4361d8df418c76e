import * as z from 'zod';
import { describe, expect, it } from 'vitest';
import { LIST_PARAM_KEYS, listsFromLua, paramsFromLua } from '../../src/contract/lists.ts';

describe('lists read back from Lua', () => {
  it('an empty Lua table where the schema wants a list is an empty list', () => {
    const schema = z.object({ globs: z.array(z.string()).optional(), one: z.union([z.string(), z.array(z.string())]), opts: z.object({}) });
    expect(listsFromLua(schema, { globs: {}, one: {}, opts: {} })).toEqual({ globs: [], one: [], opts: {} });
    expect(listsFromLua(schema, { globs: ['a'], one: 'x' })).toEqual({ globs: ['a'], one: 'x' });
  });

  it('paramsFromLua fixes every list-typed coder param and leaves the rest', () => {
    expect(LIST_PARAM_KEYS).toContain('working_globs');
    expect(LIST_PARAM_KEYS).toContain('context_globs');
    expect(paramsFromLua({ working_globs: {}, context_globs: ['a'], model: 'm', other: {} })).toEqual({
      working_globs: [],
      context_globs: ['a'],
      model: 'm',
      other: {},
    });
  });
});
