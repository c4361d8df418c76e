-- The coder prompt file: where it is, how it is split and read, and how answers are written back.
--
-- Layout: meta block + instruction, a line "====", then this run's answers, one block per task.
-- Each task first saves its answer block in <prompt_dir>/.cache/answers/task-<n>.md; the prompt file is then
-- rebuilt from the part above "====" plus all answer blocks in task order, and saved in a single write.
-- Tasks may finish in any order (input_concurrency), so After All rebuilds it once more at the end.

local U = require("utils_common")
local F = require("utils_files")

local M = {}

M.FILE_NAME = "coder-prompt.md"

function M.default_path()
  return CTX.WORKSPACE_AIPACK_DIR .. "/.prompt/" .. (CTX.PACK_IDENTITY or "local") .. "/" .. M.FILE_NAME
end

--- The absolute prompt file path for the run's first input:
-- nothing -> the default, a string -> a directory holding coder-prompt.md, a file record (`-f`) -> that file.
function M.path_for_input(input)
  if type(input) == "string" and U.trim(input) ~= "" then
    local dir = U.trim(input):gsub("/+$", "")
    return aip.path.resolve(dir .. "/" .. M.FILE_NAME)
  end
  if type(input) == "table" and type(input.path) == "string" then
    return aip.path.resolve(input.path)
  end
  return M.default_path()
end

function M.ensure_exists(path)
  if not aip.path.exists(path) then
    aip.file.save(path, F.template("prompt-template.md"))
  end
end

--- Splits at the first line that is exactly "====": (above, below | nil).
function M.split(text)
  local padded = "\n" .. text .. "\n"
  local from, to = padded:find("\n====\r?\n")
  if not from then return text, nil end
  return padded:sub(2, from - 1), padded:sub(to + 1, -2)
end

-- Lines starting with ">" are notes for the user, never part of the instruction.
local function without_note_lines(text)
  local kept = {}
  for _, line in ipairs(U.lines(text)) do
    if line:sub(1, 1) ~= ">" then kept[#kept + 1] = line end
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
  local kept = {}
  local in_header = true
  for _, line in ipairs(U.lines(text)) do
    local header_line = in_header and line:sub(1, 1) == ">"
    if line == "====" then
      in_header = true
    elseif not header_line then
      in_header = false
      kept[#kept + 1] = line
    end
  end
  local cleaned = U.trim(table.concat(kept, "\n"))
  if cleaned == "" then return nil end
  return cleaned
end

local function answer_path(prompt_dir, num)
  return prompt_dir .. "/.cache/answers/" .. string.format("task-%.0f.md", num)
end

-- Clears the answer slots of this run's tasks (a slot left from an earlier run must not show up again).
function M.reset_answers(prompt_dir, count)
  for num = 1, count do aip.file.save(answer_path(prompt_dir, num), "") end
end

--- Rebuilds the prompt file from the part above "====" and the answers saved so far.
-- run = { prompt_path, prompt_dir, first_part, task_count }. Leaves the file alone when there is no answer.
function M.sync(run)
  local blocks = {}
  for num = 1, run.task_count do
    local path = answer_path(run.prompt_dir, num)
    if aip.path.exists(path) then
      local block = U.trim(aip.file.load(path).content)
      if block ~= "" then blocks[#blocks + 1] = block end
    end
  end
  if blocks[1] == nil then return end
  local text = U.trim_end(run.first_part) .. "\n\n" .. table.concat(blocks, "\n\n") .. "\n"
  aip.file.save(run.prompt_path, text)
end

--- Saves one task's answer block ("====" line, ">" info lines, answer). The prompt file itself is rewritten once,
-- by After All (`sync`), so a run with a failing task leaves it as it was.
function M.save_answer(run, num, block)
  aip.file.save(answer_path(run.prompt_dir, num), block)
end

return M
