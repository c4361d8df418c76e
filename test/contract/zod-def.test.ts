import * as z from 'zod';
import { describe, expect, it } from 'vitest';
import { defOf, metaOf } from '../../src/contract/zod-def.ts';

describe('zod definitions', () => {
  it('defOf reads the definition a schema was built from', () => {
    const s = z.array(z.string()).optional();
    expect(defOf(s).type).toBe('optional');
    expect(defOf(defOf(s).innerType!).type).toBe('array');
    expect(defOf(z.enum(['a', 'b'])).entries).toEqual({ a: 'a', b: 'b' });
  });

  it('metaOf reads registered metadata, an empty table without any', () => {
    expect(metaOf(z.string().meta({ 'x-stages': ['pre'] }))).toEqual({ 'x-stages': ['pre'] });
    expect(metaOf(z.string())).toEqual({});
  });
});
