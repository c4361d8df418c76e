/**
 * The driver agent: a small agent placed (as a virtual file) inside the coder pack's directory, so it is a pack
 * agent and `require` finds the pack's own `lua/` modules. It holds no pipeline logic of its own: it calls the
 * functions the coder's stages call (utils_before_all `run_pre` / `prepare_run` / `build_inputs`, utils_data
 * `prepare_task`, utils_output `run_post_task` / `task_info`, utils_changes `answer_text`, utils_after_all
 * `run_post` / `redo_or_nil`), so a
 * case's sub-agent gets the input the pack builds, and its answer is adopted as the pack adopts it.
 *
 * A `pre` case is Before All's `pre` run over the case's entries. A later stage begins from the case's params: Before
 * All runs no sub-agent there (the entries are only normalised, as it keeps them), then the stage under test runs
 * as the coder runs it.
 *
 * Its single input:
 *   { stage, event?, params, prompts, prompt_dir, entries, task?, response?, responses? }
 * (`entries`: the `prev` stand-ins of the case, then the entry under test; `event`: the root event of an
 * event-form case's dispatch; `responses[i]`: a task's answer as the case gives it)
 * Its output:
 *   { ok = true, params, prompts, response = <post_task: the text the coder applies> | nil, configs,
 *     redo = { requested, started } | nil }
 *   | { ok = false, error = message, raised = bool }
 */

/** File name of the driver inside the pack dir (a name no real pack file has). */
export const DRIVER_FILE = '__contract_driver__.aip';

export const DRIVER_AIP = `# Description

Contract-test driver of coder-subagents: runs one stage of the sub-agent pipeline through the coder's own stage code.

# Output

\`\`\`lua
local SA = require("utils_sub_agent")
local BA = require("utils_before_all")
local D = require("utils_data")
local O = require("utils_output")
local AA = require("utils_after_all")
local CH = require("utils_changes")
local U = require("utils_common")
local PF = require("utils_prompt_file")

local case = input
local function failed(err, raised) return { ok = false, error = tostring(err), raised = raised } end
-- a pack function's (value, message) | raised error, as one outcome
local function call(fn, ...)
  local ok, value, err = pcall(fn, ...)
  if not ok then return nil, failed(value, true) end
  if value == nil then return nil, failed(err) end
  return value
end

local meta = U.deep_copy(case.params or {})
meta.sub_agents = case.entries
local prompt = {
  path = case.prompt_dir .. "/coder-prompt.md",
  rel_path = "coder-prompt.md",
  dir = case.prompt_dir,
  dir_as_given = PF.dir_as_given(nil, case.prompt_dir .. "/coder-prompt.md"),
  meta = meta,
  inst = table.concat(case.prompts, "\\n\\n"),
  prompts = case.prompts,
}
-- the run's workbench, as the coder makes it before its pre stage (the default one unless params set workbench)
local workbench, wb_err = BA.prepare_workbench(prompt)
if not workbench then return failed(wb_err) end
prompt.workbench = workbench

if case.stage == "pre" then
  local pre, fail = call(BA.run_pre, prompt, case.event)
  if not pre then return fail end
  return { ok = true, params = pre.params, prompts = pre.prompts, configs = pre.configs }
end

-- a later stage begins from the case's params: Before All runs no sub-agent, and keeps the entries as it
-- normalises them for the later stages
prompt.meta = U.copy_without(meta, "sub_agents")
local pre, fail = call(BA.run_pre, prompt)
if not pre then return fail end
local configs, prepare_err = SA.prepare(meta)
if not configs then return failed(prepare_err) end
pre.configs = configs

local run, groups, err = BA.prepare_run(prompt, pre)
if not run then return failed(err) end

if case.stage == "post" then
  local outputs = {}
  for i, r in ipairs(case.responses or {}) do
    -- the apply status of the paths the case says changed or failed
    local items = {}
    for _, path in ipairs(r.files_changed) do items[#items + 1] = { file_path = path, kind = "Patch", success = true } end
    for _, path in ipairs(r.files_failed) do items[#items + 1] = { file_path = path, kind = "Patch", success = false } end
    local applied = { answer = CH.answer_text(r.content, run.settings), files_changed = r.files_changed, files_failed = r.files_failed, status_items = items }
    local info = O.task_info({ run = run }, { task = { num = r.task_num } }, r.content, applied)
    for _, key in ipairs({ "content_extruded", "file_changes_status", "content_raw_path" }) do
      if r[key] ~= nil then info[key] = r[key] end
    end
    outputs[i] = info
  end
  local inputs = BA.build_inputs(run, groups, U.trim(prompt.inst))
  local result
  result, fail = call(AA.run_post, run, inputs, outputs, case.event)
  if not result then return fail end
  local redo = { requested = result.redo == true, started = false }
  if redo.requested then redo.started = AA.redo_or_nil() ~= nil end
  return { ok = true, params = U.copy_without(result.params, "sub_agents"), prompts = result.prompts, configs = result.configs, redo = redo }
end

local refs = {}
for i, path in ipairs(case.task.working_files) do refs[i] = { path = path } end
local task_input = { run = run, task = case.task, working_refs = refs }
local task
task, fail = call(D.prepare_task, task_input)
if not task then return fail end
if case.stage == "pre_task" then
  return { ok = true, params = U.copy_without(task.params, "sub_agents"), prompts = task.prompts, configs = run.configs }
end

local data = { task = case.task, params = task.params, prompts = task.prompts, settings = task.settings }
local content
content, fail = call(O.run_post_task, task_input, data, case.response)
if not content then return fail end
return { ok = true, params = U.copy_without(data.params, "sub_agents"), prompts = data.prompts, response = content, configs = run.configs }
\`\`\`
`;
