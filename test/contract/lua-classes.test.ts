import { describe, expect, it } from 'vitest';
import { STAGES } from '../../src/contract/schemas.ts';
import { ANY_INPUT_CLASS, RESPONSE_CLASS, STAGE_INPUT_CLASS } from '../../src/contract/lua-classes.ts';
import { renderLuaDefinitions } from '../../src/check/luals.ts';

describe('Lua class names of the contract', () => {
  it('are the published names users annotate their scripts with, one per stage', () => {
    // users write these names in `---@param input ...` lines: renaming one breaks their annotations
    expect(STAGE_INPUT_CLASS).toEqual({ pre: 'CoderPreInput', pre_task: 'CoderPreTaskInput', post_task: 'CoderPostTaskInput', post: 'CoderPostInput' });
    expect(Object.keys(STAGE_INPUT_CLASS)).toEqual([...STAGES]);
    expect([ANY_INPUT_CLASS, RESPONSE_CLASS]).toEqual(['CoderSubAgentInput', 'CoderSubAgentResponse']);
  });

  it('are each defined by the LuaLS definitions the types command writes', () => {
    const defs = [...renderLuaDefinitions().values()].join('\n');
    for (const name of [...Object.values(STAGE_INPUT_CLASS), ANY_INPUT_CLASS, RESPONSE_CLASS]) {
      expect(defs, name).toMatch(new RegExp(`---@class ${name}\\b`));
    }
  });
});
