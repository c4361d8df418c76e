-- Recording a run (opt-in: `record = true` in the prompt's meta block). A record is a folder
-- `<prompt_dir>/.cache/records/<run id>/` with `run.json` (what the run started from) and `events.ndjson` (one
-- JSON line per sub-agent call, params after a stage, files sent, coder answer, files written), which
-- `coder-subagents record import` turns into contract cases and `coder-subagents replay` runs again.
--
-- Recording must never change the run: every write is guarded, and the first failure stops the recording of this
-- stage with one warning. Each stage runs in a fresh Lua state, so the record travels in the run table and each
-- stage activates it with `use`.

local U = require("utils_common")

local M = {}

M.FORMAT = 1
-- A string longer than this is cut (the record notes where): a record holds inputs, not whole code bases.
M.MAX_STRING = 65536
-- Tables nested deeper than this are replaced by a note (inputs are shallow; this only stops runaway values).
local MAX_DEPTH = 40

local active = nil

local function warn_once(err)
  if active and not active.failed then
    active.failed = true
    print("WARNING: recording this run stopped: " .. tostring(err))
  end
  active = nil
end

-- A copy of `value` that JSON can hold: long strings cut, functions and userdata named, cycles broken.
-- `cuts` collects the paths of what was cut.
local function bounded(value, path, cuts, depth, seen)
  local kind = type(value)
  if kind == "string" then
    if #value > M.MAX_STRING then
      cuts[#cuts + 1] = path
      return value:sub(1, M.MAX_STRING) .. "\n[record: cut " .. (#value - M.MAX_STRING) .. " bytes]"
    end
    return value
  end
  if kind == "number" or kind == "boolean" then return value end
  if kind == "table" then
    if U.is_nil(value) then return value end
    if seen[value] or depth > MAX_DEPTH then
      cuts[#cuts + 1] = path
      return "[record: " .. (seen[value] and "cycle" or "too deep") .. "]"
    end
    seen[value] = true
    local copy = {}
    for k, v in pairs(value) do
      copy[k] = bounded(v, path .. "." .. tostring(k), cuts, depth + 1, seen)
    end
    seen[value] = nil
    return copy
  end
  if kind == "nil" then return nil end
  return "[record: " .. kind .. "]"
end

local function now_ms()
  return aip.time.now_utc_micro() / 1000
end

-- One JSON line of an entry. A line no longer than the cap holds no string longer than it, so it is written as
-- is (the host's JSON writer is far cheaper than a walk in Lua); a longer one, or a value JSON cannot hold, is
-- walked and cut first.
local function json_line(entry)
  local ok, line = pcall(aip.json.stringify_to_line, entry)
  if ok and type(line) == "string" and #line <= M.MAX_STRING then return line end
  local cuts = {}
  local copy = bounded(entry, "$", cuts, 0, {})
  if cuts[1] ~= nil then copy.cut = cuts end
  return aip.json.stringify_to_line(copy)
end

-- Lines wait in memory until the stage flushes them (one write a stage: a file append is not free, and a
-- simulated one makes the run re-check what it read).
local function append(entry)
  if not active then return end
  local ok, err = pcall(function()
    local lines = active.lines
    lines[#lines + 1] = json_line(entry)
  end)
  if not ok then warn_once(err) end
end

--- Writes the lines this stage recorded. Each stage calls it on every way out, its failures included.
function M.flush()
  if not active or active.lines[1] == nil then return end
  local lines = active.lines
  active.lines = {}
  local ok, err = pcall(aip.file.append, active.events, table.concat(lines, "\n") .. "\n")
  if not ok then warn_once(err) end
end

-- 32 or 64: what a Lua integer holds here (Lua 5.4 in AIPack: 64).
local function integer_bits()
  if math.maxinteger == nil then return 0 end
  if math.maxinteger > 2147483647 then return 64 end
  return 32
end

-- The version in the pack's pack.toml (CTX has no pack version), or nil.
local function pack_version()
  if type(CTX.PACK_DIR) ~= "string" then return nil end
  local ok, file = pcall(aip.file.load, aip.path.join(CTX.PACK_DIR, "pack.toml"))
  if not ok or type(file) ~= "table" then return nil end
  return tostring(file.content):match('\nversion%s*=%s*"([^"]*)"')
end

--- Starts a record when the meta block asks for one: the record ({id, dir, events}) to keep in the run, or nil.
-- prompt = { path, dir, meta, inst, first_part }; input: the run's first input (the prompt folder or file it
-- was given, nil for the default one), so a replay starts the run the same way.
function M.start(prompt, input)
  if type(prompt.meta) ~= "table" or prompt.meta.record ~= true then return nil end
  local ok, record = pcall(function()
    local id = aip.uuid.new_v7()
    local dir = aip.path.join(prompt.dir, ".cache/records/" .. id)
    local record = { id = id, dir = dir, events = aip.path.join(dir, "events.ndjson") }
    local cuts = {}
    local head = bounded({
      format = M.FORMAT,
      id = id,
      time = aip.time.now_iso_utc(),
      aipack_version = CTX.AIPACK_VERSION,
      pack = { identity = CTX.PACK_IDENTITY, version = pack_version() },
      lua_version = _VERSION,
      integer_bits = integer_bits(),
      workspace_dir = CTX.WORKSPACE_DIR,
      prompt_path = aip.path.diff(prompt.path, CTX.WORKSPACE_DIR) or prompt.path,
      prompt_dir = prompt.dir,
      input = input,
      meta = prompt.meta,
      inst = prompt.inst,
      first_part = prompt.first_part,
      max_string = M.MAX_STRING,
    }, "$", cuts, 0, {})
    if cuts[1] ~= nil then head.cut = cuts end
    aip.file.save(aip.path.join(dir, "run.json"), aip.json.stringify_pretty(head))
    aip.file.save(record.events, "")
    return record
  end)
  if not ok then
    print("WARNING: this run is not recorded: " .. tostring(record))
    return nil
  end
  active = { id = record.id, dir = record.dir, events = record.events, lines = {} }
  return record
end

--- Activates a run's record in this stage (nil: nothing is recorded).
function M.use(record)
  if record == nil then
    active = nil
    return
  end
  active = { id = record.id, dir = record.dir, events = record.events, lines = {} }
end

--- A clock reading for `sub_agent` (nil when nothing is recorded, so an unrecorded run reads no clock).
function M.clock()
  if not active then return nil end
  local ok, t = pcall(now_ms)
  if ok then return t end
  return nil
end

--- One sub-agent call: the entry, where it ran, the input as given, and the response as returned or the error.
function M.sub_agent(config, input, response, err, started)
  if not active then return end
  local task = type(input) == "table" and U.nil_if_null(input.coder_task) or nil
  -- the entry is also the input's agent_config: recorded once, there
  local has_config = type(input) == "table" and type(input.agent_config) == "table"
  local entry = {
    kind = "sub_agent",
    name = config.name,
    config = (not has_config) and config or nil,
    stage = type(input) == "table" and input.coder_stage or nil,
    event = type(input) == "table" and input.event or nil,
    task_num = type(task) == "table" and task.num or nil,
    input = input,
    response = response,
    error = err,
  }
  if started then
    local ok, t = pcall(now_ms)
    if ok then entry.duration_ms = math.floor((t - started) * 1000 + 0.5) / 1000 end
  end
  append(entry)
end

--- The params after a stage (task_num for the per-task stages).
function M.params(stage, task_num, params)
  append({ kind = "params", stage = stage, task_num = task_num, params = U.copy_without(params or {}, "sub_agents") })
end

-- { path, size, hash } of loaded files ({path, content}); the content itself is not recorded.
local function file_facts(files)
  local out = {}
  for _, file in ipairs(files or {}) do
    local content = U.nil_if_null(file.content) or ""
    out[#out + 1] = { path = file.path, size = #content, hash = aip.hash.sha256_b64u(content) }
  end
  return out
end

--- The files a task sends to the coder's model, by role.
function M.files_sent(task_num, data)
  if not active then return end
  append({
    kind = "files_sent",
    task_num = task_num,
    knowledge = file_facts(data.knowledge_files),
    context = file_facts(data.context_files),
    working = file_facts(data.working_files),
    attachments = data.attachments,
  })
end

--- The coder's AI call of a task: the model, the answer as received, the usage.
function M.ai(task_num, ai_response)
  if not active then return end
  local res = ai_response or {}
  append({
    kind = "ai",
    task_num = task_num,
    model = U.nil_if_null(res.model_name),
    content = U.nil_if_null(res.content),
    usage = U.nil_if_null(res.usage),
  })
end

--- The files a task's answer changed, and those it could not change.
function M.files_written(task_num, applied)
  append({
    kind = "files_written",
    task_num = task_num,
    changed = applied.files_changed,
    failed = applied.files_failed,
  })
end

return M
