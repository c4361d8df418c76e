-- Output stage of the coder: `post_task` sub-agents, file changes, and the answer written back
-- into the prompt file.

local SA = require("utils_sub_agent")
local F = require("utils_files")
local PF = require("utils_prompt_file")
local U = require("utils_common")

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
  local content = (ai_response and U.nil_if_null(ai_response.content)) or ""
  local result, err = SA.run_stage("post_task", {
    configs = run.configs,
    params = data.params,
    prompts = data.prompts,
    prompt_dir = run.prompt_dir,
    task = data.task,
    response = response_info(ai_response, content),
  })
  if not result then return nil, err end
  if result.response then return result.response.content end
  return content
end

-- Cuts every <AIP_FILE_CHANGE file_path="..."> ... </AIP_FILE_CHANGE> block out of the text:
-- ({ {file_path, body} }, the text pieces around them). An unclosed block stays in the text.
local function extract_file_changes(text)
  local changes, pieces = {}, {}
  local pos = 1
  while true do
    local open_from, open_to, attrs = text:find("<AIP_FILE_CHANGE(%s[^>]*)>", pos)
    if not open_from then break end
    local close_from, close_to = text:find("</AIP_FILE_CHANGE>", open_to + 1, true)
    if not close_from then break end
    pieces[#pieces + 1] = text:sub(pos, open_from - 1)
    changes[#changes + 1] = {
      file_path = attrs:match('file_path%s*=%s*"([^"]*)"') or attrs:match("file_path%s*=%s*'([^']*)'"),
      body = text:sub(open_to + 1, close_from - 1),
    }
    pos = close_to + 1
  end
  pieces[#pieces + 1] = text:sub(pos)
  return changes, pieces
end

-- Text pieces joined by one blank line, so removed blocks leave no run of empty lines.
local function join_pieces(pieces)
  local kept = {}
  for _, piece in ipairs(pieces) do
    local trimmed = U.trim(piece)
    if trimmed ~= "" then kept[#kept + 1] = trimmed end
  end
  return table.concat(kept, "\n\n")
end

-- The content of the fenced block a change body is wrapped in (the body itself when it is not fenced).
local function fenced_content(body)
  local lines = U.lines(U.trim(body))
  local last = #lines
  if last >= 2 and lines[1]:match("^```") and lines[last]:match("^```+%s*$") then
    if last == 2 then return "" end
    return table.concat(lines, "\n", 2, last - 1) .. "\n"
  end
  return U.trim(body) .. "\n"
end

local function has_edit_blocks(content)
  return ("\n" .. content):find("\n<<<<<<< SEARCH\r?\n") ~= nil
end

-- Writes one file: (changed, failure reason | nil). save_changes may apply part of the blocks.
local function write_change(path, content, mode)
  if mode == "whole" then
    aip.file.save(path, content)
    return true, nil
  end
  -- On a missing file, save_changes would write the markers themselves into a new file.
  if has_edit_blocks(content) and not aip.path.exists(path) then
    return false, "the file does not exist, so its SEARCH/REPLACE edits cannot be applied"
  end
  local _, info = aip.file.save_changes(path, content)
  local failed = type(info) == "table" and U.nil_if_null(info.failed_changes) or nil
  if type(failed) ~= "table" or failed[1] == nil then return true, nil end
  local changed = type(info.changed_count) == "number" and info.changed_count > 0
  return changed, U.nil_if_null(failed[1].reason) or "some changes could not be applied"
end

-- Applies one file change: (path to report, changed, failure reason | nil). Never raises: a path the coder
-- refuses, or an error of aip.file (AIPack's save protection, a bad file), is a failed change of this file.
local function apply_change(change, settings)
  local dest = F.answer_target(settings.base_dir, change.file_path)
  if dest.reason then return dest.path, false, dest.reason end
  local ok, changed, reason = pcall(write_change, dest.target, fenced_content(change.body), settings.file_content_mode)
  if not ok then return dest.path, false, tostring(changed) end
  return dest.path, changed, reason
end

--- Applies the file changes of an answer when write_mode is on:
-- { answer = text without the change blocks, files_changed, files_failed, failures = { {path, reason} } }.
-- Paths are relative to the workspace (base_dir joined).
function M.apply_changes(content, settings)
  local applied = { answer = content, files_changed = {}, files_failed = {}, failures = {} }
  if not settings.write_mode then return applied end
  local changes, pieces = extract_file_changes(content)
  for _, change in ipairs(changes) do
    if change.file_path == nil or change.file_path == "" then
      pieces[#pieces + 1] = change.body -- no target: the text goes back to the user
    else
      local path, changed, reason = apply_change(change, settings)
      if changed then applied.files_changed[#applied.files_changed + 1] = path end
      if reason then
        applied.files_failed[#applied.files_failed + 1] = path
        applied.failures[#applied.failures + 1] = { path = path, reason = reason }
      end
    end
  end
  applied.answer = join_pieces(pieces)
  return applied
end

-- The ">" lines above an answer in the prompt file.
local function info_lines(data, ai_response, applied)
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
    for _, failure in ipairs(applied.failures) do
      lines[#lines + 1] = "> FAILED: " .. failure.path .. ": " .. U.lines(failure.reason)[1]
    end
    lines[#lines + 1] = "> write_mode is on: this answer is NOT sent with the next run."
  else
    lines[#lines + 1] = "> write_mode is off: this answer is sent with the next run."
  end
  return lines
end

--- Saves the task's answer (without file-change blocks) below "====" in the prompt file.
function M.record_answer(input, data, ai_response, applied)
  local block = "====\n" .. table.concat(info_lines(data, ai_response, applied), "\n")
    .. "\n\n" .. U.trim(applied.answer) .. "\n"
  PF.save_answer(input.run, data.task.num, block)
end

--- What After All receives from this task (SUB_AGENTS.md section 2, `coder_responses` items).
function M.task_info(data, content, applied)
  return {
    task_num = data.task.num,
    content = content,
    files_changed = applied.files_changed,
    files_failed = applied.files_failed,
  }
end

return M
