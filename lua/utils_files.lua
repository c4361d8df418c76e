-- Finding and loading the files a task sends to the model.
-- A file ref is { path, size }: `path` as aip.file.list gives it (relative to the base it was listed from).

local M = {}

-- nil and "" both mean the workspace root, which is aip.file's default base.
local function base_option(base_dir)
  if base_dir == nil or base_dir == "" then return nil end
  return { base_dir = base_dir }
end

-- A pack template (shipped next to main.aip).
function M.template(name)
  return aip.file.load(CTX.AGENT_FILE_DIR .. "/templates/" .. name).content
end

-- A path relative to base_dir as a workspace-relative (or absolute) path.
function M.in_base(base_dir, path)
  if base_dir == nil or base_dir == "" then return path end
  return aip.path.join(base_dir, path)
end

-- A base_dir AIPack reads as a plain relative folder (not absolute, home, tmp or a pack reference).
local function is_plain_dir(base_dir)
  return base_dir == nil or (not base_dir:match("^[/~$]") and base_dir:find("@", 1, true) == nil)
end

-- The segments of a relative path with "." dropped and "x/.." collapsed; nil when ".." climbs above its start.
-- "\\" counts as a separator too, as a model may write Windows paths.
local function relative_segments(path)
  local segments = {}
  for segment in path:gmatch("[^/\\]+") do
    if segment == ".." then
      if segments[1] == nil then return nil end
      segments[#segments] = nil
    elseif segment ~= "." then
      segments[#segments + 1] = segment
    end
  end
  return segments
end

-- Longest file or folder name most file systems take, in bytes.
local MAX_NAME_BYTES = 255

-- Places a model answer must never write, though AIPack's save protection lets them through: installed packs
-- (a planted .aip would run as the pack next time), AIPack's own folders and config, and git's data.
local function protected_reason(segments, path)
  local first, second = segments[1], segments[2]
  if first == ".aipack" and (second == "pack" or second == "support" or second == "config.toml") then
    return "the path is inside .aipack/" .. second .. ", which AIPack protects (installed packs and configuration)"
  end
  if first == ".git" then return "the path is inside .git/" end
  for _, segment in ipairs(segments) do
    if segment:find(".aipack-base", 1, true) then return "the path names the .aipack-base folder" end
    if #segment > MAX_NAME_BYTES then
      return "a name in the path is longer than " .. MAX_NAME_BYTES .. " bytes"
    end
  end
  if path:find("%c") then return "the path contains a control character" end
  return nil
end

-- The segments of a workspace-relative path (nil for an absolute base_dir: its paths are not in the workspace tree).
local function workspace_segments(base_dir, segments)
  if base_dir == nil or base_dir == "" then return segments end
  if base_dir:match("^[/~$]") or base_dir:find("@", 1, true) then return nil end
  local all = relative_segments(base_dir) or {}
  for _, segment in ipairs(segments) do all[#all + 1] = segment end
  return all
end

--- Where a file named by the model (relative to base_dir) is written: { path = workspace path to report,
-- target = path for aip.file }, or { path = the name as given (under base_dir), reason } when the name is
-- absolute, leaves base_dir or lands in a protected place. Checked here rather than left to AIPack's save
-- protection, which accepts any path inside the workspace and any path under ".aipack-base" (and
-- aip.udiffx writes without any check).
function M.answer_target(base_dir, file_path)
  if type(file_path) ~= "string" or file_path == "" then return { path = tostring(file_path), reason = "no file path given" } end
  if file_path:match("^[/\\~$]") or file_path:match("^%a:") then
    return { path = file_path, reason = "the path is absolute; file paths must be relative to base_dir" }
  end
  local segments = relative_segments(file_path)
  if segments == nil then
    local given = file_path
    if base_dir ~= nil and base_dir ~= "" then given = base_dir .. "/" .. file_path end
    return { path = given, reason = "the path leaves base_dir" }
  end
  if segments[1] == nil then return { path = file_path, reason = "the path names no file" } end
  local path = M.in_base(base_dir, table.concat(segments, "/"))
  local protected = protected_reason(workspace_segments(base_dir, segments) or segments, file_path)
  if protected then return { path = path, reason = protected } end
  -- AIPack reads a relative path containing "@" as a pack reference (ns@pack/...) unless it starts with ".".
  if is_plain_dir(base_dir) and path:find("@", 1, true) then return { path = path, target = "./" .. path } end
  return { path = path, target = path }
end

function M.list(globs, base_dir)
  if globs[1] == nil then return {} end
  local refs = {}
  for _, info in ipairs(aip.file.list(globs, base_option(base_dir))) do
    -- the whole file info (name, stem, ext, dir, times...): upstream hands these to post sub-agents as file refs
    local ref = {}
    for key, value in pairs(info) do ref[key] = value end
    ref.size = info.size or 0
    refs[#refs + 1] = ref
  end
  return refs
end

-- Refs of several lists in order, each path once (the first one wins).
local function merged(...)
  local seen, refs = {}, {}
  for _, list in ipairs({ ... }) do
    for _, ref in ipairs(list) do
      if not seen[ref.path] then
        seen[ref.path] = true
        refs[#refs + 1] = ref
      end
    end
  end
  return refs
end

-- The refs that are not code maps (a `*code-map*.json` / `*content-map*.json` file is read by auto-context,
-- never sent as a file, as upstream).
local function without_maps(refs)
  if refs[1] == nil then return refs end
  -- code_map.lua loads where a ref may be one
  local CM = require("code_map")
  local out = {}
  for _, ref in ipairs(refs) do
    if not CM.is_map_path(ref.path) then out[#out + 1] = ref end
  end
  return out
end

-- The refs AIPack finds likely text (upstream lists its main knowledge and context globs so): an image or a PDF
-- matched there is neither sent as a file nor counted in max_files_size_kb (an AIPack that does not tell keeps all).
local function likely_text(refs)
  if refs[1] == nil or refs[1].is_likely_text == nil then return refs end
  local out = {}
  for _, ref in ipairs(refs) do
    if ref.is_likely_text ~= false then out[#out + 1] = ref end
  end
  return out
end

-- Knowledge files come from the workspace; context and structure files from base_dir. The pinned
-- `*_globs_pre` / `*_globs_post` lists go before / after their main list (listed whatever their kind, as upstream).
function M.resolve(settings)
  local base = settings.base_dir
  return {
    knowledge = without_maps(merged(M.list(settings.knowledge_globs_pre, nil), likely_text(M.list(settings.knowledge_globs, nil)),
      M.list(settings.knowledge_globs_post, nil))),
    context = without_maps(merged(M.list(settings.context_globs_pre, base), likely_text(M.list(settings.context_globs, base)),
      M.list(settings.context_globs_post, base))),
    structure = M.list(settings.structure_globs, base),
  }
end

--- One group of refs per task: each file matched by the plain globs is a group of its own,
-- then each nested glob list is one group (dropped when it matches nothing).
function M.working_groups(working_globs, base_dir)
  local singles, nested = {}, {}
  for _, item in ipairs(working_globs) do
    if type(item) == "string" then singles[#singles + 1] = item else nested[#nested + 1] = item end
  end
  local groups = {}
  for _, ref in ipairs(M.list(singles, base_dir)) do groups[#groups + 1] = { ref } end
  for _, globs in ipairs(nested) do
    local refs = M.list(globs, base_dir)
    if refs[1] ~= nil then groups[#groups + 1] = refs end
  end
  return groups
end

local function absolute_dir(base_dir)
  if base_dir == nil or base_dir == "" then return CTX.WORKSPACE_DIR end
  return aip.path.resolve(base_dir)
end

--- Refs listed under one base_dir, made relative to another (a pre_task sub-agent may move base_dir).
function M.rebase(refs, from_base, to_base)
  if from_base == to_base then return refs end
  local from_abs, to_abs = absolute_dir(from_base), absolute_dir(to_base)
  local rebased = {}
  for _, ref in ipairs(refs) do
    local abs = aip.path.join(from_abs, ref.path)
    rebased[#rebased + 1] = { path = aip.path.diff(abs, to_abs), size = ref.size }
  end
  return rebased
end

-- The refs whose path is not among `excluded` (a working file is not sent twice as context).
function M.without(refs, excluded)
  local skip = {}
  for _, ref in ipairs(excluded) do skip[ref.path] = true end
  local kept = {}
  for _, ref in ipairs(refs) do
    if not skip[ref.path] then kept[#kept + 1] = ref end
  end
  return kept
end

function M.total_size(...)
  local total = 0
  for _, refs in ipairs({ ... }) do
    for _, ref in ipairs(refs) do total = total + (ref.size or 0) end
  end
  return total
end

function M.paths(refs)
  local paths = {}
  for i, ref in ipairs(refs) do paths[i] = ref.path end
  return paths
end

--- File records for the prompt: { path, ext, content }.
function M.load(refs, base_dir)
  local files = {}
  for _, ref in ipairs(refs) do
    local record = aip.file.load(ref.path, base_option(base_dir))
    files[#files + 1] = { path = ref.path, ext = record.ext or "", content = record.content }
  end
  return files
end

return M
