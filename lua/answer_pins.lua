-- The `<AIP_TO_PIN label="..." priority="...">text</AIP_TO_PIN>` tags of an answer: each asks for a task pin, as
-- in upstream pro@coder (aipack-ai/packs-pro pro/coder/lua/utils_output.lua). The tags stay in the answer.

local U = require("utils_common")

local M = {}

-- The value of one attribute of a tag's opening text (double or single quotes).
local function attr(attrs, name)
  return attrs:match("%f[%w_]" .. name .. '%s*=%s*"([^"]*)"') or attrs:match("%f[%w_]" .. name .. "%s*=%s*'([^']*)'")
end

--- The pins an answer asks for, in order: { { label, priority, content } }. An empty body asks for nothing; a
-- priority that is not an integer is 1. A tag without a label gives `label = nil`.
function M.requests(answer)
  local list = {}
  for attrs, body in tostring(answer or ""):gmatch("<AIP_TO_PIN([^>]*)>(.-)</AIP_TO_PIN>") do
    local content = U.trim(body)
    if content ~= "" then
      local priority = tonumber(attr(attrs, "priority") or "")
      if priority == nil or priority % 1 ~= 0 then priority = 1 end
      list[#list + 1] = { label = attr(attrs, "label"), priority = priority, content = content }
    end
  end
  return list
end

--- Pins what the answer asks for (aip.task.pin, the label as the pin's name). A tag without a label cannot name
-- its pin: it is reported instead of failing the task.
function M.pin(answer)
  if not (aip.task and aip.task.pin) then return end
  for _, req in ipairs(M.requests(answer)) do
    if req.label == nil then
      print("WARNING: <AIP_TO_PIN> without a label attribute: not pinned")
    else
      aip.task.pin(req.label, req.priority, { label = req.label, content = req.content })
    end
  end
end

return M
