import { Command } from 'commander';
import { describe, expect, it } from 'vitest';
import { UsageError } from '../../src/cli/errors.ts';
import { addEngineOption, engineFromOption, engineOf } from '../../src/cli/engine-flag.ts';

describe('--engine', () => {
  it('engineOf takes fengari or lua54 and refuses anything else as usage', () => {
    expect(engineOf('lua54')).toBe('lua54');
    expect(() => engineOf('luajit')).toThrow(new UsageError('--engine luajit: expected fengari or lua54'));
  });

  it('engineFromOption loads the engine it names', async () => {
    expect(await engineFromOption('lua54')).toBe('lua54');
    await expect(engineFromOption('luajit')).rejects.toThrow(UsageError);
  });

  it('addEngineOption adds the flag', () => {
    const cmd = addEngineOption(new Command('x'));
    expect(cmd.options.map((o) => o.long)).toContain('--engine');
  });
});
