-- The interpreter half of sub_agent_contract.lua (the pack module src/contract/lua-gen.ts generates): the data
-- half, derived from the zod schemas, is handed in as this chunk's arguments, and the functions below read it
-- exactly as src/contract/check.ts does. test/contract/lua-gen.test.ts proves both give the same answers and
-- byte-identical messages.
--
-- C: the module table (constants already set); T, M, G: the check, failure and group message templates;
-- ENTRY_FIELDS, RESPONSE_FIELDS: the fields of an entry and of a response, in check order.
--
-- Lua 5.3 (Fengari) and 5.4 (AIPack): no `<const>`, no `goto`, no `//`, integers well within 32 bits.
local C, T, M, G, ENTRY_FIELDS, RESPONSE_FIELDS = ...

local function fill(template, vars)
  return (string.gsub(template, "{([%w_]+)}", function(key)
    local v = vars[key]
    if v == nil then return nil end
    return tostring(v)
  end))
end

-- AIPack's null sentinel is a (light) userdata
local function is_null(v)
  return type(v) == "userdata"
end

-- the type named in messages: Lua's, except "null" for the sentinel (type() says "userdata")
local function type_of(v)
  if is_null(v) then return "null" end
  return type(v)
end

-- nil and the null sentinel both mean "not given"
local function given(v)
  return v ~= nil and not is_null(v)
end

-- the number of items when the keys of t are exactly 1..n (an empty table is an empty list), else nil
local function list_len(t)
  local n = 0
  for _ in next, t do n = n + 1 end
  for i = 1, n do
    if rawget(t, i) == nil then return nil end
  end
  return n
end

local function copy_list(t, n)
  local out = {}
  for i = 1, n do out[i] = rawget(t, i) end
  return out
end

local function type_error(path, expected, got)
  return fill(T.type, { path = path, expected = expected, got = got })
end

local check_value

local function check_list(k, v, path)
  local t = type_of(v)
  if t ~= "table" then return type_error(path, k.expected, t) end
  local n = list_len(v)
  if n == nil then return type_error(path, k.expected, T.gotNonList) end
  if k.non_empty and n == 0 then return fill(T.empty, { path = path }) end
  for i = 1, n do
    local err = check_value(k.item, rawget(v, i), path .. "[" .. i .. "]")
    if err ~= nil then return err end
  end
  return nil
end

-- what is wrong with value v for kind k at path, or nil when it fits
check_value = function(k, v, path)
  local t = type_of(v)
  local kind = k.kind
  if kind == "any" then
    return nil
  elseif kind == "string" then
    if t ~= "string" then return type_error(path, k.expected, t) end
    if k.non_empty and v == "" then return type_error(path, k.expected, T.gotEmptyString) end
    return nil
  elseif kind == "boolean" or kind == "number" or kind == "table" then
    if t ~= kind then return type_error(path, k.expected, t) end
    return nil
  elseif kind == "enum" then
    if t ~= "string" then return type_error(path, k.expected, t) end
    for _, value in ipairs(k.values) do
      if v == value then return nil end
    end
    return type_error(path, k.expected, fill(T.gotString, { value = v }))
  elseif kind == "list" then
    return check_list(k, v, path)
  elseif kind == "one_or_list" then
    if t == "table" then return check_list(k, v, path) end
    if t == k.scalar then return check_value(k.item, v, path) end
    return type_error(path, k.expected, t)
  elseif kind == "object" then
    if t ~= "table" then return type_error(path, k.expected, t) end
    for _, f in ipairs(k.fields) do
      local fv = rawget(v, f.name)
      if not (fv == nil and f.optional) then
        local err = check_value(f.kind, fv, path .. "." .. f.name)
        if err ~= nil then return err end
      end
    end
    return nil
  elseif kind == "entries" then
    local _, err = C.normalize_list(v, path)
    return err
  end
  error("sub_agent_contract: unknown kind " .. tostring(kind))
end

-- the normalised value of a checked field: one item -> one-item list, lists copied
local function settle(k, v)
  if k.kind == "one_or_list" then
    if type(v) == "table" then return copy_list(v, list_len(v)) end
    return { v }
  elseif k.kind == "list" then
    return copy_list(v, list_len(v))
  end
  return v
end

-- whether an entry field's default is held back because a field exclusive with it is given (stages vs on)
local function default_held(copy, name)
  for _, o in ipairs(ENTRY_FIELDS) do
    if o.exclusive_with == name and rawget(copy, o.name) ~= nil then return true end
  end
  return false
end

--- Normalises one sub_agents entry. Returns a new config table, or nil and "<label>: <what is wrong>".
function C.normalize_entry(entry, label)
  label = label or "sub_agents"
  local t = type_of(entry)
  if t == "table" and rawget(entry, "parallel") ~= nil then return C.normalize_group(entry, label) end
  local copy = {}
  if t == "string" then
    copy.name = entry
  elseif t == "table" then
    for key, v in next, entry do copy[key] = v end
  else
    return nil, fill(T.badEntry, { label = label, got = t })
  end
  for _, f in ipairs(ENTRY_FIELDS) do
    if f.exclusive_with ~= nil and rawget(copy, f.name) ~= nil and rawget(copy, f.exclusive_with) ~= nil then
      local what = fill(T.exclusive, { other = f.exclusive_with, path = f.name })
      return nil, fill(T.entry, { label = label, what = what })
    end
  end
  for _, f in ipairs(ENTRY_FIELDS) do
    local v = rawget(copy, f.name)
    if v == nil and f.default ~= nil then
      if default_held(copy, f.name) then
        -- the default belongs to the other form
      elseif type(f.default) == "table" then
        copy[f.name] = copy_list(f.default, #f.default)
      else
        copy[f.name] = f.default
      end
    elseif not (v == nil and f.optional) then
      local err = check_value(f.kind, v, f.name)
      if err ~= nil then return nil, fill(T.entry, { label = label, what = err }) end
      copy[f.name] = settle(f.kind, v)
    end
  end
  return copy
end

--- "event" for an entry that gives on (upstream's rules), else "stage" (section 7).
function C.form_of(config)
  if type(config) == "table" and rawget(config, "on") ~= nil then return "event" end
  return "stage"
end

local ENTRY_KEY_SET = {}
for _, f in ipairs(ENTRY_FIELDS) do ENTRY_KEY_SET[f.name] = true end

--- String keys of a table entry that the contract does not define (sorted); they are kept for the agent.
function C.unknown_entry_keys(entry)
  local out = {}
  if type(entry) ~= "table" then return out end
  local group = rawget(entry, "parallel") ~= nil
  for key in next, entry do
    if type(key) == "string" and not ENTRY_KEY_SET[key] and not (group and C.GROUP.key_set[key]) then out[#out + 1] = key end
  end
  table.sort(out)
  return out
end

local PARAM_SET = {}
for _, key in ipairs(C.PARAM_KEYS.supported) do PARAM_SET[key] = true end

-- false, or a table with enabled = false: an upstream feature the user turned off, so nothing is lost here
local function switched_off(v)
  return v == false or (type(v) == "table" and rawget(v, "enabled") == false)
end

--- Warnings for the keys of coder params that this pack does not act on (sorted by key).
function C.param_warnings(params)
  local keys = {}
  if type(params) ~= "table" then return keys end
  for key, v in next, params do
    if type(key) == "string" and not PARAM_SET[key]
      and not (C.PARAM_KEYS.not_implemented[key] ~= nil and switched_off(v)) then
      keys[#keys + 1] = key
    end
  end
  table.sort(keys)
  local out = {}
  for i, key in ipairs(keys) do
    local why = C.PARAM_KEYS.not_implemented[key]
    if why ~= nil then
      out[i] = fill(M.notImplementedParam, { key = key, why = why })
    else
      out[i] = fill(M.unknownParam, { key = key })
    end
  end
  return out
end

--- Normalises a whole sub_agents value: nil / null / {} -> {}. Returns the configs, or nil and a message.
function C.normalize_list(value, label)
  label = label or "sub_agents"
  if value == nil or is_null(value) then return {} end
  local n = nil
  if type(value) == "table" then n = list_len(value) end
  if n == nil then return nil, fill(T.notList, { label = label }) end
  local configs = {}
  for i = 1, n do
    local config, err = C.normalize_entry(rawget(value, i), label .. "[" .. i .. "]")
    if config == nil then return nil, err end
    configs[i] = config
  end
  return configs
end

local function used_in(f, stage, form)
  if f == nil then return false end
  if f.form ~= nil and f.form ~= (form or "stage") then return false end
  local stages = f.stages
  if form == "event" and f.event_stages ~= nil then stages = f.event_stages end
  if stages == nil then return true end
  for _, s in ipairs(stages) do
    if s == stage then return true end
  end
  return false
end

--- The response fields an event-form answer gives in a stage where that use is lax (done as upstream, warned).
function C.lax_fields(stage, value)
  local out = {}
  if type(value) ~= "table" then return out end
  for _, f in ipairs(RESPONSE_FIELDS) do
    if given(rawget(value, f.name)) and f.lax_stages ~= nil then
      for _, s in ipairs(f.lax_stages) do
        if s == stage then out[#out + 1] = f.name end
      end
    end
  end
  return out
end

local RESPONSE_BY_NAME = {}
for _, f in ipairs(RESPONSE_FIELDS) do RESPONSE_BY_NAME[f.name] = f end

-- The response fields a stage checks, and those of them whose exclusive partner it checks too, in check order:
-- worked out once per stage and form (every sub-agent call checks its answer).
local CHECKED = {}
local function checked_fields(stage, form)
  local by_stage = CHECKED[form or "stage"]
  if by_stage == nil then
    by_stage = {}
    CHECKED[form or "stage"] = by_stage
  end
  local key = stage == nil and false or stage
  local fields = by_stage[key]
  if fields == nil then
    fields = { used = {}, exclusive = {} }
    for _, f in ipairs(RESPONSE_FIELDS) do
      if used_in(f, stage, form) then
        fields.used[#fields.used + 1] = f
        if f.exclusive_with ~= nil and used_in(RESPONSE_BY_NAME[f.exclusive_with], stage, form) then
          fields.exclusive[#fields.exclusive + 1] = f
        end
      end
    end
    by_stage[key] = fields
  end
  return fields
end

--- What is wrong with a (non-nil) response in stage, or nil when it is valid. Ignored fields are not checked.
function C.check_response(stage, value, form)
  if value == nil then return nil end
  local t = type_of(value)
  if t ~= "table" then return fill(T.notTable, { got = t }) end
  local fields = checked_fields(stage, form)
  for _, f in ipairs(fields.used) do
    local v = rawget(value, f.name)
    if given(v) or not f.optional then
      local err = check_value(f.kind, v, f.name)
      if err ~= nil then return err end
    end
  end
  for _, f in ipairs(fields.exclusive) do
    if given(rawget(value, f.name)) and given(rawget(value, f.exclusive_with)) then
      return fill(T.exclusive, { other = f.exclusive_with, path = f.name })
    end
  end
  return nil
end

--- Field names present in a response that stage ignores (sorted), e.g. "coder_params" in post.
-- equal as Lua values: tables compared key by key (an empty list equals an empty table)
local function deep_equal(a, b)
  if a == b then return true end
  if type(a) ~= "table" or type(b) ~= "table" then return false end
  for k, v in pairs(a) do
    if not deep_equal(v, rawget(b, k)) then return false end
  end
  for k in pairs(b) do
    if rawget(a, k) == nil then return false end
  end
  return true
end
C.deep_equal = deep_equal

-- input: the sub-agent's input table; a key it handed back unchanged is not reported
function C.ignored_fields(stage, value, input, form)
  local out = {}
  if type(value) ~= "table" then return out end
  for _, f in ipairs(RESPONSE_FIELDS) do
    local v = rawget(value, f.name)
    if given(v) then
      if not used_in(f, stage, form) then
        out[#out + 1] = f.name
      elseif type(v) == "table" and f.ignored_keys ~= nil and f.ignored_keys[stage] ~= nil then
        local before = nil
        if type(input) == "table" and type(rawget(input, f.name)) == "table" then before = rawget(input, f.name) end
        for _, key in ipairs(f.ignored_keys[stage]) do
          local item = rawget(v, key)
          local unchanged = input ~= nil and deep_equal(item, before and rawget(before, key))
          if item ~= nil and not unchanged then out[#out + 1] = f.name .. "." .. key end
        end
      end
    end
  end
  table.sort(out)
  return out
end

local function error_text(err)
  if type(err) == "table" and type(rawget(err, "message")) == "string" then return rawget(err, "message") end
  return tostring(err)
end

C.msg = {}

--- Sub-agent [<name>] failed: <error_msg> (+ "\nDetails: " .. error_details); form "event": upstream's default text
function C.msg.failed(name, error_msg, error_details, form)
  local err = M.noErrorMsg
  if form == "event" then err = M.unknownError end
  if given(error_msg) then err = tostring(error_msg) end
  local head = fill(M.failed, { name = tostring(name), error = err })
  if given(error_details) then
    return head .. fill(M.failedDetails, { details = tostring(error_details) })
  end
  return head
end

-- A message function whose arguments fill the template's named fields in order, each shown as text (nil as
-- "nil": `fill` would leave the field's placeholder).
local function positional(template, ...)
  local keys = { ... }
  return function(...)
    local vars = {}
    for i, key in ipairs(keys) do vars[key] = tostring((select(i, ...))) end
    return fill(template, vars)
  end
end

--- Sub-agent [<name>] returned an invalid response: <what is wrong>
C.msg.invalid = positional(M.invalid, "name", "what")

--- Sub-agent [<name>] failed: <error raised by aip.agent.run>
function C.msg.raised(name, err)
  return fill(M.raised, { name = tostring(name), error = error_text(err) })
end

--- Sub-agent pipeline exceeded <MAX_STEPS> steps in stage <stage>
function C.msg.step_cap(stage)
  return fill(M.stepCap, { max = C.MAX_STEPS, stage = tostring(stage) })
end

--- Sub-agent [<name>] not found: <path> does not exist (...)
C.msg.not_found = positional(M.notFound, "name", "path")

--- <label>: unknown key '<key>' (kept, ...)
C.msg.unknown_entry_key = positional(M.unknownEntryKey, "label", "key")

--- Sub-agent [<name>] returned coder_params without <keys>: ...
function C.msg.dropped_params(name, keys)
  return fill(M.droppedParams, { name = tostring(name), keys = table.concat(keys, ", ") })
end

--- event form: Sub-agent [<name>] failed: invalid response type, ...
C.msg.not_table_event = positional(M.notTableEvent, "name")

--- event form: Sub-agent pipeline exceeded max steps (<MAX_DISPATCHES>).
function C.msg.dispatch_cap()
  return fill(M.dispatchCap, { max = C.MAX_DISPATCHES })
end

--- Unsupported workbench sub-agent <name> ...
C.msg.workbench_entry = positional(M.workbenchEntry, "name")

--- the pins of a post sub-agent asking for a redo: requested / cap reached / not countable
function C.msg.redo_requested(count)
  return fill(M.redoRequested, { count = tostring(count), max = C.MAX_REDOS })
end
function C.msg.redo_cap_reached(count)
  return fill(M.redoCapReached, { count = tostring(count), max = C.MAX_REDOS })
end
C.msg.redo_uncounted = positional(M.redoUncounted, "current")

--- a lax form upstream accepts (section 7): kind is a message key starting with "lax", values fill it
function C.msg.lax(kind, values)
  local template = M[kind]
  if type(template) ~= "string" or kind:sub(1, 3) ~= "lax" then error("unknown lax message " .. tostring(kind)) end
  return fill(template, values)
end

--- any message template by its name, filled with vars (strings)
function C.msg.named(template, vars)
  return fill(M[template], vars)
end

--- Sub-agents require AIPack <MIN_AIPACK_VERSION> or above (current: <version>)
function C.msg.version(current)
  return fill(M.version, { min = C.MIN_AIPACK_VERSION, current = tostring(current) })
end


-- Parallel groups (section 8): { parallel = {entries}, concurrency, on_error, enabled, stages | on }

local function got_of(v)
  local t = type_of(v)
  if t == "string" then return fill(T.gotString, { value = v }) end
  if t == "number" and v == math.floor(v) and math.abs(v) < 1e9 then return string.format("%d", v) end
  return t
end

local function is_integer(v)
  return type(v) == "number" and v == math.floor(v)
end

--- Normalises a group entry: the normalised group, or nil and "<label>: <what is wrong>".
function C.normalize_group(entry, label)
  local function bad(what) return nil, fill(T.entry, { label = label, what = what }) end
  if rawget(entry, "name") ~= nil then return bad(fill(T.exclusive, { other = "name", path = "parallel" })) end
  if rawget(entry, "options") ~= nil then return bad(G.groupOptions) end
  local raw = rawget(entry, "parallel")
  local n = nil
  if type_of(raw) == "table" then n = list_len(raw) end
  if n == nil then
    local got = type_of(raw)
    if got == "table" then got = T.gotNonList end
    return bad(fill(G.notList, { path = "parallel", got = got }))
  end
  if n == 0 then return bad(fill(T.empty, { path = "parallel" })) end
  if n > C.GROUP.max_size then return bad(fill(G.tooMany, { path = "parallel", count = n, max = C.GROUP.max_size })) end
  local own = { name = "parallel" }
  for key, v in next, entry do
    if key ~= "parallel" and key ~= "concurrency" and key ~= "on_error" then own[key] = v end
  end
  local common, err = C.normalize_entry(own, label)
  if common == nil then return nil, err end
  local concurrency = rawget(entry, "concurrency")
  if concurrency ~= nil then
    if not is_integer(concurrency) or concurrency < 1 or concurrency > C.GROUP.max_concurrency then
      return bad(fill(G.range, { path = "concurrency", min = 1, max = C.GROUP.max_concurrency, got = got_of(concurrency) }))
    end
  end
  local on_error = rawget(entry, "on_error")
  if on_error ~= nil and on_error ~= "fail" and on_error ~= "continue" then
    return bad(fill(G.onError, { path = "on_error", got = got_of(on_error) }))
  end
  local members = {}
  for i = 1, n do
    local path = "parallel[" .. i .. "]"
    local item = rawget(raw, i)
    if type_of(item) == "table" then
      if rawget(item, "parallel") ~= nil then return bad(fill(G.nested, { path = path })) end
      for _, key in ipairs(C.GROUP.owned_keys) do
        if rawget(item, key) ~= nil then return bad(fill(G.memberOwns, { path = path, key = key })) end
      end
    end
    local member, member_err = C.normalize_entry(item, label .. "." .. path)
    if member == nil then return nil, member_err end
    -- the members take the group's form: its events (event form), else its stages
    if common.on ~= nil then
      member.stages = nil
      member.on = copy_list(common.on, #common.on)
    else
      member.stages = copy_list(common.stages, #common.stages)
    end
    members[i] = member
  end
  common.name = nil
  common.parallel = members
  if concurrency ~= nil then
    common.concurrency = math.floor(concurrency)
  else
    common.concurrency = C.GROUP.default_concurrency
  end
  common.on_error = on_error or C.GROUP.default_on_error
  return common
end

--- true when a normalised config is a parallel group
function C.is_group(config)
  return type(config) == "table" and rawget(config, "parallel") ~= nil
end

C.msg.group = {}

function C.msg.group.conflict(index, a, b, what)
  return fill(G.conflict, { index = index, a = tostring(a), b = tostring(b), what = what })
end

function C.msg.group.rewrite(index, name, field_name)
  return fill(G.rewrite, { index = index, name = tostring(name), field = field_name })
end

-- causes: the failure messages of the failed members, in member order
function C.msg.group.failed(index, size, causes)
  local lines = {}
  for i, message in ipairs(causes) do lines[i] = fill(G.cause, { message = message }) end
  return fill(G.failed, { index = index, size = size, failed = #causes, causes = table.concat(lines) })
end

function C.msg.group.old_aipack(index, current, size)
  return fill(G.oldAipack, { index = index, current = tostring(current), safe = C.GROUP.safe_version, size = size })
end

return C
