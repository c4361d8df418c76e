import { describe, expect, it } from 'vitest';
import { prepareAgent } from '../../src/harness/agent-discovery.ts';
import { CaseFileError } from '../../src/harness/case-file.ts';
import { runStage } from '../../src/harness/run-stage.ts';
import { checkStageRequest, targetOf } from '../../src/harness/stage-request.ts';
import { AGENTS } from './helpers.ts';

const at = (agent: string) => ({ agent, baseDir: AGENTS });

describe('checkStageRequest', () => {
  it('rejects a bad request with a CaseFileError naming the key', () => {
    expect(() => checkStageRequest({ ...at('prompt-refiner.aip'), task: { num: 1 } })).toThrow(/^runStage: task: only used in stage pre_task/);
    expect(() => checkStageRequest({ ...at('prompt-refiner.aip'), stage: 'later' as never })).toThrow(/^runStage: stage: /);
    expect(() => checkStageRequest({ ...at('prompt-refiner.aip'), promt: 'x' } as never)).toThrow(/^runStage: unknown key 'promt' \(did you mean 'prompt'\?\)/);
    expect(() => checkStageRequest({ agent: '' })).toThrow(CaseFileError);
    expect(() => checkStageRequest({ ...at('prompt-refiner.aip'), prompt: 'x' })).not.toThrow();
  });

  it('a request mixing on and stage is refused naming the key', () => {
    expect(() => checkStageRequest({ agent: 'x.aip', on: 'start', stage: 'pre' })).toThrow('runStage: on: give on (the event form) or stage (the stage form), not both');
  });

  it('runStage checks the request first, then finds the agent', () => {
    expect(() => runStage({ ...at('nope.aip') })).toThrow(/^runStage: agent: 'nope\.aip' not found/);
    expect(() => runStage({ ...at('prompt-refiner.aip'), task: { num: 1 } })).toThrow(/^runStage: task: only used in stage pre_task/);
    expect(() => runStage({ ...at('prompt-refiner.aip'), config: { name: 'x' } })).toThrow(CaseFileError);
    expect(() => runStage({ ...at('prompt-refiner.aip'), stage: 'later' as never })).toThrow(/^runStage: stage: /);
    expect(() => runStage({ ...at('prompt-refiner.aip'), promt: 'x' } as never)).toThrow(/^runStage: unknown key 'promt' \(did you mean 'prompt'\?\)/);
    expect(() => runStage({ ...at('acme@tools/shout') })).toThrow(/^runStage: agent: 'acme@tools\/shout' not found: No aipack matches for acme@tools/);
  });
});

describe('targetOf: where a case runs', () => {
  const agent = prepareAgent('prompt-refiner.aip', AGENTS);

  it('the case stage (default pre), or the stage of its event', () => {
    expect(targetOf(agent, {})).toEqual({ stage: 'pre' });
    expect(targetOf(agent, { stage: 'post' })).toEqual({ stage: 'post' });
    expect(targetOf(agent, { on: 'end' })).toEqual({ stage: 'post', event: 'end' });
  });

  it('a config on must run the agent in the case stage', () => {
    expect(targetOf(agent, { stage: 'pre', config: { on: ['start'] } })).toEqual({ stage: 'pre', event: 'start' });
    expect(() => targetOf(agent, { stage: 'post', config: { on: ['start'] } })).toThrow(/^config\.on \["start"\] runs the agent in pre, not in the case's stage post$/);
  });
});
