-- The built-in `pro@coder/auto-context` sub-agent: its config (upstream's keys and defaults), the file
-- descriptions it shows its model, and the reading of the model's answer.

local C = require("sub_agent_contract")
local CM = require("code_map")
local U = require("utils_common")
local W = require("workbench")

local M = {}

local function fail(msg) error("auto-context: " .. msg, 0) end

local function is_text(value) return type(value) == "string" and value ~= "" end

local function glob_list(value, what)
  value = U.nil_if_null(value)
  if value == nil then return {} end
  if type(value) == "string" then return { value } end
  if type(value) ~= "table" then fail(what .. " must be a list of globs, got " .. U.value_type(value)) end
  local out = {}
  for i, v in ipairs(value) do
    if not is_text(v) then fail(what .. "[" .. i .. "] must be a non-empty string, got " .. U.value_type(v)) end
    out[#out + 1] = v
  end
  return out
end

--- The sub-agent entry the `auto_context` prompt key stands for, run after the user's `start` sub-agents:
-- entry | nil (off) , plus a message when the key has a wrong shape. `auto_context = "flash"` is the model;
-- a table gives the entry keys (model, code_map_model, mode, knowledge, ...); `enabled = false` turns it off.
function M.sub_agent_entry(params)
  local value = U.nil_if_null(params and params.auto_context)
  if value == nil or value == false then return nil end
  local entry
  if type(value) == "string" and value ~= "" then
    entry = { model = value }
  elseif type(value) == "table" and value[1] == nil then
    if U.nil_if_null(value.enabled) == false then return nil end
    entry = U.deep_copy(value)
  elseif value == true then
    return nil, "auto_context = true names no model: give one (auto_context = \"flash\") or a table { model = \"flash\", ... }"
  else
    return nil, "auto_context must be a model name or a table { model, code_map_model, mode, knowledge, ... }, got " .. U.value_type(value)
  end
  -- an event-form entry, as upstream adds it: it runs on `start` and its coder_params are merged
  entry.name = "pro@coder/auto-context"
  entry.enabled = true
  entry.stages = nil
  entry.on = { "start" }
  return entry
end

--- The entry's helper_globs with the workbench's chat, goal, plan and spec files added (Before All adds them to
-- the entry, as upstream, so later sub-agents see them in sub_agents_next).
function M.with_workbench_helpers(entry, wb)
  local globs = glob_list(entry.helper_globs, "helper_globs")
  for _, path in ipairs(W.content_paths(wb)) do
    local known = false
    for _, g in ipairs(globs) do known = known or g == path end
    if not known then globs[#globs + 1] = path end
  end
  if globs[1] ~= nil then entry.helper_globs = globs end
  return entry
end

--- The config of one run: { model, code_map_model, mode, knowledge, input_concurrency, helper_globs,
-- cache_explicit, base_dir, candidate_globs, knowledge_globs, prompt }.
function M.config(sub)
  local cfg = U.nil_if_null(sub.agent_config) or {}
  local params = U.nil_if_null(sub.coder_params) or {}
  local mode = U.nil_if_null(cfg.mode) or "reduce"
  if mode ~= "reduce" and mode ~= "expand" then
    fail("mode must be \"reduce\" (the default) or \"expand\", got " .. tostring(mode))
  end
  local ok, kinds = pcall(W.include_kinds, cfg.include_kinds, "text")
  if not ok then fail("include_kinds: " .. tostring(kinds)) end
  -- the workbench's data files are offered too (their kinds are the workbench's), and its chat, goal, plan and
  -- spec files help the model choose
  local wb = U.nil_if_null(sub.coder_workbench)
  local data = nil
  if type(wb) == "table" and U.nil_if_null(wb.data_dir) ~= nil then
    data = {
      globs = W.default_data_globs(wb),
      kinds = W.include_kinds(wb.include_kinds, "all"),
      file_path = wb.cache_dir .. "/code-map/data-code-map.json",
    }
    -- no data file of those kinds: no data map (upstream maps and offers data only when there is some)
    local any = false
    for _, file in ipairs(aip.file.list(data.globs)) do
      any = any or (not CM.is_map_path(file.path) and CM.kind_in(file, data.kinds) ~= nil)
    end
    if not any then data = nil end
  end
  local helper_globs = glob_list(cfg.helper_globs, "helper_globs")
  local model = U.nil_if_null(cfg.model) or U.nil_if_null(params.model)
  if model ~= nil and not is_text(model) then fail("model must be a model name, got " .. U.value_type(model)) end
  local code_map_model = U.nil_if_null(cfg.code_map_model) or model
  local concurrency = U.nil_if_null(cfg.code_map_input_concurrency) or U.nil_if_null(cfg.input_concurrency)

  -- reduce picks among the context files; expand adds to them from the structure files. A code map named in
  -- context_globs / knowledge_globs (a `*code-map*.json` file, or a pack's `ns@pack/code-map.json`) offers its entries.
  local context_globs, context_maps = CM.split_map_paths(glob_list(params.context_globs, "context_globs"))
  local candidate_globs = context_globs
  if mode == "expand" then candidate_globs = glob_list(params.structure_globs, "structure_globs") end
  local knowledge_globs, knowledge_maps = CM.split_map_paths(glob_list(params.knowledge_globs, "knowledge_globs"))
  local knowledge = U.nil_if_null(cfg.knowledge) ~= false and (knowledge_globs[1] ~= nil or knowledge_maps[1] ~= nil)
  if not knowledge then knowledge_maps = {} end

  local cache_explicit = params.cache_explicit == true
  if U.nil_if_null(cfg.cache_explicit) ~= nil then cache_explicit = cfg.cache_explicit == true end

  local base_dir = U.nil_if_null(params.base_dir)
  if base_dir == "" then base_dir = nil end
  local prompt = U.nil_if_null(sub.coder_prompt)
  if type(prompt) ~= "string" and type(U.nil_if_null(sub.coder_prompts)) == "table" then
    prompt = table.concat(sub.coder_prompts, "\n\n")
  end
  return {
    model = model,
    code_map_model = code_map_model,
    mode = mode,
    knowledge = knowledge,
    input_concurrency = concurrency,
    helper_globs = helper_globs,
    kinds = kinds,
    data = data,
    cache_explicit = cache_explicit,
    base_dir = base_dir,
    context_globs = context_globs,
    candidate_globs = candidate_globs,
    knowledge_globs = knowledge_globs,
    context_maps = context_maps,
    knowledge_maps = knowledge_maps,
    prompt = prompt or "",
  }
end

--- The code-map entry auto-context runs: the candidates (relative to base_dir) and, when on, the knowledge
-- files (relative to the workspace), each in its named map keyed by workspace-relative path (as upstream), or
-- nil when there is no file to map (only code maps named).
function M.code_map_entry(config, cfg)
  local ws = CTX.WORKSPACE_DIR
  local named = {}
  if config.candidate_globs[1] ~= nil then
    named[#named + 1] = { name = "context", globs = config.candidate_globs, base_dir = config.base_dir or "", path_base_dir = ws, include_kinds = config.kinds }
  end
  if config.knowledge and config.knowledge_globs[1] ~= nil then
    named[#named + 1] = { name = "knowledge", globs = config.knowledge_globs, base_dir = "", path_base_dir = ws, include_kinds = config.kinds }
  end
  if config.data then
    named[#named + 1] = { name = "data", globs = config.data.globs, base_dir = "", path_base_dir = ws, include_kinds = config.data.kinds, file_path = config.data.file_path }
  end
  if named[1] == nil then return nil end
  local entry = { name = "pro@coder/code-map", named_maps = named, model = config.code_map_model }
  if config.input_concurrency then entry.input_concurrency = config.input_concurrency end
  local max_kb = U.nil_if_null(cfg.max_file_size_kb)
  if max_kb ~= nil then entry.max_file_size_kb = max_kb end
  return entry
end

-- Files of globs (relative to base_dir) that are not code maps, of the kinds given (default text), sorted by path.
local function listed(globs, base_dir, kinds)
  if globs[1] == nil then return {} end
  local options = nil
  if base_dir then options = { base_dir = base_dir } end
  local paths = {}
  for _, file in ipairs(aip.file.list(globs, options)) do
    if not CM.is_map_path(file.path) and CM.kind_in(file, kinds or { "text" }) then paths[#paths + 1] = file.path end
  end
  table.sort(paths)
  return paths
end

-- One mapped file as upstream describes it to its model: path, Summary, When To Use, then Types, Functions and
-- Topics when given; the block ends with a newline.
local function describe(entry)
  local lines = { "- " .. entry.file_path, "    - Summary: " .. tostring(U.nil_if_null(entry.summary) or ""),
    "    - When To Use: " .. tostring(U.nil_if_null(entry.when_to_use) or "") }
  for _, pair in ipairs({ { "Types", entry.public_types }, { "Functions", entry.public_functions }, { "Topics", entry.topics } }) do
    local list = U.nil_if_null(pair[2])
    if type(list) == "table" and list[1] ~= nil then lines[#lines + 1] = "    - " .. pair[1] .. ": " .. table.concat(list, ", ") end
  end
  return table.concat(lines, "\n") .. "\n"
end

local function entry_mtime(entry)
  local mtime = U.nil_if_null(entry.mtime)
  if type(mtime) == "number" then return mtime end
  return 0
end

--- The candidates of one map: { paths, text (one description per mapped file, each followed by a blank line),
-- listed (how many files the globs list from the workspace, as upstream counts its "Detected files": it lists
-- them without the base dir), map_keys (the map's keys, sorted) }. A listed file without a map entry
-- (too large, or not summarized) is not offered. Entries are keyed by workspace path and ordered oldest first,
-- then by path, as upstream orders them (a prompt cache keeps the unchanged files at the front).
function M.candidates(globs, base_dir, map_path, kinds)
  local files = listed(globs, base_dir, kinds)
  local detected = #files
  if base_dir then detected = #listed(globs, nil, kinds) end
  if map_path == nil then return { paths = {}, text = "", listed = detected, map_keys = {} } end
  local file_map = CM.load(map_path).file_map
  local found = {}
  for _, path in ipairs(files) do
    local entry = file_map[base_dir and aip.path.join(base_dir, path) or path]
    if type(entry) == "table" then
      local shown = U.deep_copy(entry)
      shown.file_path = path
      found[#found + 1] = shown
    end
  end
  table.sort(found, function(a, b)
    local ma, mb = entry_mtime(a), entry_mtime(b)
    if ma ~= mb then return ma < mb end
    return a.file_path < b.file_path
  end)
  local paths, blocks = {}, {}
  for i, shown in ipairs(found) do
    paths[i] = shown.file_path
    blocks[i] = describe(shown) .. "\n"
  end
  local keys = {}
  for key in pairs(file_map) do keys[#keys + 1] = key end
  table.sort(keys)
  return { paths = paths, text = table.concat(blocks), listed = detected, map_keys = keys }
end

--- The code maps a prompt names in context_globs / knowledge_globs, in that order: one group each
-- { category, map_path, display_path, cache_file_name, paths, kinds (by path), text }. Each entry stands for the
-- file its stored path names through the map's `rel_base`, shown workspace-relative (or `~/...`). A map that
-- cannot be read offers nothing.
function M.explicit_groups(config)
  local groups, used = {}, {}
  local function add(map_path, category)
    local ok, doc = pcall(CM.load, map_path)
    if not ok then doc = { file_map = {} } end
    local keys = {}
    for key in pairs(doc.file_map) do keys[#keys + 1] = key end
    table.sort(keys)
    local paths, kinds, blocks = {}, {}, {}
    for _, key in ipairs(keys) do
      local shown = U.deep_copy(doc.file_map[key])
      local source = CM.source_path(map_path, doc, U.nil_if_null(shown.file_path) or key)
      shown.file_path = CM.display_path(source)
      if U.nil_if_null(shown.kind) == nil then shown.kind = W.file_kind(source) end
      paths[#paths + 1] = shown.file_path
      kinds[shown.file_path] = shown.kind
      blocks[#blocks + 1] = describe(shown)
    end
    local stem = CM.cache_stem(map_path)
    local cache_file_name = stem .. ".md"
    if used[cache_file_name] and used[cache_file_name] ~= map_path then
      cache_file_name = stem .. "-" .. aip.hash.sha256(map_path):sub(1, 8) .. ".md"
    end
    used[cache_file_name] = map_path
    groups[#groups + 1] = {
      category = category,
      map_path = map_path,
      display_path = CM.display_path(map_path),
      cache_file_name = cache_file_name,
      paths = paths,
      kinds = kinds,
      -- upstream's layout: one block per entry, each ending with a newline, a blank line between them
      text = table.concat(blocks, "\n"),
    }
  end
  for _, p in ipairs(config.context_maps) do add(p, "context") end
  for _, p in ipairs(config.knowledge_maps) do add(p, "knowledge") end
  return groups
end

--- The candidates of a category with its explicit map groups added: { paths, text }, each group under an
-- `## Explicit Code Map: <map>` heading.
function M.with_groups(candidates, groups, category)
  local paths, text = {}, { candidates and candidates.text or "" }
  for _, p in ipairs(candidates and candidates.paths or {}) do paths[#paths + 1] = p end
  for _, g in ipairs(groups) do
    if g.category == category then
      for _, p in ipairs(g.paths) do paths[#paths + 1] = p end
      local body = U.trim(g.text)
      if body == "" then body = "None" end
      text[#text + 1] = "## Explicit Code Map: " .. g.display_path .. "\n\n" .. body
    end
  end
  return { paths = paths, text = U.trim(table.concat(text, "\n\n")) }
end

-- A description file in upstream's layout: title, the detected and mapped counts, the code map as given (when
-- there is one), whether the descriptions were sent, then the descriptions (or `fallback`, or "None").
local function save_descriptions(path, d)
  local lines = { "# " .. d.title, "", "Detected files: " .. d.detected, "Mapped descriptions: " .. d.mapped }
  if is_text(d.code_map) then lines[#lines + 1] = "Code map: " .. d.code_map end
  lines[#lines + 1] = ""
  lines[#lines + 1] = d.sent and "## Descriptions Sent to AI" or "## Descriptions Not Sent to AI"
  lines[#lines + 1] = ""
  local body = d.text
  if type(body) ~= "string" or not body:find("%S") then body = d.fallback end
  if type(body) ~= "string" or not body:find("%S") then body = "None" end
  lines[#lines + 1] = body
  aip.file.save(path, table.concat(lines, "\n") .. "\n")
end

--- The description file of one named map, `<prompt dir>/.cache/auto-context/<stem>.md`, in upstream's layout.
function M.save_group_description(prompt_dir, group)
  local count = #group.paths
  save_descriptions(prompt_dir .. "/.cache/auto-context/" .. group.cache_file_name, {
    title = (group.category == "knowledge" and "Knowledge" or "Context") .. " Code Map Descriptions",
    detected = count, mapped = count, code_map = group.display_path, sent = count > 0, text = group.text,
  })
end

-- What upstream writes when no workbench data file has a map entry: the files found and some of the map's keys.
local function data_map_miss(files, keys)
  local lines = { "No mapped workbench data file descriptions were available.", "", "Detected workbench data files:" }
  for i, p in ipairs(files) do
    if i > 20 then
      lines[#lines + 1] = "- ..."
      break
    end
    lines[#lines + 1] = "- " .. p
  end
  lines[#lines + 1] = ""
  lines[#lines + 1] = "Sample code-map keys:"
  for i, k in ipairs(keys) do
    if i > 20 then
      lines[#lines + 1] = "- ..."
      break
    end
    lines[#lines + 1] = "- " .. k
  end
  if keys[1] == nil then lines[#lines + 1] = "- (none)" end
  return table.concat(lines, "\n")
end

--- The description files upstream writes on each run that has an instruction: the context and knowledge files'
-- (`<prompt dir>/.cache/auto-context/last_{context,knowledge}_file_descriptions.md`, always) and the workbench
-- data files' (`<workbench cache>/auto-context/last_data_file_descriptions.md`, when the workbench has data
-- files). The code map is named as upstream builds its path, from the prompt dir (or workbench cache dir) as given.
-- `context` / `knowledge` / `data` are what `candidates` gave (knowledge and data nil when off); the context
-- ones count as sent when they or a named map's offer anything.
function M.save_descriptions(sub, config, c)
  local dir = sub.coder_prompt_dir .. "/.cache/auto-context/"
  local context = c.context
  local any_group = false
  for _, g in ipairs(c.groups) do
    if g.category == "context" and g.paths[1] ~= nil then any_group = true end
  end
  save_descriptions(dir .. "last_context_file_descriptions.md", {
    title = "Context Files Descriptions",
    detected = context.listed, mapped = #context.paths,
    code_map = sub.coder_prompt_dir .. "/.cache/code-map/context-code-map.json",
    sent = context.paths[1] ~= nil or any_group, text = context.text,
  })
  local knowledge = c.knowledge
  local knowledge_map = nil
  if config.knowledge and config.knowledge_globs[1] ~= nil then
    knowledge_map = sub.coder_prompt_dir .. "/.cache/code-map/knowledge-code-map.json"
  end
  save_descriptions(dir .. "last_knowledge_file_descriptions.md", {
    title = "Knowledge Files Descriptions",
    detected = knowledge and knowledge.listed or 0, mapped = knowledge and #knowledge.paths or 0,
    code_map = knowledge_map, sent = knowledge ~= nil and knowledge.paths[1] ~= nil,
    text = knowledge and knowledge.text or "",
  })
  local data = c.data
  if config.data and data and data.listed > 0 then
    local wb = sub.coder_workbench
    local fallback = nil
    if data.paths[1] == nil then
      fallback = data_map_miss(listed(config.data.globs, nil, config.data.kinds), data.map_keys)
    end
    save_descriptions(wb.cache_dir .. "/auto-context/last_data_file_descriptions.md", {
      title = "Workbench Data Files Descriptions",
      detected = data.listed, mapped = #data.paths, code_map = config.data.file_path,
      sent = data.paths[1] ~= nil, text = data.text, fallback = fallback,
    })
  end
end

--- `coder_params.explicit_code_map_selections`: per named map, the files of it the answer picked.
function M.group_selections(groups, context_picked, knowledge_picked)
  local out = {}
  for _, g in ipairs(groups) do
    local picked = {}
    for _, p in ipairs(g.category == "knowledge" and knowledge_picked or context_picked) do picked[p] = true end
    local selected = {}
    for _, p in ipairs(g.paths) do
      if picked[p] then selected[#selected + 1] = p end
    end
    out[#out + 1] = { category = g.category, map_path = g.display_path, selected_files = selected }
  end
  return out
end

-- Upstream takes an answer without the tag, or with one that is not a JSON array, as an empty selection: so does
-- this pack, with a warning (a lax form).
local function empty_selection(tag, what)
  print("WARNING: " .. C.msg.lax("laxAutoContextEmpty", { tag = tag, what = what }))
  return {}
end

--- The JSON array of paths in one tag of the answer: paths (empty, with a warning, when the answer has no such
-- JSON array, as upstream reads it).
function M.tag_paths(content, tag)
  local tags = aip.tag.extract_as_map(content or "", tag)
  local found = tags and U.nil_if_null(tags[tag])
  if found == nil then
    return empty_selection(tag, "the answer has no <" .. tag .. "> block")
  end
  local raw = aip.md.outer_block_content_or_raw(found.content or "")
  local ok, value = pcall(aip.json.parse, raw)
  local bad = not ok or type(value) ~= "table"
  if not bad then
    for k, v in pairs(value) do
      if type(k) ~= "number" or type(v) ~= "string" then bad = true end
    end
  end
  if bad then return empty_selection(tag, "<" .. tag .. "> does not hold a JSON array of file paths: " .. CM.quote(raw)) end
  local paths = {}
  for _, v in ipairs(value) do paths[#paths + 1] = v end
  return paths
end

--- The selected paths, each once, in the answer's order. A path that is not among the candidates is kept as the
-- answer wrote it, as upstream keeps it, with a warning naming it (a lax form).
function M.keep_known(paths, candidates, tag)
  local known = {}
  for _, p in ipairs(candidates) do known[p] = true end
  local kept, seen, unknown = {}, {}, {}
  for _, p in ipairs(paths) do
    local clean = p:gsub("^%./", "")
    if not known[clean] then
      clean = p
      if not seen[clean] then unknown[#unknown + 1] = p end
    end
    if not seen[clean] then
      seen[clean] = true
      kept[#kept + 1] = clean
    end
  end
  if unknown[1] ~= nil then
    print("WARNING: " .. C.msg.lax("laxAutoContextOutside", { paths = table.concat(unknown, ", ") }))
  end
  return kept
end

-- Paths sorted oldest first (then by path), as upstream orders its selection, so a prompt cache keeps
-- the files that did not change at the front.
function M.by_mtime(paths, base_dir)
  local items = {}
  for i, p in ipairs(paths) do
    local source = p
    if base_dir then source = aip.path.join(base_dir, p) end
    local info = aip.file.info and aip.file.info(source)
    local mtime = (type(info) == "table" and type(U.nil_if_null(info.mtime)) == "number") and info.mtime or 0
    items[i] = { path = p, mtime = mtime }
  end
  table.sort(items, function(a, b)
    if a.mtime ~= b.mtime then return a.mtime < b.mtime end
    return a.path < b.path
  end)
  local out = {}
  for i, item in ipairs(items) do out[i] = item.path end
  return out
end

--- The new context_globs: reduce keeps only the selection; expand keeps the user's globs and adds the
-- selected files they do not match yet.
function M.context_globs(config, selected)
  if config.mode == "reduce" then return M.by_mtime(selected, config.base_dir) end
  local globs = {}
  for i, g in ipairs(config.context_globs) do globs[i] = g end
  local already = {}
  for _, p in ipairs(listed(config.context_globs, config.base_dir, config.kinds)) do already[p] = true end
  for _, p in ipairs(selected) do
    if not already[p] then
      already[p] = true
      globs[#globs + 1] = p
    end
  end
  return globs
end

--- Selected paths split by kind: (text paths, media paths to attach). A media path is relative to base_dir (nil:
-- the workspace); the path to attach is workspace-relative.
function M.split_media(paths, base_dir)
  local text, media = {}, {}
  for _, p in ipairs(paths) do
    local kind = W.file_kind(p)
    if kind == "image" or kind == "pdf" then
      local source = p
      if base_dir then source = aip.path.join(base_dir, p) end
      -- a plain path, as upstream lists them
      media[#media + 1] = source
    else
      text[#text + 1] = p
    end
  end
  return text, media
end

--- The params' attachments with `more` added, each file_source once.
function M.with_attachments(existing, more)
  local list, seen = {}, {}
  for _, att in ipairs(U.nil_if_null(existing) or {}) do
    local source = type(att) == "table" and att.file_source or att
    if not seen[source] then
      seen[source] = true
      list[#list + 1] = att
    end
  end
  for _, att in ipairs(more) do
    if not seen[att] then
      seen[att] = true
      list[#list + 1] = att
    end
  end
  return list
end

return M
