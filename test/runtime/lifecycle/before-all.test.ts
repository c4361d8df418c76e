import { describe, expect, it } from 'vitest';
import { runAgentText, runFailure, stage } from '../../helpers/agent-text.ts';

const data = stage('Data', 'return { input = input, before_all = before_all, model = options.model }');
const afterAll = stage('After All', 'return outputs');

describe('# Before All', () => {
  it('before_all_response replaces the inputs, sets before_all and merges the options', () => {
    const text = stage('Before All', 'return aip.flow.before_all_response({ inputs = { "x", "y" }, before_all = { n = #inputs }, options = { model = "m2" } })') + data + stage('Output', 'return data') + afterAll;
    const { outcome } = runAgentText(text, { inputs: ['a'] });
    expect(outcome.outputs).toEqual([
      { input: 'x', before_all: { n: 1 }, model: 'm2' },
      { input: 'y', before_all: { n: 1 }, model: 'm2' },
    ]);
  });

  it('a plain return value is before_all, the inputs are kept', () => {
    const { outcome } = runAgentText(stage('Before All', 'return "ctx"') + data + stage('Output', 'return data'), { inputs: ['a'] });
    expect(outcome.outputs).toEqual([{ input: 'a', before_all: 'ctx', model: 'sim-model' }]);
  });

  it('a skip runs no task and no After All and gives the reason', () => {
    const { outcome, sim } = runAgentText(stage('Before All', 'return aip.flow.skip("nothing")') + data + afterAll, { inputs: ['a'] });
    expect(outcome.skipped).toBe('nothing');
    expect(outcome.afterAll).toBeUndefined();
    expect(sim.trace.of('stage').map((e) => e.stage)).toEqual(['BeforeAll']);
  });

  it('refuses a data_response, unknown keys and inputs that are not a list, with AIPack wording', () => {
    expect(runFailure(stage('Before All', 'return aip.flow.data_response({})'))).toContain("Aipack custom 'DataResponse' not supported at the Before All stage");
    expect(runFailure(stage('Before All', 'return aip.flow.before_all_response({ inputs = "x" })'))).toContain("'arg.inputs' must be a list, got string");
    expect(runFailure(stage('Before All', 'return aip.flow.before_all_response({ extra = 1 })'))).toContain('But also contained: extra');
  });
});
