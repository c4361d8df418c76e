-- The missing-files handoff of the workbench, as upstream pro@coder has it (aipack-ai/packs-pro
-- pro/coder/lua/utils_output.lua, lua/auto_context.lua): an answer's root `<missing_files>` blocks (`<mf_message>`
-- and `<mf_files>` bullets) are saved to `<workbench cache>/auto-context/missing-files.md`; the next auto-context
-- run shows that file to its model as one more helper file, then deletes it.

local U = require("utils_common")

local M = {}

local function is_text(value) return type(value) == "string" and value ~= "" end

--- The handoff file of a workbench, or nil without one.
function M.path(wb)
  if type(wb) ~= "table" then return nil end
  local cache_dir = U.nil_if_null(wb.cache_dir)
  if not is_text(cache_dir) then
    local dir = U.nil_if_null(wb.dir)
    if not is_text(dir) then return nil end
    cache_dir = dir:gsub("/+$", "") .. "/.cache"
  end
  return cache_dir:gsub("/+$", "") .. "/auto-context/missing-files.md"
end

-- The paths of `<mf_files>`: one per bullet (`-`, `*` or `+`), backquotes dropped, each once.
local function bullet_paths(text)
  local paths, seen = {}, {}
  for line in tostring(text or ""):gmatch("[^\r\n]+") do
    local path = line:match("^%s*[-*+]%s+(.+)$")
    if path then
      path = U.trim(path):gsub("^`+", ""):gsub("`+$", "")
      if path ~= "" and not seen[path] then
        seen[path] = true
        paths[#paths + 1] = path
      end
    end
  end
  return paths
end

--- Saves the answer's missing-files request for the next auto-context run: the path written, or nil when the
-- answer asks for none (a block needs both a message and at least one file).
function M.save(answer, wb)
  local path = M.path(wb)
  if path == nil or not is_text(answer) then return nil end
  local messages, files, seen_msg, seen_file = {}, {}, {}, {}
  for _, block in ipairs(aip.tag.extract(answer, "missing_files") or {}) do
    local fields = aip.tag.extract_as_map(block.content or "", { "mf_message", "mf_files" })
    local message = fields.mf_message and U.trim(fields.mf_message.content or "") or ""
    local block_files = fields.mf_files and bullet_paths(fields.mf_files.content) or {}
    if message ~= "" and block_files[1] ~= nil then
      if not seen_msg[message] then
        seen_msg[message] = true
        messages[#messages + 1] = message
      end
      for _, f in ipairs(block_files) do
        if not seen_file[f] then
          seen_file[f] = true
          files[#files + 1] = f
        end
      end
    end
  end
  if messages[1] == nil then return nil end
  local lines = { "# Missing Files Context Request", "", "## Diagnostic", "", table.concat(messages, "\n\n"), "", "## Requested Files", "" }
  for _, f in ipairs(files) do lines[#lines + 1] = "- `" .. f .. "`" end
  lines[#lines + 1] = ""
  lines[#lines + 1] = "## Auto-context Instruction"
  lines[#lines + 1] = ""
  lines[#lines + 1] = "Include the requested files in the next context selection when they are available."
  aip.file.save(path, table.concat(lines, "\n") .. "\n")
  return path
end

--- The saved request as a helper file { path, content }, deleted once taken; nil when there is none.
function M.take(wb)
  local path = M.path(wb)
  if path == nil or not aip.path.exists(path) then return nil end
  local file = aip.file.load(path)
  if type(file) ~= "table" or not is_text(file.content) or not file.content:find("%S") then return nil end
  aip.file.delete(path)
  return { path = path, content = file.content }
end

return M
