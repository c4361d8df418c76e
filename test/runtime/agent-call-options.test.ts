import { describe, expect, it } from 'vitest';
import { parseRunAgentOptions } from '../../src/runtime/agent-call-options.ts';

const at = (version: string) => ({
  callerDir: '/ws/agents',
  workspaceDir: '/ws',
  since: (v: string) => v.split('.').map(Number).reduce((d, n, i) => d || Math.sign(Number(version.split('.')[i]) - n), 0) >= 0,
});

describe('parseRunAgentOptions', () => {
  it('puts input before inputs and resolves agent_base_dir against the workspace (0.8.15 on)', () => {
    expect(parseRunAgentOptions('a', { input: 'x', inputs: ['y', 'z'], agent_base_dir: 'sub' }, at('0.8.15'))).toEqual({
      inputs: ['x', 'y', 'z'],
      options: undefined,
      baseDir: '/ws/sub',
    });
  });

  it('ignores input and agent_base_dir before 0.8.15', () => {
    expect(parseRunAgentOptions('a', { input: 'x', inputs: ['y'], agent_base_dir: 'sub' }, at('0.8.14'))).toEqual({ inputs: ['y'], options: undefined, baseDir: '/ws/agents' });
  });

  it('reads agent options and refuses what AIPack refuses', () => {
    expect(parseRunAgentOptions('a', { options: { model: 'm', temperature: 0.5 } }, at('0.8.15')).options).toMatchObject({ model: 'm', temperature: 0.5 });
    expect(() => parseRunAgentOptions('a', 'x', at('0.8.15'))).toThrow('RunAgentOptions argument must be nil or a table { inputs?, options? }');
    expect(() => parseRunAgentOptions('a', { inputs: { k: 1 } }, at('0.8.15'))).toThrow("The 'inputs' field must be a Lua array");
    expect(() => parseRunAgentOptions('a', { options: 'fast' }, at('0.8.15'))).toThrow('aip.agent.run: Agent Options must be a table');
    expect(() => parseRunAgentOptions('a', { agent_base_dir: 3 }, at('0.8.15'))).toThrow('aip.agent.run: agent_base_dir must be a string, got number');
  });
});
