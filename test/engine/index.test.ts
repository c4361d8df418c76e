/** Loading an engine (index.ts); choosing one by name is names.test.ts. */
import { describe, expect, it } from 'vitest';
import { getEngine, loadEngine } from '../../src/engine/index.ts';

describe('engine loading', () => {
  it('loads each engine once, and names an unknown one', async () => {
    const a = await loadEngine('lua54');
    expect(await loadEngine('lua54')).toBe(a);
    expect(getEngine('lua54')).toBe(a);
    expect([getEngine('fengari').luaVersion, a.luaVersion]).toEqual(['Lua 5.3', 'Lua 5.4']);
    await expect(loadEngine('nope' as never)).rejects.toThrow("unknown Lua engine 'nope': expected fengari or lua54");
    expect(() => getEngine('nope' as never)).toThrow("unknown Lua engine 'nope'");
  });
});
