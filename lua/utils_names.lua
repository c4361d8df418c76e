-- Names a prompt gives in `sub_agents` (entry keys, events), checked where they are written: a name that is close
-- to a known one is most probably a typo, and the warning says which name was meant.
--
-- Entry keys (SUB_AGENTS.md sections 1, 7, 8): a stage-form entry's own keys are warned, each (the contract's
-- rule); an event-form entry's top-level keys are the agent's settings, as upstream pro@coder documents them, and a
-- member's keys are its settings too: those are warned only when they look like a misspelt contract key. A
-- built-in's own settings (code-map's `globs`, ...) are never warned.

local C = require("sub_agent_contract")

local M = {}

-- Edit distance with adjacent transpositions, on lower-cased strings (as src/support/suggest.ts), bounded: the exact
-- distance when it is at most `limit`, else limit + 1, which is all a suggestion needs. A warning is checked for
-- every key of every entry against every contract key, so only the cells within `limit` of the diagonal are
-- computed (no other can stay within it), a row past the limit ends the search (a later row can only be further
-- off: a transposition reaches back two rows, whose nearest cell is within one of the row between), and the rows
-- are three tables kept for the next call.
local byte = string.byte
local rows = { {}, {}, {} }
local function distance(a, b, limit)
  local la, lb = #a, #b
  if la - lb > limit or lb - la > limit then return limit + 1 end
  local far = limit + 1
  local ca, cb = { byte(a, 1, -1) }, { byte(b, 1, -1) }
  local before, prev, cur = rows[1], rows[2], rows[3]
  for j = 0, lb do prev[j] = j <= limit and j or far end
  for i = 1, la do
    local lo, hi = i - limit, i + limit
    if lo < 1 then lo = 1 end
    if hi > lb then hi = lb end
    cur[lo - 1] = lo == 1 and i or far
    if hi < lb then cur[hi + 1] = far end
    local ai, ai_before = ca[i], ca[i - 1]
    local row_min = cur[lo - 1]
    for j = lo, hi do
      local bj = cb[j]
      local v, w = prev[j] + 1, cur[j - 1] + 1
      if w < v then v = w end
      w = prev[j - 1] + (ai == bj and 0 or 1)
      if w < v then v = w end
      if i > 1 and j > 1 and ai == cb[j - 1] and ai_before == bj then
        w = before[j - 2] + 1
        if w < v then v = w end
      end
      if v > far then v = far end
      cur[j] = v
      if v < row_min then row_min = v end
    end
    if row_min > limit then return far end
    before, prev, cur = prev, cur, before
  end
  return prev[lb]
end

-- candidates lower-cased once: the contract's keys are the candidates of every check
local lowered = {}
local function lower(s)
  local l = lowered[s]
  if l == nil then
    l = s:lower()
    lowered[s] = l
  end
  return l
end

-- How many bytes of each value a word holds; a candidate's are counted once.
local counted = {}
local function counts(s, keep)
  local c = keep and counted[s]
  if c then return c end
  c = {}
  -- one call for all the bytes: a library call is what costs, not the loop
  local bytes = { byte(s, 1, -1) }
  for i = 1, #bytes do
    local b = bytes[i]
    c[b] = (c[b] or 0) + 1
  end
  if keep then counted[s] = c end
  return c
end

-- A lower bound of the distance, which rules out most candidates without the table of distances: an insertion or a
-- deletion changes the counts of the bytes by 1 in all, a substitution by 2, a transposition not at all, so the
-- distance is at least half the counts' difference.
local function count_bound(ca, cb)
  local gap = 0
  for b, n in next, ca do
    local m = cb[b] or 0
    gap = gap + (n > m and n - m or m - n)
  end
  for b, m in next, cb do
    if ca[b] == nil then gap = gap + m end
  end
  return (gap + 1) // 2
end

--- The candidate `word` is most probably a typo of (within a third of its length, at least 1), or nil.
function M.suggest(word, candidates)
  if type(word) ~= "string" then return nil end
  local w = word:lower()
  local limit = math.max(1, math.floor(#w / 3))
  local wc = counts(w, false)
  local best, best_d = nil, nil
  for _, c in ipairs(candidates) do
    -- once one is found, only a closer one matters
    local bound = best_d and best_d - 1 or limit
    if bound < 0 then break end
    local lc = lower(c)
    if count_bound(wc, counts(lc, true)) <= bound then
      local d = distance(w, lc, bound)
      if d <= bound and c ~= word then best, best_d = c, d end
    end
  end
  return best
end

local function hint(near)
  if near == nil then return "" end
  return C.msg.named("didYouMean", { near = near })
end

local function builtin_keys(entry)
  local set = {}
  local name = type(entry) == "table" and rawget(entry, "name") or nil
  for _, key in ipairs(C.BUILTIN_ENTRY_KEYS[name] or {}) do set[key] = true end
  return set
end

-- The warnings about one table entry's keys; `event_form` for an entry listening to events (or a member of a
-- group that does), `member` for a member of a group.
local function entry_key_warnings(entry, label, event_form, member, out)
  local own = builtin_keys(entry)
  for _, key in ipairs(C.unknown_entry_keys(entry)) do
    if not own[key] then
      local near = M.suggest(key, C.ENTRY_KEYS)
      if near ~= nil then
        out[#out + 1] = C.msg.named("unknownEntryKeyNear", { label = label, key = key, near = near })
      elseif not event_form and not member then
        out[#out + 1] = C.msg.unknown_entry_key(label, key)
      end
    end
  end
end

-- The warnings about one entry of a raw list and, for a parallel group, about its members.
local function entry_and_member_warnings(entry, where, out)
  local event_form = rawget(entry, "on") ~= nil
  entry_key_warnings(entry, where, event_form, false, out)
  local members = rawget(entry, "parallel")
  if type(members) ~= "table" then return end
  for j, m in ipairs(members) do
    if type(m) == "table" then entry_key_warnings(m, where .. ": parallel[" .. j .. "]", event_form, true, out) end
  end
end

--- The warnings about the keys of a raw `sub_agents` (or `sub_agents_next`) list, labelled `<label>[i]`.
function M.entry_key_warnings(list, label)
  local out = {}
  if type(list) ~= "table" then return out end
  for i, entry in ipairs(list) do
    if type(entry) == "table" then entry_and_member_warnings(entry, label .. "[" .. i .. "]", out) end
  end
  return out
end

-- The events the pack itself sends, plus upstream's workbench event (warned about on its own).
local function sent_events()
  local list = {}
  for event in pairs(C.EVENT_STAGES) do list[#list + 1] = event end
  table.sort(list)
  return list
end

-- An event neither the pack sends nor a sub-agent's `ns::event` (which a sub-agent may emit).
local function never_sent(event)
  return type(event) == "string" and C.EVENT_STAGES[event] == nil and event ~= C.WORKBENCH_DONE_EVENT
    and not event:find("::", 1, true)
end

--- Warnings about the events normalised configs listen to: one that is neither sent by the pack nor a
--- sub-agent's `ns::event` never runs (`on = "strat"`).
function M.event_warnings(configs, label)
  local out = {}
  local sent = sent_events()
  for i, config in ipairs(configs or {}) do
    for _, event in ipairs(type(config.on) == "table" and config.on or {}) do
      if never_sent(event) then
        out[#out + 1] = C.msg.named("eventNeverSent", {
          label = label .. "[" .. i .. "]", name = tostring(config.name or "parallel group"), event = event,
          hint = hint(M.suggest(event, sent)),
        })
      end
    end
  end
  return out
end

--- The warning for an emitted event that no entry of `configs` listens to (nil when one does), with the closest
--- event an entry does listen to.
function M.unheard_event_warning(name, event, configs)
  local heard = {}
  for _, config in ipairs(configs or {}) do
    if config.enabled ~= false and type(config.on) == "table" then
      for _, e in ipairs(config.on) do
        if e == event then return nil end
        heard[#heard + 1] = e
      end
    end
  end
  return C.msg.named("eventNotListened", { name = tostring(name), event = tostring(event), hint = hint(M.suggest(event, heard)) })
end

-- `a/b/../c` -> `a/c` (an absolute path stays absolute).
local function normalize(path)
  local parts = {}
  for part in path:gmatch("[^/]+") do
    if part == ".." then
      if #parts > 0 then table.remove(parts) end
    elseif part ~= "." then
      parts[#parts + 1] = part
    end
  end
  return (path:sub(1, 1) == "/" and "/" or "") .. table.concat(parts, "/")
end

--- The message for a sub-agent whose file was not found at `path`: one outside the workspace says so (the
--- simulator does not read there, AIPack does).
function M.not_found(name, path)
  local ws = normalize(tostring(CTX.WORKSPACE_DIR))
  local abs = normalize(path)
  if abs ~= ws and abs:sub(1, #ws + 1) ~= ws .. "/" then
    return C.msg.named("notFoundOutside", { name = tostring(name), path = abs, workspace = ws })
  end
  return C.msg.not_found(name, path)
end

-- Model names (src/contract/model-names.ts holds the same rule, and why): a name AIPack would not take as meant
-- is a namespace no provider has, or a name that goes to a local Ollama while it is close to an alias or to a
-- provider's name. An Ollama model's own name is never warned about.

local MODEL = C.MODEL

local function fill_model(template, vars)
  return (template:gsub("{([%w_]+)}", function(key) return vars[key] or "" end))
end

local function list_has(list, value)
  for _, v in ipairs(list) do
    if v == value then return true end
  end
  return false
end

local function is_alias(model, known)
  if known[model] then return true end
  for _, suffix in ipairs(MODEL.reasoning_suffixes) do
    if #model > #suffix and model:sub(-#suffix) == suffix and known[model:sub(1, #model - #suffix)] then return true end
  end
  return false
end

-- a provider's name start as a word a typo is compared with (`gpt`, `claude`, `deepseek`); made at the first model
-- name checked (most runs check none, and every run loads this module)
local PREFIX_WORDS
local function prefix_words()
  if PREFIX_WORDS then return PREFIX_WORDS end
  PREFIX_WORDS = {}
  local seen = {}
  for _, prefix in ipairs(MODEL.prefixes) do
    local word = (prefix:sub(-1) == "-" and prefix:sub(1, -2) or prefix):lower()
    if not seen[word] then
      seen[word] = true
      PREFIX_WORDS[#PREFIX_WORDS + 1] = word
    end
  end
  return PREFIX_WORDS
end

local function near_model(model, known_list)
  -- a name that holds an alias, or is held by one, is another model of its family (`qwen3`, `gpt-oss`), no typo
  local lower, unrelated = model:lower(), {}
  for _, alias in ipairs(known_list) do
    local a = alias:lower()
    if not a:find(lower, 1, true) and not lower:find(a, 1, true) then unrelated[#unrelated + 1] = alias end
  end
  local alias = M.suggest(model, unrelated)
  if alias ~= nil then return alias end
  local word = model:match("^[A-Za-z]+")
  if word == nil or #word < 3 then return nil end
  local prefix = M.suggest(word, prefix_words())
  if prefix == nil or prefix == word:lower() then return nil end
  return prefix .. model:sub(#word + 1)
end

--- The warning about a model name written at `label`, or nil when AIPack takes it as meant. `aliases`: a set
--- ({ [alias] = true }) of the aliases known there; the stock ones are added.
function M.model_warning(label, model, aliases)
  if type(model) ~= "string" then return nil end
  local known, known_list = {}, {}
  local function add(alias)
    if type(alias) == "string" and not known[alias] then
      known[alias] = true
      known_list[#known_list + 1] = alias
    end
  end
  for alias in pairs(aliases or {}) do add(alias) end
  for _, alias in ipairs(MODEL.stock_aliases) do add(alias) end
  if is_alias(model, known) then return nil end
  local sep = model:find("::", 1, true)
  if sep then
    local namespace = model:sub(1, sep - 1)
    if list_has(MODEL.namespaces, namespace) then return nil end
    local near = M.suggest(namespace, MODEL.namespaces)
    local hint = near and fill_model(MODEL.messages.didYouMean, { near = near .. model:sub(sep) }) or ""
    return fill_model(MODEL.messages.unknownNamespace, { label = label, model = model, namespace = namespace, hint = hint })
  end
  for _, prefix in ipairs(MODEL.prefixes) do
    if model:sub(1, #prefix) == prefix and model:sub(1, 7) ~= "gpt-oss" then return nil end
  end
  if model:find(MODEL.infix, 1, true) then return nil end
  -- `name:tag` is how Ollama names its models
  if model:find(":", 1, true) then return nil end
  local near = near_model(model, known_list)
  if near == nil then return nil end
  return fill_model(MODEL.messages.ollamaTypo, { label = label, model = model, near = near })
end

local function alias_set(base, options)
  local set = {}
  for alias in pairs(base or {}) do set[alias] = true end
  if type(options) == "table" and type(options.model_aliases) == "table" then
    for alias in pairs(options.model_aliases) do set[alias] = true end
  end
  return set
end

local function option_warnings(options, label, base, out)
  if type(options) ~= "table" then return end
  local known = alias_set(base, options)
  local w = M.model_warning(label .. "model", options.model, known)
  if w then out[#out + 1] = w end
  if type(options.model_aliases) == "table" then
    local names = {}
    for alias in pairs(options.model_aliases) do
      if type(alias) == "string" then names[#names + 1] = alias end
    end
    table.sort(names)
    for _, alias in ipairs(names) do
      w = M.model_warning(label .. "model_aliases." .. alias, options.model_aliases[alias], known)
      if w then out[#out + 1] = w end
    end
  end
end

--- The warnings about the model names a prompt's meta block gives: its `model` and `model_aliases`, and each
--- sub_agents entry's (and group member's) `options`. `aliases`: the aliases the run knows before the prompt's
--- (its `options.model_aliases`: AIPack's stock ones, the user's and the workspace's config).
function M.model_warnings(meta, aliases)
  local out = {}
  if type(meta) ~= "table" then return out end
  option_warnings(meta, "meta block ", aliases, out)
  local base = alias_set(aliases, meta)
  local list = meta.sub_agents
  if type(list) ~= "table" then return out end
  for i, entry in ipairs(list) do
    if type(entry) == "table" then
      local label = "sub_agents[" .. i .. "]"
      option_warnings(rawget(entry, "options"), label .. " options.", base, out)
      local members = rawget(entry, "parallel")
      if type(members) == "table" then
        for j, m in ipairs(members) do
          if type(m) == "table" then option_warnings(rawget(m, "options"), label .. ": parallel[" .. j .. "] options.", base, out) end
        end
      end
    end
  end
  return out
end

return M
