-- The workbench: chat, goal, plan and spec files in a folder beside the prompt, rules generated into its `.cache/`,
-- and a `data/` folder, as upstream pro@coder lays them out (aipack-ai/packs-pro pro/coder/lua/workbench.lua).
-- Paths are workspace-relative, rooted at the prompt folder as the prompt path names it.
--
-- Even a prompt without a `workbench:` key gets a default workbench (its folder, `data/` and the `coder_workbench`
-- input), as upstream makes one in every run.

local U = require("utils_common")

local M = {}

M.DEFAULT_DIR_NAME = "workbench-default"
M.ALL_KINDS = { "text", "pdf", "image" }
local VALID_KINDS = { text = true, pdf = true, image = true }

-- ---------------------------------------------------------------------------------------------------------------
-- include_kinds

--- A kinds list: nil -> the default, "text" -> { "text" }, "all" -> every kind, a list -> itself without duplicates.
-- Anything else raises, which fails the run (upstream does the same).
function M.include_kinds(value, default)
  value = U.nil_if_null(value)
  if value == nil then value = default or "text" end
  if value == "text" then return { "text" } end
  if value == "all" then return U.deep_copy(M.ALL_KINDS) end
  if type(value) ~= "table" then
    error("include_kinds must be \"text\", \"all\" or a list of \"text\", \"pdf\", \"image\", got " .. U.value_type(value), 0)
  end
  local kinds, seen = {}, {}
  for _, kind in ipairs(value) do
    if type(kind) ~= "string" or not VALID_KINDS[kind] then
      error("invalid include kind `" .. tostring(kind) .. "`: expected \"text\", \"pdf\" or \"image\"", 0)
    end
    if not seen[kind] then
      seen[kind] = true
      kinds[#kinds + 1] = kind
    end
  end
  if kinds[1] == nil then error("include_kinds must name at least one kind", 0) end
  return kinds
end

--- The kind of a file: "image" (png, jpg, jpeg), "pdf", "text" (unless aip.file says it is not likely text), or
-- "unsupported".
function M.file_kind(path, is_likely_text)
  local ext = (tostring(path):match("%.([^./\\]+)$") or ""):lower()
  if ext == "png" or ext == "jpg" or ext == "jpeg" then return "image" end
  if ext == "pdf" then return "pdf" end
  if is_likely_text ~= false then return "text" end
  return "unsupported"
end

function M.has_kind(kinds, kind)
  for _, k in ipairs(kinds or {}) do
    if k == kind then return true end
  end
  return false
end

-- ---------------------------------------------------------------------------------------------------------------
-- Config

local function strip_slashes(path)
  if type(path) ~= "string" then return nil end
  local clean = path:gsub("/+$", "")
  if clean == "" then return nil end
  return clean
end

local function has_extension(path)
  local name = path:match("[^/]+$") or path
  return name:match("^.+%.[^%.]+$") ~= nil
end

local function parent_or_dot(path)
  local parent = aip.path.parent(path)
  if parent == nil or parent == "" then return "." end
  return parent
end

-- A file setting's path: nil or "" -> `<dir>/<file>`; a name with an extension is the file; else a folder.
local function file_path(value, dir, file)
  local clean = strip_slashes(U.nil_if_null(value))
  if clean == nil then return dir .. "/" .. file end
  if has_extension(clean) then return clean end
  return clean .. "/" .. file
end

local function merged(base, over)
  local out = {}
  for k, v in pairs(base) do out[k] = v end
  for k, v in pairs(over) do out[k] = v end
  return out
end

-- chat, goal and spec: true, a path, or a table { enabled, path }. nil when not set.
local function file_section(value, dir, file)
  value = U.nil_if_null(value)
  if value == true then return { enabled = true, path = file_path(nil, dir, file) } end
  if type(value) == "string" then return { enabled = true, path = file_path(value, dir, file) } end
  if type(value) == "table" then
    local section = merged({ enabled = true }, value)
    section.path = file_path(U.nil_if_null(section.path), dir, file)
    return section
  end
  return nil
end

-- plan: like the others, but a table may give `dir` instead of `path`, and the section records its folder.
local function plan_section(value, dir)
  value = U.nil_if_null(value)
  local section
  if value == true or type(value) == "string" then
    section = { enabled = true }
    if type(value) == "string" then section.path = value end
  elseif type(value) == "table" then
    section = merged({ enabled = true }, value)
    if U.nil_if_null(section.path) == nil or section.path == "" then section.path = U.nil_if_null(section.dir) end
  else
    return nil
  end
  section.path = file_path(section.path, dir, "plan.md")
  section.dir = parent_or_dot(section.path)
  return section
end

local function spec_section(value, dir)
  local section = file_section(value, dir, "spec.md")
  if section then section.context_path = section.path end
  return section
end

local function is_on(section)
  return type(section) == "table" and section.enabled ~= false
end

--- The root `workbench:` (or legacy `dev:`) value of the meta block, chosen as upstream does: `workbench` wins,
-- a `dev` alone is used. Pins say which. The meta keeps the choice under `workbench`, without `dev`.
function M.select_root(meta)
  local wb, dev = U.nil_if_null(meta.workbench), U.nil_if_null(meta.dev)
  if wb == nil and dev == nil then return nil end
  local chosen = wb
  if aip.run and aip.run.pin then
    if wb == nil then
      chosen = dev
      aip.run.pin("workbench-legacy-config", 1, { label = "  Workbench:",
        content = "The legacy `dev` key is read as `workbench`." })
    elseif dev ~= nil then
      aip.run.pin("workbench-legacy-config-ignored", 1, { label = "  Workbench:",
        content = "`workbench` and the legacy `dev` are both set: `dev` is ignored." })
    end
  elseif wb == nil then
    chosen = dev
  end
  meta.workbench = chosen
  meta.dev = nil
  return chosen
end

--- The normalised config of a root value, or nil when it turns the workbench off (nil, false, `enabled: false`,
-- or a table that enables none of chat, goal, plan, spec, data).
-- { dir | nil, data, include_kinds, chat, goal, plan, spec }; `workbench: true` has no `dir`.
function M.config(value, prompt_dir)
  value = U.nil_if_null(value)
  local default_dir = prompt_dir .. "/" .. M.DEFAULT_DIR_NAME
  if value == nil or value == false then return nil end
  if value == true then
    return { data = true, include_kinds = M.include_kinds(nil, "all") }
  end
  if type(value) ~= "table" then
    error("workbench must be true, false or a table { dir, chat, goal, plan, spec, data, include_kinds }, got "
      .. U.value_type(value), 0)
  end
  if U.nil_if_null(value.enabled) == false then return nil end
  local dir = strip_slashes(U.nil_if_null(value.dir)) or default_dir
  local config = {
    dir = dir,
    data = U.nil_if_null(value.data) ~= false,
    include_kinds = M.include_kinds(value.include_kinds, "all"),
    chat = file_section(value.chat, dir, "chat.md"),
    goal = file_section(value.goal, dir, "goal.md"),
    plan = plan_section(value.plan, dir),
    spec = spec_section(value.spec, dir),
  }
  if not (config.data or is_on(config.chat) or is_on(config.goal) or is_on(config.plan) or is_on(config.spec)) then
    return nil
  end
  return config
end

-- ---------------------------------------------------------------------------------------------------------------
-- Files

-- aip.file.ensure_dir came with AIPack 0.8.22; before it, a folder appears with its first file.
local function ensure_dir(path)
  if aip.file.ensure_dir then aip.file.ensure_dir(path) end -- check:allow aip-too-new
end

local function user_template(prompt_dir, names)
  for _, name in ipairs(names) do
    local path = prompt_dir .. "/user-templates/" .. name
    if aip.file.exists(path) then
      local content = aip.file.load(path).content
      if type(content) == "string" and content ~= "" then return content end
    end
  end
  return nil
end

-- The rules file of a kind, written once: an existing file is kept, else it is seeded from the first non-empty
-- prompt-local template among `names`, else from the pack's fallback.
local RULES = {
  chat = { file = "_chat-rules.md", names = { "_chat-rules.md", "workbench-chat-rules.md" } },
  goal = { file = "_goal-rules.md", names = { "workbench-goal-rules.md", "_goal-rules.md" } },
  plan = { file = "_plan-rules.md", names = { "workbench-plan-rules.md", "_plan-rules.md" } },
  spec = { file = "_spec-rules.md", names = { "workbench-spec-rules.md", "_spec-rules.md" } },
}
local FALLBACK_RULES = {
  chat = "# Chat rules\n\n- Answer each `## Request:` under it; add new requests at the end.\n",
  goal = "# Goal rules\n\n- Keep goal.md the current statement of what the work must reach.\n",
  plan = "# Plan rules\n\n- Keep plan.md a short list of the next steps, ticked when done.\n",
  spec = "# Spec rules\n\n- Keep spec.md the precise description of the code's intended behaviour.\n",
}

local function ensure_rules(kind, cache_dir, prompt_dir)
  local path = cache_dir .. "/" .. RULES[kind].file
  if aip.file.exists(path) then return path end
  local content = user_template(prompt_dir, RULES[kind].names) or FALLBACK_RULES[kind]
  aip.file.ensure_exists(path, content)
  return path
end

-- The seed of a new chat file (upstream's wording, which users see in their chat.md).
M.CHAT_SEED = "# Dev Chat\n\nAdd a new `## Request: _user_ask_title_concise_` with the answer below (concise title). "
  .. "Use markdown sub-headings for sub sections. Keep this top instruction in this file. \n"

local function ensure_chat(path)
  if aip.file.exists(path) then return end
  local legacy = parent_or_dot(path) .. "/dev-chat.md"
  if aip.file.exists(legacy) and aip.file.move then
    aip.file.move(legacy, path, { overwrite = false })
    return
  end
  if path:lower():match("%.md$") then aip.file.ensure_exists(path, M.CHAT_SEED) else aip.file.ensure_exists(path) end
end

local function ensure_empty(path)
  if not aip.file.exists(path) then aip.file.ensure_exists(path) end
end

local function append_unique(list, value)
  for _, v in ipairs(list) do
    if v == value then return end
  end
  list[#list + 1] = value
end

local function glob_list(meta, key)
  local value = U.nil_if_null(meta[key])
  if type(value) == "string" then value = { value } end
  if type(value) ~= "table" then value = {} end
  meta[key] = value
  return value
end

--- The `coder_workbench` input of a config (see the contract's CoderWorkbench).
function M.coder_workbench(config, prompt_dir)
  local prompt_cache_dir = prompt_dir .. "/.cache"
  local dir = config.dir or (prompt_dir .. "/" .. M.DEFAULT_DIR_NAME)
  local wb = {
    dir = dir,
    cache_dir = dir .. "/.cache",
    prompt_cache_dir = prompt_cache_dir,
    include_kinds = M.include_kinds(config.include_kinds, "all"),
  }
  if is_on(config.chat) then wb.chat = { enabled = true, path = config.chat.path, rules_path = config.chat.rules_path } end
  if is_on(config.goal) then wb.goal = { enabled = true, path = config.goal.path, rules_path = config.goal.rules_path } end
  if is_on(config.plan) then
    wb.plan = { enabled = true, dir = config.plan.dir, path = config.plan.path, rules_path = config.plan.rules_path }
  end
  if is_on(config.spec) then
    wb.spec = { enabled = true, path = config.spec.path, rules_path = config.spec.rules_path,
      context_path = config.spec.context_path or config.spec.path }
  end
  if config.data == true then wb.data_dir = dir .. "/data" end
  return wb
end

--- Makes the workbench's files (each only when missing) and adds them to the meta's pinned globs: the chat, goal,
-- plan and spec files to `context_globs_post`, their rules to `knowledge_globs_post`. Returns
-- { coder_workbench, cache_dir } where cache_dir holds the run's report files.
function M.prepare(config, meta, prompt_dir)
  local dir = config.dir or (prompt_dir .. "/" .. M.DEFAULT_DIR_NAME)
  -- rules go to the workbench's cache; with `workbench: true` (no dir) the run's reports stay in the prompt's
  local rules_cache = config.dir and (config.dir .. "/.cache") or (prompt_dir .. "/.cache")
  if config.data then ensure_dir(dir .. "/data") end
  local context_post = glob_list(meta, "context_globs_post")
  local knowledge_post = glob_list(meta, "knowledge_globs_post")
  local function add(kind, path, ensure)
    local section = config[kind]
    ensure(path)
    section.rules_path = ensure_rules(kind, rules_cache, prompt_dir)
    append_unique(context_post, path)
    append_unique(knowledge_post, section.rules_path)
  end
  if is_on(config.chat) then add("chat", config.chat.path, ensure_chat) end
  if is_on(config.goal) then add("goal", config.goal.path, ensure_empty) end
  if is_on(config.plan) then add("plan", config.plan.path, ensure_empty) end
  if is_on(config.spec) then add("spec", config.spec.context_path, ensure_empty) end
  return { coder_workbench = M.coder_workbench(config, prompt_dir), cache_dir = rules_cache }
end

--- The workbench of a run without one: its folder and `data/` exist, the reports go to its `.cache/`.
function M.prepare_default(prompt_dir)
  local wb = M.coder_workbench({ data = true }, prompt_dir)
  ensure_dir(wb.dir)
  ensure_dir(wb.data_dir)
  return { coder_workbench = wb, cache_dir = wb.cache_dir }
end

--- Run pin listing the workbench files and their rules (priority 3, as upstream).
function M.pin(wb)
  if not (aip.run and aip.run.pin) then return end
  local lines, rules = {}, {}
  for _, kind in ipairs({ "chat", "goal", "plan", "spec" }) do
    local section = wb[kind]
    if section then
      local title = kind:sub(1, 1):upper() .. kind:sub(2)
      lines[#lines + 1] = title .. ": " .. (section.context_path or section.path) .. " (context & auto-context)"
      if section.rules_path then rules[#rules + 1] = title .. " rules: " .. section.rules_path end
    end
  end
  if lines[1] == nil then return end
  if rules[1] ~= nil then
    lines[#lines + 1] = ""
    lines[#lines + 1] = "Rules in the knowledge files:"
    for _, line in ipairs(rules) do lines[#lines + 1] = line end
  end
  aip.run.pin("workbench", 3, { label = "  Workbench:", content = table.concat(lines, "\n") })
end

-- aip.file.copy where this AIPack has it; an older one without it: load and save the content
local function copy_file(from, to, overwrite)
  if aip.file.copy then
    aip.file.copy(from, to, { overwrite = overwrite })
  else
    aip.file.save(to, aip.file.load(from).content)
  end
end

--- Copies the pack's `user-templates/template-<name>` files to `<prompt_dir>/user-templates/<name>` when the
-- copy does not exist yet: a user's edited copy is never overwritten.
function M.init_user_templates(prompt_dir)
  local dest_dir = prompt_dir .. "/user-templates"
  ensure_dir(dest_dir)
  for _, file in ipairs(aip.file.list(CTX.AGENT_FILE_DIR .. "/user-templates/template-*")) do
    local name = file.name:gsub("^template%-", "", 1)
    local dest = dest_dir .. "/" .. name
    if name ~= file.name and not aip.file.exists(dest) then copy_file(file.path, dest, false) end
  end
end

--- Copies the pack's README.md to `<prompt_dir>/README.md` when the copy is missing or older than the pack's (by
-- ctime), as upstream pro@coder does in every run.
function M.init_readme(prompt_dir)
  if not aip.file.info then return end
  local source = aip.file.info(CTX.AGENT_FILE_DIR .. "/README.md")
  if source == nil then return end
  local dest_path = prompt_dir .. "/README.md"
  local dest = aip.file.info(dest_path)
  if dest ~= nil and (tonumber(source.ctime) or 0) <= (tonumber(dest.ctime) or 0) then return end
  copy_file(source.path, dest_path, true)
end

--- A prompt-local user template's content: content | nil, message (it is copied there in every run).
function M.load_user_template(prompt_dir, name)
  local path = prompt_dir .. "/user-templates/" .. name
  if not aip.file.exists(path) then
    return nil, "The user template " .. path .. " is missing (it is copied from the pack when absent: run again)"
  end
  return aip.file.load(path).content
end

--- The workbench files as the model may name them: { { alias, path } } for the enabled chat, goal, plan, spec.
function M.aliases(wb)
  local list = {}
  for _, kind in ipairs({ "chat", "goal", "plan", "spec" }) do
    local section = wb and wb[kind]
    if section then list[#list + 1] = { alias = kind .. ".md", path = section.context_path or section.path } end
  end
  return list
end

--- The chat, goal, plan and spec paths (auto-context shows them as helper files).
function M.content_paths(wb)
  local paths = {}
  for _, item in ipairs(M.aliases(wb)) do paths[#paths + 1] = item.path end
  return paths
end

--- The globs of the data files when nothing selected them: `<dir>/data/**/*.*`, or nil without a data folder.
function M.default_data_globs(wb)
  if wb == nil or wb.data_dir == nil then return nil end
  return { wb.dir .. "/data/**/*.*" }
end

return M
