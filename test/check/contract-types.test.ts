import { describe, expect, it } from 'vitest';
import {
  contractClasses,
  inputClassOf,
  inputShapeFor,
  kindLabel,
  kindOf,
  luaTypeOf,
  responseFields,
  responseFieldUsed,
  stageInputShape,
  stagesWithInputField,
} from '../../src/check/contract-types.ts';

const names = (kind: Parameters<typeof stageInputShape>[0]) => stageInputShape(kind).fields.map((f) => f.name);

describe('input kinds: a stage, or an event dispatched in a stage', () => {
  it('name the form, the label and the LuaLS class', () => {
    expect([kindOf('pre', 'stage'), kindOf('post', 'event')]).toEqual(['pre', 'on:post']);
    expect([kindLabel('pre_task'), kindLabel('on:pre')]).toEqual(['pre_task', 'pre (event form)']);
    expect([inputClassOf('post_task'), inputClassOf('on:pre'), inputClassOf('on:post')]).toEqual(['CoderPostTaskInput', 'CoderEventPreInput', 'CoderEventPostInput']);
  });
});

describe('input shapes', () => {
  it('the event form has upstream\'s fields: coder_prompt, event, coder_redo_count; at post the responses and refs', () => {
    expect(names('on:pre')).toEqual(expect.arrayContaining(['event', 'stage', 'coder_prompt', 'coder_redo_count', 'sub_agents_prev']));
    expect(names('on:pre')).not.toContain('coder_prompts');
    expect(names('on:post')).toEqual(expect.arrayContaining(['coder_responses', 'coder_context_file_refs', 'coder_working_file_refs']));
    expect(stagesWithInputField('coder_working_file_refs')).toEqual(['on:post']);
    expect(stagesWithInputField('coder_task')).toEqual(['pre_task', 'post_task']);
  });

  it('an agent run as several kinds gets every field, optional where one kind lacks it, literals combined', () => {
    const shape = inputShapeFor(['on:pre', 'on:post']);
    const field = (n: string) => shape.fields.find((f) => f.name === n)!;
    expect(field('coder_prompt').optional).toBeFalsy();
    expect(field('coder_responses').optional).toBe(true);
    expect(luaTypeOf(field('stage').shape)).toBe('"pre"|"post"');
  });

  it('response fields count where the contract uses them, by form', () => {
    const field = (n: string) => responseFields().find((f) => f.name === n)!;
    expect(responseFieldUsed(field('coder_redo'), 'on:post')).toBe(true);
    expect(responseFieldUsed(field('coder_redo'), 'on:pre')).toBe(false);
    expect(responseFieldUsed(field('agent_on'), 'on:pre')).toBe(true);
    expect(responseFieldUsed(field('coder_response'), 'post_task')).toBe(true);
    expect(responseFieldUsed(field('coder_response'), 'on:post')).toBe(false);
  });

  it('every named class once: both forms\' inputs, the response, the entry', () => {
    const classes = contractClasses().map((c) => c.name);
    expect(new Set(classes).size).toBe(classes.length);
    expect(classes).toEqual(expect.arrayContaining(['CoderPreInput', 'CoderPostInput', 'CoderEventPreInput', 'CoderEventPostInput', 'CoderSubAgentResponse', 'CoderAgentEntry']));
  });
});
