import { describe, expect, it } from 'vitest';
import {
  AgentConfigSchema,
  ResponseSchema,
  checkResponse,
  ignoredFields,
  normalizeEntry,
  normalizeList,
  relaxEntries,
  relaxResponse,
  type SubAgentStage,
} from '../../src/contract/index.ts';

const msgOf = (r: { ok: boolean; message?: string }) => (r.ok ? undefined : r.message);

describe('normalizeEntry (section 1)', () => {
  it('a non-empty string becomes { name, enabled = true, stages = {"pre"} }', () => {
    expect(normalizeEntry('my-agents/a.aip', 'sub_agents[1]')).toEqual({
      ok: true,
      config: { name: 'my-agents/a.aip', enabled: true, stages: ['pre'] },
    });
  });

  it('a table is copied with defaults filled and other keys kept', () => {
    const entry = { name: 'pro@coder/agent-selector', stages: ['pre', 'post_task'], some_prop: 'value' };
    const r = normalizeEntry(entry, 'sub_agents[2]');
    expect(r).toEqual({
      ok: true,
      config: { name: 'pro@coder/agent-selector', enabled: true, stages: ['pre', 'post_task'], some_prop: 'value' },
    });
    // a new table: the entry is untouched, and the stages list is a copy
    expect(entry).toEqual({ name: 'pro@coder/agent-selector', stages: ['pre', 'post_task'], some_prop: 'value' });
    if (r.ok) expect(r.config.stages).not.toBe(entry.stages);
  });

  it('keeps enabled = false and options', () => {
    const r = normalizeEntry({ name: 'r.aip', enabled: false, options: { model: 'cheap' } }, 'sub_agents[3]');
    expect(r).toEqual({ ok: true, config: { name: 'r.aip', enabled: false, stages: ['pre'], options: { model: 'cheap' } } });
  });

  it('stages given as one string becomes a one-item list', () => {
    const r = normalizeEntry({ name: 'a', stages: 'post' }, 'x');
    expect(r.ok && r.config.stages).toEqual(['post']);
  });

  it('an empty table as options is an empty table', () => {
    const r = normalizeEntry({ name: 'a', options: [] }, 'x');
    expect(r.ok && r.config.options).toEqual({});
  });

  it('the result satisfies AgentConfigSchema', () => {
    const r = normalizeEntry({ name: 'a', stages: 'pre_task', extra: [1, 2] }, 'x');
    expect(r.ok).toBe(true);
    if (r.ok) expect(AgentConfigSchema.parse(r.config)).toEqual(r.config);
  });

  it.each([
    [42, 'sub_agents[3]: must be an agent name or a table, got number'],
    [true, 'sub_agents[3]: must be an agent name or a table, got boolean'],
    [null, 'sub_agents[3]: must be an agent name or a table, got null'],
    [undefined, 'sub_agents[3]: must be an agent name or a table, got nil'],
    ['', 'sub_agents[3]: name must be a non-empty string, got empty string'],
    [{}, 'sub_agents[3]: name must be a non-empty string, got nil'],
    [[], 'sub_agents[3]: name must be a non-empty string, got nil'],
    [['a.aip'], 'sub_agents[3]: name must be a non-empty string, got nil'],
    [{ name: '' }, 'sub_agents[3]: name must be a non-empty string, got empty string'],
    [{ name: 7 }, 'sub_agents[3]: name must be a non-empty string, got number'],
    [{ name: null }, 'sub_agents[3]: name must be a non-empty string, got null'],
    [{ name: 'a', enabled: 'yes' }, 'sub_agents[3]: enabled must be a boolean, got string'],
    [{ name: 'a', enabled: null }, 'sub_agents[3]: enabled must be a boolean, got null'],
    [{ name: 'a', stages: [] }, 'sub_agents[3]: stages must not be empty'],
    [{ name: 'a', stages: {} }, 'sub_agents[3]: stages must not be empty'],
    [{ name: 'a', stages: 'later' }, 'sub_agents[3]: stages must be one of pre, pre_task, post_task, post, got "later"'],
    [{ name: 'a', stages: ['pre', 'Post'] }, 'sub_agents[3]: stages[2] must be one of pre, pre_task, post_task, post, got "Post"'],
    [{ name: 'a', stages: ['pre', 1] }, 'sub_agents[3]: stages[2] must be one of pre, pre_task, post_task, post, got number'],
    [{ name: 'a', stages: 3 }, 'sub_agents[3]: stages must be a stage or a list of stages, got number'],
    [{ name: 'a', stages: { pre: true } }, 'sub_agents[3]: stages must be a stage or a list of stages, got table (not a list)'],
    [{ name: 'a', stages: ['pre', undefined, 'post'] }, 'sub_agents[3]: stages must be a stage or a list of stages, got table (not a list)'],
    [{ name: 'a', options: 'cheap' }, 'sub_agents[3]: options must be a table, got string'],
    [{ name: 'a', options: null }, 'sub_agents[3]: options must be a table, got null'],
  ])('rejects %j', (entry, message) => {
    expect(msgOf(normalizeEntry(entry, 'sub_agents[3]'))).toBe(message);
  });

  it('checks fields in order name, enabled, stages, options', () => {
    expect(msgOf(normalizeEntry({ enabled: 1, stages: 2, options: 3 }, 'e'))).toBe(
      'e: name must be a non-empty string, got nil',
    );
    expect(msgOf(normalizeEntry({ name: 'a', enabled: 1, stages: 2, options: 3 }, 'e'))).toBe(
      'e: enabled must be a boolean, got number',
    );
    expect(msgOf(normalizeEntry({ name: 'a', stages: 2, options: 3 }, 'e'))).toBe(
      'e: stages must be a stage or a list of stages, got number',
    );
  });
});

describe('normalizeList (section 1)', () => {
  it('absent, null or empty: no sub-agents', () => {
    for (const v of [undefined, null, [], {}]) expect(normalizeList(v)).toEqual({ ok: true, configs: [] });
  });

  it('normalises every entry, in order', () => {
    const r = normalizeList([
      'my-agents/context-builder.aip',
      { name: 'pro@coder/agent-selector', stages: ['pre', 'post_task'], some_prop: 'value' },
      { name: 'my-agents/reviewer.aip', enabled: false, options: { model: 'cheap' } },
    ]);
    expect(r).toEqual({
      ok: true,
      configs: [
        { name: 'my-agents/context-builder.aip', enabled: true, stages: ['pre'] },
        { name: 'pro@coder/agent-selector', enabled: true, stages: ['pre', 'post_task'], some_prop: 'value' },
        { name: 'my-agents/reviewer.aip', enabled: false, stages: ['pre'], options: { model: 'cheap' } },
      ],
    });
  });

  it.each([['a.aip'], [3], [true], [{ name: 'a.aip' }], [['a', undefined, 'b']]])('rejects %j as not a list', (v) => {
    expect(msgOf(normalizeList(v))).toBe('sub_agents must be a list of agent names or tables');
  });

  it('names the failing entry by its 1-based index, with the label', () => {
    expect(msgOf(normalizeList(['a', 'b', { name: 'c', enabled: 'no' }]))).toBe(
      'sub_agents[3]: enabled must be a boolean, got string',
    );
    expect(msgOf(normalizeList('x', 'sub_agents_next'))).toBe('sub_agents_next must be a list of agent names or tables');
    expect(msgOf(normalizeList([1], 'sub_agents_next'))).toBe(
      'sub_agents_next[1]: must be an agent name or a table, got number',
    );
  });
});

describe('checkResponse (section 3)', () => {
  it('accepts nil and valid responses', () => {
    expect(checkResponse('pre', undefined)).toBeUndefined();
    expect(checkResponse('pre', {})).toBeUndefined();
    expect(checkResponse('pre', [])).toBeUndefined();
    expect(
      checkResponse('pre', {
        success: true,
        coder_params: { context_globs: ['a'] },
        coder_prompts: ['one', 'two'],
        agent_result: { anything: [1, null] },
        sub_agents_next: ['x.aip', { name: 'y.aip', stages: 'pre' }],
        unknown_field: 1,
      }),
    ).toBeUndefined();
    expect(checkResponse('post_task', { coder_response: { content: 'new', extra: 1 } })).toBeUndefined();
    expect(checkResponse('pre', { error_msg: 'boom', error_details: 'why', success: false })).toBeUndefined();
    expect(checkResponse('pre', { coder_params: [] })).toBeUndefined(); // an empty table
    expect(checkResponse('pre', { coder_prompts: {} })).toBeUndefined(); // an empty list
    expect(checkResponse('pre', { sub_agents_next: null })).toBeUndefined();
  });

  it.each<[SubAgentStage, unknown, string]>([
    ['pre', 'text', 'response must be a table, got string'],
    ['pre', 3, 'response must be a table, got number'],
    ['pre', null, 'response must be a table, got null'],
    ['pre', true, 'response must be a table, got boolean'],
    ['pre', { success: 'no' }, 'success must be a boolean, got string'],
    ['pre', { error_msg: 12 }, 'error_msg must be a string, got number'],
    ['pre', { error_details: {} }, 'error_details must be a string, got table'],
    ['pre', { coder_params: 'x' }, 'coder_params must be a table, got string'],
    ['pre', { coder_prompts: 'x' }, 'coder_prompts must be a list of strings, got string'],
    ['pre', { coder_prompts: ['a', 2] }, 'coder_prompts[2] must be a string, got number'],
    ['pre', { coder_prompts: ['a', null] }, 'coder_prompts[2] must be a string, got null'],
    ['pre', { coder_prompts: ['a', undefined, 'c'] }, 'coder_prompts must be a list of strings, got table (not a list)'],
    ['pre', { coder_prompts: { a: 'x' } }, 'coder_prompts must be a list of strings, got table (not a list)'],
    ['pre_task', { coder_prompt: ['x'] }, 'coder_prompt must be a string, got table'],
    ['pre', { coder_prompts: ['a'], coder_prompt: 'b' }, 'coder_prompts and coder_prompt cannot both be given'],
    ['post_task', { coder_response: 'x' }, 'coder_response must be a table, got string'],
    ['post_task', { coder_response: {} }, 'coder_response.content must be a string, got nil'],
    ['post_task', { coder_response: { content: 1 } }, 'coder_response.content must be a string, got number'],
    ['post', { sub_agents_next: 'x' }, 'sub_agents_next must be a list of agent names or tables'],
    ['post', { sub_agents_next: [{}] }, 'sub_agents_next[1]: name must be a non-empty string, got nil'],
    ['pre_task', { sub_agents_next: ['a', { name: 'b', stages: 'x' }] }, 'sub_agents_next[2]: stages must be one of pre, pre_task, post_task, post, got "x"'],
  ])('%s: %j -> %s', (stage, value, message) => {
    expect(checkResponse(stage, value)).toBe(message);
  });

  it('reports the first wrong field in schema order', () => {
    expect(checkResponse('pre', { coder_prompts: 1, success: 1 })).toBe('success must be a boolean, got number');
  });

  it('does not check fields the stage ignores', () => {
    expect(checkResponse('post', { coder_params: 1, coder_prompts: 2, coder_prompt: 3, coder_response: 4 })).toBeUndefined();
    expect(checkResponse('post_task', { coder_prompts: ['a'], coder_prompt: 'b' })).toBeUndefined();
    expect(checkResponse('pre', { coder_response: 5 })).toBeUndefined();
  });

  it('agrees with ResponseSchema on plain valid data', () => {
    const r = { success: true, coder_params: { a: 1 }, coder_prompts: ['x'], sub_agents_next: ['a'] };
    expect(checkResponse('pre', r)).toBeUndefined();
    expect(ResponseSchema.safeParse(r).success).toBe(true);
  });
});

describe('ignoredFields (section 3)', () => {
  const all = {
    success: true,
    coder_params: { working_globs: ['x'], input_concurrency: 2, sub_agents: [], model: 'm' },
    coder_prompts: ['a'],
    coder_prompt: 'b',
    coder_response: { content: 'c' },
    agent_result: 1,
    sub_agents_next: [],
  };
  it('lists what each stage ignores, sorted', () => {
    expect(ignoredFields('pre', all)).toEqual(['coder_params.sub_agents', 'coder_response']);
    expect(ignoredFields('pre_task', all)).toEqual([
      'coder_params.input_concurrency',
      'coder_params.sub_agents',
      'coder_params.working_globs',
      'coder_response',
    ]);
    expect(ignoredFields('post_task', all)).toEqual(['coder_params', 'coder_prompt', 'coder_prompts']);
    expect(ignoredFields('post', all)).toEqual(['coder_params', 'coder_prompt', 'coder_prompts', 'coder_response']);
  });
  it('lists only fields present', () => {
    expect(ignoredFields('post', { coder_prompt: 'x', agent_result: 1 })).toEqual(['coder_prompt']);
    expect(ignoredFields('post', {})).toEqual([]);
    expect(ignoredFields('post', undefined)).toEqual([]);
    expect(ignoredFields('post', 'x')).toEqual([]);
    expect(ignoredFields('post_task', { coder_response: { content: 'x' } })).toEqual([]);
  });

  it('does not report a run-level key handed back unchanged (a pre_task agent returning the params it got)', () => {
    const given = { coder_params: { working_globs: ['src/*.ts'], model: 'a' } };
    expect(ignoredFields('pre_task', { coder_params: { working_globs: ['src/*.ts'], model: 'b' } }, given)).toEqual([]);
    expect(ignoredFields('pre_task', { coder_params: { working_globs: ['lib/*.ts'] } }, given)).toEqual(['coder_params.working_globs']);
    expect(ignoredFields('pre_task', { coder_params: { input_concurrency: 4 } }, given)).toEqual(['coder_params.input_concurrency']);
  });
});

describe('null fields (AIPack null sentinel)', () => {
  it('a response field set to null counts as not given, as nil does', () => {
    expect(checkResponse('pre', { error_msg: null, agent_result: 'x' })).toBeUndefined();
    expect(checkResponse('pre', { coder_prompts: null, coder_prompt: 'x' })).toBeUndefined();
    expect(ignoredFields('post', { coder_params: null })).toEqual([]);
  });
});

describe('lax forms upstream accepts: read as upstream reads them, each with its warning', () => {
  it('on = [] listens to start, an empty event name is dropped; other entries are left as they are', () => {
    const list = ['a.aip', { name: 'b.aip', on: [] }, { name: 'c.aip', on: ['', 'end'] }, { name: 'd.aip', on: ['end'] }];
    const r = relaxEntries(list);
    expect(r.value).toEqual(['a.aip', { name: 'b.aip', on: ['start'] }, { name: 'c.aip', on: ['end'] }, { name: 'd.aip', on: ['end'] }]);
    expect(r.warnings).toEqual([
      'sub_agents[2] (b.aip): on = [] lists no event; upstream pro@coder runs it at start, and so does this pack (write on = "start")',
      'sub_agents[3] (c.aip): on lists an empty event name; upstream pro@coder drops it, and so does this pack (write on = { "end" })',
    ]);
    expect(normalizeList(r.value).ok).toBe(true);
    // without the relaxing the strict contract refuses them, and a list without lax entries is the same list
    expect(normalizeList(list).ok).toBe(false);
    expect(relaxEntries(['a.aip'])).toEqual({ value: ['a.aip'], warnings: [] });
  });

  it('emit_events given as a string is ignored and empty names are dropped; a valid answer is the same table', () => {
    expect(relaxResponse({ emit_events: 'ns::x', agent_result: 1 })).toEqual({ agent_result: 1 });
    expect(relaxResponse({ emit_events: ['', 'ns::x'] })).toEqual({ emit_events: ['ns::x'] });
    const ok = { emit_events: ['ns::x'] };
    expect(relaxResponse(ok)).toBe(ok);
    expect(checkResponse('pre', relaxResponse({ emit_events: 'ns::x' }), 'event')).toBeUndefined();
  });

  it('coder_params and coder_prompt are used at end by the event form only (merged into later end agents)', () => {
    expect(ignoredFields('post', { coder_params: {}, coder_prompt: 'p' }, undefined, 'event')).toEqual([]);
    expect(ignoredFields('post', { coder_params: {}, coder_prompt: 'p' })).toEqual(['coder_params', 'coder_prompt']);
    expect(checkResponse('post', { coder_prompt: 3 }, 'event')).toMatch(/coder_prompt must be/);
  });
});
