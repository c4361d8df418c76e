import { describe, expect, it } from 'vitest';
import { cmd } from '../../src/aip/cmd.ts';
import { ScriptedCommands, ScriptedWeb } from '../../src/aip/support/scripted-io.ts';
import type { HostFns } from '../helpers/file-workspace.ts';
import { makeStageEnv, type StageEnvOverrides } from '../helpers/stage-env.ts';

function exec(entries: unknown[], overrides: StageEnvOverrides = {}) {
  const base = makeStageEnv('/tmp/cmd-ws', overrides);
  const env = { ...base, scripted: { commands: new ScriptedCommands(entries, 'answers.toml'), web: new ScriptedWeb([], 'answers.toml') } };
  return { c: cmd(env) as HostFns, env };
}

describe('aip.cmd.exec', () => {
  it('answers from the first scripted entry matching the command line, and notes the call', () => {
    const { c, env } = exec([{ match: '^npm test', stdout: 'ok', exit: 0 }]);
    expect(c.exec('npm', ['test', 3])).toEqual({ stdout: 'ok', stderr: '', exit: 0 });
    expect(env.trace.of('note')).toMatchObject([{ topic: 'cmd', data: { line: 'npm test 3', exit: 0 } }]);
  });

  it('an unmatched command is an error naming the line; nothing runs on the host', () => {
    const { c } = exec([]);
    expect(() => c.exec('ls', '-la')).toThrow(/^Fail to execute: ls -la\nCause:\nno scripted command for ls -la\n/);
  });

  it('refuses bad argument types with the conversion error', () => {
    const { c } = exec([]);
    expect(() => c.exec(1)).toThrow('aip.cmd.exec - cmd_name must be a string, got number');
    expect(() => c.exec('x', [true])).toThrow('error converting Lua table to Vec<String> (command args - Table contains non-string values)');
  });

  it('from 0.8.33, a cwd option must be a directory', () => {
    const { c } = exec([{ match: '.' }], { aipackVersion: '0.8.33' });
    expect(() => c.exec('make', [], { cwd: 'nowhere' })).toThrow(/^Fail to execute: make \nWorking directory: \/tmp\/cmd-ws\/nowhere\nCause:\nNo such file or directory/);
  });
});
