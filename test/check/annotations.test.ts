import { describe, expect, it } from 'vitest';
import { annotatedStages, annotatedStagesOf } from '../../src/check/annotations.ts';

describe('input annotations', () => {
  it('name the stage of a stage-form class, the event kind of an event-form class, every stage for the open class', () => {
    expect(annotatedStagesOf('---@param input CoderPostTaskInput\nreturn nil')).toEqual(['post_task']);
    expect(annotatedStagesOf('---@type CoderEventPreInput\nlocal i = input')).toEqual(['on:pre']);
    expect(annotatedStagesOf('---@param input CoderSubAgentInput')).toEqual(['pre', 'pre_task', 'post_task', 'post']);
    expect(annotatedStagesOf('-- no annotation here')).toEqual([]);
  });

  it('a union names each class: an agent that listens to start and end', () => {
    expect(annotatedStagesOf('---@param input CoderEventPreInput|CoderEventPostInput')).toEqual(['on:pre', 'on:post']);
    expect(annotatedStagesOf('---@param input CoderPreInput | CoderPostInput')).toEqual(['pre', 'post']);
  });

  it('report an unknown class with a suggestion, each member of a union on its own', () => {
    const reports: string[] = [];
    const kinds = annotatedStages([{ text: '-@param input CoderEventPreInput|CoderEventPostInpt', line: 1, column: 1 }], (line, column, rule, message) =>
      reports.push(`${line}:${column} ${rule}: ${message}`),
    );
    expect(kinds).toEqual(['on:pre']);
    expect(reports).toHaveLength(1);
    expect(reports[0]).toMatch(/^1:1 annotation: unknown input class 'CoderEventPostInpt'; did you mean CoderEventPostInput\? \(one of /);
  });
});
