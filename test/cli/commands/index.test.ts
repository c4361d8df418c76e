import { Command } from 'commander';
import { describe, expect, it } from 'vitest';
import { COMMANDS, loadCommands } from '../../../src/cli/commands/index.ts';

describe('the command registry', () => {
  it('each module registers the command it is listed under', async () => {
    for (const name of Object.keys(COMMANDS)) {
      const program = new Command();
      for (const register of await loadCommands([name])) register(program, () => {});
      expect(program.commands.map((c) => c.name())).toEqual([name]);
    }
  });

  it('loads all commands in --help order when none is named', async () => {
    const program = new Command();
    for (const register of await loadCommands()) register(program, () => {});
    expect(program.commands.map((c) => c.name())).toEqual(Object.keys(COMMANDS));
  });
});
