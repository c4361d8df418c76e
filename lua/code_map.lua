-- The code maps of the built-in `pro@coder/code-map` sub-agent: which maps an entry asks for, how a map file
-- is read and written, and what one model answer (<FILE_INFO>) must hold.
--
-- A map file is JSON: { "file_map": { "<path>": { file_path, kind, summary, when_to_use, public_types?,
-- public_functions?, hash } } }, the layout upstream pro@coder reads. `hash` is the file's BLAKE3, so an unchanged
-- file is never asked about again, whatever its mtime.

local U = require("utils_common")
local W = require("workbench")

local M = {}

M.DEFAULT_INPUT_CONCURRENCY = 8
M.DEFAULT_MAX_FILE_SIZE_KB = 1500

local function fail(msg) error("code-map: " .. msg, 0) end

local function is_text(value) return type(value) == "string" and value ~= "" end

local function string_list(value, what)
  if type(value) == "string" then value = { value } end
  if type(value) ~= "table" or value[1] == nil then fail(what .. " must be a non-empty list of globs") end
  for i, v in ipairs(value) do
    if not is_text(v) then fail(what .. "[" .. i .. "] must be a non-empty string, got " .. U.value_type(v)) end
  end
  return value
end

local function positive_number(value, what, default)
  value = U.nil_if_null(value)
  if value == nil then return default end
  if type(value) ~= "number" or value <= 0 then fail(what .. " must be a positive number, got " .. tostring(value)) end
  return value
end

-- A workspace-relative form of a directory given absolute (this pack's contract) or relative (upstream's).
local function workspace_relative(dir)
  if dir:sub(1, 1) == "/" then
    local rel = aip.path.diff(dir, CTX.WORKSPACE_DIR)
    if is_text(rel) and rel:sub(1, 2) ~= ".." then return rel end
  end
  return dir
end

-- The kinds a map takes (text, pdf, image; default text): a bad value fails the run, naming the key.
local function read_kinds(value, what)
  local ok, kinds = pcall(W.include_kinds, value, "text")
  if not ok then fail(what .. ": " .. tostring(kinds)) end
  return kinds
end

--- The kind of a listed file when its map takes it, else nil (a kind left out, or a binary file).
function M.kind_in(file, kinds)
  local kind = W.file_kind(file.path, file.is_likely_text)
  if kind == "unsupported" or not W.has_kind(kinds, kind) then return nil end
  return kind
end

--- The config of one run, from the sub-agent input:
-- { maps = { {name, globs, base_dir, file_path} }, model, input_concurrency, max_file_size_kb, cache_dir }.
function M.config(sub)
  local cfg = U.nil_if_null(sub.agent_config) or {}
  local params = U.nil_if_null(sub.coder_params) or {}
  local cache_dir = U.nil_if_null(cfg.cache_dir)
  if cache_dir == nil then
    if not is_text(sub.coder_prompt_dir) then fail("the input has no coder_prompt_dir and the entry no cache_dir") end
    cache_dir = workspace_relative(sub.coder_prompt_dir) .. "/.cache/code-map"
  elseif not is_text(cache_dir) then
    fail("cache_dir must be a folder path, got " .. U.value_type(cache_dir))
  end
  local base_dir = U.nil_if_null(cfg.base_dir)
  if base_dir == "" then base_dir = nil end
  local kinds = read_kinds(cfg.include_kinds, "include_kinds")

  local maps = {}
  local globs = U.nil_if_null(cfg.globs)
  local named = U.nil_if_null(cfg.named_maps)
  if globs == nil and named == nil then fail("the entry needs `globs` (a list of globs) or `named_maps`") end
  if globs ~= nil then
    maps[#maps + 1] = { globs = string_list(globs, "globs"), base_dir = base_dir, file_path = cache_dir .. "/code-map.json", kinds = kinds }
  end
  if named ~= nil then
    if type(named) ~= "table" or named[1] == nil then fail("named_maps must be a list of { name, globs } tables") end
    local seen = {}
    for i, nm in ipairs(named) do
      local what = "named_maps[" .. i .. "]"
      if type(nm) ~= "table" or not is_text(nm.name) then fail(what .. " needs a `name` (a non-empty string)") end
      if not nm.name:match("^[%w_%-%.]+$") then fail(what .. ".name must be letters, digits, '-', '_' or '.', got " .. nm.name) end
      if seen[nm.name] then fail(what .. ": the name " .. nm.name .. " is used twice") end
      seen[nm.name] = true
      local nm_kinds = kinds
      if U.nil_if_null(nm.include_kinds) ~= nil then nm_kinds = read_kinds(nm.include_kinds, what .. ".include_kinds") end
      local file_path = U.nil_if_null(nm.file_path)
      if file_path ~= nil and not is_text(file_path) then fail(what .. ".file_path must be a file path") end
      local nm_base = U.nil_if_null(nm.base_dir)
      if nm_base == nil then nm_base = base_dir elseif nm_base == "" then nm_base = nil end
      maps[#maps + 1] = {
        name = nm.name,
        globs = string_list(nm.globs, what .. ".globs"),
        base_dir = nm_base,
        file_path = file_path or (cache_dir .. "/" .. nm.name .. "-code-map.json"),
        kinds = nm_kinds,
      }
    end
  end

  local model = U.nil_if_null(cfg.model) or U.nil_if_null(params.model)
  if model ~= nil and not is_text(model) then fail("model must be a model name, got " .. U.value_type(model)) end
  return {
    maps = maps,
    cache_dir = cache_dir,
    model = model,
    input_concurrency = positive_number(cfg.input_concurrency, "input_concurrency", M.DEFAULT_INPUT_CONCURRENCY),
    max_file_size_kb = positive_number(U.nil_if_null(cfg.max_file_size_kb) or U.nil_if_null(params.max_file_size_kb),
      "max_file_size_kb", M.DEFAULT_MAX_FILE_SIZE_KB),
  }
end

--- The file_map of a map file ({} when the file does not exist). A file that is not a map fails the run:
-- it is never overwritten by guess.
function M.load(file_path)
  if not aip.path.exists(file_path) then return {} end
  local ok, doc = pcall(aip.file.load_json, file_path)
  if not ok or type(doc) ~= "table" or type(U.nil_if_null(doc.file_map)) ~= "table" then
    fail(file_path .. " is not a code map (expected a JSON object with a `file_map` object); delete it to start over")
  end
  local file_map = {}
  for path, entry in pairs(doc.file_map) do
    if type(entry) == "table" then file_map[path] = entry end
  end
  return file_map
end

--- Writes a map whole: to a temporary file first, then moved over the old one, so a run stopped midway never
-- leaves a half-written map.
function M.save(file_path, file_map)
  local text = aip.json.stringify_pretty({ file_map = file_map }) .. "\n"
  if aip.file.move then
    local tmp = file_path .. ".tmp"
    aip.file.save(tmp, text)
    aip.file.move(tmp, file_path, { overwrite = true })
  else
    aip.file.save(file_path, text)
  end
end

--- Writes the maps that changed and gives the sub-agent's response. `by_source`: the new entries of this run by
-- source path; `failed`: "path: why" of the files whose answer was not usable (their old entry, if any, stays).
function M.finish(maps, by_source, oversized_list, config, failed)
  failed = failed or {}
  table.sort(failed)
  local created, updated, removed, unchanged, paths = {}, {}, {}, {}, {}
  local seen_created, seen_updated = {}, {}
  for _, map in ipairs(maps) do
    paths[#paths + 1] = map.def.file_path
    local file_map, changed = {}, false
    for _, key in ipairs(map.unchanged) do
      file_map[key] = map.old[key]
      unchanged[#unchanged + 1] = key
    end
    for key in pairs(map.old) do
      if not map.listed[key] then
        changed = true
        removed[#removed + 1] = key
      end
    end
    for key in pairs(map.listed) do
      if file_map[key] == nil then
        local source = key
        if map.def.base_dir then source = aip.path.join(map.def.base_dir, key) end
        local entry = by_source[source]
        if entry then
          local copy = U.deep_copy(entry)
          copy.file_path = key
          file_map[key] = copy
          changed = true
          if map.old[key] ~= nil then
            if not seen_updated[source] then
              seen_updated[source] = true
              updated[#updated + 1] = source
            end
          elseif not seen_created[source] then
            seen_created[source] = true
            created[#created + 1] = source
          end
        elseif map.old[key] ~= nil then
          file_map[key] = map.old[key]
        end
      end
    end
    if changed or not aip.path.exists(map.def.file_path) then M.save(map.def.file_path, file_map) end
  end
  table.sort(created)
  table.sort(updated)
  table.sort(removed)
  table.sort(unchanged)

  local oversized = {}
  for i, o in ipairs(oversized_list) do oversized[i] = o.path end
  if oversized[1] ~= nil then
    print("code-map: " .. #oversized .. " file(s) over " .. config.max_file_size_kb .. " KB skipped: " .. table.concat(oversized, ", "))
  end
  print(string.format("code-map: %d created, %d updated, %d unchanged, %d removed, %d oversized, %d failed",
    #created, #updated, #unchanged, #removed, #oversized, #failed))

  local agent_result = {
    code_map_file_paths = paths,
    created = created,
    updated = updated,
    unchanged = unchanged,
    removed = removed,
    oversized = oversized,
  }
  if failed[1] ~= nil then
    return {
      success = false,
      error_msg = "code-map: " .. #failed .. " file(s) got no usable summary (the maps keep every other entry)",
      error_details = table.concat(failed, "\n"),
      agent_result = agent_result,
    }
  end
  return { agent_result = agent_result }
end

-- A path of a code map JSON (never mapped itself).
function M.is_map_path(path)
  if path:sub(-5):lower() ~= ".json" then return false end
  local name = (path:match("[^/]+$") or path):lower()
  return name:match("%.json$") ~= nil and (name:find("code-map", 1, true) ~= nil or name:find("content-map", 1, true) ~= nil)
end

-- The first characters of a text, on one line, for an error message.
function M.quote(text, max)
  max = max or 160
  local one = U.trim(tostring(text or "")):gsub("%s+", " ")
  if #one > max then one = one:sub(1, max) .. "..." end
  return '"' .. one .. '"'
end

local function optional_strings(value, key)
  value = U.nil_if_null(value)
  if value == nil then return nil end
  if type(value) ~= "table" then return nil, key .. " must be a list of strings" end
  for _, v in ipairs(value) do
    if type(v) ~= "string" then return nil, key .. " must be a list of strings" end
  end
  if value[1] == nil then return nil end
  return value
end

--- The map entry of one model answer: entry | nil, why (quoting the bad part). `kind`: the file's (default text);
-- a pdf or image entry may list `topics` instead of types and functions.
function M.parse_answer(content, file_path, hash, kind)
  local tags = aip.tag.extract_as_map(content or "", "FILE_INFO")
  local tag = tags and U.nil_if_null(tags.FILE_INFO)
  if tag == nil then return nil, "the answer has no <FILE_INFO> tag: " .. M.quote(content) end
  local raw = aip.md.outer_block_content_or_raw(tag.content or "")
  local ok, info = pcall(aip.json.parse, raw)
  if not ok or type(info) ~= "table" then return nil, "<FILE_INFO> does not hold a JSON object: " .. M.quote(raw) end
  if not is_text(U.nil_if_null(info.summary)) then return nil, "<FILE_INFO> has no `summary` string: " .. M.quote(raw) end
  local when = U.nil_if_null(info.when_to_use)
  if when ~= nil and type(when) ~= "string" then return nil, "<FILE_INFO> `when_to_use` must be a string: " .. M.quote(raw) end
  local types, err = optional_strings(info.public_types, "public_types")
  if err then return nil, "<FILE_INFO> " .. err .. ": " .. M.quote(raw) end
  local functions
  functions, err = optional_strings(info.public_functions, "public_functions")
  if err then return nil, "<FILE_INFO> " .. err .. ": " .. M.quote(raw) end
  local topics
  topics, err = optional_strings(info.topics, "topics")
  if err then return nil, "<FILE_INFO> " .. err .. ": " .. M.quote(raw) end
  return {
    file_path = file_path,
    kind = kind or "text",
    summary = info.summary,
    when_to_use = when or "",
    public_types = types,
    public_functions = functions,
    topics = topics,
    hash = hash,
  }
end

return M
