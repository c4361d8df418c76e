import nodePath from 'node:path';
import { describe, expect, it } from 'vitest';
import { prepareAgent } from '../../src/harness/agent-discovery.ts';
import { runPreparedStage, runStage } from '../../src/harness/run-stage.ts';
import { SANDBOX_ROOT } from '../../src/harness/sandbox-paths.ts';
import { AGENTS, tmpDir, write } from './helpers.ts';

const at = (agent: string) => ({ agent, baseDir: AGENTS });

describe('runStage: one stage through the pack pipeline', () => {
  it('pre: returns the params and prompts after the stage, the raw response, the input and the effect', () => {
    const r = runStage({ ...at('prompt-refiner.aip'), prompt: 'Fix the login form', params: { model: 'flash' }, config: { focus: 'auth' } });
    expect(r.ok).toBe(true);
    expect(r.stage).toBe('pre');
    expect(r.prompts).toEqual(['Fix the login form', 'Focus: auth']);
    expect(r.prompt).toBe('Fix the login form\n\nFocus: auth');
    // the glob defaults are set before pre; the glob lists are arrays in JS, also when empty (no luaEqual needed)
    expect(r.params).toEqual({ model: 'flash', context_globs: ['src/auth/**'], structure_globs: [], knowledge_globs: [] });
    expect(r.before.params).toEqual({ model: 'flash', context_globs: [], structure_globs: [], knowledge_globs: [] });
    expect(r.params).not.toHaveProperty('sub_agents');
    expect(r.rawResponse).toEqual({
      coder_params: { model: 'flash', context_globs: ['src/auth/**'], structure_globs: [], knowledge_globs: [] },
      coder_prompts: ['Fix the login form', 'Focus: auth'],
    });
    // the sub-agent's input, as the pipeline built it: its entry is the configured one, name as written
    expect(r.input).toMatchObject({
      coder_stage: 'pre',
      coder_prompt: 'Fix the login form',
      agent_config: { name: 'prompt-refiner.aip', enabled: true, stages: ['pre'], focus: 'auth' },
      sub_agents_prev: [],
      sub_agents_next: [],
    });
    expect((r.input as { coder_params: object }).coder_params).not.toHaveProperty('sub_agents');
    expect(r.effect).toMatchObject({ agent: 'prompt-refiner.aip', changed: true, params: { changed: ['context_globs'] } });
    expect(r.warnings).toEqual([]);
    expect(r.files).toEqual({});
    expect(r.ms).toBeGreaterThan(0);
  });
  it('pre_task: gets coder_task with defaults filled in', () => {
    const r = runStage({ ...at('task-tuner.aip'), stage: 'pre_task', prompt: 'Go', task: { num: 2, working_files: ['a.ts', 'b.ts'] } });
    expect(r.ok).toBe(true);
    expect((r.input as { coder_task: unknown }).coder_task).toEqual({ num: 2, count: 2, working_files: ['a.ts', 'b.ts'] });
    expect(r.params.temperature).toBe(0);
    expect(r.prompts).toEqual(['Go', 'Task 2/2: a.ts, b.ts']);
    // a later stage sees the params as pre left them: glob defaults in, no sub_agents
    expect(Object.keys((r.input as { coder_params: object }).coder_params).sort()).toEqual(['context_globs', 'knowledge_globs', 'structure_globs']);
  });
  it('post_task: returns the text the coder applies, replaced or not', () => {
    const replaced = runStage({ ...at('answer-cleaner.aip'), stage: 'post_task', response: 'a\nDEBUG: b\nc' });
    expect(replaced.response).toBe('a\nc');
    expect((replaced.input as { coder_response: unknown }).coder_response).toEqual({
      content: 'a\nDEBUG: b\nc',
      model_name: 'sim-model',
      usage: { prompt_tokens: 0, completion_tokens: 0 },
    });
    const kept = runStage({ ...at('answer-cleaner.aip'), stage: 'post_task', response: { content: 'clean', model_name: 'gpt-x' } });
    expect(kept.rawResponse).toBeUndefined();
    expect(kept.response).toBe('clean');
    expect(kept.effect?.changed).toBe(false);
  });
  it('post: gets coder_responses, and the files it writes are reported', () => {
    const r = runStage({
      ...at('summary-writer.aip'),
      stage: 'post',
      responses: [{ task_num: 1, content: 'x', files_changed: ['a.ts'] }],
    });
    expect((r.input as { coder_responses: unknown }).coder_responses).toEqual([{ task_num: 1, content: 'x', files_changed: ['a.ts'], files_failed: [] }]);
    expect(r.files).toEqual({ 'coder-summary.md': '# Coder summary\n\n- task 1: 1 file(s) changed\n' });
    expect(r.readFile('coder-summary.md')).toContain('task 1');
  });
  it('a failing sub-agent: ok false with the pipeline message', () => {
    const r = runStage({ ...at('failing.aip'), prompt: 'Fix' });
    expect(r.ok).toBe(false);
    expect(r.error).toBe('Sub-agent [failing.aip] failed: no ticket configured\nDetails: add ticket = "ABC-1" to the entry');
    expect(r.prompts).toEqual(['Fix']);
  });
  it('a response of the wrong type: the contract message', () => {
    const r = runStage({ ...at('wrong-type.aip'), prompt: 'Fix' });
    expect(r.ok).toBe(false);
    expect(r.error).toBe('Sub-agent [wrong-type.aip] returned an invalid response: coder_prompts[2] must be a string, got number');
    expect(r.effect?.error).toBe(r.error);
  });
  it('a sub-agent that uses the AI gets the scripted answers, in order; a missing answer fails the stage', () => {
    const r = runStage({ ...at('ai-refiner.aip'), prompt: 'fix it', ai: ['Fix it properly.', 'unused'] });
    expect(r.ok).toBe(true);
    expect(r.prompts).toEqual(['Fix it properly.']);
    expect(r.warnings).toEqual(['1 scripted AI answer was not used (ai has 2)']);
    expect(r.trace.of('ai')).toHaveLength(1);
    const none = runStage({ ...at('ai-refiner.aip'), prompt: 'fix it' });
    expect(none.ok).toBe(false);
    expect(none.error).toMatch(/^Sub-agent \[ai-refiner\.aip\] failed: .*no scripted AI response for ai-refiner\.aip/);
  });
  it('a bad config entry fails the stage before the sub-agent runs', () => {
    const r = runStage({ ...at('prompt-refiner.aip'), config: { options: 3 } });
    expect(r.ok).toBe(false);
    expect(r.error).toBe('sub_agents[1]: options must be a table, got number');
    expect(r.effect).toBeUndefined();
    expect(r.input).toBeUndefined();
  });
  it('each run is a fresh sandbox', () => {
    const agent = prepareAgent('summary-writer.aip', AGENTS);
    const one = runPreparedStage(agent, { stage: 'post', files: { 'x.md': 'x' } });
    const two = runPreparedStage(agent, { stage: 'post' });
    expect(one.readFile('x.md')).toBe('x');
    expect(two.readFile('x.md')).toBeUndefined();
  });
  it('leaves the path of a Lua syntax error as the agent is named', () => {
    const dir = tmpDir();
    write(dir, 'agents/broken.aip', '# Output\n\n```lua\nreturn (\n```\n');
    const r = runStage({ agent: '../agents/broken.aip', baseDir: nodePath.join(dir, 'cases'), prompt: 'Fix' });
    expect(r.ok).toBe(false);
    expect(r.error).toContain('\n../agents/broken.aip:');
    expect(r.error).not.toContain(SANDBOX_ROOT);
  });
});

describe('runStage in the event form (on instead of stage)', () => {
  const up = '# Output\n\n```lua\nif input.event == "start" then\n  return { coder_params = { context_globs = { "src/a.ts" } }, emit_events = { "ctx::done" }, agent_on = { "start", "end" } }\nend\nreturn { coder_redo = input.coder_redo_count < 5 }\n```\n';

  it('says the event, the events emitted, what the entry listens to afterwards, and the redo the pack would start', () => {
    const dir = tmpDir();
    write(dir, 'up.aip', up);
    const start = runStage({ agent: 'up.aip', baseDir: dir, on: 'start', prompt: 'Fix it', params: { model: 'flash' } });
    expect(start).toMatchObject({ ok: true, stage: 'pre', event: 'start', emitted: ['ctx::done'], agentOn: ['start', 'end'] });
    expect(start.params).toMatchObject({ model: 'flash', context_globs: ['src/a.ts'] });
    expect(start.redo).toBeUndefined();
    const end = runStage({ agent: 'up.aip', baseDir: dir, on: 'end', redo_count: 3, aipackVersion: '0.8.33' });
    expect(end).toMatchObject({ ok: true, stage: 'post', event: 'end', emitted: [], redo: { requested: true, started: true } });
    expect(runStage({ agent: 'up.aip', baseDir: dir, on: 'end', redo_count: 5, aipackVersion: '0.8.33' }).redo).toEqual({ requested: false, started: false });
  });
});
