-- The put-back of a pooled state (src/engine/state-put-back.ts, restorePristine): run once after the sandbox and
-- the template are installed. Copies the contents (keys and values) of every table Lua could reach from the state:
-- from the globals, the string metatable and the array metatable, through table keys and values, the metatables of
-- tables and userdata, and the upvalues of functions (library and prelude closures: a table a closure holds, such
-- as the metatable of `aip` error objects, reaches scripts through the values it makes). The sandbox's private
-- tables (memos no script can reach or observe) are left out.
-- Returns them as one list { t1, copy1, mt1, t2, copy2, mt2, ... } (triple i at 3i-2..3i; mt: the table's
-- metatable then, or false) and the function that puts tables back in place: `restore(i, j, ...)` puts back
-- triples i, j... (all when given none) and returns true, or nil when one of them has another metatable than it
-- had (a protected one cannot be removed from Lua). Its locals are taken before any stage runs, so a stage that
-- replaces `next` or `rawset` changes nothing here. Arguments: the array metatable, `upvalues(f)` (f's upvalues
-- as { n = count, ... }), `rawmeta(v)` (v's metatable, ignoring `__metatable`), the set of private tables.
local array_mt, upvalues, rawmeta, private = ...
local next, type, rawget, rawset, rawequal, select = next, type, rawget, rawset, rawequal, select
local seen, list = {}, {}
for t in next, private do seen[t] = true end
local remember
local function reach(v)
  local tv = type(v)
  if tv == "table" then return remember(v) end
  if (tv ~= "function" and tv ~= "userdata") or seen[v] then return end
  seen[v] = true
  if tv == "userdata" then
    local mt = rawmeta(v)
    if mt then remember(mt) end
    return
  end
  local ups = upvalues(v)
  for i = 1, ups.n do reach(ups[i]) end
end
function remember(t)
  if seen[t] then return end
  seen[t] = true
  local copy, mt, n = {}, rawmeta(t), #list
  list[n + 1], list[n + 2], list[n + 3] = t, copy, mt or false
  for k, v in next, t do
    copy[k] = v
    reach(k)
    reach(v)
  end
  if mt then remember(mt) end
end
remember(_G)
remember(rawmeta(""))
remember(array_mt)
local count = #list // 3
local function put_back(t, copy)
  -- keys the stage added are removed (clearing a field while traversing is allowed), the others set again
  for k in next, t do
    if rawget(copy, k) == nil then rawset(t, k, nil) end
  end
  for k, v in next, copy do
    if not rawequal(rawget(t, k), v) then rawset(t, k, v) end
  end
end
local function restore(...)
  local n = select("#", ...)
  for j = 1, n == 0 and count or n do
    local i = n == 0 and j or select(j, ...)
    if not rawequal(rawmeta(list[3 * i - 2]), list[3 * i] or nil) then return nil end
  end
  for j = 1, n == 0 and count or n do
    local i = n == 0 and j or select(j, ...)
    put_back(list[3 * i - 2], list[3 * i - 1])
  end
  return true
end
return list, restore
