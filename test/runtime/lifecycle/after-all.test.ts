import { describe, expect, it } from 'vitest';
import { runAgentText, stage } from '../../helpers/agent-text.ts';

describe('# After All', () => {
  it('sees the inputs, the outputs in input order and before_all; its value is the run after_all', () => {
    const text = stage('Before All', 'return "B"') + stage('Output', 'return input * 2') + stage('After All', 'return { inputs = inputs, outputs = outputs, before_all = before_all }');
    expect(runAgentText(text, { inputs: [1, 2] }).outcome.afterAll).toEqual({ inputs: [1, 2], outputs: [2, 4], before_all: 'B' });
  });

  it('a redo directive asks for a new run', () => {
    const text = stage('After All', 'if CTX.RUN_FLOW_REDO_COUNT == nil or CTX.RUN_FLOW_REDO_COUNT < 1 then return aip.flow.redo_run() end\nreturn "done"');
    const { outcome } = runAgentText(text, { aipackVersion: '0.8.22' });
    expect(outcome.redos).toBe(1);
    expect(outcome.afterAll).toBe('done');
  });

  it('without an After All stage the after_all is absent', () => {
    expect(runAgentText(stage('Output', 'return 1'), { inputs: [1] }).outcome).toMatchObject({ outputs: [1], afterAll: undefined });
  });
});
