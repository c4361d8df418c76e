/** names.ts: the engines' names and the default, as the CLI checks `--engine` without loading an engine. */
import { afterEach, describe, expect, it } from 'vitest';
import { DEFAULT_ENGINE, defaultEngineName, ENGINE_ENV, ENGINE_NAMES, isEngineName } from '../../src/engine/names.ts';

const saved = process.env[ENGINE_ENV];
afterEach(() => {
  if (saved === undefined) delete process.env[ENGINE_ENV];
  else process.env[ENGINE_ENV] = saved;
});

describe('engine names', () => {
  it('knows fengari and lua54, and nothing else', () => {
    expect(ENGINE_NAMES).toEqual(['fengari', 'lua54']);
    expect(ENGINE_NAMES.every(isEngineName)).toBe(true);
    expect(isEngineName('lua53')).toBe(false);
  });

  it('takes the default from the environment, fengari when unset or empty, and names a bad value', () => {
    delete process.env[ENGINE_ENV];
    expect(defaultEngineName()).toBe(DEFAULT_ENGINE);
    process.env[ENGINE_ENV] = '';
    expect(defaultEngineName()).toBe('fengari');
    process.env[ENGINE_ENV] = 'lua54';
    expect(defaultEngineName()).toBe('lua54');
    process.env[ENGINE_ENV] = 'luajit';
    expect(() => defaultEngineName()).toThrow('CODER_SUBAGENTS_ENGINE=luajit: expected fengari or lua54');
  });
});
