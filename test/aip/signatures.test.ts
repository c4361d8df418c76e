import { describe, expect, it } from 'vitest';
import { AIP_FUNCTIONS } from '../../src/aip/catalog.ts';
import { CONSTANT_TYPES, LUA_CLASSES, SIGNATURES, signatureOf, splitTop } from '../../src/aip/signatures.ts';

const functions = AIP_FUNCTIONS.filter((f) => f.kind === 'function').map((f) => f.path);
const constants = AIP_FUNCTIONS.filter((f) => f.kind === 'constant').map((f) => f.path);

describe('signatures', () => {
  it('every catalog function has a signature, and every signature names a catalog function', () => {
    const signed = SIGNATURES.map((s) => s.path);
    expect(functions.filter((p) => !signatureOf(p))).toEqual([]);
    expect(signed.filter((p) => !functions.includes(p))).toEqual([]);
    expect(new Set(signed).size).toBe(signed.length);
  });

  it('every catalog constant has a type', () => {
    expect(Object.keys(CONSTANT_TYPES).sort()).toEqual([...constants].sort());
  });

  it('optional parameters come last, and every type names a known class or a builtin', () => {
    const classes = new Set(LUA_CLASSES.map((c) => c.name));
    const builtin = /^(string|number|integer|boolean|nil|table|any|lightuserdata|function)$/;
    const names = (t: string): string[] => t.match(/[A-Za-z_]\w*/g) ?? [];
    expect(SIGNATURES.length).toBeGreaterThan(100);
    for (const s of SIGNATURES) {
      for (const list of [s.params, ...(s.overloads ?? [])]) {
        const firstOptional = list.findIndex((p) => p.optional);
        if (firstOptional >= 0) expect(list.slice(firstOptional).every((p) => p.optional), s.path).toBe(true);
        for (const p of list) expect(p.name, s.path).toMatch(/^[a-z_][a-z0-9_]*$/);
      }
      const types = [...s.params, ...(s.overloads ?? []).flat()].map((p) => p.type).concat(s.returns);
      for (const t of types) {
        // names inside {k: T} literals are keys; strip quoted literals too
        const stripped = t.replace(/"[^"]*"/g, '').replace(/([A-Za-z_]\w*)\??\s*:/g, '');
        for (const n of names(stripped)) expect(builtin.test(n) || classes.has(n), `${s.path}: ${n}`).toBe(true);
      }
      expect(s.doc.length, s.path).toBeGreaterThan(5);
    }
  });

  it('splitTop splits only at top-level commas', () => {
    expect(splitTop('a: {x: string, y?: number}, b?: table<string, any>')).toEqual(['a: {x: string, y?: number}', 'b?: table<string, any>']);
  });

  it('reads the compact notation: optional, variadic, overloads', () => {
    expect(signatureOf('aip.path.join')!.params).toEqual([
      { name: 'base', type: 'string' },
      { name: 'parts', type: 'string|string[]', variadic: true, optional: true },
    ]);
    expect(signatureOf('aip.file.list')!.params[1]).toEqual({ name: 'options', type: 'ListOptions', optional: true });
    expect(signatureOf('aip.run.pin')!.overloads?.[0].map((p) => p.name)).toEqual(['iden', 'priority', 'content']);
    expect(signatureOf('aip.text.split_first')!.returns).toEqual(['string|nil', 'string|nil']);
  });
});
