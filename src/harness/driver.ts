/**
 * The driver agent: a small agent placed (as a virtual file) inside the coder pack's directory, so it is a pack
 * agent and `require` finds the pack's own `lua/` modules. It runs one stage of the pack's sub-agent pipeline
 * exactly as the coder does (lua/utils_before_all.lua, utils_data.lua, utils_output.lua, utils_after_all.lua):
 * `SA.prepare(meta)` for the configs, then `SA.run_stage(stage, state)` with the state the coder builds.
 *
 * For a stage after `pre`, the coder's params and prompts are those `pre` left, so the driver first runs `pre`
 * with no sub-agent (which fills in the glob defaults as the coder would), then the stage under test.
 *
 * Its single input:
 *   { stage, params, prompts, prompt_dir, entries, task?, response?, responses?, event?, event_responses?, post_refs? }
 * (`entries`: the `prev` stand-ins of the case, then the agent under test's entry; `event`: the event dispatched
 * first, for event-form cases)
 * Its output:
 *   { ok = true, params, prompts, response = <post_task: the text the coder applies> | nil, configs, redo }
 *   | { ok = false, error = message, raised = bool }
 */

/** File name of the driver inside the pack dir (a name no real pack file has). */
export const DRIVER_FILE = '__contract_driver__.aip';

export const DRIVER_AIP = `# Description

Contract-test driver of coder-subagents: runs one stage of the sub-agent pipeline as the coder does.

# Output

\`\`\`lua
local SA = require("utils_sub_agent")
local U = require("utils_common")

local case = input
local meta = U.deep_copy(case.params or {})
meta.sub_agents = case.entries

local configs, err = SA.prepare(meta)
if not configs then return { ok = false, error = err } end

local state
if case.stage == "pre" then
  -- utils_before_all.lua: the meta block (with sub_agents) and { inst }
  state = { configs = configs, params = meta, prompts = case.prompts, prompt_dir = case.prompt_dir, event = case.event, base_options = meta }
else
  -- what Before All leaves for the later stages: the params after a pre stage, without sub_agents
  local pre, pre_err = SA.run_stage("pre", { configs = {}, params = meta, prompts = case.prompts, prompt_dir = case.prompt_dir })
  if not pre then return { ok = false, error = pre_err } end
  state = {
    configs = configs,
    params = U.copy_without(pre.params, "sub_agents"),
    prompts = pre.prompts,
    prompt_dir = case.prompt_dir,
    task = case.task,
    response = case.response,
    responses = case.responses,
    event = case.event,
    event_responses = case.event_responses,
    post_refs = case.post_refs,
  }
end

local ok, result, stage_err = pcall(SA.run_stage, case.stage, state)
if not ok then return { ok = false, error = tostring(result), raised = true } end
if not result then return { ok = false, error = stage_err } end

local text = nil
if case.stage == "post_task" then
  text = (result.response and result.response.content) or state.response.content
end
return {
  ok = true,
  params = U.copy_without(result.params, "sub_agents"),
  prompts = result.prompts,
  response = text,
  configs = result.configs,
  redo = result.redo,
}
\`\`\`
`;
