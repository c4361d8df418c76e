-- The native floor's aip.agent.run (see native-aip-stub.ts): pasted after the line that sets the locals WS (the
-- workspace) and AIP_FUNCTIONS (how many functions the simulated aip has), before the script that uses agent_run.
local function copy(v)
  if type(v) ~= "table" then return v end
  local t = {}
  for k, x in pairs(v) do t[k] = copy(x) end
  return t
end
local function agent_code(name)
  local f = assert(io.open(WS .. "/" .. name .. ".aip", "r"))
  local text = f:read("a")
  f:close()
  return assert(text:match("\n```lua\n(.-)\n```"), name)
end
local LIBS = { "string", "table", "math", "utf8", "coroutine", "os", "io", "package" }
local agent_run
local function fresh_globals(name)
  local g = {}
  for k, v in pairs(_G) do
    if type(v) ~= "table" then g[k] = v end
  end
  for _, lib in ipairs(LIBS) do
    local t = {}
    for k, f in pairs(_G[lib]) do t[k] = f end
    g[lib] = t
  end
  local aip = {}
  for i = 1, AIP_FUNCTIONS do
    local ns = "ns" .. (i % 20)
    aip[ns] = aip[ns] or {}
    aip[ns]["fn" .. i] = function(...) return i, ... end
  end
  aip.agent = { run = function(n, opts) return agent_run(n, opts) end }
  g.aip = aip
  g.CTX = { AGENT_NAME = name, AGENT_FILE_PATH = WS .. "/" .. name .. ".aip", WORKSPACE_DIR = WS, STAGE = "Output",
    RUN_UID = tostring({}), TASK_NUM = 1, RUN_NUM = 1, PWD = WS, TMP_DIR = WS .. "/.tmp" }
  return g
end
agent_run = function(name, opts)
  local code = agent_code(name)
  local env = {}
  for k, v in pairs(fresh_globals(name)) do env[k] = v end
  env.input = copy(opts and opts.input)
  local chunk = assert(load(code, "=" .. name, "t", env))
  return { outputs = { copy(chunk()) } }
end
