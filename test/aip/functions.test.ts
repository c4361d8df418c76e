import { describe, expect, it } from 'vitest';
import { AIP_FUNCTIONS } from '../../src/aip/catalog.ts';
import { AIP_ENTRIES, aipEntry, parseParams, signatureOf, splitTop } from '../../src/aip/functions.ts';
import { LUA_CLASSES } from '../../src/aip/signatures.ts';

const SIGNATURES = AIP_ENTRIES.filter((e) => e.kind === 'function');
const constants = AIP_ENTRIES.filter((e) => e.kind === 'constant');

describe('the aip.* entries', () => {
  it('one entry per path; the catalog is these entries, in their order, with their versions', () => {
    const paths = AIP_ENTRIES.map((e) => e.path);
    expect(new Set(paths).size).toBe(paths.length);
    expect(AIP_FUNCTIONS.map((f) => [f.path, f.since, f.until, f.kind])).toEqual(AIP_ENTRIES.map((e) => [e.path, e.since, e.until, e.kind]));
    expect(aipEntry('aip.flow.redo')).toMatchObject({ since: '0.8.17', until: '0.8.22' });
    expect(aipEntry('aip.toml.parse')).toMatchObject({ since: '0.8.8', params: [{ name: 'content', type: 'string' }] });
  });

  it('every constant has a type and a doc, and no signature', () => {
    expect(constants.map((c) => c.path).sort()).toEqual(['aip.web.UA_AIPACK', 'aip.web.UA_BROWSER']);
    for (const c of constants) {
      expect(c.type, c.path).toBe('string');
      expect(c.doc.length, c.path).toBeGreaterThan(5);
      expect(signatureOf(c.path)).toBeUndefined();
    }
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

  it('argument specs name only parameters of their function', () => {
    for (const e of AIP_ENTRIES) {
      const names = new Set(e.params.map((p) => p.name));
      for (const n of [...Object.keys(e.args?.names ?? {}), ...(e.args?.own ?? []), ...(e.args?.nilOk ?? [])]) expect(names.has(n), `${e.path}: ${n}`).toBe(true);
    }
  });
});

describe('the compact notation', () => {
  it('splitTop splits only at top-level commas', () => {
    expect(splitTop('a: {x: string, y?: number}, b?: table<string, any>')).toEqual(['a: {x: string, y?: number}', 'b?: table<string, any>']);
  });

  it('reads optional, variadic, overloads', () => {
    expect(signatureOf('aip.path.join')!.params).toEqual([
      { name: 'base', type: 'string' },
      { name: 'parts', type: 'string|string[]', variadic: true, optional: true },
    ]);
    expect(signatureOf('aip.file.list')!.params[1]).toEqual({ name: 'options', type: 'ListOptions', optional: true });
    expect(signatureOf('aip.run.pin')!.overloads?.[0].map((p) => p.name)).toEqual(['iden', 'priority', 'content']);
    expect(signatureOf('aip.text.split_first')!.returns).toEqual(['string|nil', 'string|nil']);
    expect(parseParams('')).toEqual([]);
  });
});
