import { describe, expect, it } from 'vitest';
import { analyzeEffect, effectWarnings } from '../../src/effects/effects.ts';
import { luaEqual } from '../../src/contract/index.ts';

/** A sub-agent input table as the pipeline builds it (pack/SUB_AGENTS.md section 2). */
function input(stage: string, extra: Record<string, unknown> = {}) {
  return {
    coder_stage: stage,
    coder_prompt_dir: '/ws/.aipack/.prompt/pro@coder',
    coder_params: { model: 'flash', write_mode: true, context_globs: ['src/**'], knowledge_globs: [], structure_globs: [] },
    coder_prompts: ['Fix the login form'],
    coder_prompt: 'Fix the login form',
    agent_config: { name: 'agents/refiner.aip', enabled: true, stages: [stage] },
    sub_agents_prev: [],
    sub_agents_next: [],
    ...extra,
  };
}

describe('analyzeEffect', () => {
  it('a nil response changes nothing and has no error', () => {
    const e = analyzeEffect('pre', input('pre'), undefined);
    expect(e.response).toBe('nil');
    expect(e.error).toBeUndefined();
    expect(e.changed).toBe(false);
    expect(e.params).toMatchObject({ replaced: false, added: [], changed: [], removed: [] });
    expect(e.params.after).toEqual(input('pre').coder_params);
    expect(e.prompts).toEqual({ replaced: false, changed: false, before: ['Fix the login form'], after: ['Fix the login form'] });
    expect(effectWarnings(e)).toEqual([]);
  });

  it('pre: reports params keys added, changed and removed, and the new prompts', () => {
    const res = {
      coder_params: { model: 'pro', write_mode: true, context_globs: ['src/**'], temperature: 0 },
      coder_prompts: ['Fix the login form', 'Focus: auth'],
    };
    const e = analyzeEffect('pre', input('pre'), res);
    expect(e.params.replaced).toBe(true);
    expect(e.params.added).toEqual(['temperature']);
    expect(e.params.changed).toEqual(['model']);
    expect(e.params.removed).toEqual(['knowledge_globs', 'structure_globs']);
    expect(e.prompts).toMatchObject({ replaced: true, changed: true, after: ['Fix the login form', 'Focus: auth'] });
    expect(e.changed).toBe(true);
    // dropping the empty glob defaults is not worth a warning
    expect(effectWarnings(e)).toEqual([]);
  });

  it('warns about dropped params keys, naming them', () => {
    const e = analyzeEffect('pre_task', input('pre_task', { coder_task: { num: 1, count: 1, working_files: [] } }), { coder_params: { model: 'flash' } });
    expect(e.params.removed).toEqual(['context_globs', 'knowledge_globs', 'structure_globs', 'write_mode']);
    const w = effectWarnings(e);
    expect(w).toHaveLength(1);
    expect(w[0]).toMatch(/^coder_params drops context_globs, write_mode: /);
  });

  it('coder_prompt stands for a one-item coder_prompts; the same prompts are a replacement without change', () => {
    expect(analyzeEffect('pre', input('pre'), { coder_prompt: 'New' }).prompts.after).toEqual(['New']);
    const same = analyzeEffect('pre', input('pre'), { coder_prompts: ['Fix the login form'] });
    expect(same.prompts).toMatchObject({ replaced: true, changed: false });
    expect(same.changed).toBe(false);
  });

  it('an empty list and an empty table are the same params value', () => {
    const e = analyzeEffect('pre', input('pre'), {
      coder_params: { model: 'flash', write_mode: true, context_globs: ['src/**'], knowledge_globs: {}, structure_globs: [] },
    });
    expect(e.params.changed).toEqual([]);
    expect(e.changed).toBe(false);
  });

  it('post_task: coder_response replaces the answer; params and prompts are ignored there', () => {
    const inp = input('post_task', {
      coder_task: { num: 1, count: 1, working_files: [] },
      coder_response: { content: 'old answer', model_name: 'm', usage: {} },
    });
    const e = analyzeEffect('post_task', inp, { coder_response: { content: 'new answer' }, coder_params: {}, coder_prompt: 'x' });
    expect(e.coderResponse).toEqual({ replaced: true, before: 'old answer', after: 'new answer' });
    expect(e.params.replaced).toBe(false);
    expect(e.prompts.replaced).toBe(false);
    expect(e.ignored).toEqual(['coder_params', 'coder_prompt']);
    expect(effectWarnings(e)).toEqual(['post_task ignores coder_params, coder_prompt']);
  });

  it('post ignores everything but agent_result and sub_agents_next', () => {
    const e = analyzeEffect('post', input('post', { coder_responses: [] }), { coder_prompts: ['x'], agent_result: { n: 1 } });
    expect(e.changed).toBe(false);
    expect(e.agentResult).toEqual({ n: 1 });
    expect(e.ignored).toEqual(['coder_prompts']);
  });

  it('reports an invalid response with the contract message naming the agent', () => {
    const e = analyzeEffect('pre', input('pre'), { coder_prompts: ['a', 2] });
    expect(e.error).toBe('Sub-agent [agents/refiner.aip] returned an invalid response: coder_prompts[2] must be a string, got number');
    expect(e.prompts.replaced).toBe(false);
    expect(analyzeEffect('pre', input('pre'), 'text').error).toBe(
      'Sub-agent [agents/refiner.aip] returned an invalid response: response must be a table, got string',
    );
    expect(analyzeEffect('pre', input('pre'), 'text').response).toBe('invalid');
    expect(analyzeEffect('pre', input('pre'), { coder_prompt: 'a', coder_prompts: ['b'] }).error).toMatch(/cannot both be given/);
  });

  it('reports success = false and error_msg as failures, with details', () => {
    expect(analyzeEffect('pre', input('pre'), { success: false }).error).toBe('Sub-agent [agents/refiner.aip] failed: no error_msg given');
    expect(analyzeEffect('pre', input('pre'), { error_msg: 'boom', error_details: 'why' }).error).toBe(
      'Sub-agent [agents/refiner.aip] failed: boom\nDetails: why',
    );
    const raised = analyzeEffect('pre', input('pre'), undefined, { raised: "Failed to find agent 'x'" });
    expect(raised.error).toBe("Sub-agent [agents/refiner.aip] failed: Failed to find agent 'x'");
  });

  it('lists unknown keys with a suggestion, sub_agents in params, and sub_agents_next', () => {
    const e = analyzeEffect('pre', input('pre'), {
      coder_params: { ...input('pre').coder_params, sub_agents: ['x.aip'] },
      coder_promt: 'typo',
      whatever: 1,
      sub_agents_next: ['y.aip'],
    });
    expect(e.unknownKeys).toEqual([{ key: 'coder_promt', suggestion: 'coder_prompt' }, { key: 'whatever' }]);
    expect(e.subAgentsInParams).toBe(true);
    expect(e.subAgentsNext).toBe(true);
    expect(e.params.after).not.toHaveProperty('sub_agents');
    expect(e.params.added).toEqual([]);
    expect(effectWarnings(e)).toEqual([
      "unknown response key 'coder_promt' (did you mean 'coder_prompt'?): it is ignored",
      "unknown response key 'whatever': it is ignored",
      'coder_params contains sub_agents: it is removed before use (a sub-agent changes the pipeline with sub_agents_next)',
    ]);
  });
});

describe('luaEqual', () => {
  it('compares as Lua tables', () => {
    expect(luaEqual([], {})).toBe(true);
    expect(luaEqual({ a: [] }, { a: {} })).toBe(true);
    expect(luaEqual(['a', 'b'], { 1: 'a', 2: 'b' })).toBe(true);
    expect(luaEqual({ a: 1, b: undefined }, { a: 1 })).toBe(true);
    expect(luaEqual(['a'], ['a', 'b'])).toBe(false);
    expect(luaEqual({ a: 1 }, { a: '1' })).toBe(false);
    expect(luaEqual(null, undefined)).toBe(false);
  });
});

describe('analyzeEffect in the event form (upstream pro@coder\'s rules: the entry gives on)', () => {
  const eventInput = (stage: 'pre' | 'post') => input(stage, { event: stage === 'pre' ? 'start' : 'end', agent_config: { name: 'agents/up.aip', enabled: true, on: [stage === 'pre' ? 'start' : 'end'] } });

  it('pre: a partial coder_params is merged (keys it omits stay), auto_context/chat/sub_agents are dropped, no warning', () => {
    const e = analyzeEffect('pre', eventInput('pre'), { coder_params: { context_globs: ['src/auth/**'], temperature: 0, chat: true } });
    expect(e.form).toBe('event');
    expect(e.params).toMatchObject({ replaced: true, added: ['temperature'], changed: ['context_globs'], removed: [] });
    expect(e.params.after).toMatchObject({ model: 'flash', write_mode: true, context_globs: ['src/auth/**'], temperature: 0 });
    expect(e.params.after).not.toHaveProperty('chat');
    expect(effectWarnings(e)).toEqual([]);
  });

  it('post: coder_params and coder_prompt are merged into what the later end agents receive, as upstream; emit_events and coder_redo are known fields', () => {
    const e = analyzeEffect('post', eventInput('post'), { coder_params: { model: 'pro' }, coder_prompt: 'p2', emit_events: ['review::done'], coder_redo: true });
    expect(e.params).toMatchObject({ replaced: true, changed: ['model'], removed: [] });
    expect(e.prompts).toMatchObject({ replaced: true, after: ['p2'] });
    expect(e.ignored).toEqual([]);
    expect(e.unknownKeys).toEqual([]);
    // the stage form still ignores them at post
    expect(analyzeEffect('post', input('post'), { coder_params: { model: 'pro' } }).params.replaced).toBe(false);
  });

  it('reads emit_events as upstream does: a string is ignored (the pack warns), empty names are dropped', () => {
    expect(analyzeEffect('pre', eventInput('pre'), { emit_events: 'ctx::x' })).toMatchObject({ emits: [], response: 'table' });
    expect(analyzeEffect('pre', eventInput('pre'), { emit_events: 'ctx::x' }).error).toBeUndefined();
    expect(analyzeEffect('pre', eventInput('pre'), { emit_events: ['', 'ctx::x'] }).emits).toEqual(['ctx::x']);
  });

  it('records the events a response emits, the entry\'s new agent_on and a redo request, where the stage uses them', () => {
    const pre = analyzeEffect('pre', eventInput('pre'), { emit_events: ['ctx::narrowed', 'ctx::done'], agent_on: 'end' });
    expect(pre).toMatchObject({ emits: ['ctx::narrowed', 'ctx::done'], agentOn: ['end'], redo: false });
    const post = analyzeEffect('post', eventInput('post'), { emit_events: ['review::done'], coder_redo: true, agent_on: 'start' });
    // agent_on is a pre-only field: ignored at post, so not reported as taking effect
    expect(post).toMatchObject({ emits: ['review::done'], redo: true, ignored: ['agent_on'] });
    expect(post.agentOn).toBeUndefined();
    // the stage form has none of them
    expect(analyzeEffect('pre', input('pre'), { emit_events: ['x::y'] })).toMatchObject({ emits: [], redo: false });
  });
});

describe('an event-form response that is not a table', () => {
  it('gets the one message the pack gives (upstream wording), not the stage form one', () => {
    const input = { coder_params: {}, coder_prompts: ['x'], agent_config: { name: 'a.aip', enabled: true, on: ['start'] } };
    expect(analyzeEffect('pre', input, 'hello').error).toBe('Sub-agent [a.aip] failed: invalid response type, expected table or nil');
    expect(analyzeEffect('pre', input, { success: false }).error).toBe('Sub-agent [a.aip] failed: Unknown error');
    const stageForm = { ...input, agent_config: { name: 'a.aip', enabled: true, stages: ['pre'] } };
    expect(analyzeEffect('pre', stageForm, 'hello').error).toBe('Sub-agent [a.aip] returned an invalid response: response must be a table, got string');
  });
});
