import { describe, expect, it } from 'vitest';
import { caseStage, caseTarget, chainRoot, configEvent } from '../../src/harness/case-target.ts';

describe('where a case runs', () => {
  it('caseStage: the case stage, else the first stage its config listens to, else pre', () => {
    expect(caseStage('post', { on: 'start' })).toBe('post');
    expect(caseStage(undefined, { on: 'end' })).toBe('post');
    expect(caseStage(undefined, undefined)).toBe('pre');
  });

  it('configEvent: the event the config sends in the stage, else one another sub-agent emits', () => {
    expect(configEvent({ on: ['start', 'end'] }, 'post')).toBe('end');
    expect(configEvent({ on: 'review::done' }, 'pre')).toBe('review::done');
    expect(configEvent(undefined, 'pre')).toBeUndefined();
  });

  it('caseTarget: an event form case runs where its event is dispatched; chainRoot names the root event of a stage', () => {
    expect(caseTarget({ on: 'end' })).toEqual({ stage: 'post', event: 'end' });
    expect(caseTarget({ on: 'x::y', during: 'end' })).toEqual({ stage: 'post', event: 'x::y' });
    expect(caseTarget({ stage: 'pre' }).stage).toBe('pre');
    expect([chainRoot('pre'), chainRoot('post')]).toEqual(['start', 'end']);
  });
});
