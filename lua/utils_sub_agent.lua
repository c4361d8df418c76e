-- The sub_agents pipeline (SUB_AGENTS.md): configuration check, and one run of one stage.
-- Normalisation, validation and every user-facing message come from the generated contract module.

local C = require("sub_agent_contract")
local U = require("utils_common")
local P = require("utils_parallel")

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

local function is_configured(list)
  if U.is_nil(list) then return false end
  return not (type(list) == "table" and next(list) == nil)
end

-- An unparsable version counts as too old rather than crashing Before All.
local function version_supported()
  local ok, supported = pcall(aip.semver.compare, CTX.AIPACK_VERSION, ">=", C.MIN_AIPACK_VERSION)
  return ok and supported == true
end

-- Keys of table entries the contract does not define reach the agent as agent_config, but may be typos.
local function warn_unknown_keys(list, label)
  for i, entry in ipairs(list) do
    for _, key in ipairs(C.unknown_entry_keys(entry)) do
      print("WARNING: " .. C.msg.unknown_entry_key(label .. "[" .. i .. "]", key))
    end
  end
end

-- The normalised sub-agent configs of a prompt's params: configs (possibly {}) | nil, message.
function M.prepare(params)
  local list = params and params.sub_agents
  if not is_configured(list) then return {} end
  if not version_supported() then return nil, C.msg.version(tostring(CTX.AIPACK_VERSION)) end
  local configs, err = C.normalize_list(list)
  if configs and type(list) == "table" then warn_unknown_keys(list, "sub_agents") end
  return configs, err
end

local function lists_stage(config, stage)
  for _, s in ipairs(config.stages or {}) do
    if s == stage then return true end
  end
  return false
end

local function enabled(configs, stage)
  local list = {}
  for _, config in ipairs(configs or {}) do
    if config.enabled ~= false and (stage == nil or lists_stage(config, stage)) then
      list[#list + 1] = config
    end
  end
  return list
end

local function slice(list, from, to)
  local part = {}
  for i = from, to or #list do part[#part + 1] = list[i] end
  return part
end

local function with_glob_defaults(params)
  local copy = {}
  for k, v in pairs(params or {}) do copy[k] = v end
  for _, key in ipairs(C.GLOB_DEFAULT_KEYS) do
    if U.is_nil(copy[key]) then copy[key] = {} end
  end
  return copy
end

-- The single input a sub-agent receives (SUB_AGENTS.md section 2). It is deep-copied as a whole,
-- so whatever the sub-agent does to it never reaches the pipeline's own tables.
local function build_input(stage, state, progress, config, pending)
  local input = {
    _display = "sub-agent " .. config.name .. " (" .. stage .. ")",
    coder_stage = stage,
    stage = stage,
    event = C.STAGE_EVENTS[stage],
    coder_prompt_dir = state.prompt_dir,
    coder_params = progress.params,
    coder_prompts = progress.prompts,
    coder_prompt = table.concat(progress.prompts, "\n\n"),
    agent_config = config,
    sub_agents_prev = progress.history,
    sub_agents_next = pending,
  }
  if stage ~= "pre" and stage ~= "post" then input.coder_task = state.task end
  if stage == "post_task" then input.coder_response = progress.response end
  if stage == "post" then input.coder_responses = state.responses end
  local copy = U.deep_copy(input)
  copy.coder_params.sub_agents = nil
  return copy
end

-- The sub-agent's answer: its After All value, else the output of its single task.
local function pick_response(run_res)
  if type(run_res) ~= "table" then return nil end
  if not U.is_nil(run_res.after_all) then return run_res.after_all end
  local outputs = run_res.outputs
  if type(outputs) == "table" then return U.nil_if_null(outputs[1]) end
  return nil
end

-- Runs one sub-agent: response (nil when it gave none), or nil plus the failure message.
local function call_agent(config, input)
  local ok, run_res = pcall(aip.agent.run, config.name, {
    input = input,
    agent_base_dir = CTX.WORKSPACE_DIR,
    options = U.nil_if_null(config.options),
  })
  if not ok then return nil, C.msg.raised(config.name, run_res) end
  return pick_response(run_res)
end

-- nil when the response may be used, else the failure message.
local function check(stage, name, res)
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

local function adopt(stage, progress, res, name)
  local adopts = ADOPTS[stage]
  if adopts.coder_params and not U.is_nil(res.coder_params) then
    local dropped = dropped_keys(progress.params, res.coder_params)
    if dropped[1] ~= nil then print("WARNING: " .. C.msg.dropped_params(name, dropped)) end
    progress.params = U.copy_without(res.coder_params, "sub_agents")
  end
  if adopts.coder_prompts then
    if not U.is_nil(res.coder_prompts) then
      progress.prompts = U.deep_copy(res.coder_prompts)
    elseif not U.is_nil(res.coder_prompt) then
      progress.prompts = { res.coder_prompt }
    end
  end
  if adopts.coder_response and not U.is_nil(res.coder_response) then
    progress.response.content = res.coder_response.content
    progress.response_replaced = true
  end
end

-- Ignoring a field is not an error, but the user should be able to see it happened.
local function report_ignored(stage, name, res, input)
  local ignored = C.ignored_fields(stage, res, input)
  if ignored and ignored[1] ~= nil then
    print("sub-agent " .. name .. " (" .. stage .. "): ignored " .. table.concat(ignored, ", "))
  end
end

--- Runs the pipeline of one stage.
-- state = { configs, params, prompts, prompt_dir, task (pre_task/post_task),
--           response = {content, model_name, usage} (post_task), responses (post) }
-- Returns { params, prompts, response = {content} | nil } | nil, message.
-- `params` is the very table given in `state` when no sub-agent replaced it.
function M.run_stage(stage, state)
  local progress = {
    params = state.params,
    prompts = state.prompts,
    response = U.deep_copy(state.response),
    response_replaced = false,
    history = {},
  }
  if stage == "pre" then progress.params = with_glob_defaults(state.params) end

  local queue = enabled(state.configs, stage)
  local step = 0
  while queue[step + 1] ~= nil do
    step = step + 1
    if step > C.MAX_STEPS then return nil, C.msg.step_cap(stage) end
    local config = queue[step]
    if C.is_group(config) then
      -- a parallel group is one step: its members' combined answer, one history entry per member
      local index = P.index_of(state.configs, config, step)
      local pending = slice(queue, step + 1)
      local res, err, entries = P.run_group(stage, config, {
        index = index,
        adopts = ADOPTS[stage],
        input_of = function(member) return build_input(stage, state, progress, member, pending) end,
      })
      if err then return nil, err end
      if res ~= nil then adopt(stage, progress, res, P.label(index)) end
      for _, entry in ipairs(entries) do progress.history[#progress.history + 1] = entry end
    else
      local input = build_input(stage, state, progress, config, slice(queue, step + 1))
      local res, err = call_agent(config, input)
      if err then return nil, err end
      if res ~= nil then
        err = check(stage, config.name, res)
        if err then return nil, err end
        adopt(stage, progress, res, config.name)
        report_ignored(stage, config.name, res, input)
        if not U.is_nil(res.sub_agents_next) then
          local tail, what = C.normalize_list(res.sub_agents_next, "sub_agents_next")
          if not tail then return nil, C.msg.invalid(config.name, what) end
          warn_unknown_keys(res.sub_agents_next, "sub_agents_next")
          -- The new tail runs in this stage run, whatever stages its entries list.
          queue = slice(queue, 1, step)
          for _, next_config in ipairs(enabled(tail)) do queue[#queue + 1] = next_config end
        end
      end
      progress.history[#progress.history + 1] = {
        config = config,
        agent_result = res and U.nil_if_null(res.agent_result),
      }
    end
  end

  return {
    params = progress.params,
    prompts = progress.prompts,
    response = progress.response_replaced and { content = progress.response.content } or nil,
  }
end

return M
