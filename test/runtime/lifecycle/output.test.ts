import { describe, expect, it } from 'vitest';
import { ScriptedAi } from '../../../src/runtime/ai.ts';
import { runAgentText, runFailure, stage } from '../../helpers/agent-text.ts';

describe('# Output', () => {
  it('sees the AI answer; without an Output stage the task output is the answer content', () => {
    const ai = ScriptedAi.fromList([{ match: 'Say', content: 'said', reusable: true }]);
    const prompt = '# Instruction\n\nSay {{input}}\n\n';
    expect(runAgentText(prompt + stage('Output', 'return ai_response.content .. "!"'), { ai, inputs: ['x'] }).outcome.outputs).toEqual(['said!']);
    expect(runAgentText(prompt, { ai, inputs: ['x'] }).outcome.outputs).toEqual(['said']);
  });

  it('a skip returned by Output is the output itself from 0.8.17, null before', () => {
    const text = stage('Output', 'return aip.flow.skip("x")');
    expect(runAgentText(text, { inputs: [1], aipackVersion: '0.8.17' }).outcome.outputs).toEqual([{ _aipack_: { kind: 'Skip', data: { reason: 'x' } } }]);
    expect(runAgentText(text, { inputs: [1], aipackVersion: '0.8.16' }).outcome.outputs).toEqual([null]);
  });

  it('refuses the other directives', () => {
    expect(runFailure(stage('Output', 'return aip.flow.data_response({})'))).toContain("Aipack custom 'DataResponse' not supported at the Output stage");
  });
});
