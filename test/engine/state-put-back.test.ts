/**
 * The put-back of a pooled state (state-put-back.ts) on the engine of this vitest project: a state closed after a
 * stage changed it is taken again by the next stage as the sandbox and its template left it, or not reused at all
 * when it cannot be put back.
 */
import { describe, expect, it } from 'vitest';
import type { LuaState, StateOptions, StateTemplate } from '../../src/engine/engine.ts';
import { ENGINE_NAME, testEngine } from '../helpers/engine.ts';

function options(over: Partial<StateOptions> = {}): StateOptions {
  return {
    budget: 1e7,
    budgetMessage: 'budget',
    moduleDirs: ['/w/lib'],
    readFile: () => undefined,
    loadRoots: ['/w'],
    baseDir: '/w',
    print: () => {},
    displayPath: (p) => p,
    ...over,
  };
}

const run = (s: LuaState, code: string) => s.runChunk(code, '/w/t.lua', 1, {}, 'serde');

/** a template whose globals every state of its key starts with */
function template(key: string): StateTemplate {
  return { key, install: (s) => s.exec(`shared = { key = ${JSON.stringify(key)} }`, `=template ${key}`) };
}

describe(`the put-back of a pooled state (${ENGINE_NAME})`, () => {
  it('the next stage takes the same state as new: globals, libraries, template values and the PRNG put back', () => {
    const t = template('put-back-a');
    const first = testEngine.createState(options({ template: t }));
    const drawn = run(
      first,
      'leaked = 1 string.upper = nil table.extra = {} shared.key = "changed" shared.more = true setmetatable(_G, nil) math.randomseed(42) return math.random()',
    );
    first.close();
    const next = testEngine.createState(options({ template: t }));
    expect(next).toBe(first);
    expect(run(next, 'return { leaked == nil, string.upper("a"), table.extra == nil, shared.key, shared.more == nil }')).toEqual([true, 'A', true, 'put-back-a', true]);
    // the seed of the stage before is gone: the first draw is not the seeded one
    expect(run(next, 'return math.random()')).not.toBe(drawn);
    next.close();
  });

  it("each stage gets its own package.path, whatever the state's stage before set", () => {
    const t = template('put-back-path');
    const first = testEngine.createState(options({ template: t }));
    run(first, 'package.path = "/elsewhere/?.lua"');
    first.close();
    const next = testEngine.createState(options({ template: t, moduleDirs: ['/w/other'] }));
    expect(next).toBe(first);
    expect(run(next, 'return package.path')).toMatch(/^\/w\/other\/\?\.lua;/);
    next.close();
  });

  it('a state is only taken again for its own template', () => {
    const a = testEngine.createState(options({ template: template('put-back-b') }));
    a.close();
    const other = testEngine.createState(options({ template: template('put-back-c') }));
    expect(other).not.toBe(a);
    expect(run(other, 'return shared.key')).toBe('put-back-c');
    other.close();
  });

  it('is not reused after a spent budget, a failed set-up or a metatable it cannot remove', () => {
    const notReused = (key: string, spoil: (s: LuaState) => void) => {
      const t = template(key);
      const s = testEngine.createState(options({ template: t, budget: 1e5 }));
      spoil(s);
      s.close();
      const next = testEngine.createState(options({ template: t }));
      expect(next).not.toBe(s);
      expect(run(next, 'return shared.key')).toBe(key);
      next.close();
    };
    notReused('put-back-spent', (s) => expect(() => run(s, 'while true do end')).toThrow(/budget$/));
    const cyclic: Record<string, unknown> = {};
    cyclic.self = cyclic;
    notReused('put-back-doubtful', (s) => expect(() => s.setGlobal('c', cyclic)).toThrow(/cyclic/));
    notReused('put-back-metatable', (s) => run(s, 'setmetatable(string, { __metatable = "locked" })'));
  });
});
