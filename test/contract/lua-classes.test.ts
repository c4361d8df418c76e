import { describe, expect, it } from 'vitest';
import { STAGES } from '../../src/contract/schemas.ts';
import { ANY_INPUT_CLASS, RESPONSE_CLASS, STAGE_INPUT_CLASS } from '../../src/contract/lua-classes.ts';
import { renderLuaDefinitions } from '../../src/check/luals.ts';

describe('Lua class names of the contract', () => {
  it('name one class per stage, and each is defined by the published LuaLS definitions', () => {
    expect(Object.keys(STAGE_INPUT_CLASS)).toEqual([...STAGES]);
    const defs = [...renderLuaDefinitions().values()].join('\n');
    for (const name of [...Object.values(STAGE_INPUT_CLASS), ANY_INPUT_CLASS, RESPONSE_CLASS]) {
      expect(defs, name).toMatch(new RegExp(`---@class ${name}\\b`));
    }
  });
});
