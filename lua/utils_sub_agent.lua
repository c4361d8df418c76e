-- The sub_agents pipeline (SUB_AGENTS.md): configuration check, and one run of one stage.
-- Normalisation, validation and every user-facing message come from the generated contract module.
--
-- Two forms of entry share one pipeline, each by its own rules (section 7): a stage-form entry (a name, or a
-- table without `on`) runs in the stages it lists and its coder_params replace the params; an event-form entry
-- (`on` given) runs when an event it listens to is dispatched, as upstream pro@coder runs it: merged params,
-- emitted events queued first in first out, `agent_on`, `coder_redo`.

local C = require("sub_agent_contract")
local U = require("utils_common")
local R = require("recorder")

local M = {}

-- What a stage takes from a successful response (SUB_AGENTS.md section 3), from the contract's lists:
-- { [stage] = { [field] = true } }; coder_prompt goes with coder_prompts. Anything else is ignored.
local ADOPTS = {}
for _, stage in ipairs(C.STAGES) do
  local set = {}
  for _, field in ipairs(C.STAGE_ADOPTS[stage] or {}) do set[field] = true end
  set.coder_prompt = set.coder_prompts
  ADOPTS[stage] = set
end

local WORKBENCH_NAMES = {}
for _, name in ipairs(C.WORKBENCH_AGENT_NAMES) do WORKBENCH_NAMES[name] = true end

-- The prompt pin upstream shows (and refreshes when a pre sub-agent changes the instruction).
local PROMPT_PIN_LABEL = "     Prompt:"

local function is_configured(list)
  if U.is_nil(list) then return false end
  return not (type(list) == "table" and next(list) == nil)
end

-- An unparsable version counts as too old rather than crashing Before All.
local function version_supported()
  local ok, supported = pcall(aip.semver.compare, CTX.AIPACK_VERSION, ">=", C.MIN_AIPACK_VERSION)
  return ok and supported == true
end

-- Keys of table entries the contract does not define reach the agent as agent_config, but may be typos
-- (which ones are warned: utils_names.lua).
local function warn_unknown_keys(list, label)
  for _, warning in ipairs(require("utils_names").entry_key_warnings(list, label)) do print("WARNING: " .. warning) end
end

local function entry_name(entry)
  if type(entry) == "string" then return entry end
  if type(entry) == "table" and type(entry.name) == "string" then return entry.name end
  return nil
end

-- Upstream's workbench entries are refused before anything runs: message | nil.
local function workbench_entry_error(list)
  if type(list) ~= "table" then return nil end
  for _, entry in ipairs(list) do
    local name = entry_name(entry)
    if name and WORKBENCH_NAMES[name] then return C.msg.workbench_entry(name) end
  end
  return nil
end

local function slice(list, from, to)
  local part, n = {}, 0
  for i = from, to or #list do
    local v = list[i]
    if v ~= nil then
      n = n + 1
      part[n] = v
    end
  end
  return part
end

local function shallow_copy(tbl)
  local copy = {}
  for k, v in pairs(tbl or {}) do copy[k] = v end
  return copy
end

-- Upstream reads `on = []` as start and drops empty event names (section 7): so does this pack, with a warning
-- naming the entry and the stricter form. Returns the list, a copy where an entry's `on` was rewritten.
local function relax_on(list, label)
  if type(list) ~= "table" then return list end
  local out = list
  for i, entry in ipairs(list) do
    local on = type(entry) == "table" and U.nil_if_null(entry.on) or nil
    if type(on) == "table" then
      local kept, blank = {}, false
      for _, event in ipairs(on) do
        if event == "" then blank = true else kept[#kept + 1] = event end
      end
      if blank or kept[1] == nil then
        if out == list then out = slice(list, 1) end
        local copy = shallow_copy(entry)
        local where = label .. "[" .. i .. "]"
        local name = tostring(entry_name(entry))
        if kept[1] == nil then
          copy.on = { "start" }
          if not blank then print("WARNING: " .. C.msg.lax("laxOnEmpty", { label = where, name = name })) end
        end
        if blank then
          if kept[1] ~= nil then copy.on = kept end
          local names = {}
          for _, event in ipairs(copy.on) do names[#names + 1] = '"' .. event .. '"' end
          print("WARNING: " .. C.msg.lax("laxOnBlank", { label = where, name = name, events = "{ " .. table.concat(names, ", ") .. " }" }))
        end
        out[i] = copy
      end
    end
  end
  return out
end

-- The normalised sub-agent configs of a prompt's params: configs (possibly {}) | nil, message.
function M.prepare(params)
  local list = params and params.sub_agents
  if not is_configured(list) then return {} end
  if not version_supported() then return nil, C.msg.version(tostring(CTX.AIPACK_VERSION)) end
  local workbench_err = workbench_entry_error(list)
  if workbench_err then return nil, workbench_err end
  list = relax_on(list, "sub_agents")
  local configs, err = C.normalize_list(list)
  if configs and type(list) == "table" then
    warn_unknown_keys(list, "sub_agents")
    for _, warning in ipairs(require("utils_names").event_warnings(configs, "sub_agents")) do print("WARNING: " .. warning) end
  end
  return configs, err
end

local function contains(list, value)
  for _, v in ipairs(list or {}) do
    if v == value then return true end
  end
  return false
end

local function copy_configs(configs)
  local out = {}
  for i, config in ipairs(configs or {}) do out[i] = shallow_copy(config) end
  return out
end

local function with_defaults(params, keys)
  local copy = shallow_copy(params)
  for _, key in ipairs(keys) do
    if U.is_nil(copy[key]) then copy[key] = {} end
  end
  return copy
end

-- Whether a config runs in a dispatch: event form when it listens to the dispatched event; stage form only in
-- the stage's own dispatch, when it lists the stage (or a stage-form sub_agents_next put it in the tail).
local function runs_in(config, dispatch, stage)
  if config.enabled == false then return false end
  if C.form_of(config) == "event" then
    return dispatch.event ~= nil and contains(config.on, dispatch.event)
  end
  return dispatch.root and (dispatch.forced[config] or contains(config.stages, stage))
end

-- runs_in, asked once per config and dispatch: a stage-form input lists every later entry that runs, so each call
-- would ask again about all the entries after it. An answer changes only when the config's own `on` is replaced
-- (an event-form `agent_on`), which forgets it (forget_runs_in); a tail's entries are new configs.
local function runs_in_dispatch(config, dispatch, stage)
  local known = dispatch.runs
  if known == nil then
    known = {}
    dispatch.runs = known
  end
  local runs = known[config]
  if runs == nil then
    runs = runs_in(config, dispatch, stage) and true or false
    known[config] = runs
  end
  return runs
end

local function forget_runs_in(config, dispatch)
  if dispatch.runs then dispatch.runs[config] = nil end
end

-- The params an event-form sub-agent sees: upstream gives the After All params without the pinned and workbench
-- keys, and always carries the glob lists (as {} when absent).
local POST_DROPPED_KEYS = {
  "context_globs_pre", "context_globs_post", "knowledge_globs_pre", "knowledge_globs_post", "workbench", "dev",
}
local function event_params(params, stage)
  local view = shallow_copy(params)
  if stage == "post" then
    for _, key in ipairs(POST_DROPPED_KEYS) do view[key] = nil end
    -- upstream's params carry auto_fix once the run resolved it: on unless the prompt says otherwise
    if U.is_nil(view.auto_fix) then view.auto_fix = true end
  end
  return with_defaults(view, C.EVENT_GLOB_DEFAULT_KEYS)
end

local function redo_count()
  return tonumber(CTX.RUN_FLOW_REDO_COUNT) or 0 -- check:allow aip-too-new
end

-- The single input a sub-agent receives (sections 2 and 7). It is not deep-copied: aip.agent.run hands the agent a
-- copy of it (AIPack serialises the input into the agent's own state, as the simulator converts it), so nothing
-- the sub-agent does reaches the pipeline's tables. What the pipeline itself changes after the call (the history,
-- the params' sub_agents, the response, the prompts) is copied, so the input stays what was sent.
local function build_input(stage, state, progress, dispatch, index, form, member)
  -- a member of a parallel group gets the input the group's entry would get, with its own config
  local config = member or dispatch.configs[index]
  local input = {
    _display = "sub-agent " .. config.name .. " (" .. stage .. ")",
    coder_stage = stage,
    stage = stage,
    event = dispatch.event,
    coder_prompt_dir = state.prompt_dir,
    coder_params = progress.params,
    coder_prompts = progress.prompts,
    coder_prompt = table.concat(progress.prompts, "\n\n"),
    agent_config = config,
    sub_agents_prev = dispatch.history,
    coder_workbench = state.coder_workbench,
  }
  if form == "event" then
    -- upstream: every entry after this one, whether it will run or not
    input.coder_params = event_params(progress.params, stage)
    input.sub_agents_next = slice(dispatch.configs, index + 1)
    input.coder_redo_count = redo_count()
    -- upstream names the folder as the prompt path was given (workspace-relative by default), not resolved
    input.coder_prompt_dir = state.prompt_dir_as_given or state.prompt_dir
    if stage == "post" then
      input.coder_responses = state.event_responses or state.responses
      for key, value in pairs(state.post_refs or {}) do input[key] = value end
    end
  else
    -- the stage form: the entries still to run in this stage run
    local pending, n, configs = {}, 0, dispatch.configs
    local known = dispatch.runs or {}
    for i = index + 1, #configs do
      local later = configs[i]
      local runs = known[later]
      if runs == nil then runs = runs_in_dispatch(later, dispatch, stage) end
      if runs then
        n = n + 1
        pending[n] = later
      end
    end
    input.sub_agents_next = pending
    if stage ~= "pre" and stage ~= "post" then input.coder_task = state.task end
    if stage == "post_task" then input.coder_response = progress.response end
    if stage == "post" then input.coder_responses = state.responses end
  end
  input.coder_params = shallow_copy(input.coder_params)
  input.coder_params.sub_agents = nil
  input.coder_prompts = slice(input.coder_prompts, 1)
  input.sub_agents_prev = slice(input.sub_agents_prev, 1)
  input.coder_response = U.deep_copy(input.coder_response)
  input.coder_task = U.deep_copy(input.coder_task)
  return input
end

-- The sub-agent's answer: its After All value, else the output of its single task.
local function pick_response(run_res)
  if type(run_res) ~= "table" then return nil end
  if not U.is_nil(run_res.after_all) then return run_res.after_all end
  local outputs = run_res.outputs
  if type(outputs) == "table" then return U.nil_if_null(outputs[1]) end
  return nil
end

-- Upstream runs an event-form sub-agent at pre with the coder's own model settings, under its entry's options.
local RUN_OPTION_KEYS = { "model", "temperature", "model_aliases", "input_concurrency" }
local function run_options(config, form, state)
  local options = U.nil_if_null(config.options)
  if form ~= "event" or state.base_options == nil then return options end
  local merged = {}
  for _, key in ipairs(RUN_OPTION_KEYS) do merged[key] = U.nil_if_null(state.base_options[key]) end
  for key, value in pairs(options or {}) do merged[key] = value end
  if next(merged) == nil then return nil end
  return merged
end

-- Runs one sub-agent: response (nil when it gave none), or nil plus the failure message. `configs`: the dispatch's
-- entry list, which tells a recording when the entries an input lists to run are another list's.
local function call_agent(config, input, options, configs)
  local started = R.clock()
  local ok, run_res = pcall(aip.agent.run, config.name, {
    input = input,
    agent_base_dir = CTX.WORKSPACE_DIR,
    options = options,
  })
  if not ok then
    local err = C.msg.raised(config.name, run_res)
    R.sub_agent(config, input, nil, err, started, nil, configs)
    return nil, err
  end
  local res = pick_response(run_res)
  R.sub_agent(config, input, res, nil, started, nil, configs)
  return res
end

-- An event-form answer's emit_events as upstream reads it (section 7): a string is ignored and empty names are
-- dropped, each with a warning naming the stricter form. Returns the answer, a copy when it changed.
local function relax_emit(name, res)
  if type(res) ~= "table" then return res end
  local emit = U.nil_if_null(res.emit_events)
  if type(emit) == "string" then
    local copy = shallow_copy(res)
    copy.emit_events = nil
    print("WARNING: " .. C.msg.lax("laxEmitString", { name = tostring(name), list = '{ "' .. emit .. '" }' }))
    return copy
  end
  if type(emit) ~= "table" then return res end
  local kept, blank = {}, false
  for _, event in ipairs(emit) do
    if event == "" then blank = true else kept[#kept + 1] = event end
  end
  if not blank then return res end
  local copy = shallow_copy(res)
  copy.emit_events = kept
  local names = {}
  for i, event in ipairs(kept) do names[i] = '"' .. tostring(event) .. '"' end
  local list = names[1] and ("{ " .. table.concat(names, ", ") .. " }") or "{}"
  print("WARNING: " .. C.msg.lax("laxEmitBlank", { name = tostring(name), list = list }))
  return copy
end

-- nil when the response may be used, else the failure message. The event form reports a failure before
-- checking the other fields, with upstream's wording.
local function check(stage, name, res, form)
  if form == "event" then
    if type(res) ~= "table" then return C.msg.not_table_event(name) end
    if res.success == false or not U.is_nil(res.error_msg) then
      return C.msg.failed(name, U.nil_if_null(res.error_msg), U.nil_if_null(res.error_details), "event")
    end
    local what = C.check_response(stage, res, "event")
    if what then return C.msg.invalid(name, what) end
    return nil
  end
  local what = C.check_response(stage, res)
  if what then return C.msg.invalid(name, what) end
  if res.success == false or not U.is_nil(res.error_msg) then
    return C.msg.failed(name, U.nil_if_null(res.error_msg), U.nil_if_null(res.error_details))
  end
  return nil
end

-- The params keys a returned coder_params table leaves out (sorted). The glob defaults set before `pre`
-- ({} when absent) are not counted: dropping one reads as nil anyway.
local function dropped_keys(before, after)
  local keys = {}
  for key, value in pairs(before or {}) do
    local empty_default = type(value) == "table" and next(value) == nil
    if type(key) == "string" and key ~= "sub_agents" and U.is_nil(after[key]) and not empty_default then
      keys[#keys + 1] = key
    end
  end
  table.sort(keys)
  return keys
end

local function adopt_prompts(stage, progress, res)
  if not U.is_nil(res.coder_prompts) then
    progress.prompts = U.deep_copy(res.coder_prompts)
  elseif not U.is_nil(res.coder_prompt) then
    progress.prompts = { res.coder_prompt }
  else
    return
  end
  -- upstream shows the instruction in a pin, refreshed when a pre sub-agent changes it
  if stage == "pre" and progress.pin_prompt and aip.run and aip.run.pin then
    aip.run.pin("prompt", 2, { label = PROMPT_PIN_LABEL, content = table.concat(progress.prompts, "\n\n") })
  end
end

-- The stage form (section 3): coder_params replace the params.
local function adopt_stage_form(stage, progress, res, name)
  local adopts = ADOPTS[stage]
  if adopts.coder_params and not U.is_nil(res.coder_params) then
    local dropped = dropped_keys(progress.params, res.coder_params)
    if dropped[1] ~= nil then print("WARNING: " .. C.msg.dropped_params(name, dropped)) end
    progress.params = U.copy_without(res.coder_params, "sub_agents")
  end
  if adopts.coder_prompts then adopt_prompts(stage, progress, res) end
  if adopts.coder_response and not U.is_nil(res.coder_response) then
    progress.response.content = res.coder_response.content
    progress.response_replaced = true
  end
end

-- keys an event-form answer's coder_params never sets (upstream removes them before its merge)
local EVENT_PARAMS_CLEARED = {}
for _, key in ipairs(C.EVENT_PARAMS_CLEARED) do EVENT_PARAMS_CLEARED[key] = true end

-- The event form (section 7): coder_params are merged key by key, after the config-level keys are removed. At
-- end, upstream merges them (and takes coder_prompt) into what the later end sub-agents receive, and nothing
-- else: so does this pack, with a warning (a lax form).
local function adopt_event_form(stage, progress, res, config)
  if stage == "post" then
    local lax = C.lax_fields(stage, res)
    if lax[1] ~= nil then
      print("WARNING: " .. C.msg.lax("laxEndParams", { name = tostring(config.name), keys = table.concat(lax, " and ") }))
    end
  elseif stage ~= "pre" then
    return
  end
  if not U.is_nil(res.coder_params) then
    local merged = shallow_copy(progress.params)
    for key, value in pairs(res.coder_params) do
      if not EVENT_PARAMS_CLEARED[key] then merged[key] = U.deep_copy(U.nil_if_null(value)) end
    end
    progress.params = merged
  end
  if stage == "pre" then
    adopt_prompts(stage, progress, res)
  elseif not U.is_nil(res.coder_prompt) then
    -- at end upstream takes coder_prompt only (coder_prompts is this pack's, and the stage form's)
    adopt_prompts(stage, progress, { coder_prompt = res.coder_prompt })
  end
  if stage == "pre" and not U.is_nil(res.agent_on) then
    -- the entry changes in place: what a recording holds of it (converted when the stage ends) is written first
    R.flush()
    if type(res.agent_on) == "string" then
      config.on = { res.agent_on }
    else
      config.on = slice(res.agent_on, 1)
    end
  end
end

-- Ignoring a field is not an error, but the user should be able to see it happened.
local function report_ignored(stage, name, res, input, form)
  local ignored = C.ignored_fields(stage, res, input, form)
  if ignored and ignored[1] ~= nil then
    print("sub-agent " .. name .. " (" .. stage .. "): ignored " .. table.concat(ignored, ", "))
  end
end

-- A returned tail, normalised. In an event-form response an entry that names neither `on` nor `stages`
-- listens to start, as upstream reads it.
local function normalize_tail(value, form)
  value = relax_on(value, "sub_agents_next")
  local tail, what = C.normalize_list(value, "sub_agents_next")
  if not tail then return nil, what end
  if form == "event" then
    for i, config in ipairs(tail) do
      local raw = value[i]
      if config.on == nil and not (type(raw) == "table" and raw.stages ~= nil) then
        config.stages = nil
        config.on = { "start" }
      end
    end
  end
  return tail
end

-- What a stage adopts from an answer, by form (a group's combined answer is in the group's form).
local function adopts_of(stage, form)
  if form == "event" then
    local pre = stage == "pre"
    return { coder_params = pre, coder_prompts = pre, coder_prompt = pre }
  end
  return ADOPTS[stage]
end

-- A parallel group (section 8) is one step: the members' combined answer, one history entry per member.
-- Returns nil, or a failure message.
local function run_group_step(stage, state, progress, dispatch, index, form)
  local group = dispatch.configs[index]
  -- loaded only when a group runs: a pipeline without groups pays nothing for them
  local P = require("utils_parallel")
  local res, err, entries = P.run_group(stage, group, {
    index = index,
    adopts = adopts_of(stage, form),
    input_of = function(member) return build_input(stage, state, progress, dispatch, index, form, member) end,
  })
  if err then return err end
  if res ~= nil then
    if form == "event" then
      adopt_event_form(stage, progress, res, group)
      forget_runs_in(group, dispatch)
      if stage == "post" and res.coder_redo == true then progress.redo = true end
    else
      adopt_stage_form(stage, progress, res, P.label(index))
    end
  end
  for _, entry in ipairs(entries) do
    if form == "event" then
      entry.event = dispatch.event
      entry.stage = stage
      entry.sub_agent_result = entry.agent_result
    end
    dispatch.history[#dispatch.history + 1] = entry
  end
  return nil
end

local function history_item(form, dispatch, stage, config, agent_result)
  if form == "event" then
    return {
      event = dispatch.event,
      stage = stage,
      config = shallow_copy(config),
      agent_result = agent_result,
      sub_agent_result = agent_result,
    }
  end
  return { config = config, agent_result = agent_result }
end

local function has_event_form(configs)
  for _, config in ipairs(configs or {}) do
    if C.form_of(config) == "event" then return true end
  end
  return false
end

-- Runs one dispatch: every config of it that listens, in list order. Returns nil, or a failure message.
local function run_dispatch(stage, state, progress, dispatch, queue)
  local i, steps = 1, 0
  while dispatch.configs[i] ~= nil do
    local config = dispatch.configs[i]
    if runs_in_dispatch(config, dispatch, stage) and C.is_group(config) then
      steps = steps + 1
      if steps > C.MAX_STEPS then return C.msg.step_cap(stage) end
      local err = run_group_step(stage, state, progress, dispatch, i, C.form_of(config))
      if err then return err end
    elseif runs_in_dispatch(config, dispatch, stage) then
      steps = steps + 1
      if steps > C.MAX_STEPS then return C.msg.step_cap(stage) end
      local form = C.form_of(config)
      local input = build_input(stage, state, progress, dispatch, i, form)
      local res, err = call_agent(config, input, run_options(config, form, state), dispatch.configs)
      if err then return err end
      if form == "event" then res = relax_emit(config.name, res) end
      if res ~= nil then
        err = check(stage, config.name, res, form)
        if err then return err end
        if form == "event" then
          adopt_event_form(stage, progress, res, config)
          forget_runs_in(config, dispatch)
        else
          adopt_stage_form(stage, progress, res, config.name)
        end
        report_ignored(stage, config.name, res, input, form)
        if not U.is_nil(res.sub_agents_next) then
          local workbench_err = workbench_entry_error(res.sub_agents_next)
          if workbench_err then return workbench_err end
          local tail, what = normalize_tail(res.sub_agents_next, form)
          if not tail then return C.msg.invalid(config.name, what) end
          warn_unknown_keys(res.sub_agents_next, "sub_agents_next")
          local rebuilt = slice(dispatch.configs, 1, i)
          for _, next_config in ipairs(tail) do
            rebuilt[#rebuilt + 1] = next_config
            -- a stage-form tail runs in this stage run, whatever stages its entries list
            if form == "stage" then dispatch.forced[next_config] = true end
          end
          dispatch.configs = rebuilt
        end
      end
      local agent_result = res and U.nil_if_null(res.agent_result)
      -- auto-context's choice among the workbench data files ({} = none), read by Before All
      if type(agent_result) == "table" and agent_result.workbench_data_selection_attempted == true then
        progress.workbench_data_globs = U.nil_if_null(agent_result.workbench_data_globs) or {}
      end
      dispatch.history[#dispatch.history + 1] = history_item(form, dispatch, stage, config, agent_result)
      if form == "event" and res ~= nil then
        for _, event in ipairs(U.nil_if_null(res.emit_events) or {}) do
          local unheard = require("utils_names").unheard_event_warning(config.name, event, dispatch.configs)
          if unheard then print("WARNING: " .. unheard) end
          -- queued after this dispatch, with the entries and history as they are now
          queue[#queue + 1] = {
            event = event,
            root = false,
            configs = copy_configs(dispatch.configs),
            history = U.deep_copy(dispatch.history),
            forced = {},
          }
        end
        if stage == "post" and res.coder_redo == true then progress.redo = true end
      end
    end
    i = i + 1
  end
  return nil
end

--- Runs the pipeline of one stage.
-- state = { configs, params, prompts, prompt_dir, task (pre_task/post_task), event (the first event dispatched,
--           default: the stage's own),
--           response = {content, model_name, usage} (post_task), responses (post),
--           event_responses, post_refs (post, event form), base_options (pre, event form) }
-- Returns { params, prompts, response = {content} | nil, configs, redo } | nil, message.
-- `params` is the very table given in `state` when no sub-agent replaced it; `configs` are the entries the later
-- stages run (an event-form `agent_on` or `sub_agents_next` at pre holds for them, as upstream).
function M.run_stage(stage, state)
  local progress = {
    params = state.params,
    prompts = state.prompts,
    response = U.deep_copy(state.response),
    response_replaced = false,
    redo = false,
    pin_prompt = has_event_form(state.configs),
  }
  if stage == "pre" then progress.params = with_defaults(state.params, C.GLOB_DEFAULT_KEYS) end

  local queue = {
    { event = state.event or C.STAGE_EVENTS[stage], root = true, configs = copy_configs(state.configs), history = {}, forced = {} },
  }
  local final_configs = state.configs
  local dispatches = 0
  local later = U.deep_copy(state.later_events or {})
  while queue[1] ~= nil do
    dispatches = dispatches + 1
    if dispatches > C.MAX_DISPATCHES then return nil, C.msg.dispatch_cap() end
    local dispatch = table.remove(queue, 1)
    local err = run_dispatch(stage, state, progress, dispatch, queue)
    if err then return nil, err end
    final_configs = dispatch.configs
    -- an event sent once the first queue is done (workbench::done): its own queue, its own history, event-form
    -- entries only, as upstream's second pre dispatch
    if queue[1] == nil and later[1] ~= nil then
      dispatches = 0
      queue[1] = { event = table.remove(later, 1), root = false, configs = copy_configs(final_configs), history = {}, forced = {} }
    end
  end

  return {
    params = progress.params,
    prompts = progress.prompts,
    response = progress.response_replaced and { content = progress.response.content } or nil,
    -- a stage-form tail holds for its stage run only
    configs = has_event_form(state.configs) and final_configs or state.configs,
    redo = progress.redo,
    workbench_data_globs = progress.workbench_data_globs,
  }
end

return M
