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

-- upstream's status letter of a change kind (its `files_changed` items)
local STATUS_LETTERS = { New = "A", Patch = "M", Append = "M", Delete = "D", Rename = "R", Copy = "C" }

--- The `auto_fix` table upstream hands post sub-agents with each response: the prompt's value resolved
-- ({ enabled, max_retries, model, base_eligible, single_task, eligible, ineligible_reason }). Upstream resolves
-- the model even where no attempt would run, from auto_fix, then auto_context, then the coder's model.
function M.upstream_state(params, settings, single_task)
  local value = U.nil_if_null(params.auto_fix)
  if value == nil then value = true end
  local out = { enabled = false, max_retries = M.DEFAULT_MAX_RETRIES }
  if type(value) == "boolean" then
    out.enabled = value
  elseif type(value) == "string" then
    out.enabled = true
    out.model = value
  elseif type(value) == "table" then
    out.enabled = U.nil_if_null(value.enabled) ~= false
    out.model = U.nil_if_null(value.model)
    out.max_retries = tonumber(U.nil_if_null(value.max_retries)) or M.DEFAULT_MAX_RETRIES
    for k, v in pairs(value) do
      if k ~= "enabled" and k ~= "model" and k ~= "max_retries" then out[k] = U.deep_copy(v) end
    end
  end
  if type(out.model) == "string" and out.model:find(",", 1, true) then out.model = model_list(out.model) end
  if out.enabled and (out.model == nil or out.model == "") then
    local ac = U.nil_if_null(params.auto_context)
    if type(ac) == "string" and ac ~= "" then
      out.model = ac
    elseif type(ac) == "table" and U.nil_if_null(ac.enabled) ~= false then
      out.model = U.nil_if_null(ac.code_map_model) or U.nil_if_null(ac.model)
    end
    if out.model == nil or out.model == "" then out.model = U.nil_if_null(params.model) end
  end
  if out.base_eligible == nil then
    out.base_eligible = out.enabled == true and settings.write_mode == true and settings.file_content_mode == "udiffx"
  end
  out.single_task = single_task == true
  out.eligible = out.base_eligible == true and out.single_task
  if out.base_eligible == true and not out.single_task then out.ineligible_reason = "multi_task" end
  return out
end

-- The apply status once auto-fix ran, rebuilt as upstream rebuilds it: the changes that applied (in their
-- order, then the repaired files), then those still failing; `applied.failed_changes` keeps only those.
local function rebuild_status(applied, fixed_paths)
  local items, changed, seen = {}, {}, {}
  local function add_success(path, kind)
    if seen[path] then return end
    seen[path] = true
    items[#items + 1] = { file_path = path, kind = kind or "Patch", success = true }
    changed[#changed + 1] = { path = path, status = STATUS_LETTERS[kind or "Patch"] or "M", kind = kind }
  end
  for _, item in ipairs(applied.status_items) do
    if item.success then add_success(item.file_path, item.kind) end
  end
  local kind_of = {}
  for _, f in ipairs(applied.failed_changes) do kind_of[f.path] = f.kind end
  for _, path in ipairs(fixed_paths) do add_success(path, kind_of[path] or "Patch") end
  local remaining = {}
  for _, f in ipairs(applied.failed_changes) do
    if not seen[f.path] then
      remaining[#remaining + 1] = f
      items[#items + 1] = { file_path = f.path, kind = f.kind or "Patch", success = false, error_msg = f.error_msg, error_hunks = f.error_hunks }
    end
  end
  applied.status_items = items
  applied.failed_changes = remaining
  return changed
end

-- Failed hunks of a failed-changes list (a change without hunk details counts as one).
local function hunk_count(failed)
  local n = 0
  for _, f in ipairs(failed) do
    local hunks = U.nil_if_null(f.error_hunks)
    n = n + ((type(hunks) == "table" and hunks[1] ~= nil) and #hunks or 1)
  end
  return n
end

--- Repairs the failed FILE_PATCH changes of `applied` (utils_changes.apply) in place, when auto_fix is on, the
-- answer was applied in udiffx write mode and the run has a single task (as upstream: a multi-task run reports
-- its failures and repairs none). Returns the report: { {path, model, attempt} fixed } plus `gave_up` (paths
-- still failing), `attempts` and `result` (upstream's `auto_fix_result`), or nil when auto-fix did not run.
-- The apply status of `applied` is rebuilt to say what the repair did.
function M.run(applied, settings, params, prompt_dir, single_task)
  if not (settings.write_mode and settings.file_content_mode == "udiffx") then return nil end
  if not single_task then return nil end
  local af = M.settings(params)
  if not af or not af.enabled then return nil end
  local todo = {}
  for _, f in ipairs(applied.failures) do
    if f.directive then todo[#todo + 1] = { path = f.path, directive = f.directive, reason = f.reason } end
  end
  if todo[1] == nil then return nil end

  local plan = M.attempt_models(af, params)
  local report = { fixed = {}, gave_up = {}, attempts = 0 }
  local hunks_before = hunk_count(applied.failed_changes)
  local fixed_paths, attempts_with_fixes = {}, 0
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
    local fixed_now = false
    for _, f in ipairs(todo) do
      if fixed[f.path] then
        fixed_now = true
        fixed_paths[#fixed_paths + 1] = f.path
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
    if fixed_now then attempts_with_fixes = attempts_with_fixes + 1 end
  end
  for _, f in ipairs(todo) do report.gave_up[#report.gave_up + 1] = f.path end
  local changed = rebuild_status(applied, fixed_paths)
  report.result = {
    files_changed = changed,
    file_changes_status = M.status_of(applied.status_items),
    remaining_failed_changes = applied.failed_changes,
    attempts = report.attempts,
    auto_fix_attempts_with_fixes = attempts_with_fixes,
    auto_fix_files_fixed = #fixed_paths,
    auto_fix_hunks_fixed = math.max(hunks_before - hunk_count(applied.failed_changes), 0),
  }
  return report
end

--- Upstream's file_changes_status of a list of status items.
function M.status_of(items)
  local failed = 0
  for _, item in ipairs(items) do
    if not item.success then failed = failed + 1 end
  end
  return { success = failed == 0, total_count = #items, success_count = #items - failed, fail_count = failed, items = items }
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
