-- The pipeline bench's driver: the pack's `pre` stage over the sub-agents sa/a001.aip .. sa/aNNN.aip, ROUNDS times,
-- as the pack's Before All runs it. N and ROUNDS are set before this chunk (locals in the agent, globals natively).
-- Returns the calls the sub-agents counted over all rounds (N * ROUNDS when each ran once a round).
local SA = require("utils_sub_agent")
local subs = {}
for i = 1, N do subs[i] = { name = string.format("sa/a%03d.aip", i), stages = { "pre" } } end
local total = 0
for _ = 1, ROUNDS do
  local meta = { base_dir = "", working_globs = {}, sub_agents = subs }
  local configs = assert(SA.prepare(meta))
  local result, err = SA.run_stage("pre", {
    configs = configs,
    params = meta,
    prompts = { "Count the sub-agents." },
    prompt_dir = CTX.WORKSPACE_DIR,
    prompt_dir_as_given = CTX.WORKSPACE_DIR,
    base_options = meta,
  })
  assert(result, err)
  total = total + (result.params.calls or 0)
end
return total
