import { parseAgentOptions, type AgentOptions } from '../agent-doc.ts';
import type { LifecycleStage } from '../../aip/support/lifecycle-stage.ts';
import { isPlainObject, luaTypeName } from '../../engine/values.ts';
import { fail, type Frame } from './agent-run.ts';

/** `options` of before_all_response / data_response, read as AIPack deserialises AgentOptions. */
export function parseStageOptions(value: unknown, frame: Frame, stage: LifecycleStage, fn: string): AgentOptions {
  // a non-table cannot be read (a list just has no option keys)
  if (typeof value !== 'object' || value === null) {
    throw fail(frame, `aip.flow.${fn}(arg) - 'arg.options' must be a table, got ${luaTypeName(value)}`, stage);
  }
  try {
    return parseAgentOptions(isPlainObject(value) ? value : {}, `aip.flow.${fn}(arg) options`);
  } catch (err) {
    throw fail(frame, (err as Error).message, stage);
  }
}
