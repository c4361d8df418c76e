-- The pipeline bench's native floor: `lua5.4 driver/native.lua N ROUNDS`. Appended to the pure-Lua aip stub of
-- native-aip-stub.ts (which defines WS and agent_run), it gives the pack's Lua the few aip functions the stage
-- runner calls and runs the same driver the simulated run does (pipeline-driver.lua, copied beside this file).
package.path = WS .. "/driver/lua/?.lua;" .. package.path
CTX = { WORKSPACE_DIR = WS, AIPACK_VERSION = "0.8.33", PACK_IDENTITY = "pro@coder" }

local function semver_parts(v)
  local a, b, c = tostring(v):match("^(%d+)%.(%d+)%.(%d+)")
  return { tonumber(a) or 0, tonumber(b) or 0, tonumber(c) or 0 }
end

aip = {
  agent = { run = function(name, opts) return agent_run((name:gsub("%.aip$", "")), opts) end },
  run = { pin = function() end },
  time = { now_utc_micro = function() return math.floor(os.clock() * 1000000) end },
  semver = {
    compare = function(a, op, b)
      local x, y = semver_parts(a), semver_parts(b)
      local c = 0
      for i = 1, 3 do
        if c == 0 and x[i] ~= y[i] then c = x[i] < y[i] and -1 or 1 end
      end
      if op == ">=" then return c >= 0 elseif op == "<" then return c < 0 elseif op == ">" then return c > 0 end
      return c == 0
    end,
  },
}

N, ROUNDS = tonumber(arg[1]), tonumber(arg[2])
print(assert(loadfile(WS .. "/driver/pipeline-driver.lua"))())
