import { describe, expect, it } from 'vitest';
import {
  AgentEntrySchema,
  DEFAULT_ENABLED,
  DEFAULT_STAGES,
  MAX_STEPS,
  MIN_AIPACK_VERSION,
  STAGES,
  SubAgentInputSchemas,
  SubAgentStageSchema,
} from '../../src/contract/schemas.ts';

describe('constants', () => {
  it('match the contract', () => {
    expect(STAGES).toEqual(['pre', 'pre_task', 'post_task', 'post']);
    expect(SubAgentStageSchema.options).toEqual([...STAGES]);
    expect(MAX_STEPS).toBe(100);
    expect(MIN_AIPACK_VERSION).toBe('0.8.15');
    expect(DEFAULT_ENABLED).toBe(true);
    expect(DEFAULT_STAGES).toEqual(['pre']);
  });
});

describe('schemas', () => {
  it('AgentEntrySchema accepts both forms', () => {
    expect(AgentEntrySchema.safeParse('a').success).toBe(true);
    expect(AgentEntrySchema.safeParse({ name: 'a', x: 1 }).success).toBe(true);
    expect(AgentEntrySchema.safeParse('').success).toBe(false);
  });
  it('stage inputs carry the stage additions', () => {
    const base = {
      coder_prompt_dir: '/w',
      coder_params: {},
      coder_prompts: ['x'],
      coder_prompt: 'x',
      agent_config: { name: 'a', enabled: true, stages: ['pre'] },
      sub_agents_prev: [],
      sub_agents_next: [],
    };
    expect(SubAgentInputSchemas.pre.safeParse({ coder_stage: 'pre', stage: 'pre', event: 'start', ...base }).success).toBe(true);
    // upstream's names are part of every input: stage always, event at pre and post
    expect(SubAgentInputSchemas.pre.safeParse({ coder_stage: 'pre', ...base }).success).toBe(false);
    expect(SubAgentInputSchemas.pre_task.safeParse({ coder_stage: 'pre_task', stage: 'pre_task', ...base }).success).toBe(false);
    const task = { num: 1, count: 2, working_files: ['a.ts'] };
    expect(SubAgentInputSchemas.pre_task.safeParse({ coder_stage: 'pre_task', stage: 'pre_task', ...base, coder_task: task }).success).toBe(true);
    expect(
      SubAgentInputSchemas.post_task.safeParse({
        coder_stage: 'post_task',
        stage: 'post_task',
        ...base,
        coder_task: task,
        coder_response: { content: 'x', model_name: 'm', usage: { prompt_tokens: 1, completion_tokens: 2 } },
      }).success,
    ).toBe(true);
    expect(
      SubAgentInputSchemas.post.safeParse({
        coder_stage: 'post',
        stage: 'post',
        event: 'end',
        ...base,
        coder_responses: [{ task_num: 1, content: 'x', files_changed: ['a'], files_failed: [] }],
      }).success,
    ).toBe(true);
  });
});
