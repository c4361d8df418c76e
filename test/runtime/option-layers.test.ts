import { describe, expect, it } from 'vitest';
import { ConfigTomlError, STOCK_OPTIONS, configOptions, mergeOptions, optionsTable, resolveModel } from '../../src/runtime/option-layers.ts';

describe('agent options', () => {
  it('mergeOptions: later layers win key by key, undefined keeps the earlier value, aliases merge', () => {
    const merged = mergeOptions(STOCK_OPTIONS, { model: 'a', model_aliases: { f: 'x' } }, { model: undefined, temperature: 0.1, model_aliases: { g: 'y' } });
    expect(merged).toEqual({ model: 'a', input_concurrency: 2, temperature: 0.1, model_aliases: { f: 'x', g: 'y' } });
  });

  it('optionsTable shows the options a stage sees, with the alias-resolved model', () => {
    expect(optionsTable({ model: 'fast-low', model_aliases: { fast: 'gpt-x' } })).toMatchObject({ model: 'fast-low', resolved_model: 'gpt-x-low' });
    expect(optionsTable({}).resolved_model).toBeUndefined();
  });

  it('resolveModel: an alias, or the alias of the name without a reasoning suffix; own keys only', () => {
    expect(resolveModel('fast', { fast: 'gpt-x' })).toBe('gpt-x');
    expect(resolveModel('fast-xhigh', { fast: 'gpt-x' })).toBe('gpt-x-xhigh');
    expect(resolveModel('fast-huge', { fast: 'gpt-x' })).toBe('fast-huge');
    expect(resolveModel('constructor', {})).toBe('constructor');
    expect(resolveModel('toString-high', {})).toBe('toString-high');
  });
});

describe('configOptions', () => {
  it('reads [options] (or [default_options]) of a workspace config; none without a config or a table', () => {
    expect(configOptions(undefined, 'config.toml')).toEqual({});
    expect(configOptions('[other]\nx = 1\n', 'config.toml')).toEqual({});
    expect(configOptions('[options]\nmodel = "m"\n', 'config.toml')).toEqual({ model: 'm' });
    expect(configOptions('[default_options]\ninput_concurrency = 3\n', 'config.toml')).toEqual({ input_concurrency: 3 });
  });

  it('names the file when its text is not TOML', () => {
    expect(() => configOptions('[options', '/ws/.aipack/config.toml')).toThrow(ConfigTomlError);
    expect(() => configOptions('[options', '/ws/.aipack/config.toml')).toThrow(/^\/ws\/\.aipack\/config\.toml: invalid TOML: /);
  });
});
