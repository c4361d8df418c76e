-- After All of the coder: final prompt file, then the `post` sub-agents, then a short summary.

local SA = require("utils_sub_agent")
local PF = require("utils_prompt_file")
local U = require("utils_common")

local M = {}

local KEPT_NOTE = "File changes already applied by the tasks were kept (no rollback)."

-- Every input carries the run prepared by Before All.
local function find_run(inputs)
  for _, input in ipairs(U.ordered_values(inputs)) do
    if type(input) == "table" and type(input.run) == "table" then return input.run end
  end
  return nil
end

-- The task infos returned by Output, in task order. Skipped tasks leave a null (or a hole) and are left out.
local function task_responses(outputs)
  local responses = {}
  for _, out in ipairs(U.ordered_values(outputs)) do
    if type(out) == "table" and out.task_num ~= nil then
      responses[#responses + 1] = {
        task_num = out.task_num,
        content = out.content,
        files_changed = out.files_changed or {},
        files_failed = out.files_failed or {},
      }
    end
  end
  return responses
end

-- What the run returns: a line for people, and the facts for a caller (another agent, or a simulated run report).
local function summary(run, responses)
  local changed, failed = 0, 0
  for _, res in ipairs(responses) do
    changed = changed + #res.files_changed
    failed = failed + #res.files_failed
  end
  local text = "Coder done: " .. #responses .. " of " .. U.int_text(run.task_count) .. " task(s) answered"
  if run.settings.write_mode or changed + failed > 0 then
    text = text .. ", " .. changed .. " file change(s) applied, " .. failed .. " failed"
  end
  return {
    message = text .. ".\nPrompt file: " .. run.prompt_rel_path,
    prompt_file = run.prompt_rel_path,
    tasks = responses,
  }
end

--- Returns the run summary {message, prompt_file, tasks}, or nil plus the failure message of a `post` sub-agent.
function M.run(inputs, outputs)
  local run = find_run(inputs)
  if not run then return { message = "Coder: nothing was run.", tasks = {} } end
  local responses = task_responses(outputs)
  PF.sync(run, responses[1] == nil)
  local result, err = SA.run_stage("post", {
    configs = run.configs,
    params = run.params,
    prompts = run.prompts,
    prompt_dir = run.prompt_dir,
    responses = responses,
  })
  if not result then return nil, err .. "\n" .. KEPT_NOTE end
  return summary(run, responses)
end

return M
