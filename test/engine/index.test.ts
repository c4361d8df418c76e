/** Choosing and loading an engine (index.ts). */
import { afterEach, describe, expect, it } from 'vitest';
import { defaultEngineName, ENGINE_ENV, getEngine, isEngineName, loadEngine } from '../../src/engine/index.ts';

const saved = process.env[ENGINE_ENV];
afterEach(() => {
  if (saved === undefined) delete process.env[ENGINE_ENV];
  else process.env[ENGINE_ENV] = saved;
});

describe('engine choice', () => {
  it('defaults to fengari, takes the environment variable, and refuses an unknown name there', () => {
    delete process.env[ENGINE_ENV];
    expect(defaultEngineName()).toBe('fengari');
    process.env[ENGINE_ENV] = '';
    expect(defaultEngineName()).toBe('fengari');
    process.env[ENGINE_ENV] = 'lua54';
    expect(defaultEngineName()).toBe('lua54');
    process.env[ENGINE_ENV] = 'luajit';
    expect(() => defaultEngineName()).toThrow(`${ENGINE_ENV}=luajit: expected fengari or lua54`);
    expect([isEngineName('fengari'), isEngineName('lua54'), isEngineName('x')]).toEqual([true, true, false]);
  });

  it('loads each engine once, and names an unknown one', async () => {
    const a = await loadEngine('lua54');
    expect(await loadEngine('lua54')).toBe(a);
    expect(getEngine('lua54')).toBe(a);
    expect([getEngine('fengari').luaVersion, a.luaVersion]).toEqual(['Lua 5.3', 'Lua 5.4']);
    await expect(loadEngine('nope' as never)).rejects.toThrow("unknown Lua engine 'nope': expected fengari or lua54");
    expect(() => getEngine('nope' as never)).toThrow("unknown Lua engine 'nope'");
  });
});
