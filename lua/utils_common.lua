-- Small value and text helpers shared by the coder modules.
-- Plain Lua only (no aip.* calls), so they behave the same in every runtime.

local M = {}

-- True for nil and for AIPack's `null` sentinel (a YAML/JSON null read from a meta block or a sub-agent).
-- Compared with the `null` global rather than calling is_null, which only exists since AIPack 0.8.15:
-- the version gate must be able to report an older version.
function M.is_nil(value)
  return value == nil or value == null
end

-- The type of a value for messages: "null" for the `null` sentinel, else Lua's type name.
function M.value_type(value)
  if value ~= nil and value == null then return "null" end
  return type(value)
end

-- The value, or nil when it is the `null` sentinel.
function M.nil_if_null(value)
  if M.is_nil(value) then return nil end
  return value
end

-- A copy that shares nothing mutable with the original (the `null` sentinel is kept as is).
function M.deep_copy(value)
  if type(value) ~= "table" then return value end
  local copy = {}
  for k, v in pairs(value) do
    copy[k] = M.deep_copy(v)
  end
  return copy
end

-- A deep copy of a table without one key (used to keep `sub_agents` out of params).
function M.copy_without(tbl, key)
  local copy = M.deep_copy(tbl or {})
  copy[key] = nil
  return copy
end

-- The list itself, or nil when it has no item (Handlebars treats an empty object as true).
function M.nil_if_empty(list)
  if list == nil or next(list) == nil then return nil end
  return list
end

-- Values stored at integer keys, in key order, skipping nil/null.
-- Lists coming back from AIPack (outputs) may have holes or null items, so `#` and ipairs are not reliable.
function M.ordered_values(tbl)
  local keys = {}
  for k, v in pairs(tbl or {}) do
    if type(k) == "number" and not M.is_nil(v) then keys[#keys + 1] = k end
  end
  table.sort(keys)
  local values = {}
  for i, k in ipairs(keys) do values[i] = tbl[k] end
  return values
end

function M.trim(text)
  return (text:gsub("^%s+", ""):gsub("%s+$", ""))
end

function M.trim_end(text)
  return (text:gsub("%s+$", ""))
end

-- The lines of a text, without their line endings (LF or CRLF).
function M.lines(text)
  local lines = {}
  for line in (text .. "\n"):gmatch("(.-)\r?\n") do
    lines[#lines + 1] = line
  end
  return lines
end

-- Markdown fenced code blocks, followed line by line: the fence still open after `line` (nil outside a block,
-- else the backtick run that opened it). A block closes on a bare run of at least as many backticks, so a
-- ```` block can show ``` blocks. Inside a block, "====" and ">" lines are content, not prompt-file syntax.
function M.fence_after(fence, line)
  local ticks = line:match("^(```+)")
  if ticks == nil then return fence end
  if fence == nil then return ticks end
  if #ticks >= #fence and line:match("^`+%s*$") then return nil end
  return fence
end

-- The first `max` items joined by ", ", then how many more there are.
function M.short_list(items, max)
  if #items <= max then return table.concat(items, ", ") end
  local shown = {}
  for i = 1, max do shown[i] = items[i] end
  return table.concat(shown, ", ") .. ", plus " .. (#items - max) .. " more"
end

-- "Task <num>/<count>", the name of a task in messages and in the prompt file.
function M.task_label(task)
  return "Task " .. M.int_text(task.num) .. "/" .. M.int_text(task.count)
end

-- The instruction is the prompt segments joined by a blank line (SUB_AGENTS.md section 5): exactly the
-- `coder_prompt` sub-agents see, so the model and the sub-agents get the same text.
function M.join_prompts(prompts)
  return table.concat(prompts or {}, "\n\n")
end

-- An integer as text, without the ".0" a float-backed number would print with.
function M.int_text(value)
  if type(value) == "number" and value == math.floor(value) then
    return string.format("%.0f", value)
  end
  return tostring(value)
end

return M
