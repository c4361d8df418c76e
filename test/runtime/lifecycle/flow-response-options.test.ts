import { describe, expect, it } from 'vitest';
import { runAgentText, runFailure, stage } from '../../helpers/agent-text.ts';

describe('options of before_all_response / data_response', () => {
  it('must be a table; a list has no option keys', () => {
    expect(runFailure(stage('Before All', 'return aip.flow.before_all_response({ options = "fast" })'))).toContain(
      "aip.flow.before_all_response(arg) - 'arg.options' must be a table, got string",
    );
    expect(runFailure(stage('Data', 'return aip.flow.data_response({ options = 3 })'))).toContain("aip.flow.data_response(arg) - 'arg.options' must be a table, got number");
    const list = stage('Before All', 'return aip.flow.before_all_response({ options = { "x" } })') + stage('Output', 'return options.model');
    expect(runAgentText(list, { inputs: [1] }).outcome.outputs).toEqual(['sim-model']);
  });

  it('are read as AIPack reads agent options: a wrongly typed option is an error naming it', () => {
    expect(runFailure(stage('Before All', 'return aip.flow.before_all_response({ options = { input_concurrency = "two" } })'))).toMatch(/input_concurrency/);
  });
});
