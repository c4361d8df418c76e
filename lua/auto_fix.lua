-- The `auto_fix` prompt key: when udiffx FILE_PATCH hunks of an answer fail to apply, the built-in
-- `pro@coder/auto-fix` sub-agent is run once per attempt, with the next model of the sequence, until every failed
-- file applies or the attempts run out. The defaults are upstream pro@coder's: on unless `auto_fix = false`,
-- 6 attempts, and without a model given, auto_context's code_map_model, then its model, then the coder's model,
-- each for an equal share of the attempts.

local U = require("utils_common")

local M = {}

M.DEFAULT_MAX_RETRIES = 6
M.AGENT = "pro@coder/auto-fix"

local SHAPE = "auto_fix must be true, false, a model name (\"model-a, model-b\" for a sequence) or a table { model, max_retries, enabled }"

-- "a, b" -> { "a", "b" }; nil for nil.
local function model_list(value)
  if value == nil then return nil end
  local models = {}
  for part in value:gmatch("[^,]+") do
    local name = U.trim(part)
    if name ~= "" then models[#models + 1] = name end
  end
  if models[1] == nil then return nil end
  return models
end

--- The auto_fix settings of the params: { enabled, models | nil (= the tiered default), max_retries } | nil, message.
function M.settings(params)
  local value = U.nil_if_null(params.auto_fix)
  local out = { enabled = true, models = nil, max_retries = M.DEFAULT_MAX_RETRIES }
  if value == nil or value == true then return out end
  if value == false then
    out.enabled = false
    return out
  end
  if type(value) == "string" then
    out.models = model_list(value)
    if out.models == nil then return nil, SHAPE .. ", got an empty string" end
    return out
  end
  if type(value) ~= "table" then return nil, SHAPE .. ", got " .. U.value_type(value) end
  local enabled = U.nil_if_null(value.enabled)
  if enabled ~= nil and type(enabled) ~= "boolean" then return nil, "auto_fix.enabled must be a boolean" end
  out.enabled = enabled ~= false
  local model = U.nil_if_null(value.model)
  if model ~= nil then
    if type(model) ~= "string" or model_list(model) == nil then return nil, "auto_fix.model must be a model name or \"model-a, model-b\"" end
    out.models = model_list(model)
  end
  local retries = U.nil_if_null(value.max_retries)
  if retries ~= nil then
    if type(retries) ~= "number" or retries < 1 or retries % 1 ~= 0 then
      return nil, "auto_fix.max_retries must be a whole number of at least 1, got " .. tostring(retries)
    end
    out.max_retries = retries
  end
  return out
end

-- The model of each attempt. An explicit sequence: attempt i uses model i, the last one for the rest. Without
-- one: code_map_model, model (of auto_context), then the coder's model, each missing one replaced by the coder's,
-- the attempts shared out as evenly as they go, the earlier models taking the rounding.
function M.attempt_models(settings, params)
  local plan = {}
  if settings.models then
    for i = 1, settings.max_retries do plan[i] = settings.models[math.min(i, #settings.models)] end
    return plan
  end
  local coder = U.nil_if_null(params.model)
  local ac = U.nil_if_null(params.auto_context)
  local tiers = { nil, nil, coder }
  if type(ac) == "table" and U.nil_if_null(ac.enabled) ~= false then
    tiers[1] = U.nil_if_null(ac.code_map_model)
    tiers[2] = U.nil_if_null(ac.model)
  elseif type(ac) == "string" and ac ~= "" then
    tiers[2] = ac
  end
  local left = settings.max_retries
  for i = 1, 3 do
    local count = math.ceil(left / (3 - i + 1))
    left = left - count
    for _ = 1, count do plan[#plan + 1] = tiers[i] or coder end
  end
  return plan
end

local function remove_path(list, path)
  local out = {}
  for _, p in ipairs(list) do
    if p ~= path then out[#out + 1] = p end
  end
  return out
end

-- One attempt: the agent's { fixed, failed } | nil, message (the run of the agent raised).
local function attempt(failures, params, prompt_dir, model)
  local input = {
    _display = "auto-fix: " .. #failures .. " file(s)",
    coder_stage = "post_task",
    stage = "post_task",
    agent_config = { name = M.AGENT, failures = failures },
    coder_params = U.copy_without(params, "sub_agents"),
    coder_prompt_dir = prompt_dir,
  }
  local options = nil
  if model then options = { model = model } end
  local ok, run_res = pcall(aip.agent.run, M.AGENT, { input = input, options = options })
  if not ok then return nil, tostring(run_res) end
  local res = type(run_res) == "table" and (U.nil_if_null(run_res.after_all) or U.nil_if_null((run_res.outputs or {})[1])) or nil
  local result = type(res) == "table" and U.nil_if_null(res.agent_result) or nil
  if type(result) ~= "table" then return { fixed = {}, failed = {} } end
  return { fixed = U.nil_if_null(result.fixed) or {}, failed = U.nil_if_null(result.failed) or {} }
end

--- Repairs the failed FILE_PATCH changes of `applied` (utils_changes.apply) in place, when auto_fix is on and the
-- answer was applied in udiffx write mode. Returns the report: { {path, model, attempt} fixed } plus
-- `gave_up` (paths still failing) and `attempts`, or nil when auto-fix did not run.
function M.run(applied, settings, params, prompt_dir)
  if not (settings.write_mode and settings.file_content_mode == "udiffx") then return nil end
  local af = M.settings(params)
  if not af or not af.enabled then return nil end
  local todo = {}
  for _, f in ipairs(applied.failures) do
    if f.directive then todo[#todo + 1] = { path = f.path, directive = f.directive, reason = f.reason } end
  end
  if todo[1] == nil then return nil end

  local plan = M.attempt_models(af, params)
  local report = { fixed = {}, gave_up = {}, attempts = 0 }
  for n = 1, af.max_retries do
    if todo[1] == nil then break end
    report.attempts = n
    local model = plan[n]
    local result, err = attempt(todo, params, prompt_dir, model)
    if not result then
      report.error = err
      print("WARNING: auto-fix attempt " .. n .. " failed: " .. U.lines(err)[1])
      break
    end
    local fixed, reasons = {}, {}
    for _, p in ipairs(result.fixed) do fixed[p] = true end
    for _, f in ipairs(result.failed) do
      if type(f) == "table" and f.path then reasons[f.path] = f.reason end
    end
    local still = {}
    for _, f in ipairs(todo) do
      if fixed[f.path] then
        report.fixed[#report.fixed + 1] = { path = f.path, model = model or "(default model)", attempt = n }
        applied.files_failed = remove_path(applied.files_failed, f.path)
        local kept = {}
        for _, failure in ipairs(applied.failures) do
          if failure.path ~= f.path then kept[#kept + 1] = failure end
        end
        applied.failures = kept
        applied.files_changed = remove_path(applied.files_changed, f.path)
        applied.files_changed[#applied.files_changed + 1] = f.path
        print("auto-fix: " .. f.path .. " fixed by " .. (model or "the default model") .. " (attempt " .. n .. ")")
      else
        if reasons[f.path] then f.reason = reasons[f.path] end
        still[#still + 1] = f
      end
    end
    todo = still
  end
  for _, f in ipairs(todo) do report.gave_up[#report.gave_up + 1] = f.path end
  return report
end

--- The lines the prompt file shows about an auto-fix run.
function M.report_lines(report)
  local lines = {}
  if report == nil then return lines end
  for _, f in ipairs(report.fixed) do
    lines[#lines + 1] = "> Auto-fix: " .. f.path .. " fixed by " .. f.model .. " (attempt " .. f.attempt .. ")"
  end
  if report.gave_up[1] ~= nil then
    local why = report.error and ("stopped: " .. U.lines(report.error)[1]) or ("not fixed after " .. report.attempts .. " attempt(s)")
    lines[#lines + 1] = "> Auto-fix: " .. why .. ": " .. table.concat(report.gave_up, ", ")
  end
  return lines
end

return M
