import { describe, expect, it } from 'vitest';
import { agent } from '../../src/aip/agent.ts';
import type { HostFns } from '../helpers/file-workspace.ts';
import { makeStageEnv } from '../helpers/stage-env.ts';

describe('aip.agent', () => {
  it('run hands the name and options to the runtime and returns its answer', () => {
    const calls: unknown[] = [];
    const env = makeStageEnv('/tmp/agent-ws', { runAgent: (name, options) => (calls.push([name, options]), { outputs: [1] }) });
    expect((agent(env) as HostFns).run('sub.aip', { inputs: ['a'] })).toEqual({ outputs: [1] });
    expect(calls).toEqual([['sub.aip', { inputs: ['a'] }]]);
  });

  it('extract_options keeps only the agent option keys that are set', () => {
    const a = agent(makeStageEnv('/tmp/agent-ws')) as HostFns;
    expect(a.extract_options({ model: 'm', temperature: 0.2, top_p: null, other: 1 })).toEqual({ model: 'm', temperature: 0.2 });
    expect(a.extract_options([])).toEqual({});
    expect(a.extract_options('x')).toBeUndefined();
  });
});
