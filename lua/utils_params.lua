-- Reading the coder's params (the prompt's meta block, possibly rewritten by sub-agents).
-- Wrong types are reported here with the key name, instead of failing later inside aip.* calls.

local U = require("utils_common")

local M = {}

M.DEFAULT_MAX_FILES_SIZE_KB = 1000
M.DEFAULT_FILE_CONTENT_MODE = "udiffx"

-- Agent options the prompt may set for the whole run, and the subset a task may override
-- (input_concurrency only makes sense for the run).
M.RUN_OPTION_KEYS = { "model", "temperature", "top_p", "input_concurrency", "model_aliases" }
M.TASK_OPTION_KEYS = { "model", "temperature", "top_p", "model_aliases" }

local OPTION_TYPES = {
  model = "string",
  temperature = "number",
  top_p = "number",
  input_concurrency = "number",
  model_aliases = "table",
}

local FILE_CONTENT_MODES = { whole = true, search_replace_auto = true, udiffx = true }
local FILE_CONTENT_MODES_TEXT = "'whole', 'search_replace_auto' or 'udiffx'"
M.DEFAULT_LANGUAGE = "Python"

-- Each reader takes a param's value (nil when absent or null) and its key: value | nil, message.

-- A glob list: nil -> {}, a string -> { string }, a list of strings -> itself.
local function glob_list(value, key)
  if value == nil then return {} end
  if type(value) == "string" then return { value } end
  if type(value) ~= "table" then return nil, key .. " must be a list of glob strings, got " .. U.value_type(value) end
  for i, glob in ipairs(value) do
    if type(glob) ~= "string" then return nil, key .. "[" .. i .. "] must be a string, got " .. U.value_type(glob) end
  end
  return value
end

-- working_globs items are globs (each matched file is its own task) or lists of globs (one task per list).
local function working_globs(value, key)
  if type(value) ~= "table" then return glob_list(value, key) end
  for i, item in ipairs(value) do
    if type(item) == "table" then
      local _, err = glob_list(item, key .. "[" .. i .. "]")
      if err then return nil, err end
    elseif type(item) ~= "string" then
      return nil, key .. "[" .. i .. "] must be a glob string or a list of them, got " .. U.value_type(item)
    end
  end
  return value
end

local function boolean(value, key)
  if value == nil then return nil end
  if type(value) ~= "boolean" then return nil, key .. " must be true or false, got " .. U.value_type(value) end
  return value
end

local function write_mode(value, key)
  if value == nil then return false end
  return boolean(value, key)
end

local function file_content_mode(value, key)
  if value == nil then return M.DEFAULT_FILE_CONTENT_MODE end
  if type(value) ~= "string" then
    return nil, key .. " must be " .. FILE_CONTENT_MODES_TEXT .. ", got " .. U.value_type(value)
  end
  if not FILE_CONTENT_MODES[value] then
    return nil, key .. " must be " .. FILE_CONTENT_MODES_TEXT .. ", got '" .. value .. "'"
  end
  return value
end

local function size_kb(value, key)
  if value == nil then return nil end
  if type(value) ~= "number" or value <= 0 then return nil, key .. " must be a positive number" end
  return value
end

local function language(value, key)
  if value == nil then return M.DEFAULT_LANGUAGE end
  if type(value) ~= "string" or U.trim(value) == "" then
    return nil, key .. " must be a language name, got " .. U.value_type(value)
  end
  return value
end

-- Absent (or null) means "", the workspace root, as upstream pro@coder reads it since it dropped base_dir
-- from its template. "src", "src/" and "./src/" name one folder and are all read as "src", so the paths joined
-- to it (files listed, files written, paths reported) come out the same, without "./" or "//".
local function base_dir(value, key)
  if value == nil then return "" end
  if type(value) ~= "string" then return nil, key .. " must be a string, got " .. U.value_type(value) end
  if value:match("^/+$") then return "/" end
  local dir = value:gsub("/+$", "")
  while dir:sub(1, 2) == "./" do dir = dir:sub(3):gsub("^/+", "") end
  if dir == "." then return "" end
  return dir
end

-- Files sent with the request (images, PDFs): paths relative to the workspace, or { file_source, title }.
local function attachment_list(value, key)
  if value == nil then return {} end
  if type(value) ~= "table" then return nil, key .. " must be a list of paths or { file_source, title } tables, got " .. U.value_type(value) end
  local list = {}
  for i, item in ipairs(value) do
    if type(item) == "string" then
      list[i] = { file_source = item }
    elseif type(item) == "table" and type(item.file_source) == "string" then
      list[i] = { file_source = item.file_source, title = U.nil_if_null(item.title) }
    else
      return nil, key .. "[" .. i .. "] must be a path or a { file_source, title } table, got " .. U.value_type(item)
    end
  end
  return list
end

local SETTING_READERS = {
  { "base_dir", base_dir },
  { "write_mode", write_mode },
  { "file_content_mode", file_content_mode },
  { "max_size_kb", size_kb },
  { "max_files_size_kb", size_kb },
  { "cache_explicit", boolean },
  { "suggest_git_commit", boolean },
  { "default_language", language },
  { "knowledge_globs", glob_list },
  { "knowledge_globs_pre", glob_list },
  { "knowledge_globs_post", glob_list },
  { "context_globs", glob_list },
  { "context_globs_pre", glob_list },
  { "context_globs_post", glob_list },
  { "structure_globs", glob_list },
  { "working_globs", working_globs },
  { "attachments", attachment_list },
}

--- The settings a task is prepared from: table | nil, message.
-- { base_dir, write_mode, file_content_mode, max_files_size_kb (the limit in force), cache_explicit,
--   suggest_git_commit, default_language, knowledge/context globs (+ _pre/_post pins), structure_globs, working_globs }
function M.settings(params)
  local settings = {}
  for _, reader in ipairs(SETTING_READERS) do
    local key, read = reader[1], reader[2]
    local value, err = read(U.nil_if_null(params[key]), key)
    if err then return nil, err end
    settings[key] = value
  end
  -- max_files_size_kb overrides max_size_kb (the general limit upstream added later)
  settings.max_files_size_kb = settings.max_files_size_kb or settings.max_size_kb or M.DEFAULT_MAX_FILES_SIZE_KB
  settings.max_size_kb = nil
  settings.cache_explicit = settings.cache_explicit == true
  -- any value but nil and false turns it on, as upstream reads it
  settings.udiffx_inst_debug = U.nil_if_null(params.udiffx_inst_debug) or nil
  if settings.udiffx_inst_debug == false then settings.udiffx_inst_debug = nil end
  -- auto_fix.lua loads only to check a prompt's own auto_fix (left out, it is on with its defaults)
  if U.nil_if_null(params.auto_fix) ~= nil then
    local _, auto_fix_err = require("auto_fix").settings(params)
    if auto_fix_err then return nil, auto_fix_err end
  end
  if settings.suggest_git_commit == nil then settings.suggest_git_commit = settings.write_mode end
  return settings
end

--- The agent options found in params, limited to `keys`: table (possibly empty) | nil, message.
function M.agent_options(params, keys)
  local options = {}
  for _, key in ipairs(keys) do
    local value = U.nil_if_null(params[key])
    if value ~= nil then
      if type(value) ~= OPTION_TYPES[key] then
        return nil, key .. " must be a " .. OPTION_TYPES[key] .. ", got " .. U.value_type(value)
      end
      options[key] = value
    end
  end
  return options
end

return M
