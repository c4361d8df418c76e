import { describe, expect, it } from 'vitest';
import { analyzeEffect } from '../../src/effects/effects.ts';
import { describeEffect, failureReason } from '../../src/effects/run-report.ts';

describe('failureReason (the reason on a failed sub-agent line of `run`)', () => {
  it('drops what the line already says and joins a "Lua error:" heading with its message', () => {
    expect(
      failureReason("Sub-agent [my/a.aip] failed: Failed to run agent 'my/a.aip': Lua error:\nmy/a.aip:3: boom\nstack traceback:", 'my/a.aip'),
    ).toBe('Lua error: my/a.aip:3: boom');
    expect(failureReason('Sub-agent [x.aip] failed: no focus\nDetails: set focus', 'x.aip')).toBe('no focus');
    expect(failureReason('Sub-agent [x.aip] returned an invalid response: coder_prompts[2] must be a string, got number', 'x.aip')).toBe(
      'returned an invalid response: coder_prompts[2] must be a string, got number',
    );
  });

  it('keeps a message about another agent as it is', () => {
    expect(failureReason('Sub-agent [other.aip] failed: no', 'x.aip')).toBe('Sub-agent [other.aip] failed: no');
  });
});

describe('describeEffect (the effect line of a sub-agent in `run`)', () => {
  const config = (on: string) => ({ name: 'my/a.aip', enabled: true, on: [on] });
  const base = { coder_params: { model: 'm' }, coder_prompts: ['x'], coder_prompt: 'x', sub_agents_prev: [], sub_agents_next: [] };

  it('says what an event-form response asks of the pipeline: emitted events, agent_on, a redo', () => {
    const pre = analyzeEffect('pre', { ...base, event: 'start', agent_config: config('start') }, {
      coder_params: { context_globs: ['src/a.ts'] },
      emit_events: ['ctx::narrowed'],
      agent_on: ['start', 'end'],
    });
    expect(describeEffect(pre)).toBe('params +context_globs; emits ctx::narrowed; now listens to start, end (agent_on)');
    const post = analyzeEffect('post', { ...base, event: 'end', agent_config: config('end'), coder_responses: [] }, { coder_redo: true });
    expect(describeEffect(post)).toBe('asks for a new run (coder_redo)');
  });
});
