/**
 * The options table of `aip.agent.run(name, options)` read as AIPack's RunAgentOptions does (docs/aipack.md
 * section 4; the Lua side is src/aip/agent.ts).
 */
import nodePath from 'node:path';
import { isPlainObject, LuaError, luaTypeName } from '../engine/values.ts';
import { parseAgentOptions, type AgentOptions } from './agent-doc.ts';

export interface RunAgentOptions {
  inputs: unknown[];
  options?: AgentOptions;
  /** where a relative local agent name is resolved */
  baseDir: string;
}

export function parseRunAgentOptions(
  name: string,
  rawOptions: unknown,
  at: { callerDir: string; workspaceDir: string; since(version: string): boolean },
): RunAgentOptions {
  // any Lua table is accepted (a list just has none of the keys); it arrives as an array or an object
  if (rawOptions !== undefined && rawOptions !== null && typeof rawOptions !== 'object') {
    throw new LuaError('RunAgentOptions argument must be nil or a table { inputs?, options? }');
  }
  const o = isPlainObject(rawOptions) ? rawOptions : {};
  const modern = at.since('0.8.15'); // `input` and `agent_base_dir` since 0.8.15
  if (o.inputs !== undefined && o.inputs !== null && !Array.isArray(o.inputs)) throw new LuaError("The 'inputs' field must be a Lua array");
  const inputs = [...(modern && o.input !== undefined ? [o.input] : []), ...((o.inputs as unknown[] | undefined) ?? [])];
  let options: AgentOptions | undefined;
  if (o.options !== undefined && o.options !== null) {
    if (!isPlainObject(o.options) && !(Array.isArray(o.options) && o.options.length === 0)) throw new LuaError('aip.agent.run: Agent Options must be a table');
    try {
      options = parseAgentOptions(isPlainObject(o.options) ? o.options : {}, `aip.agent.run('${name}') options`);
    } catch (err) {
      throw new LuaError((err as Error).message);
    }
  }
  let baseDir = at.callerDir;
  if (modern && o.agent_base_dir !== undefined && o.agent_base_dir !== null) {
    if (typeof o.agent_base_dir !== 'string') throw new LuaError(`aip.agent.run: agent_base_dir must be a string, got ${luaTypeName(o.agent_base_dir)}`);
    baseDir = nodePath.resolve(at.workspaceDir, o.agent_base_dir);
  }
  return { inputs, options, baseDir };
}
