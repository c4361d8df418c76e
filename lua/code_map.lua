-- The code maps of the built-in `pro@coder/code-map` sub-agent: which maps an entry asks for, how a map file
-- is read and written, what one model answer (<FILE_INFO>) must hold, and the maps a prompt names itself.
--
-- A map file is JSON in the layout upstream pro@coder (aipack-ai/packs-pro pro/coder/code-map.aip) writes and reads:
-- { "file_map": { "<key>": { file_path, kind, summary, when_to_use, topics?, public_types?, public_functions?,
-- mtime, hash } }, "rel_base"? }. A key is the file's path relative to the map's `path_base_dir` (auto-context's
-- maps: the workspace) or to its `rel_base`, else the absolute path. An entry is up to date when its mtime is not
-- older than the file's, or when the file's BLAKE3 `hash` is unchanged; entries of files no longer listed stay.
-- Each summary is appended to `<cache dir>/.tmp-in-progress.jsonl` as it arrives, so a run stopped midway loses
-- none: the next run puts them in their maps first.

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
      local key_base = U.nil_if_null(nm.path_base_dir)
      if key_base ~= nil and not is_text(key_base) then fail(what .. ".path_base_dir must be a folder path") end
      maps[#maps + 1] = {
        name = nm.name,
        globs = string_list(nm.globs, what .. ".globs"),
        base_dir = nm_base,
        path_base_dir = key_base,
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

M.TMP_IN_PROGRESS = ".tmp-in-progress.jsonl"
M.LABEL_RECOVERED = "  Recovered:"

--- A map file: its whole document (file_map and any other key, e.g. rel_base), { file_map = {} } when the file
-- does not exist. A file that is not a map fails the run: it is never overwritten by guess.
function M.load(file_path)
  if not aip.path.exists(file_path) then return { file_map = {} } end
  local ok, doc = pcall(aip.file.load_json, file_path)
  if not ok or type(doc) ~= "table" or type(U.nil_if_null(doc.file_map)) ~= "table" then
    fail(file_path .. " is not a code map (expected a JSON object with a `file_map` object); delete it to start over")
  end
  local file_map = {}
  for key, entry in pairs(doc.file_map) do
    if type(entry) == "table" then file_map[key] = entry end
  end
  doc.file_map = file_map
  return doc
end

--- Writes a map document whole, as upstream writes it (pretty JSON, every key of the document kept).
function M.save(file_path, doc)
  aip.file.save(file_path, aip.json.stringify_pretty(doc))
end

local function is_absolute(path)
  return is_text(path) and (path:sub(1, 1) == "/" or path:match("^%a:[/\\]") ~= nil)
end

--- `path` relative to `base` when it lies below it (both resolved as AIPack resolves paths), else `path` itself.
function M.relative_to(path, base)
  if not is_text(path) or not is_text(base) then return path end
  local ok_p, abs = pcall(aip.path.resolve, path)
  local ok_b, abs_base = pcall(aip.path.resolve, base)
  if not ok_p or not ok_b or not is_text(abs) or not is_text(abs_base) then return path end
  local prefix = abs_base:gsub("/+$", "") .. "/"
  if abs:sub(1, #prefix) == prefix then return abs:sub(#prefix + 1) end
  return path
end

--- The absolute folder a map's `rel_base` names (relative to the map file's own folder, or absolute), or nil.
function M.rel_base(map_path, doc)
  local rel_base = type(doc) == "table" and U.nil_if_null(doc.rel_base) or nil
  if not is_text(rel_base) then return nil end
  if is_absolute(rel_base) then return aip.path.resolve(rel_base) end
  local ok, abs_map = pcall(aip.path.resolve, map_path)
  if not ok or not is_text(abs_map) then return nil end
  local map_dir = aip.path.parent(abs_map) or "/"
  return aip.path.resolve(aip.path.join(map_dir, rel_base))
end

--- The file an entry of a map stands for: its stored path through the map's rel_base (absolute paths as they are).
function M.source_path(map_path, doc, stored)
  if not is_text(stored) then return stored end
  local base = M.rel_base(map_path, doc)
  if base == nil or is_absolute(stored) then return stored end
  return aip.path.resolve(aip.path.join(base, stored))
end

--- A path as the user reads it: workspace-relative when inside the workspace, `~/...` under the home folder.
function M.display_path(path)
  local ok, abs = pcall(aip.path.resolve, path)
  if not ok or not is_text(abs) then return path end
  local shown = M.relative_to(abs, CTX.WORKSPACE_DIR)
  if shown ~= abs then return shown end
  local ok_home, home = pcall(aip.path.resolve, "~")
  if ok_home and is_text(home) then
    home = home:gsub("/+$", "")
    if abs == home then return "~" end
    if abs:sub(1, #home + 1) == home .. "/" then return "~/" .. abs:sub(#home + 2) end
  end
  return abs
end

-- ---------------------------------------------------------------------------------------------------------------
-- The in-progress file: one JSON line per summary received, applied to the maps at the end of the run

--- The record a line of the in-progress file puts in the maps it names.
local function record_of(line)
  local info = line.file_info
  return {
    file_path = line.file_path,
    kind = info.kind,
    summary = info.summary,
    when_to_use = info.when_to_use,
    topics = info.topics,
    public_types = info.public_types,
    public_functions = info.public_functions,
    mtime = line.mtime,
    hash = line.hash,
  }
end

--- Puts each line's record in the loaded maps it names (`docs`: map documents by map file path); returns the set
-- of map paths changed and the number of lines applied.
function M.apply_lines(lines, docs)
  local changed, count = {}, 0
  for _, line in ipairs(lines or {}) do
    if type(line) == "table" and is_text(line.file_path) and type(U.nil_if_null(line.file_info)) == "table" then
      local record = record_of(line)
      for _, list in ipairs({ U.nil_if_null(line.maps_to_process_for) or {}, U.nil_if_null(line.maps_up_to_date_for) or {} }) do
        for _, map_path in ipairs(list) do
          if docs[map_path] then
            docs[map_path].file_map[line.file_path] = record
            changed[map_path] = true
          end
        end
      end
      count = count + 1
    end
  end
  return changed, count
end

--- The lines of the in-progress file ({} when absent). A file that cannot be read is emptied and fails the run,
-- as upstream does, so the next run starts clean.
function M.read_in_progress(path)
  if not aip.path.exists(path) then return {} end
  local ok, lines = pcall(aip.file.load_ndjson, path)
  if not ok then
    aip.file.save(path, "")
    fail("invalid in-progress NDJSON at '" .. path .. "' (" .. tostring(lines) .. "). File was reset. Please run again.")
  end
  return lines or {}
end

--- Recovery of an interrupted run: the summaries its in-progress file holds go into their maps (saved at once),
-- and the file is emptied. Returns how many were recovered.
function M.recover(path, docs)
  if not aip.path.exists(path) then return 0 end
  local changed, count = M.apply_lines(M.read_in_progress(path), docs)
  for map_path in pairs(changed) do M.save(map_path, docs[map_path]) end
  aip.file.save(path, "")
  return count
end

--- The JSON line of one summary received.
function M.in_progress_line(task, entry)
  return {
    file_path = task.key,
    mtime = task.mtime,
    hash = task.hash,
    maps_to_process_for = task.maps_to_process_for,
    maps_up_to_date_for = task.maps_up_to_date_for,
    file_info = {
      kind = entry.kind,
      summary = entry.summary,
      when_to_use = entry.when_to_use,
      topics = entry.topics,
      public_types = entry.public_types,
      public_functions = entry.public_functions,
    },
  }
end

--- The sub-agent's response once the maps are written. `outcomes`: { created, updated, unchanged, failed } lists
-- of display paths; `oversized_list`: { path, size } of the files skipped.
function M.result(paths, outcomes, oversized_list, config)
  local failed = outcomes.failed or {}
  table.sort(failed)
  -- a file two maps key differently was asked about twice: listed once
  for _, key in ipairs({ "created", "updated", "unchanged" }) do
    local list, seen = {}, {}
    for _, p in ipairs(outcomes[key]) do
      if not seen[p] then
        seen[p] = true
        list[#list + 1] = p
      end
    end
    table.sort(list)
    outcomes[key] = list
  end
  local oversized = {}
  for i, o in ipairs(oversized_list) do oversized[i] = o.path end
  if oversized[1] ~= nil then
    print("code-map: " .. #oversized .. " file(s) over " .. config.max_file_size_kb .. " KB skipped: " .. table.concat(oversized, ", "))
  end
  print(string.format("code-map: %d created, %d updated, %d unchanged, %d oversized, %d failed",
    #outcomes.created, #outcomes.updated, #outcomes.unchanged, #oversized, #failed))
  local agent_result = {
    code_map_file_paths = paths,
    created = outcomes.created,
    updated = outcomes.updated,
    unchanged = outcomes.unchanged,
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

--- A path a prompt may give in knowledge_globs / context_globs to name a code map itself: no glob character, a
-- `.json` file whose name holds `code-map` or `content-map` (any case). Such a file is never sent as a file.
function M.is_map_path(path)
  if not is_text(path) or path:find("[%*%?%[%]{}]") then return false end
  local name = (path:match("[^/\\]+$") or ""):lower()
  if name:match("%.json$") == nil then return false end
  return name:find("code-map", 1, true) ~= nil or name:find("content-map", 1, true) ~= nil
end

--- (regular globs, code map paths) of a glob list.
function M.split_map_paths(globs)
  local regular, maps = {}, {}
  for _, g in ipairs(globs or {}) do
    if M.is_map_path(g) then maps[#maps + 1] = g else regular[#regular + 1] = g end
  end
  return regular, maps
end

--- The stem of the description file auto-context writes for a map a prompt names (`pro@rust10x/code-map.json`
-- -> `pro-rust10x-code-map`).
function M.cache_stem(map_path)
  local stem = tostring(map_path or ""):gsub("%.[Jj][Ss][Oo][Nn]$", ""):lower():gsub("[^a-z0-9]+", "-"):gsub("^%-+", ""):gsub("%-+$", "")
  if stem == "" then return "code-map" end
  return stem
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
  return value
end

-- At most seven topics of at most three words each, as upstream keeps them.
local function short_topics(topics)
  local out = {}
  for _, topic in ipairs(topics or {}) do
    if #out < 7 then
      local words = {}
      for word in topic:gmatch("%S+") do
        if #words < 3 then words[#words + 1] = word end
      end
      if words[1] ~= nil then out[#out + 1] = table.concat(words, " ") end
    end
  end
  return out
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
  kind = kind or "text"
  -- a text file keeps its names, an image or a PDF its topics
  if kind == "text" then
    topics = nil
  else
    types, functions = nil, nil
    topics = short_topics(topics)
  end
  return {
    file_path = file_path,
    kind = kind,
    summary = info.summary,
    when_to_use = when,
    public_types = types,
    public_functions = functions,
    topics = topics,
    hash = hash,
  }
end

return M
