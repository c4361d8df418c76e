-- The put-back of a pooled state (src/engine/sandboxed-state.ts, restorePristine): run once after the sandbox is
-- installed, with the array metatable as its argument. Copies the contents of every table reachable from the
-- globals (keys and values), and of the string and array metatables. Returns them as one list
-- { t1, copy1, t2, copy2, ... } (pair i at 2i-1, 2i), the function that puts tables back in place, and
-- `collectgarbage` as it was (lua54; fengari has none). `restore(i, j, ...)` puts back pairs i, j... (all pairs
-- when given none) and returns true, or nil when one of them got a metatable (only C could remove a protected one).
-- Its locals are taken before any stage runs, so a stage that replaces `next` or `rawset` changes nothing here.
local array_mt = ...
local next, type, getmetatable, rawget, rawset, rawequal, select = next, type, getmetatable, rawget, rawset, rawequal, select
local seen, list = {}, {}
local function remember(t)
  if seen[t] then return end
  seen[t] = true
  local copy = {}
  list[#list + 1] = t
  list[#list + 1] = copy
  for k, v in next, t do
    copy[k] = v
    if type(v) == "table" then remember(v) end
  end
end
remember(_G)
remember(getmetatable(""))
remember(array_mt)
local pairs_count = #list // 2
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
  for j = 1, n == 0 and pairs_count or n do
    local i = n == 0 and j or select(j, ...)
    if getmetatable(list[2 * i - 1]) ~= nil then return nil end
  end
  for j = 1, n == 0 and pairs_count or n do
    local i = n == 0 and j or select(j, ...)
    put_back(list[2 * i - 1], list[2 * i])
  end
  return true
end
return list, restore, collectgarbage
