import { describe, expect, it } from 'vitest';
import { runAgentText, runFailure, stage } from '../../helpers/agent-text.ts';

const output = stage('Output', 'return { input = input, data = data, model = options.model }');

describe('# Data', () => {
  it('a skip drops one task only; its output is null', () => {
    const text = stage('Data', 'if input == "b" then return aip.flow.skip("no b") end\nreturn input') + output;
    const { outcome, sim } = runAgentText(text, { inputs: ['a', 'b'] });
    expect(outcome.outputs).toEqual([{ input: 'a', data: 'a', model: 'sim-model' }, null]);
    expect(sim.trace.of('stage').map((e) => `${e.stage}${e.task}`)).toEqual(['Data1', 'Output1', 'Data2']);
  });

  it('data_response replaces the input and data and merges options for its task only', () => {
    const text = stage('Data', 'if input == 1 then return aip.flow.data_response({ input = "one", data = 10, options = { model = "m1" } }) end\nreturn nil') + output;
    const { outcome } = runAgentText(text, { inputs: [1, 2] });
    // task 2: data is nil, so the key is absent from the Lua table
    expect(outcome.outputs).toEqual([{ input: 'one', data: 10, model: 'm1' }, { input: 2, model: 'sim-model' }]);
  });

  it('refuses a before_all_response, a redo and unknown keys', () => {
    expect(runFailure(stage('Data', 'return aip.flow.before_all_response({})'))).toContain("Aipack Custom 'BeforeAllResponse' is not supported at the Data stage");
    expect(runFailure(stage('Data', 'return aip.flow.data_response({ nope = 1 })'))).toContain('But also contained: nope');
    expect(runFailure(stage('Data', 'return aip.flow.redo_run()'), { aipackVersion: '0.8.22' })).toMatch(/redo/i);
  });
});
