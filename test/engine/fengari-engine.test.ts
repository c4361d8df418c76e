/**
 * What fengari-engine.ts does that lua54 does not need: no collectgarbage, and the Lua 5.4 hint on compile errors.
 * Its library replacements are tested in fengari-libraries.test.ts, its put-back in fengari-tables.test.ts.
 */
import { describe, expect, it } from 'vitest';
import { loadEngine } from '../../src/engine/index.ts';
import { stateAtW } from '../helpers/engine.ts';

const fengari = await loadEngine('fengari');
const state = (files: Record<string, string> = {}) => stateAtW(fengari, files);
const run = (code: string, s = state()) => s.runChunk(code, '/w/t.lua', 1, {}, 'serde');

describe('the fengari engine', () => {
  it('has no collectgarbage (fengari\'s throws on every call)', () => {
    expect(run('return collectgarbage == nil')).toBe(true);
  });

  it('points a Lua 5.4 attribute at --engine lua54, in a chunk and in a required module', () => {
    expect(() => run('local x <const> = 1 return x')).toThrow(/^Lua 5\.4 syntax: run with --engine lua54/);
    expect(run('local ok, e = pcall(require, "m") return e', state({ '/w/m.lua': 'local y <close> = nil' }))).toMatch(/^Lua 5\.4 syntax: run with --engine lua54 \(fengari runs Lua 5\.3\)\nerror loading module 'm'/);
  });
});
