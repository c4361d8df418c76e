-- The runtime bench's native floor (runtime.bench.ts): pasted after the line that sets the locals CHAIN,
-- CHAIN_LENGTHS and PROMPT_MB and after the aip stub (native-aip-stub.lua, which gives agent_run). Prints the
-- per-call medians in ms, in the order the bench reads them: trivial, prompt, globs, each chain length, each
-- prompt size.
local function chain(name, v, n)
  for i = 1, n do v = agent_run(name, { input = v }).outputs[1] end
  return v
end
local function per_call(name, input, runs, n)
  n = n or CHAIN
  local samples = {}
  for r = 1, runs do
    local t0 = os.clock()
    chain(name, input, n)
    samples[r] = (os.clock() - t0) * 1000 / n
  end
  table.sort(samples)
  return samples[(runs + 1) // 2]
end
local globs = {}
for i = 1, 10000 do globs[i] = "src/module-" .. i .. "/**/*.ts" end
local out = {
  per_call("leaf", 0, 9),
  per_call("leaf-data", { prompt = string.rep("x", 1024 * 1024), globs = {}, n = 0 }, 5),
  per_call("leaf-data", { prompt = "Fix it", globs = globs, n = 0 }, 5),
}
for _, n in ipairs(CHAIN_LENGTHS) do out[#out + 1] = per_call("leaf", 0, 5, n) end
for _, mb in ipairs(PROMPT_MB) do
  out[#out + 1] = per_call("leaf-data", { prompt = string.rep("x", math.floor(mb * 1024 * 1024 + 0.5)), globs = {}, n = 0 }, 5)
end
print(table.concat(out, " "))
