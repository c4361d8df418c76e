-- Parallel groups of the sub_agents pipeline: fan-out of one starting state to the members, one aip.agent.run
-- of the pack's `parallel` agent over them (input_concurrency = the group's concurrency), and fan-in in member
-- order. The pipeline (utils_sub_agent.lua) treats the combined answer as one step.
--
-- Fan-in never depends on which member finished first: members are combined in member order, a key changed by
-- two members to different values is a conflict (never "last one wins"), and the prompts and the coder response
-- may be changed by one member at most.

local C = require("sub_agent_contract")
local U = require("utils_common")
local R = require("recorder")

local M = {}

-- keys an event-form answer's coder_params never sets (upstream removes them before its merge)
local EVENT_FORM_DROPPED = {}
for _, key in ipairs(C.EVENT_PARAMS_CLEARED) do EVENT_FORM_DROPPED[key] = true end

-- fields by which a member would rewrite the pipeline
local REWRITES = { "sub_agents_next", "emit_events" }

local deep_equal = C.deep_equal

local function sorted_keys(t)
  local keys = {}
  for k in pairs(t) do
    if type(k) == "string" then keys[#keys + 1] = k end
  end
  table.sort(keys)
  return keys
end

-- An unparsable version counts as too old: the members then run one at a time, which is always safe.
local function concurrent_runs_safe()
  local ok, yes = pcall(aip.semver.compare, CTX.AIPACK_VERSION, ">=", C.GROUP.safe_version)
  return ok and yes == true
end

--- The 1-based position of `config` in the configured list (by identity), else `fallback`.
function M.index_of(configs, config, fallback)
  for i, c in ipairs(configs or {}) do
    if c == config then return i end
  end
  return fallback
end

--- The label a group goes by in messages.
function M.label(index)
  return "parallel group [" .. tostring(index) .. "]"
end

-- The pack agent that runs the members, as a name in this pack (the pack may be installed under another name).
local function runner_name()
  local pack = U.nil_if_null(CTX.PACK_IDENTITY) or "pro@coder"
  return pack .. "/" .. C.GROUP.agent
end

-- Runs the members: a list of { ok = true, response } | { ok = false, error } in member order, or nil, message.
local function run_members(index, members, inputs, concurrency)
  -- a recorded run records each member's call; the runner times them (an unrecorded run reads no clock)
  local timed = R.recording()
  local runner_inputs = {}
  for i, member in ipairs(members) do
    runner_inputs[i] = {
      _display = "member " .. i .. " " .. member.name,
      group = index,
      name = member.name,
      options = U.nil_if_null(member.options),
      base_dir = CTX.WORKSPACE_DIR,
      input = inputs[i],
      -- for reports: what the group runs with, known even when the run stops before its tasks end
      concurrency = concurrency,
      timed = timed or nil,
    }
  end
  local ok, run_res = pcall(aip.agent.run, runner_name(), {
    inputs = runner_inputs,
    options = { input_concurrency = concurrency },
  })
  if not ok then return nil, run_res end
  local outcomes = {}
  local outputs = type(run_res) == "table" and run_res.outputs or {}
  for i = 1, #members do
    local out = type(outputs) == "table" and U.nil_if_null(outputs[i]) or nil
    if type(out) ~= "table" then
      outcomes[i] = { ok = false, error = "no result from the parallel runner" }
    else
      outcomes[i] = { ok = out.ok == true, response = U.nil_if_null(out.response), error = U.nil_if_null(out.error) }
    end
    local outcome = outcomes[i]
    -- as a single sub-agent's call is recorded: the response as returned, or the error it raised
    R.sub_agent(members[i], inputs[i], outcome.response, (not outcome.ok) and C.msg.raised(members[i].name, outcome.error) or nil,
      nil, type(out) == "table" and U.nil_if_null(out.duration_ms) or nil)
  end
  return outcomes
end

-- The coder_params keys a member changed: { key = new value | false-marker }, as a list of { key, value }
-- sorted by key. Stage form: against the starting params (a dropped key changes to nil); event form: the keys
-- it gave.
local function param_changes(event_form, start, given)
  local changes = {}
  if event_form then
    for _, key in ipairs(sorted_keys(given)) do
      if not EVENT_FORM_DROPPED[key] then changes[#changes + 1] = { key = key, value = given[key] } end
    end
    return changes
  end
  local keys, seen = {}, {}
  for _, t in ipairs({ start, given }) do
    for _, key in ipairs(sorted_keys(t)) do
      if not seen[key] and key ~= "sub_agents" then
        seen[key] = true
        keys[#keys + 1] = key
      end
    end
  end
  table.sort(keys)
  for _, key in ipairs(keys) do
    local after = U.nil_if_null(rawget(given, key))
    if not deep_equal(rawget(start, key), after) then changes[#changes + 1] = { key = key, value = after } end
  end
  return changes
end

-- The prompts a member's answer sets, or nil when it leaves them as they were.
local function prompt_change(res, input)
  local prompts = nil
  if not U.is_nil(res.coder_prompts) then
    prompts = res.coder_prompts
  elseif not U.is_nil(res.coder_prompt) then
    prompts = { res.coder_prompt }
  end
  if prompts == nil then return nil end
  if deep_equal(prompts, input.coder_prompts) then return nil end
  return prompts
end

-- A member's failure message, or nil when its answer may be combined.
local function failure_of(stage, member, outcome)
  if not outcome.ok then return C.msg.raised(member.name, outcome.error) end
  local res = outcome.response
  if res == nil then return nil end
  local what = C.check_response(stage, res)
  if what then return C.msg.invalid(member.name, what) end
  if res.success == false or not U.is_nil(res.error_msg) then
    return C.msg.failed(member.name, U.nil_if_null(res.error_msg), U.nil_if_null(res.error_details))
  end
  return nil
end

--- Runs a group as one step of a stage run.
-- opts = { index = position of the group, adopts = { coder_params = bool, coder_prompts = bool, coder_response = bool },
--          input_of = function(member, parallel) -> the member's input table (a fresh copy per call) }
-- Returns combined, nil, history_entries | nil, message. `combined` is one answer in the group's form (nil when
-- the members changed nothing); history_entries = one { config, agent_result, parallel = {index, size}, error? }
-- per member, in member order.
function M.run_group(stage, group, opts)
  local members = {}
  for _, member in ipairs(group.parallel) do
    if member.enabled ~= false then members[#members + 1] = member end
  end
  local size = #members
  if size == 0 then return nil, nil, {} end

  local inputs = {}
  for i, member in ipairs(members) do
    local input = opts.input_of(member, { index = i, size = size })
    input.parallel = { index = i, size = size }
    inputs[i] = input
  end

  local concurrency = group.concurrency or C.GROUP.default_concurrency
  if concurrency > 1 and size > 1 and not concurrent_runs_safe() then
    print(C.msg.group.old_aipack(opts.index, CTX.AIPACK_VERSION, size))
    concurrency = 1
  end
  local outcomes, run_err = run_members(opts.index, members, inputs, concurrency)
  if not outcomes then return nil, C.msg.raised(M.label(opts.index), run_err) end

  -- every member is accounted for once: a failure or a usable answer
  local causes, failed = {}, {}
  for i, member in ipairs(members) do
    local cause = failure_of(stage, member, outcomes[i])
    if cause then
      causes[#causes + 1] = cause
      failed[i] = cause
    else
      local res = outcomes[i].response
      if type(res) == "table" then
        for _, field in ipairs(REWRITES) do
          if not U.is_nil(res[field]) then return nil, C.msg.group.rewrite(opts.index, member.name, field) end
        end
      end
    end
  end
  if #causes == size or (#causes > 0 and group.on_error ~= "continue") then
    return nil, C.msg.group.failed(opts.index, size, causes)
  end

  local event_form = not U.is_nil(group.on)
  local adopts = opts.adopts or {}
  local start_params = inputs[1].coder_params
  local param_owner, param_values = {}, {}
  local changed_params = false
  local prompts_owner, prompts = nil, nil
  local response_owner, response = nil, nil
  local redo = false
  for i, member in ipairs(members) do
    local res = outcomes[i].response
    if not failed[i] and type(res) == "table" then
      if adopts.coder_params and not U.is_nil(res.coder_params) then
        for _, change in ipairs(param_changes(event_form, start_params, res.coder_params)) do
          local owner = param_owner[change.key]
          if owner and not deep_equal(param_values[change.key], change.value) then
            return nil, C.msg.group.conflict(opts.index, owner, member.name, "coder_params." .. change.key)
          end
          param_owner[change.key] = member.name
          param_values[change.key] = change.value
          changed_params = true
        end
      end
      if adopts.coder_prompts then
        local p = prompt_change(res, inputs[i])
        if p then
          if prompts_owner then return nil, C.msg.group.conflict(opts.index, prompts_owner, member.name, "coder_prompts") end
          prompts_owner, prompts = member.name, p
        end
      end
      if adopts.coder_response and not U.is_nil(res.coder_response) then
        if response_owner then return nil, C.msg.group.conflict(opts.index, response_owner, member.name, "coder_response") end
        response_owner, response = member.name, res.coder_response
      end
      if res.coder_redo == true then redo = true end
      local ignored = C.ignored_fields(stage, res, inputs[i])
      if ignored and ignored[1] ~= nil then
        print("sub-agent " .. member.name .. " (" .. stage .. ", " .. M.label(opts.index) .. "): ignored " .. table.concat(ignored, ", "))
      end
    end
  end

  local combined = nil
  if changed_params or prompts or response or redo then
    combined = {}
    if changed_params then
      if event_form then
        combined.coder_params = U.deep_copy(param_values)
      else
        local params = U.deep_copy(start_params)
        for key, _ in pairs(param_owner) do params[key] = U.deep_copy(param_values[key]) end
        combined.coder_params = params
      end
    end
    if prompts then combined.coder_prompts = U.deep_copy(prompts) end
    if response then combined.coder_response = U.deep_copy(response) end
    if redo then combined.coder_redo = true end
  end

  local entries = {}
  for i, member in ipairs(members) do
    local res = outcomes[i].response
    local entry = { config = member, parallel = { index = i, size = size } }
    if failed[i] then
      entry.error = failed[i]
    elseif type(res) == "table" then
      entry.agent_result = U.nil_if_null(res.agent_result)
    end
    entries[i] = entry
  end
  return combined, nil, entries
end

return M
