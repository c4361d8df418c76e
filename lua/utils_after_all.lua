-- After All of the coder: final prompt file, then the `post` sub-agents, then a short summary.

local C = require("sub_agent_contract")
local SA = require("utils_sub_agent")
local PF = require("utils_prompt_file")
local U = require("utils_common")
local R = require("recorder")

local M = {}

local KEPT_NOTE = "File changes already applied by the tasks were kept (no rollback)."

-- Every input carries the run prepared by Before All.
local function find_run(inputs)
  for _, input in ipairs(U.ordered_values(inputs)) do
    if type(input) == "table" and type(input.run) == "table" then return input.run end
  end
  return nil
end

-- The fields of upstream's coder_responses items (its Output's `coder_response`, with auto-fix's result)
local UPSTREAM_RESPONSE_KEYS = {
  "content_extruded", "file_changes_status", "files_changes_failed", "deferred_failure_report", "content_raw_path",
  "auto_fix", "auto_fix_result",
}

-- The task infos returned by Output, in task order. Skipped tasks leave a null (or a hole) and are left out.
-- Returns the stage-form items, and the event-form ones (the same plus upstream's fields).
local function task_responses(outputs)
  local responses, event_responses = {}, {}
  for _, out in ipairs(U.ordered_values(outputs)) do
    if type(out) == "table" and out.task_num ~= nil then
      local item = {
        task_num = out.task_num,
        content = out.content,
        files_changed = out.files_changed or {},
        files_failed = out.files_failed or {},
      }
      responses[#responses + 1] = item
      local full = U.deep_copy(item)
      for _, key in ipairs(UPSTREAM_RESPONSE_KEYS) do full[key] = U.deep_copy(U.nil_if_null(out[key])) end
      event_responses[#event_responses + 1] = full
    end
  end
  return responses, event_responses
end

-- The files of the run as upstream hands them to post sub-agents (working files: every group's, each once).
local function post_refs(run, inputs)
  local working, seen = {}, {}
  for _, input in ipairs(U.ordered_values(inputs)) do
    if type(input) == "table" and type(input.working_refs) == "table" then
      for _, ref in ipairs(input.working_refs) do
        if not seen[ref.path] then
          seen[ref.path] = true
          working[#working + 1] = ref
        end
      end
    end
  end
  -- upstream hands the context and knowledge lists even when empty (a sub-agent may take their length), and
  -- the working files only when there are some
  return {
    coder_context_file_refs = run.files.context or {},
    coder_knowledge_file_refs = run.files.knowledge or {},
    coder_working_file_refs = U.nil_if_empty(working),
  }
end

-- A post sub-agent asked for a new run (event form): redo while under the cap, as upstream, with its pins.
-- Without CTX.RUN_FLOW_REDO_COUNT (AIPack before 0.8.22) the reruns could not be counted, so none is started.
function M.redo_or_nil()
  local count = tonumber(CTX.RUN_FLOW_REDO_COUNT) -- check:allow aip-too-new
  if count == nil then
    aip.run.pin("coder_redo_cap_reached", 10, { label = "WARNING", content = C.msg.redo_uncounted(CTX.AIPACK_VERSION) })
    return nil
  end
  if count < C.MAX_REDOS then
    aip.run.pin("coder_redo_requested", 9, { label = "Coding Done:", content = C.msg.redo_requested(count) })
    return aip.flow.redo_run() -- check:allow aip-too-new
  end
  aip.run.pin("coder_redo_cap_reached", 10, { label = "WARNING", content = C.msg.redo_cap_reached(count) })
  return nil
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

--- The `post` stage, from the run and what its tasks returned: the pipeline's result | nil, message. The root
-- event is `end` (the contract harness dispatches another one).
function M.run_post(run, inputs, outputs, event)
  local responses, event_responses = task_responses(outputs)
  return SA.run_stage("post", {
    configs = run.configs,
    params = run.params,
    prompts = run.prompts,
    prompt_dir = run.prompt_dir,
    prompt_dir_as_given = run.prompt_dir_as_given,
    responses = responses,
    coder_workbench = run.coder_workbench,
    event_responses = event_responses,
    post_refs = post_refs(run, inputs),
    event = event,
  })
end

-- Why a task's recording stopped (the first task that says so), or nil.
local function recording_stopped(outputs)
  for _, out in ipairs(U.ordered_values(outputs)) do
    if type(out) == "table" and not U.is_nil(out.record_stopped) then return out.record_stopped end
  end
  return nil
end

--- Returns the run summary {message, prompt_file, tasks}, or nil plus the failure message of a `post` sub-agent.
local function run(inputs, outputs)
  local run = find_run(inputs)
  if not run then return { message = "Coder: nothing was run.", tasks = {} } end
  R.use(run.record)
  local stopped = recording_stopped(outputs)
  if stopped ~= nil then
    R.warn(stopped)
    R.use(nil)
  end
  local responses = task_responses(outputs)
  PF.sync(run, responses[1] == nil)
  local result, err = M.run_post(run, inputs, outputs)
  if not result then return nil, err .. "\n" .. KEPT_NOTE end
  if result.redo then
    local redo = M.redo_or_nil()
    if redo ~= nil then return redo end
  end
  return summary(run, responses)
end

function M.run(inputs, outputs)
  local result, err = run(inputs, outputs)
  R.flush()
  R.warn_if_stopped()
  return result, err
end

return M
