-- Before All of the coder: read the prompt file, run the `pre` sub-agents, then prepare the run
-- (files, modes, agent options, one input per working group) from what they left.

local C = require("sub_agent_contract")
local SA = require("utils_sub_agent")
local AC = require("auto_context")
local P = require("utils_params")
local F = require("utils_files")
local PF = require("utils_prompt_file")
local U = require("utils_common")

local M = {}

local function relative_to_workspace(path)
  local rel = aip.path.diff(path, CTX.WORKSPACE_DIR)
  if rel == nil or rel == "" then return path end
  return rel
end

-- The prompt file, read: { path, rel_path, dir, first_part, second_part, meta, inst } | nil, message.
local function read_prompt(first_input)
  local path = PF.path_for_input(first_input)
  PF.ensure_exists(path)
  local first_part, second_part = PF.split(aip.file.load(path).content)
  local meta, inst, err = PF.read_first_part(first_part)
  if err then return nil, err end
  return {
    path = path,
    rel_path = relative_to_workspace(path),
    dir = aip.path.parent(path),
    dir_as_given = PF.dir_as_given(first_input, path),
    first_part = first_part,
    second_part = PF.clean_second_part(second_part),
    meta = meta,
    inst = inst,
  }
end

-- The agent file a local sub_agents name points at, as aip.agent.run finds it from the workspace root: `.aip`
-- optional, `dir/` (or a name without `.aip`) may be `dir/main.aip`. nil for a pack ref (ns@pack/name).
local function agent_candidates(name)
  if type(name) ~= "string" or name:find("@", 1, true) then return nil end
  local path = name
  if path:sub(1, 1) ~= "/" then path = CTX.WORKSPACE_DIR .. "/" .. path end
  if path:sub(-4) == ".aip" then return { path } end
  if path:sub(-1) == "/" then return { path .. "main.aip" } end
  return { path .. ".aip", path .. "/main.aip" }
end

-- Every enabled sub-agent's file exists: a missing one fails Before All, before any model call (a post_task
-- agent would otherwise be found missing only after the coder's model answered). nil, or the message.
local function missing_agent(configs)
  local list = {}
  for _, config in ipairs(configs or {}) do
    if config.enabled ~= false then
      if type(config.parallel) == "table" then
        for _, member in ipairs(config.parallel) do list[#list + 1] = member end
      else
        list[#list + 1] = config
      end
    end
  end
  for _, config in ipairs(list) do
    local files = agent_candidates(config.name)
    if files then
      local found = false
      for _, f in ipairs(files) do
        if aip.path.exists(f) then found = true end
      end
      if not found then return require("utils_names").not_found(config.name, files[1]) end
    end
  end
  return nil
end

--- The `pre` stage: { configs, params (without sub_agents), prompts } | nil, message. The root event is `start`
-- (the contract harness dispatches another one, as upstream's run_sub_agents_pre_event does); `prompt.prompts`,
-- when given, are the segments the stage starts from instead of `{ inst }`.
function M.run_pre(prompt, event)
  local configs, err = SA.prepare(prompt.meta)
  if not configs then return nil, err end
  err = missing_agent(configs)
  if err then return nil, err end
  -- the built-in auto-context runs after the user's own `pre` sub-agents, as upstream orders it
  local auto_context
  auto_context, err = AC.sub_agent_entry(prompt.meta)
  if err then return nil, "Invalid prompt parameter: " .. err end
  if auto_context then
    local all = {}
    for i, config in ipairs(configs) do all[i] = config end
    all[#all + 1] = auto_context
    configs = all
  end
  local result
  result, err = SA.run_stage("pre", {
    configs = configs,
    params = prompt.meta,
    prompts = prompt.prompts or { prompt.inst },
    prompt_dir = prompt.dir,
    prompt_dir_as_given = prompt.dir_as_given,
    base_options = prompt.meta,
    event = event,
  })
  if not result then return nil, err end
  return { configs = result.configs, params = U.copy_without(result.params, "sub_agents"), prompts = result.prompts }
end

local function empty_instruction_message(rel_path)
  return "Empty instruction: write it above the `====` line of the prompt file, then run again.\n\n-> " .. rel_path
end

local function task_display(paths, inst)
  if paths[1] == nil then return inst end
  return "working files (" .. #paths .. "): " .. U.short_list(paths, 1) .. "\n\n" .. inst
end

-- The files of the run: { files = {knowledge, context, structure}, groups = working groups }.
-- Raises what aip.file.list raises for a glob it rejects (a "../" glob, an unknown pack).
local function list_files(settings)
  return { files = F.resolve(settings), groups = F.working_groups(settings.working_globs, settings.base_dir) }
end

-- Images written inline in the instruction (`![title](path)`, path relative to the prompt file's folder), then
-- the `attachments` param (paths relative to the workspace), are sent with the request: { {file_source, title} }
-- | nil, each file once. aip.md.extract_refs came with AIPack 0.8.10.
local function attachments_of(inst, prompt_dir, listed)
  local list, seen = {}, {}
  local function add(source, title)
    if seen[source] then return end
    seen[source] = true
    list[#list + 1] = { file_source = source, title = title }
  end
  if aip.md and aip.md.extract_refs then
    for _, ref in ipairs(aip.md.extract_refs(inst) or {}) do
      if ref.inline == true and ref.kind == "File" and type(ref.target) == "string" then
        add(relative_to_workspace(aip.path.resolve(aip.path.join(prompt_dir, ref.target))), U.nil_if_null(ref.text))
      end
    end
  end
  for _, att in ipairs(listed) do add(att.file_source, att.title) end
  return U.nil_if_empty(list)
end

-- Keys the pack does not act on are named, never ignored silently.
local function warn_params(params)
  for _, warning in ipairs(C.param_warnings(params)) do print("WARNING: " .. warning) end
end

-- One input per working group, or a single input when there is none. Every input carries the run
-- (configs, params, prompts, resolved files, prompt file) because each stage runs in a fresh Lua state.
function M.build_inputs(run, groups, inst)
  if groups[1] == nil then groups = { {} } end
  local inputs = {}
  for num, refs in ipairs(groups) do
    local paths = F.paths(refs)
    inputs[num] = {
      run = run,
      task = { num = num, count = #groups, working_files = paths },
      working_refs = refs,
      _display = task_display(paths, inst),
    }
  end
  return inputs
end

local function print_summary(run, inputs)
  print("Prompt file: " .. run.prompt_rel_path)
  print(string.format("Tasks: %d | Knowledge files: %d | Context files: %d | Structure files: %d | Sub-agents: %d",
    #inputs, #run.files.knowledge, #run.files.context, #run.files.structure, #run.configs))
  print("write_mode: " .. tostring(run.settings.write_mode))
end

--- The run the later stages share, prepared from what `pre` left: (run, working groups, agent options), or
-- (nil, nil, message). Writes nothing.
function M.prepare_run(prompt, pre)
  local inst = U.join_prompts(pre.prompts)
  local settings, options, err
  settings, err = P.settings(pre.params)
  if settings then options, err = P.agent_options(pre.params, P.RUN_OPTION_KEYS) end
  if err then return nil, nil, "Invalid prompt parameter: " .. err end
  warn_params(pre.params)

  local ok, listed = pcall(list_files, settings)
  if not ok then return nil, nil, "Cannot list the files of the prompt: " .. tostring(listed) end

  local run = {
    prompt_path = prompt.path,
    prompt_rel_path = prompt.rel_path,
    prompt_dir = prompt.dir,
    prompt_dir_as_given = prompt.dir_as_given,
    first_part = prompt.first_part,
    previous_answer = prompt.second_part,
    configs = pre.configs,
    params = pre.params,
    prompts = pre.prompts,
    settings = settings,
    files = listed.files,
    attachments = attachments_of(inst, prompt.dir, settings.attachments),
    task_count = math.max(#listed.groups, 1),
    reports = PF.report_paths(prompt.dir),
  }
  return run, listed.groups, options
end

--- Returns (inputs, options) for aip.flow.before_all_response, or (nil, nil, message) to skip the run.
-- Nothing is written before the run is known to go ahead, so a skipped run leaves the files as they were
-- (except a prompt file created from the template on first use).
function M.run(inputs)
  local prompt, err = read_prompt(inputs and inputs[1])
  if not prompt then return nil, nil, err end

  local pre
  pre, err = M.run_pre(prompt)
  if not pre then return nil, nil, err end

  local inst = U.join_prompts(pre.prompts)
  if U.trim(inst) == "" then return nil, nil, empty_instruction_message(prompt.rel_path) end

  local run, groups, options
  run, groups, options = M.prepare_run(prompt, pre)
  if not run then return nil, nil, options end
  local new_inputs = M.build_inputs(run, groups, U.trim(inst))
  PF.reset_answers(run.prompt_dir, run.task_count)
  PF.reset_reports(run.reports)
  print_summary(run, new_inputs)
  return new_inputs, options
end

return M
