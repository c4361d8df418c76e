-- The coder prompt file: where it is, how it is split and read, and how answers are written back.
--
-- Layout: meta block + instruction, a line "====", then this run's answers, one block per task.
-- Each task saves its block (answer, or why it was skipped) in <prompt_dir>/.cache/answers/task-<n>.md, which After
-- All reads and deletes.
-- Tasks may finish in any order (input_concurrency), so only After All writes the prompt file: the part
-- above "====" plus the blocks in task order, in a single write.

local U = require("utils_common")
local F = require("utils_files")

local M = {}

M.FILE_NAME = "coder-prompt.md"

local function default_path()
  return CTX.WORKSPACE_AIPACK_DIR .. "/.prompt/" .. (CTX.PACK_IDENTITY or "local") .. "/" .. M.FILE_NAME
end

--- The absolute prompt file path for the run's first input: nothing -> the default; a string -> the folder
-- holding coder-prompt.md, or the prompt file itself when it names a ".md" file; a file record (`-f`) -> that file.
function M.path_for_input(input)
  if type(input) == "string" and U.trim(input) ~= "" then
    local path = U.trim(input):gsub("/+$", "")
    if not path:match("%.md$") then path = path .. "/" .. M.FILE_NAME end
    return aip.path.resolve(path)
  end
  if type(input) == "table" and type(input.path) == "string" then
    return aip.path.resolve(input.path)
  end
  return default_path()
end

--- The prompt folder as upstream's pack names it to event-form sub-agents (`coder_prompt_dir`): not resolved,
-- but the way the path was given: "./prompts/x" for the input "prompts/x", workspace-relative for the default,
-- as given for a file record. `path` is what path_for_input returned.
function M.dir_as_given(input, path)
  local given
  if type(input) == "string" and U.trim(input) ~= "" then
    given = U.trim(input):gsub("/+$", "")
    if not given:match("%.md$") then given = given .. "/" .. M.FILE_NAME end
    if given:sub(1, 1) ~= "/" and given:sub(1, 2) ~= "./" then given = "./" .. given end
  elseif type(input) == "table" and type(input.path) == "string" then
    given = input.path
  else
    given = aip.path.diff(path, CTX.WORKSPACE_DIR) or path
  end
  return aip.path.parent(given) or "."
end

function M.ensure_exists(path)
  if not aip.path.exists(path) then
    aip.file.save(path, F.template("prompt-template.md"))
  end
end

--- Splits at the first line that is exactly "====" outside fenced code blocks: (above, below | nil).
-- A "====" line inside a fence is part of the instruction (a Markdown heading underline, an example).
-- When every "====" line is inside a fence (one left open), the first of them counts, so a forgotten
-- closing fence does not turn the answers into instruction.
function M.split(text)
  local fence, first_any
  local pos = 1
  while pos <= #text do
    local eol = text:find("\n", pos, true) or (#text + 1)
    local line = text:sub(pos, eol - 1):gsub("\r$", "")
    if line == "====" then
      if fence == nil then return text:sub(1, pos - 1), text:sub(eol + 1) end
      first_any = first_any or { pos, eol }
    end
    fence = U.fence_after(fence, line)
    pos = eol + 1
  end
  if first_any == nil then return text, nil end
  return text:sub(1, first_any[1] - 1), text:sub(first_any[2] + 1)
end

-- Lines starting with ">" are notes for the user, never part of the instruction (except inside code blocks).
local function without_note_lines(text)
  local kept, fence = {}, nil
  for _, line in ipairs(U.lines(text)) do
    if fence ~= nil or line:sub(1, 1) ~= ">" then kept[#kept + 1] = line end
    fence = U.fence_after(fence, line)
  end
  return table.concat(kept, "\n")
end

--- (meta, instruction) from the part above "====", or (nil, nil, message) for a broken meta block.
function M.read_first_part(first_part)
  local ok, meta, rest = pcall(aip.md.extract_meta, first_part)
  if not ok then return nil, nil, "The meta block of the prompt file cannot be read: " .. tostring(meta) end
  if type(meta) ~= "table" then meta = {} end
  return meta, U.trim(without_note_lines(rest or ""))
end

--- The part below "====" as the model should see it: without the ">" header right after each
-- separator (the template's help lines, the info lines of answers); nil when nothing is left.
function M.clean_second_part(text)
  if text == nil then return nil end
  local kept, fence = {}, nil
  local in_header = true
  for _, line in ipairs(U.lines(text)) do
    local header_line = in_header and line:sub(1, 1) == ">"
    if fence == nil and line == "====" then
      in_header = true
    elseif not header_line then
      in_header = false
      kept[#kept + 1] = line
    end
    fence = U.fence_after(fence, line)
  end
  local cleaned = U.trim(table.concat(kept, "\n"))
  if cleaned == "" then return nil end
  return cleaned
end

-- The report files of the last run (upstream pro@coder's names).
local REPORT_NAMES = {
  files = "last_prompt_file_paths.md",
  raw = "last_ai_responses_for_raw.md",
  for_prompt = "last_ai_responses_for_prompt.md",
  fails = "last_file_change_fails_report.md",
}
-- The name upstream used before, replaced by `files`.
local LEGACY_FILES_NAME = "last_prompt_files_path.md"

--- { files, raw, for_prompt, fails }: paths of the report files, in `cache_dir` (the workbench's `.cache/`, as
-- upstream) or else <prompt_dir>/.cache/. `raw_shown`: the raw answers' file as upstream names it to the user and
-- to sub-agents, under the cache folder as given (`shown_cache_dir`, "./prompt/workbench-default/.cache").
function M.report_paths(prompt_dir, cache_dir, shown_cache_dir)
  cache_dir = cache_dir or (prompt_dir .. "/.cache")
  local paths = {}
  for key, name in pairs(REPORT_NAMES) do paths[key] = cache_dir .. "/" .. name end
  paths.legacy_files = cache_dir .. "/" .. LEGACY_FILES_NAME
  if shown_cache_dir then
    paths.raw_shown = shown_cache_dir .. "/" .. REPORT_NAMES.raw
  else
    paths.raw_shown = aip.path.diff(paths.raw, CTX.WORKSPACE_DIR) or paths.raw
  end
  return paths
end

--- Empties the reports of the previous run (the failure report only exists when a change failed).
function M.reset_reports(reports)
  aip.file.save(reports.files, "")
  aip.file.save(reports.raw, "")
  aip.file.save(reports.for_prompt, "")
  if aip.path.exists(reports.fails) then aip.file.delete(reports.fails) end
  if aip.path.exists(reports.legacy_files) then aip.file.delete(reports.legacy_files) end
end

local function answer_path(prompt_dir, num)
  return prompt_dir .. "/.cache/answers/" .. string.format("task-%.0f.md", num)
end

-- Clears the answer slots of this run's tasks (a slot left from an earlier run must not show up again).
function M.reset_answers(prompt_dir, count)
  for num = 1, count do aip.file.save(answer_path(prompt_dir, num), "") end
end

-- A prompt file written with CRLF line endings keeps them: the text added below "====" follows the file.
local function with_line_endings_of(sample, text)
  local lf = text:gsub("\r\n", "\n")
  if sample:find("\r\n", 1, true) == nil then return lf end
  local crlf = lf:gsub("\n", "\r\n")
  return crlf
end

--- Rebuilds the prompt file from the part above "====" and the blocks saved so far (answers, notes of skipped tasks).
-- run = { prompt_path, prompt_dir, first_part, task_count }. Leaves the file alone when there is no block.
-- keep_previous: no task answered, so the text below "====" is still the user's latest answer and is kept
-- under the notes instead of being replaced by them.
function M.sync(run, keep_previous)
  local blocks = {}
  for num = 1, run.task_count do
    local path = answer_path(run.prompt_dir, num)
    if aip.path.exists(path) then
      local block = U.trim(aip.file.load(path).content)
      if block ~= "" then blocks[#blocks + 1] = block end
      -- the slots only carry the blocks to this write: once read they go, so a run leaves no file upstream's does not
      aip.file.delete(path)
    end
  end
  if blocks[1] == nil then return end
  local text = U.trim_end(run.first_part) .. "\n\n" .. table.concat(blocks, "\n\n") .. "\n"
  if keep_previous then
    -- The prompt file is only written here, so its part below "====" is still the one the run started with.
    local _, below = M.split(aip.file.load(run.prompt_path).content)
    if below ~= nil and U.trim(below) ~= "" then text = text .. "\n====\n" .. U.trim(below) .. "\n" end
  end
  aip.file.save(run.prompt_path, with_line_endings_of(run.first_part, text))
end

--- Saves one task's block ("====" line, ">" info lines, answer). The prompt file itself is rewritten once,
-- by After All (`sync`), so a run with a failing task leaves it as it was.
function M.save_answer(run, num, block)
  aip.file.save(answer_path(run.prompt_dir, num), block)
end

return M
