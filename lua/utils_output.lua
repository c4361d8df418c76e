-- Output stage of the coder: `post_task` sub-agents, file changes, and the answer written back
-- into the prompt file.

local SA = require("utils_sub_agent")
local CH = require("utils_changes")
local PF = require("utils_prompt_file")
local U = require("utils_common")
local AF = require("auto_fix")
local R = require("recorder")

local M = {}

local function response_info(ai_response, content)
  local usage = (ai_response and ai_response.usage) or {}
  return {
    content = content,
    model_name = ai_response and ai_response.model_name,
    usage = { prompt_tokens = usage.prompt_tokens, completion_tokens = usage.completion_tokens },
  }
end

--- Runs `post_task`: the answer text to apply (the AI's, or a sub-agent's replacement) | nil, message.
function M.run_post_task(input, data, ai_response)
  local run = input.run
  R.use(run.record, data.record_stopped)
  R.ai(data.task.num, ai_response)
  local content = (ai_response and U.nil_if_null(ai_response.content)) or ""
  local result, err = SA.run_stage("post_task", {
    configs = run.configs,
    params = data.params,
    prompts = data.prompts,
    prompt_dir = run.prompt_dir,
    task = data.task,
    response = response_info(ai_response, content),
    coder_workbench = run.coder_workbench,
  })
  if not result then
    R.flush()
    R.warn_if_stopped(data.record_stopped)
    return nil, err
  end
  if result.response then return result.response.content end
  return content
end

--- Applies the file changes of an answer when write_mode is on (utils_changes.lua):
-- { answer = text without the change blocks, files_changed, files_failed, failures = { {path, reason} } }.
function M.apply_changes(content, settings)
  return CH.apply(content, settings)
end

--- Runs `auto_fix` on the udiffx patches that failed (auto_fix.lua); `applied` is updated in place.
-- Returns its report, or nil when it did not run.
function M.auto_fix(input, data, applied)
  return AF.run(applied, data.settings, data.params, input.run.prompt_dir, input.run.task_count == 1)
end

-- A failure in one line: its first line, and the cause of its first failed hunk when it has hunks.
local function failure_line(reason)
  local lines = U.lines(reason)
  for _, line in ipairs(lines) do
    if line:match("^Hunk %d+ failed: ") then return lines[1] .. "; " .. line end
  end
  return lines[1]
end

-- The ">" lines above an answer in the prompt file.
local function info_lines(data, ai_response, applied, fixes)
  local task = data.task
  local first = "> " .. U.task_label(task)
  if ai_response and ai_response.model_name then first = first .. " | Model: " .. ai_response.model_name end
  local usage = ai_response and ai_response.usage
  if usage and usage.prompt_tokens and usage.completion_tokens then
    first = first .. " | Tokens: " .. U.int_text(usage.prompt_tokens) .. " in, "
      .. U.int_text(usage.completion_tokens) .. " out"
  end
  local lines = { first }
  if task.working_files[1] ~= nil then
    lines[#lines + 1] = "> Working files: " .. U.short_list(task.working_files, 3)
  end
  if data.settings.write_mode then
    local changed = "> Files changed: " .. #applied.files_changed
    if applied.files_changed[1] ~= nil then changed = changed .. " (" .. U.short_list(applied.files_changed, 5) .. ")" end
    lines[#lines + 1] = changed
    for _, line in ipairs(AF.report_lines(fixes)) do lines[#lines + 1] = line end
    for _, failure in ipairs(applied.failures) do
      lines[#lines + 1] = "> FAILED: " .. failure.path .. ": " .. failure_line(failure.reason)
    end
    lines[#lines + 1] = "> write_mode is on: this answer is NOT sent with the next run."
  else
    lines[#lines + 1] = "> write_mode is off: this answer is sent with the next run."
  end
  return lines
end

local function pin(iden, label, content)
  if not (aip.task and aip.task.pin) then return end
  aip.task.pin(iden, 0, { label = label, content = content })
end

-- "1/2 hunks" (or "1 hunks" when the total is unknown), upstream's wording.
local function hunk_count_text(failed, total)
  if total and total > 0 then return failed .. "/" .. U.int_text(total) .. " hunks" end
  return failed .. " hunks"
end

-- The failed changes of an answer in upstream's `files_changes_failed` shape; a failure that has no such item (an
-- unclosed <FILE_CHANGES> block) is added with its reason as message.
local function failed_items(applied)
  local items, seen = {}, {}
  for _, fc in ipairs(applied.failed_changes or {}) do
    items[#items + 1] = fc
    seen[fc.path] = true
  end
  for _, failure in ipairs(applied.failures) do
    if not seen[failure.path] then items[#items + 1] = { path = failure.path, error_msg = failure.reason } end
  end
  return items
end

--- The failure report in upstream's layout (aipack-ai/packs-pro pro/coder/lua/utils_output.lua): a title, the
-- count of files, then per file its hunk count, AIPack's message and each failed hunk with its cause.
function M.fails_report(failed, raw_path)
  local lines = { "# Apply Fail Repport", "", #failed .. "/" .. #failed .. " files have hunk apply failures." }
  for _, fc in ipairs(failed) do
    local hunks = U.nil_if_null(fc.error_hunks)
    if type(hunks) ~= "table" then hunks = {} end
    local total = tonumber(U.nil_if_null(fc.total_count))
    lines[#lines + 1] = ""
    lines[#lines + 1] = "## " .. tostring(fc.path or "")
    if #hunks == 0 and total == nil and fc.error_msg and fc.error_msg ~= "" then
      lines[#lines + 1] = "(apply failed, no failed hunk details reported)"
    else
      lines[#lines + 1] = "(" .. hunk_count_text(#hunks, total) .. " failed to apply)"
    end
    if fc.error_msg and fc.error_msg ~= "" then
      lines[#lines + 1] = ""
      lines[#lines + 1] = fc.error_msg
    end
    for i, hunk in ipairs(hunks) do
      local cause, body = U.nil_if_null(hunk.cause), U.nil_if_null(hunk.hunk_body)
      lines[#lines + 1] = ""
      lines[#lines + 1] = "### Failed Hunk " .. i
      lines[#lines + 1] = ""
      if cause and cause ~= "" then
        lines[#lines + 1] = cause
        lines[#lines + 1] = ""
      end
      lines[#lines + 1] = "````"
      if body and body ~= "" then lines[#lines + 1] = body end
      lines[#lines + 1] = "````"
    end
  end
  return table.concat(lines, "\n") .. "\n\nFull raw AI response:\n" .. raw_path .. "\n\n"
end

-- The failure report (appended: tasks may run at the same time) and a pin that points the user to it.
local function report_failures(run, data, applied)
  if applied.failures[1] == nil then return end
  local reports = run.reports
  aip.file.append(reports.fails, M.fails_report(failed_items(applied), reports.raw_shown))

  local text = { "Failed to apply some file changes:" }
  for _, failure in ipairs(applied.failures) do
    text[#text + 1] = "- " .. failure.path .. " (" .. failure_line(failure.reason) .. ")"
  end
  text[#text + 1] = "Failure report: " .. aip.path.diff(reports.fails, CTX.WORKSPACE_DIR)
  text[#text + 1] = "Full AI answer: " .. reports.raw_shown
  pin("changes_failed", "WARNING", table.concat(text, "\n"))
end

-- The body of the first <tag>...</tag> in text, trimmed (nil when absent or empty).
local function tag_body(text, tag)
  local body = text:match("<" .. tag .. ">(.-)</" .. tag .. ">")
  if body == nil or U.trim(body) == "" then return nil end
  return U.trim(body)
end

-- Tags of the answer that become task pins: the suggested commit, the missing-files request, and
-- <AIP_TO_PIN label="..." priority="...">. They stay in the answer text.
local function pin_directives(answer)
  local commit = tag_body(answer, "suggested_git_command")
  if commit then pin("gitc", "Git Commit", commit) end
  local missing = answer:match("<missing_files>(.-)</missing_files>")
  if missing then
    local message, files = tag_body(missing, "mf_message"), tag_body(missing, "mf_files")
    if message then pin("mf_msg", "Missing Info:", message) end
    if files then pin("mf_files", "Missing Files:", files) end
  end
  require("answer_pins").pin(answer)
end

--- Saves the task's answer (without file-change blocks) below "====" in the prompt file, appends the raw
-- answer and any failure to the .cache reports, and pins the answer's directives.
function M.record_answer(input, data, ai_response, applied, fixes, content)
  local info = table.concat(info_lines(data, ai_response, applied, fixes), "\n")
  local raw = (ai_response and U.nil_if_null(ai_response.content)) or ""
  aip.file.append(input.run.reports.raw, "====\n" .. info .. "\n\n" .. raw .. "\n\n")
  -- a request for missing files is handed to the next auto-context run
  require("missing_files").save(raw, input.run.coder_workbench)
  report_failures(input.run, data, applied)
  pin_directives(applied.answer)
  -- the answers report as upstream appends it, in completion order: the answer without its change block, its
  -- leading blank lines dropped, its trailing ones kept
  local extruded = CH.extruded(content or raw, data.settings, applied.answer)
  aip.file.append(input.run.reports.for_prompt, "====\n" .. info .. "\n\n" .. extruded .. "\n")
  local block = "====\n" .. info .. "\n\n" .. U.trim(applied.answer) .. "\n"
  PF.save_answer(input.run, data.task.num, block)
end

--- What After All receives from this task (`coder_responses` items, sections 2 and 7): the stage-form fields, and
-- upstream's: the answer without its change blocks, the apply status (after auto-fix, when it ran), the failed
-- changes, the raw answer's file, the resolved auto_fix settings and, when auto-fix ran, its result.
-- `deferred_failure_report` is upstream's flag of failures left to its After All, always false by the time post
-- sub-agents read it.
function M.task_info(input, data, content, applied, fixes)
  R.files_written(data.task.num, applied)
  R.flush()
  return {
    task_num = data.task.num,
    content = content,
    files_changed = applied.files_changed,
    files_failed = applied.files_failed,
    content_extruded = CH.extruded(content, data.settings, applied.answer),
    file_changes_status = AF.status_of(applied.status_items or {}),
    files_changes_failed = applied.failed_changes or {},
    deferred_failure_report = false,
    content_raw_path = input.run.reports.raw_shown,
    auto_fix = AF.upstream_state(data.params, data.settings, input.run.task_count == 1),
    auto_fix_result = fixes and fixes.result or nil,
    -- why this task's recording stopped, for After All to say once (nil when it did not)
    record_stopped = R.stopped() or data.record_stopped,
  }
end

return M
