import { describe, expect, it } from 'vitest';
import { CTX_KEYS, GLOBAL_TYPES, LUA_CLASSES } from '../../src/aip/signatures.ts';
import { AIPACK_GLOBALS } from '../../src/aip/catalog.ts';

describe('the types around aip.*', () => {
  it('classes: unique names, fields read from the notation (optional marked, the ? dropped)', () => {
    const names = LUA_CLASSES.map((c) => c.name);
    expect(new Set(names).size).toBe(names.length);
    const info = LUA_CLASSES.find((c) => c.name === 'FileInfo')!;
    expect(info.fields.find((f) => f.name === 'ctime')).toEqual({ name: 'ctime', type: 'integer', optional: true });
    expect(info.fields.find((f) => f.name === '_type')).toEqual({ name: '_type', type: '"FileInfo"' });
    // FileRecord is FileInfo's fields with its own _type and the content
    const rec = LUA_CLASSES.find((c) => c.name === 'FileRecord')!;
    expect(rec.fields.map((f) => f.name)).toEqual(['_type', ...info.fields.map((f) => f.name).filter((n) => n !== '_type'), 'content']);
  });

  it('CTX keys are unique; every AIPack global other than aip/utils/CTX has a type', () => {
    const keys = CTX_KEYS.map((k) => k.name);
    expect(new Set(keys).size).toBe(keys.length);
    const typed = AIPACK_GLOBALS.map((g) => g.name).filter((n) => !['aip', 'utils', 'CTX'].includes(n));
    expect(typed.filter((n) => !GLOBAL_TYPES[n])).toEqual([]);
  });
});
