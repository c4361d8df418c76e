-- Before All of the coder: read the prompt file, run the `pre` sub-agents, then prepare the run
-- (files, modes, agent options, one input per working group) from what they left.

local C = require("sub_agent_contract")
local SA = require("utils_sub_agent")
local P = require("utils_params")
local F = require("utils_files")
local PF = require("utils_prompt_file")
local U = require("utils_common")
local R = require("recorder")
local W = require("workbench")

local M = {}

local workbench_data_refs

local function relative_to_workspace(path)
  local rel = aip.path.diff(path, CTX.WORKSPACE_DIR)
  if rel == nil or rel == "" then return path end
  return rel
end

-- The prompt file, read: { path, rel_path, dir, first_part, second_part, meta, inst } | nil, message.
local function read_prompt(first_input)
  local path = PF.path_for_input(first_input)
  PF.ensure_exists(path)
  local dir_as_given = PF.dir_as_given(first_input, path)
  -- in every run, before the meta block is read (as upstream): the prompt-local user templates
  W.init_user_templates(dir_as_given)
  W.init_readme(dir_as_given)
  local first_part, second_part = PF.split(aip.file.load(path).content)
  local meta, inst, err = PF.read_first_part(first_part)
  if err then return nil, err end
  return {
    path = path,
    rel_path = relative_to_workspace(path),
    dir = aip.path.parent(path),
    dir_as_given = dir_as_given,
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
  -- auto_context.lua (and the code maps it uses) loads only for a prompt that names it: every stage loads its
  -- modules anew, in AIPack too
  local AC = U.nil_if_null(prompt.meta and prompt.meta.auto_context) ~= nil and require("auto_context") or nil
  if AC then auto_context, err = AC.sub_agent_entry(prompt.meta) end
  if err then return nil, "Invalid prompt parameter: " .. err end
  if auto_context then
    AC.with_workbench_helpers(auto_context, prompt.workbench and prompt.workbench.coder_workbench)
    local all = {}
    for i, config in ipairs(configs) do all[i] = config end
    all[#all + 1] = auto_context
    configs = all
  end
  local coder_workbench = prompt.workbench and prompt.workbench.coder_workbench
  local later_events = nil
  -- upstream sends workbench::done after the start queue when the run has a workbench and any sub-agent
  -- (not after another root event: the contract harness dispatches the event of its case alone)
  if coder_workbench and configs[1] ~= nil and event == nil then later_events = { C.WORKBENCH_DONE_EVENT } end
  local result
  result, err = SA.run_stage("pre", {
    coder_workbench = coder_workbench,
    later_events = later_events,
    configs = configs,
    params = prompt.meta,
    prompts = prompt.prompts or { prompt.inst },
    prompt_dir = prompt.dir,
    prompt_dir_as_given = prompt.dir_as_given,
    base_options = prompt.meta,
    event = event,
  })
  if not result then return nil, err end
  return {
    configs = result.configs,
    params = U.copy_without(result.params, "sub_agents"),
    prompts = result.prompts,
    workbench_data_globs = result.workbench_data_globs,
  }
end

--- The run's workbench, made before the `start` sub-agents run: { coder_workbench, cache_dir } | nil, message.
-- The meta's pinned globs gain the workbench files; the meta keeps the chosen root value under `workbench`.
function M.prepare_workbench(prompt)
  local dir = prompt.dir_as_given
  local ok, res = pcall(function()
    local config = W.config(W.select_root(prompt.meta), dir)
    if config == nil then return W.prepare_default(dir) end
    return W.prepare(config, prompt.meta, dir)
  end)
  if not ok then return nil, "Invalid prompt parameter: workbench: " .. tostring(res) end
  W.pin(res.coder_workbench)
  return res
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

-- Images written inline in the instruction (`![title](path)`, path relative to the prompt file's folder, given
-- absolute), then the `attachments` param (paths relative to the workspace), are sent with the request: { {file_source, title} }
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
        -- an absolute path, as upstream gives it (the request, the pin and the file report show it so)
        add(aip.path.resolve(aip.path.join(prompt_dir, ref.target)), U.nil_if_null(ref.text))
      end
    end
  end
  for _, att in ipairs(listed) do add(att.file_source, att.title) end
  return U.nil_if_empty(list)
end

-- The run pin upstream sets when the request carries attachments: one line per file, with its size.
local function pin_attachments(list)
  if list == nil then return end
  local lines = {}
  for _, att in ipairs(list) do
    local line = "- " .. att.file_source
    local info = aip.file.info and aip.file.info(att.file_source)
    if type(info) == "table" and type(U.nil_if_null(info.size)) == "number" and aip.text.format_size then
      line = line .. " (" .. aip.text.format_size(info.size) .. ")"
    end
    lines[#lines + 1] = line
  end
  aip.run.pin("attachments", 10, { label = "Attachments:", content = table.concat(lines, "\n") })
end

-- The workbench data files sent as text: auto-context's selection when it made one ({} = none), else the
-- `workbench_data_globs` param, else everything under the workbench's data/. Only files likely text: without a
-- selection, images and PDFs there are neither sent nor attached (as upstream).
workbench_data_refs = function(coder_workbench, pre)
  local globs = pre.workbench_data_globs
  if globs == nil then globs = U.nil_if_null(pre.params.workbench_data_globs) end
  if type(globs) == "string" then globs = { globs } end
  if globs == nil then globs = W.default_data_globs(coder_workbench) end
  if globs == nil or globs[1] == nil then return {} end
  local refs = {}
  for _, ref in ipairs(F.list(globs, nil)) do
    if ref.is_likely_text ~= false and W.file_kind(ref.path, ref.is_likely_text) == "text" then refs[#refs + 1] = ref end
  end
  return refs
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
  local coder_workbench = prompt.workbench and prompt.workbench.coder_workbench
  local data_refs
  ok, data_refs = pcall(workbench_data_refs, coder_workbench, pre)
  if not ok then return nil, nil, "Cannot list the workbench data files: " .. tostring(data_refs) end
  listed.files.data = data_refs

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
    reports = PF.report_paths(prompt.dir, prompt.workbench and aip.path.resolve(prompt.workbench.cache_dir), prompt.workbench and prompt.workbench.cache_dir),
    coder_workbench = coder_workbench,
  }
  pin_attachments(run.attachments)
  return run, listed.groups, options
end

-- Model names the meta block gives that AIPack would not take as meant (utils_names.lua), against the aliases the
-- run knows (the Before All stage's `options`: AIPack's stock ones, the user's and the workspace's config).
local function warn_model_names(meta, opts)
  local aliases = type(opts) == "table" and type(opts.model_aliases) == "table" and opts.model_aliases or {}
  for _, warning in ipairs(require("utils_names").model_warnings(meta, aliases)) do print("WARNING: " .. warning) end
end

--- Returns (inputs, options) for aip.flow.before_all_response, or (nil, nil, message) to skip the run.
-- Nothing is written before the run is known to go ahead, so a skipped run leaves the files as they were
-- (except a prompt file created from the template on first use).
local function run(inputs, stage_options)
  local prompt, err = read_prompt(inputs and inputs[1])
  if not prompt then return nil, nil, err end
  warn_model_names(prompt.meta, stage_options)
  local record = R.start(prompt, inputs and inputs[1])

  prompt.workbench, err = M.prepare_workbench(prompt)
  if not prompt.workbench then return nil, nil, err end

  local pre
  pre, err = M.run_pre(prompt)
  if not pre then return nil, nil, err end
  R.params("pre", nil, pre.params)

  local inst = U.join_prompts(pre.prompts)
  if U.trim(inst) == "" then return nil, nil, empty_instruction_message(prompt.rel_path) end

  local run, groups, options
  run, groups, options = M.prepare_run(prompt, pre)
  if not run then return nil, nil, options end
  run.record = record
  local new_inputs = M.build_inputs(run, groups, U.trim(inst))
  PF.reset_answers(run.prompt_dir, run.task_count)
  PF.reset_reports(run.reports)
  print_summary(run, new_inputs)
  return new_inputs, options
end

--- `stage_options`: the Before All stage's own `options` (a global of the stage, not of this module).
function M.run(inputs, stage_options)
  local new_inputs, options, err = run(inputs, stage_options)
  R.flush()
  if R.stopped() ~= nil then
    -- said once, here: the stages after this one record nothing
    R.warn(R.stopped())
    local first = new_inputs and new_inputs[1]
    if type(first) == "table" and type(first.run) == "table" then first.run.record = nil end
  end
  return new_inputs, options, err
end

return M
