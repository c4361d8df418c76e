import type { SubAgentStage } from './schemas.ts';

/** LuaLS class name of each stage's input table (the generated definitions and `---@param input` annotations) */
export const STAGE_INPUT_CLASS: Record<SubAgentStage, string> = {
  pre: 'CoderPreInput',
  pre_task: 'CoderPreTaskInput',
  post_task: 'CoderPostTaskInput',
  post: 'CoderPostInput',
};
export const ANY_INPUT_CLASS = 'CoderSubAgentInput';
export const RESPONSE_CLASS = 'CoderSubAgentResponse';
