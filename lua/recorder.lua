-- Recording a run (opt-in: `record = true` in the prompt's meta block). A record is a folder
-- `<prompt_dir>/.cache/records/<run id>/` with `run.json` (what the run started from) and `events.ndjson` (one
-- JSON line per sub-agent call, params after a stage, files sent, coder answer, files written), which
-- `coder-subagents record import` turns into contract cases and `coder-subagents replay` runs again.
--
-- Recording must never change the run: every write is guarded, and a failure stops the recording with one
-- warning for the run. Each stage runs in a fresh Lua state, so the record travels in the run table and each
-- stage activates it with `use`; a stage whose recording failed passes the cause on (Data to Output in the task's
-- data, Output to After All in the task's output), and After All says it once. A stage that fails or skips its
-- task passes nothing on, so it says it itself.

local U = require("utils_common")

local M = {}

M.FORMAT = 3
-- A string longer than this is cut (the record notes where): a record holds inputs, not whole code bases.
M.MAX_STRING = 65536

local active = nil
-- why this stage's recording stopped (nil: it did not)
local stopped = nil

local function fail(err)
  if active and stopped == nil then stopped = tostring(err) end
  active = nil
end

-- The JSON text of one entry (a table) written by record_json.lua: what is too long is cut, and the paths cut are
-- the entry's `cut`.
local function encoded(entry)
  -- record_json.lua loads only for this rare case: a recording stage would load it, and most stages record nothing
  local J = require("record_json")
  local line, cuts = J.encode(entry, M.MAX_STRING)
  if cuts ~= nil then line = line:sub(1, -2) .. ',"cut":' .. J.encode(cuts, M.MAX_STRING) .. "}" end
  return line
end

-- The JSON text of one entry: the host's, unless it is longer than the cap or cannot be written (see lines_of).
local function one_line(entry)
  local ok, line = pcall(aip.json.stringify_to_line, entry)
  if ok and type(line) == "string" and #line <= M.MAX_STRING then return line end
  return encoded(entry)
end

-- The lines of entries[from..to]: each line the JSON list of a run of entries, written by the host's JSON writer
-- in one call (a call into the host costs more than the conversion of a small entry). A line no longer than the
-- cap holds no string longer than it, so it is kept; a longer run is halved, and an entry alone that is still
-- longer (or that JSON cannot hold) is written by record_json.lua.
local function lines_of(entries, from, to, out)
  local run = entries
  if from ~= 1 or to ~= #entries then
    run = {}
    for i = from, to do run[#run + 1] = entries[i] end
  end
  local ok, line = pcall(aip.json.stringify_to_line, run)
  if ok and type(line) == "string" and #line <= M.MAX_STRING then
    out[#out + 1] = line
  elseif from == to then
    out[#out + 1] = encoded(entries[from])
  else
    local mid = math.floor((from + to) / 2)
    lines_of(entries, from, mid, out)
    lines_of(entries, mid + 1, to, out)
  end
end

-- What a sub-agent input shares with the stage is named rather than written again (it was most of a record's bytes):
-- within a stage, the pipeline hands each call the same workbench table, the history as a copy of one growing list
-- (the last input's items, then the one added since), and the entries still to run as items of the stage's entry
-- list after the running one. The first input of a dispatch (or of a new entry list) writes its entries to run once,
-- as the step's `stage_entries`; the later ones name positions in it. Every name is checked by table identity
-- against what was given, so what is named is exactly that; what does not check out is written in full. A reader
-- rebuilds the inputs in record order (src/harness/record-file.ts); docs/record.md gives the format.

-- The positions in `list` of the items of `value` (a list of one item or more), each after the one before; nil
-- when `value` is not so (or holds more than its items 1..n: no key follows the last item in `next` order, which
-- a list filled in order, as the pipeline's are, keeps on both engines). The pipeline's tables have no metatable:
-- == is identity.
local function positions(value, list)
  local n = #value
  if next(value, n) ~= nil then return nil end
  local at, j, item = {}, 1, value[1]
  for p = 1, #list do
    if list[p] == item then
      at[j] = p
      if j == n then return at end
      j = j + 1
      item = value[j]
    end
  end
  return nil
end

-- How many first items `value` takes from `before` (all of them, one or more), or nil.
local function shared_count(value, before)
  local m = #before
  if m == 0 or next(before, m) ~= nil then return nil end
  local n = #value
  if n < m or next(value, n) ~= nil then return nil end
  for j = 1, m do
    if value[j] ~= before[j] then return nil end
  end
  return m
end

-- Entries wait in memory until the stage flushes them: they are written in one go (one file append a stage: an
-- append is not free, and a simulated one makes the run re-check what it read). What they hold is not changed
-- after it is recorded (an input is the copy the sub-agent was given; a response is only read).
local function append(entry)
  if not active then return end
  local entries = active.entries
  entries[#entries + 1] = entry
end

--- Writes what this stage recorded. Each stage calls it on every way out, its failures included.
function M.flush()
  if not active or active.entries[1] == nil then return end
  local entries, rests = active.entries, active.rests
  active.entries, active.rests = {}, {}
  -- a reader rebuilds an input from what comes before it in the record: a flush starts afresh
  active.last_workbench, active.last_prev, active.list, active.entries_to_run = nil, nil, nil, nil
  -- While it is written, an input with refs holds what its entry records in place of what they name (nothing, or
  -- the history's new items), and is put back right after, before any other Lua runs: the stage has ended, and a
  -- copy of each input would cost more than the rest of its recording.
  local saved = {}
  for i = 1, #entries do
    local refs = entries[i].input_refs
    if refs ~= nil then
      local input = entries[i].input
      saved[#saved + 1] = { input, input.coder_workbench, input.sub_agents_prev, input.sub_agents_next }
      if refs.coder_workbench ~= nil then input.coder_workbench = nil end
      if refs.sub_agents_prev ~= nil then input.sub_agents_prev = rests[i] end
      if refs.sub_agents_next ~= nil then input.sub_agents_next = nil end
    end
  end
  local ok, err = pcall(function()
    local lines = {}
    lines_of(entries, 1, #entries, lines)
    -- one line (the usual case) is not copied through table.concat first
    aip.file.append(active.events, (lines[2] == nil and lines[1] or table.concat(lines, "\n")) .. "\n")
  end)
  for i = 1, #saved do
    local s = saved[i]
    local input = s[1]
    input.coder_workbench, input.sub_agents_prev, input.sub_agents_next = s[2], s[3], s[4]
  end
  if not ok then fail(err) end
end

--- Why this stage's recording stopped, or nil: the stage passes it on to the next one of its task.
function M.stopped()
  return stopped
end

--- The run's one warning about a recording that stopped.
function M.warn(cause)
  print("WARNING: recording this run stopped: " .. tostring(cause))
end

--- For a stage that passes nothing on (its task fails or is skipped): says itself that the recording stopped,
-- in this stage or (`carried`) in an earlier one of its task.
function M.warn_if_stopped(carried)
  local cause = stopped or carried
  if cause ~= nil then M.warn(cause) end
end

-- 32 or 64: what a Lua integer holds here (Lua 5.4 in AIPack: 64).
local function integer_bits()
  if math.maxinteger == nil then return 0 end
  if math.maxinteger > 2147483647 then return 64 end
  return 32
end

-- The pack's version (CTX has none): the module `build` writes from the version pack.toml holds, or nil.
local function pack_version()
  local ok, version = pcall(require, "pack_version")
  if ok and type(version) == "string" then return version end
  return nil
end

--- Starts a record when the meta block asks for one: the record ({id, dir, events}) to keep in the run, or nil.
-- prompt = { path, dir, meta, inst, first_part }; input: the run's first input (the prompt folder or file it
-- was given, nil for the default one), so a replay starts the run the same way.
function M.start(prompt, input)
  stopped = nil
  if type(prompt.meta) ~= "table" or prompt.meta.record ~= true then return nil end
  local ok, record = pcall(function()
    local id = aip.uuid.new_v7()
    local dir = aip.path.join(prompt.dir, ".cache/records/" .. id)
    local record = { id = id, dir = dir, events = aip.path.join(dir, "events.ndjson") }
    local head = one_line({
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
    })
    aip.file.save(aip.path.join(dir, "run.json"), head .. "\n")
    return record
  end)
  if not ok then
    print("WARNING: this run is not recorded: " .. tostring(record))
    return nil
  end
  active = { id = record.id, dir = record.dir, events = record.events, entries = {}, rests = {} }
  return record
end

--- Activates a run's record in this stage (nil: nothing is recorded; nor when `stopped_before`, the cause an
-- earlier stage of this task passed on, is given).
function M.use(record, stopped_before)
  stopped = nil
  if record == nil or stopped_before ~= nil then
    active = nil
    return
  end
  active = { id = record.id, dir = record.dir, events = record.events, entries = {}, rests = {} }
end

--- Whether this stage records (a parallel group's runner then times its members' calls).
function M.recording()
  return active ~= nil
end

-- The wall clock in microseconds, or nil. Called directly: every AIPack the pack runs on has it, and a protected
-- call costs more than the reading itself (two readings a sub-agent call). What is not a number is no reading.
local function now()
  local t = aip.time.now_utc_micro()
  if type(t) == "number" then return t end
  return nil
end

--- A clock reading for `sub_agent` (nil when nothing is recorded, so an unrecorded run reads no clock).
function M.clock()
  if not active then return nil end
  return now()
end

--- One sub-agent call: the entry, where it ran, the input as given, and the response as returned or the error;
-- its duration from `started` (a clock reading), or `duration_ms` as measured where it ran (a group member).
-- `list`, from the stage runner: the dispatch's entry list, whose entries to run the input lists (a group member
-- has none: its lists are written in full).
function M.sub_agent(config, input, response, err, started, duration_ms, list)
  if not active then return end
  -- the clock first: the call's duration is not the recorder's
  if started then
    local t = now()
    duration_ms = t and math.floor(t - started + 0.5) / 1000 or nil
  end
  local entries = active.entries
  local n = #entries + 1
  if type(input) ~= "table" then
    entries[n] = { kind = "sub_agent", name = config.name, config = config, input = input, response = response, error = err, duration_ms = duration_ms }
    active.last_workbench, active.last_prev = nil, nil
    return
  end
  local task = input.coder_task
  local entry = {
    kind = "sub_agent",
    name = config.name,
    stage = input.coder_stage,
    event = input.event,
    task_num = type(task) == "table" and task.num or nil,
    -- the entry is also the input's agent_config: recorded once, there
    config = type(input.agent_config) ~= "table" and config or nil,
    input = input,
    response = response,
    error = err,
    duration_ms = duration_ms,
  }
  entries[n] = entry
  local refs = nil
  local workbench, prev = input.coder_workbench, input.sub_agents_prev
  if workbench == active.last_workbench and type(workbench) == "table" then refs = { coder_workbench = "same" } end
  if list ~= nil then
    local later = input.sub_agents_next
    if type(later) == "table" and later[1] ~= nil then
      if list ~= active.list then
        -- a dispatch's first input (or the first after its list changed): its entries to run, written once, are
        -- what the later inputs name positions in (only entries that run, not those of other stages)
        local at = positions(later, later)
        if at ~= nil then
          active.list, active.entries_to_run = list, later
          entry.stage_entries = later
          refs = refs or {}
          refs.sub_agents_next = at
        end
      else
        local at = positions(later, active.entries_to_run)
        if at ~= nil then
          refs = refs or {}
          refs.sub_agents_next = at
        end
      end
    end
    local before = active.last_prev
    if type(prev) == "table" and type(before) == "table" then
      local count = shared_count(prev, before)
      if count ~= nil then
        refs = refs or {}
        refs.sub_agents_prev = count
        local m = #prev
        if m > count then
          local rest = {}
          for j = count + 1, m do rest[j - count] = prev[j] end
          active.rests[n] = rest
        end
      end
    end
  end
  entry.input_refs = refs
  active.last_workbench, active.last_prev = workbench, prev
end

--- The params after a stage (task_num for the per-task stages).
function M.params(stage, task_num, params)
  if not active then return end
  -- a deep copy (what the stage goes on to do cannot change it) of all but the entries, which are not recorded
  local copy = {}
  for key, value in pairs(params or {}) do
    if key ~= "sub_agents" then copy[key] = U.deep_copy(value) end
  end
  append({ kind = "params", stage = stage, task_num = task_num, params = copy })
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
  if not active then return end
  append({
    kind = "files_written",
    task_num = task_num,
    changed = applied.files_changed,
    failed = applied.files_failed,
  })
end

return M
