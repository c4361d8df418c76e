import { describe, expect, it } from 'vitest';
import { AIP_FUNCTIONS, isAvailableAt } from '../../src/aip/catalog.ts';
import { aipNamespace, buildAipTable, FACTORIES } from '../../src/aip/registry.ts';
import { makeStageEnv } from '../helpers/stage-env.ts';
import { runLua } from '../helpers/lua.ts';

const previous = (v: string) => {
  const [a, b, c] = v.split('.').map(Number);
  return `${a}.${b}.${c - 1}`;
};

describe('the aip table at a version', () => {
  // The version rule: at CTX.AIPACK_VERSION, aip has exactly the functions of that version; an older one is nil.
  const versions = [...new Set(AIP_FUNCTIONS.filter((f) => f.since !== '0.8.0').flatMap((f) => [f.since, previous(f.since)]))];
  it.each(versions)('at %s, aip holds exactly the functions of that version', (version) => {
    const paths = AIP_FUNCTIONS.map((f) => f.path);
    const lua = `local out = {}
for _, p in ipairs({${paths.map((p) => `"${p}"`).join(',')}}) do
  local ns, name = p:match("^aip%.(%w+)%.([%w_]+)$")
  out[p] = type(aip[ns] and aip[ns][name])
end
return out`;
    const { value } = runLua(lua, { aipackVersion: version });
    const got = value as Record<string, string>;
    for (const f of AIP_FUNCTIONS) {
      const want = isAvailableAt(f, version) ? (f.kind === 'constant' ? 'string' : 'function') : 'nil';
      expect(got[f.path], `${f.path} at ${version}`).toBe(want);
    }
  });

  it('calling a function before its since-version fails as calling nil does in Lua', () => {
    const call = (version: string) => runLua('aip.file.copy("a.txt", "b.txt") return "called"', { aipackVersion: version, files: { 'a.txt': 'a' } });
    expect(() => call('0.8.14')).toThrow(/attempt to call a nil value \(field 'copy'\)/);
    expect(call('0.8.15').value).toBe('called');
    expect(() => runLua('return aip.zip.list("x.zip")', { aipackVersion: '0.8.21' })).toThrow(/attempt to index a nil value \(field 'zip'\)/);
    expect(() => runLua('return aip.flow.redo()', { aipackVersion: '0.8.22' })).toThrow(/attempt to call a nil value \(field 'redo'\)/);
  });

  it('a catalog function the simulator does not implement raises, naming it, instead of being nil', () => {
    const table = buildAipTable(makeStageEnv('/tmp/registry-ws'));
    expect(typeof table.file.load).toBe('function');
    expect(() => (table.file.load_docx_as_md as () => unknown)()).toThrow('aip.file.load_docx_as_md is not simulated');
    expect(table.lua.merge).toBeUndefined(); // prelude.lua defines it
  });
});

describe('aipNamespace', () => {
  it('makes one namespace as the whole table has it, running only that namespace factory', () => {
    const env = makeStageEnv('/nowhere');
    const made: string[] = [];
    const saved = { ...FACTORIES };
    for (const [ns, factory] of Object.entries(saved)) FACTORIES[ns] = (e) => (made.push(ns), factory(e));
    try {
      const json = aipNamespace(env, 'json');
      expect(made).toEqual(['json']);
      expect(Object.keys(json)).toEqual(Object.keys(buildAipTable(env).json));
      expect(made.length).toBeGreaterThan(10);
    } finally {
      Object.assign(FACTORIES, saved);
    }
  });

  it('a shared namespace is one frozen table for every stage of a version; a stage\'s own namespace is made for it', () => {
    const one = makeStageEnv('/nowhere-1');
    const two = makeStageEnv('/nowhere-2', { stage: 'Data' });
    const json = aipNamespace(one, 'json');
    expect(aipNamespace(two, 'json')).toBe(json);
    expect(Object.isFrozen(json)).toBe(true);
    expect(() => {
      (json as Record<string, unknown>).parse = null;
    }).toThrow(TypeError);
    expect(aipNamespace(makeStageEnv('/nowhere-3', { aipackVersion: '0.8.33' }), 'json')).not.toBe(json);
    const file = aipNamespace(one, 'file');
    expect(aipNamespace(two, 'file')).not.toBe(file);
    expect(Object.isFrozen(file)).toBe(false);
  });
});
