-- Parts of the simulated AIPack API that must see Lua tables as they are (identity, in-place updates, raw keys),
-- so they are written in Lua. Loaded into every fresh state after `aip`, `null` and `CTX` are set.
-- `__features` (set by the loader) says which of them exist at the simulated AIPack version.
local features = __features
__features = nil
-- host helpers (index.ts PRELUDE_HELPERS)
local helpers = __helpers
__helpers = nil

-- Library functions are captured now: AIPack's versions of these helpers are Rust, so nothing a script redefines
-- later (`_G.tostring = ...`, the string metatable, `__pairs`) may change how they behave.
local type, tostring, next, select, rawget, error = type, tostring, next, select, rawget, error
local format, gsub, sort, concat, math_type, huge = string.format, string.gsub, table.sort, table.concat, math.type, math.huge
local null = null

-- AIPack formats numbers in Rust: integers as usual, floats without ".0" or exponent (3.0 -> "3")
local function number_str(v)
  if math_type(v) ~= "float" then return tostring(v) end
  if v ~= v then return "NaN" end
  if v == huge then return "inf" end
  if v == -huge then return "-inf" end
  return helpers.format_float(v)
end

local function is_null_value(v)
  return v == nil or v == null
end

if features.null_helpers then
  function is_null(v) return is_null_value(v) end
  function nil_if_null(v)
    if v == null then return nil end
    return v
  end
  -- first argument that is neither nil nor null, else the last argument
  function value_or(...)
    local n = select("#", ...)
    for i = 1, n do
      local v = select(i, ...)
      if not is_null_value(v) then return v end
    end
    if n == 0 then return nil end
    return (select(n, ...))
  end
end

if features.type_helpers then
  function is_not_null(v) return not is_null_value(v) end
  function is_table(v) return type(v) == "table" end
  function is_list(v) return type(v) == "table" and rawget(v, 1) ~= nil end
  function is_object(v) return type(v) == "table" and rawget(v, 1) == nil end
end

local lua_ns = aip.lua or {}
aip.lua = lua_ns

local function check_mergeable(v)
  if type(v) ~= "table" then
    error("Cannot merge a non table type. Actual type: " .. type(v), 3)
  end
end

if features.merge then
  function lua_ns.merge(target, ...)
    check_mergeable(target)
    for i = 1, select("#", ...) do
      local obj = select(i, ...)
      if not is_null_value(obj) then
        check_mergeable(obj)
        for k, v in next, obj do target[k] = v end
      end
    end
    return target
  end

  local function merge_deep_into(target, obj)
    for k, v in next, obj do
      if type(v) == "table" and type(target[k]) == "table" then
        merge_deep_into(target[k], v)
      else
        target[k] = v
      end
    end
  end

  function lua_ns.merge_deep(target, ...)
    check_mergeable(target)
    for i = 1, select("#", ...) do
      local obj = select(i, ...)
      if not is_null_value(obj) then
        check_mergeable(obj)
        merge_deep_into(target, obj)
      end
    end
    return target
  end
end

local function dump_key(k)
  if type(k) == "string" then return k end
  return tostring(k)
end

local function dump_value(v, indent, seen)
  local t = type(v)
  if t == "string" then return (gsub(format("%q", v), "\\\n", "\\n")) end
  if null ~= nil and v == null then return "NULL" end
  if t == "function" then return "<function>" end
  if t == "userdata" or t == "thread" then return "<UserData>" end
  if t == "number" then return number_str(v) end
  if t ~= "table" then return tostring(v) end
  if seen[v] then return "<cycle>" end
  if next(v) == nil then return "{}" end
  seen[v] = true
  local keys = {}
  for k in next, v do keys[#keys + 1] = k end
  -- stable output: numbers first in order, then strings sorted
  sort(keys, function(a, b)
    local ta, tb = type(a), type(b)
    if ta ~= tb then return ta == "number" end
    if ta == "number" or ta == "string" then return a < b end
    return tostring(a) < tostring(b)
  end)
  local inner = indent .. "  "
  local lines = {}
  for i = 1, #keys do
    local k = keys[i]
    lines[#lines + 1] = inner .. dump_key(k) .. " = " .. dump_value(rawget(v, k), inner, seen) .. ","
  end
  seen[v] = nil
  return "{\n" .. concat(lines, "\n") .. "\n" .. indent .. "}"
end

function lua_ns.dump(v)
  return (dump_value(v, "", {}))
end

-- AIPack's print joins its arguments with "\n" and shows tables as aip.lua.dump does.
local host_print = print
function print(...)
  local n = select("#", ...)
  local parts = {}
  for i = 1, n do
    local v = select(i, ...)
    if type(v) == "table" or v == nil or v == null then
      parts[i] = lua_ns.dump(v)
    elseif type(v) == "number" then
      parts[i] = number_str(v)
    else
      parts[i] = tostring(v)
    end
  end
  host_print(concat(parts, "\n"))
end


-- CSV cells are converted one by one in AIPack, which names the bad type; the bridge would refuse a function
-- argument with its own words, so the cells are checked here first (only where the functions exist: 0.8.8+).
if aip.csv and aip.csv.values_to_row then
  local function check_cells(ctx, list)
    if type(list) ~= "table" then return end
    for i = 1, #list do
      local t = type(list[i])
      if t == "function" or t == "thread" or (t == "userdata" and list[i] ~= null) then
        error(ctx .. " - unsupported value type '" .. t .. "'", 0)
      end
    end
  end
  local values_to_row, value_lists_to_rows = aip.csv.values_to_row, aip.csv.value_lists_to_rows
  aip.csv.values_to_row = function(values, opts)
    check_cells("aip.csv.values_to_row", values)
    return values_to_row(values, opts)
  end
  aip.csv.value_lists_to_rows = function(lists, opts)
    if type(lists) == "table" then
      for i = 1, #lists do check_cells("Row " .. i .. ": aip.csv.value_lists_to_rows", lists[i]) end
    end
    return value_lists_to_rows(lists, opts)
  end
end

-- In AIPack an error raised by an aip function is an error *value* (mlua userdata, `tostring` gives the
-- message), not a string: a stage that returns the value pcall caught fails with its message (see
-- Simulator.runStage). Here the value is a table with a `__tostring` metatable holding the message under
-- `__aip_error`; like AIPack's it cannot be used as a string without tostring().
do
  local pcall, setmetatable, pairs = pcall, setmetatable, pairs
  local err_mt = { __name = "Error", __tostring = function(e) return rawget(e, "__aip_error") end }
  local function pass(ok, ...)
    if ok then return ... end
    local e = ...
    if type(e) == "string" then error(setmetatable({ __aip_error = e }, err_mt), 0) end
    error(e, 0)
  end
  for _, ns in pairs(aip) do
    if type(ns) == "table" then
      for k, f in pairs(ns) do
        if type(f) == "function" then
          ns[k] = function(...) return pass(pcall(f, ...)) end
        end
      end
    end
  end
end
