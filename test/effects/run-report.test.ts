import { describe, expect, it } from 'vitest';
import { analyzeEffect } from '../../src/effects/effects.ts';
import { coderRunReport, describeEffect, failureReason, pinsOf } from '../../src/effects/run-report.ts';
import { Trace } from '../../src/aip/support/trace.ts';

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

describe('pinsOf (the coder\'s pins as AIPack lists them)', () => {
  const pin = (iden: string, content: unknown, priority?: number, depth = 0) =>
    ({ kind: 'pin', depth, agent: 'pro@coder', scope: 'run', iden, content, ...(priority !== undefined ? { priority } : {}) }) as const;

  it("gives AIPack's default label and content, replaces a pin saved again under its iden, and sorts by priority, pins without one last", () => {
    const t = new Trace();
    t.record(pin('late', 'no priority'));
    t.record(pin('prompt', { label: '     Prompt:', content: 'Fix it' }, 2));
    t.record(pin('warn', { content: 'careful' }, 1));
    t.record(pin('sub', 'a sub-agent\'s own pin', undefined, 1));
    t.record(pin('prompt', { label: '     Prompt:', content: 'Fix it\n\nFocus: auth' }, 2));
    t.record(pin('empty', {}));
    expect(pinsOf(t, 'pro@coder').map((p) => [p.label, p.content])).toEqual([
      ['Pin:', 'careful'],
      ['     Prompt:', 'Fix it\n\nFocus: auth'],
      ['Pin:', 'no priority'],
      ['Pin:', 'No Content'],
    ]);
  });

  it('keeps each redo run\'s pins apart', () => {
    const t = new Trace();
    t.record(pin('redo', 'first'));
    t.record({ kind: 'redo', depth: 0, agent: 'pro@coder', num: 1 });
    t.record(pin('redo', 'second'));
    expect(pinsOf(t, 'pro@coder').map((p) => [p.run, p.content])).toEqual([
      [0, 'first'],
      [1, 'second'],
    ]);
  });
});

describe('a parallel group step of `run`', () => {
  it('counts every member and the concurrency the pack gave, also when the group\'s run stopped before its tasks ended', () => {
    const t = new Trace();
    const member = (name: string) => ({ name, group: 1, concurrency: 2, input: { coder_stage: 'pre' } });
    t.record({ kind: 'agent_start', depth: 1, agent: 'pro@coder/parallel', file: 'parallel.aip', inputs: 3 });
    t.record({ kind: 'agent_call', depth: 1, caller: 'pro@coder/parallel', agent: 'ok.aip', ms: 1, inputs: [{}], outputs: [{}] });
    t.record({ kind: 'stage', depth: 1, agent: 'pro@coder/parallel', stage: 'Output', task: 1, ms: 1, instructions: 1 });
    t.record({ kind: 'agent_call', depth: 1, caller: 'pro@coder/parallel', agent: 'loop.aip', ms: 5, inputs: [{}], error: 'instruction budget exceeded in loop.aip Output' });
    t.record({ kind: 'stage', depth: 1, agent: 'pro@coder/parallel', stage: 'Output', task: 2, ms: 5, instructions: 1 });
    t.record({
      kind: 'agent_call', depth: 0, caller: 'pro@coder', agent: 'pro@coder/parallel', ms: 6,
      inputs: [member('ok.aip'), member('loop.aip'), member('ok.aip')], error: 'instruction budget exceeded in loop.aip Output',
    });
    const r = coderRunReport({ coderName: 'pro@coder', trace: t, files: { created: [], changed: [], deleted: [] } });
    const group = r.sub_agents[0]!.group!;
    expect(group.concurrency).toBe(2);
    expect(group.members.map((m) => [m.index, m.agent, m.error ?? 'ok'])).toEqual([
      [1, 'ok.aip', 'ok'],
      [2, 'loop.aip', 'instruction budget exceeded in loop.aip Output'],
      [3, 'ok.aip', "no result: the group's run stopped: instruction budget exceeded in loop.aip Output"],
    ]);
  });
});

describe('the auto-fix line of `run`', () => {
  it('names the files the built-in fixed and those still failing, never "no change"', () => {
    const input = { coder_params: {}, coder_prompts: ['x'], agent_config: { name: 'pro@coder/auto-fix', enabled: true, stages: ['post_task'] } };
    const fixed = analyzeEffect('post_task', input, { agent_result: { model: 'lite', fixed: ['src/a.ts'], failed: [{ path: 'src/b.ts', reason: 'x' }] } });
    expect(describeEffect(fixed)).toBe('fixed src/a.ts (lite); still failing: src/b.ts');
    const other = analyzeEffect('post_task', { ...input, agent_config: { name: 'my/x.aip', enabled: true, stages: ['post_task'] } }, { agent_result: { fixed: ['a'] } });
    expect(describeEffect(other)).toBe('no change');
  });
});
