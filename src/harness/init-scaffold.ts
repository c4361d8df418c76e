/**
 * Starter files written by `coder-subagents init`: a small working sub-agent for one stage, commented for
 * editing, and a case file whose cases pass against it.
 */
import type { SubAgentStage } from '../contract/index.ts';
import { STAGE_INPUT_CLASS } from '../contract/lua-classes.ts';

/** The annotation that types `input` for `check` and the Lua language server. */
const annotate = (stage: SubAgentStage) => `---@param input ${STAGE_INPUT_CLASS[stage]}`;

export interface StarterFiles {
  aip: string;
  contract: string;
  /** an example `sub_agents` entry for the coder prompt's meta block */
  entry: string;
}

const header = (name: string, stage: SubAgentStage, what: string, entry: string) => `# Description

${name}: a \`${stage}\` sub-agent for pro@coder. ${what}

Enable it in the meta block of your coder-prompt.md (the name is a path from the workspace root):

    sub_agents = [${entry}]

It receives one input table (coder_stage, coder_params, coder_prompts, coder_prompt, agent_config = its entry,
whose \`config\` table holds its own settings, and the stage's own fields) and returns a table with only the fields it changes, or nil to change nothing.
Test it with its cases in ${name}.contract.toml: \`npx coder-subagents test\`.
`;

function pre(name: string, path: string): StarterFiles {
  const entry = `{ name = "${path}", stages = ["pre"], config = { focus = "auth" } }`;
  const aip = `${header(name, 'pre', 'It runs once, before the coder resolves its files: it points the\ninstruction and the context files at one area of the code.', entry)}
# Output

\`\`\`lua
${annotate('pre')}
-- No # Instruction section, so no AI call: this Output stage gets \`input\` and returns the response.
local focus = (input.agent_config.config or {}).focus  -- the entry's own settings: its config table
if focus == nil then
  return nil -- nothing to change
end

-- coder_params REPLACES the params: change the copy you were given, so that no key is lost.
local params = input.coder_params
table.insert(params.context_globs, "src/" .. focus .. "/**")  -- the glob lists are always there in pre

-- coder_prompts are the instruction's segments; the coder joins them with a blank line.
local prompts = input.coder_prompts
table.insert(prompts, "Focus: " .. focus)

return { coder_params = params, coder_prompts = prompts }
\`\`\`
`;
  const contract = `# Contract cases for ${name}.aip: npx coder-subagents test
agent = "${name}.aip"

[[case]]
name = "adds a focus line and a context glob"
stage = "pre"
prompt = "Fix the login form"
config = { config = { focus = "auth" } }
[case.expect]
prompts = ["Fix the login form", "Focus: auth"]
params_contains = { context_globs = ["src/auth/**"] }

[[case]]
name = "keeps the other params"
stage = "pre"
prompt = "Fix the login form"
params = { model = "flash", context_globs = ["lib/**"] }
config = { config = { focus = "auth" } }
[case.expect]
params = { model = "flash", context_globs = ["lib/**", "src/auth/**"], structure_globs = [], knowledge_globs = [] }
prompt = "Fix the login form\\n\\nFocus: auth"

[[case]]
name = "changes nothing without a focus"
stage = "pre"
prompt = "Fix the login form"
[case.expect]
unchanged = true
`;
  return { aip, contract, entry };
}

function preTask(name: string, path: string): StarterFiles {
  const entry = `{ name = "${path}", stages = ["pre_task"], config = { max_files = 3 } }`;
  const aip = `${header(name, 'pre_task', 'It runs before each task: it names the task\'s files in the\ninstruction and asks for a steadier model on large tasks.', entry)}
# Output

\`\`\`lua
${annotate('pre_task')}
-- No # Instruction section, so no AI call: this Output stage gets \`input\` and returns the response.
local task = input.coder_task  -- { num, count, working_files }
if #task.working_files == 0 then
  return nil -- nothing to change
end

local prompts = input.coder_prompts
table.insert(prompts, "This is task " .. task.num .. " of " .. task.count .. ", about: "
  .. table.concat(task.working_files, ", "))

-- coder_params REPLACES this task's params: change the copy you were given, so that no key is lost.
local params = input.coder_params
if #task.working_files > ((input.agent_config.config or {}).max_files or 3) then
  params.temperature = 0
end

return { coder_params = params, coder_prompts = prompts }
\`\`\`
`;
  const contract = `# Contract cases for ${name}.aip: npx coder-subagents test
agent = "${name}.aip"

[[case]]
name = "names the task's files"
stage = "pre_task"
prompt = "Add input validation"
task = { num = 1, count = 2, working_files = ["src/form.ts"] }
[case.expect]
prompts = ["Add input validation", "This is task 1 of 2, about: src/form.ts"]

[[case]]
name = "asks for temperature 0 on a large task"
stage = "pre_task"
prompt = "Rename the user model"
params = { model = "flash" }
config = { config = { max_files = 1 } }
task = { num = 1, count = 1, working_files = ["src/a.ts", "src/b.ts"] }
[case.expect]
params_contains = { model = "flash", temperature = 0 }

[[case]]
name = "changes nothing for a task without files"
stage = "pre_task"
prompt = "Explain the build"
[case.expect]
unchanged = true
`;
  return { aip, contract, entry };
}

function postTask(name: string, path: string): StarterFiles {
  const entry = `{ name = "${path}", stages = ["post_task"], config = { marker = "DEBUG:" } }`;
  const aip = `${header(name, 'post_task', 'It runs after each AI answer, before the file changes are applied:\nit removes debugging lines from the answer.', entry)}
# Output

\`\`\`lua
${annotate('post_task')}
-- No # Instruction section, so no AI call: this Output stage gets \`input\` and returns the response.
local marker = (input.agent_config.config or {}).marker or "DEBUG:"
local content = input.coder_response.content  -- the AI's answer, file changes included

local kept, dropped = {}, 0
for line in (content .. "\\n"):gmatch("(.-)\\n") do
  if line:sub(1, #marker) == marker then
    dropped = dropped + 1
  else
    kept[#kept + 1] = line
  end
end
if dropped == 0 then
  return nil -- nothing to change: the answer is applied as it is
end

-- coder_response replaces the answer; agent_result is shown to the sub-agents that run after this one.
return {
  coder_response = { content = table.concat(kept, "\\n") },
  agent_result = { dropped = dropped },
}
\`\`\`
`;
  const contract = `# Contract cases for ${name}.aip: npx coder-subagents test
agent = "${name}.aip"

[[case]]
name = "removes the debugging lines"
stage = "post_task"
response = "Here is the fix.\\nDEBUG: tried three things\\nDone."
[case.expect]
response = "Here is the fix.\\nDone."

[[case]]
name = "uses the configured marker"
stage = "post_task"
config = { config = { marker = "TRACE" } }
response = "TRACE 1\\nKept."
[case.expect]
response = "Kept."

[[case]]
name = "leaves a clean answer alone"
stage = "post_task"
response = "All good."
[case.expect]
unchanged = true
response = "All good."
`;
  return { aip, contract, entry };
}

function post(name: string, path: string): StarterFiles {
  const entry = `{ name = "${path}", stages = ["post"], config = { file = "coder-summary.md" } }`;
  const aip = `${header(name, 'post', 'It runs once, after every task: it writes a summary of the run\n(which files each task changed) into the workspace.', entry)}
# Output

\`\`\`lua
${annotate('post')}
-- No # Instruction section, so no AI call: this Output stage gets \`input\` and returns the response.
local lines = { "# Coder run summary", "" }
for _, res in ipairs(input.coder_responses) do  -- { task_num, content, files_changed, files_failed }
  local changed = "no file changed"
  if #res.files_changed > 0 then changed = table.concat(res.files_changed, ", ") end
  lines[#lines + 1] = "- task " .. res.task_num .. ": " .. changed
end
if #input.coder_responses == 0 then lines[#lines + 1] = "No task answered." end

-- a relative path is relative to the workspace root
local path = (input.agent_config.config or {}).file or "coder-summary.md"
aip.file.save(path, table.concat(lines, "\\n") .. "\\n")

-- in post, params and prompts are ignored; agent_result is shown to the sub-agents that run after this one
return { agent_result = path }
\`\`\`
`;
  const contract = `# Contract cases for ${name}.aip: npx coder-subagents test
agent = "${name}.aip"

[[case]]
name = "writes the files each task changed"
stage = "post"
responses = [
  { task_num = 1, content = "...", files_changed = ["src/a.ts"] },
  { task_num = 2, content = "...", files_changed = [] },
]
[case.expect]
files = { "coder-summary.md" = "# Coder run summary\\n\\n- task 1: src/a.ts\\n- task 2: no file changed\\n" }

[[case]]
name = "writes where the entry says"
stage = "post"
config = { config = { file = "notes/run.md" } }
[case.expect]
files = { "notes/run.md" = "# Coder run summary\\n\\nNo task answered.\\n" }
`;
  return { aip, contract, entry };
}

function preTaskWithModel(name: string, path: string): StarterFiles {
  const entry = `{ name = "${path}", stages = ["pre_task"], options = { model = "cheap" } }`;
  const aip = `${header(name, 'pre_task', 'It runs before each task and asks a model of its own (pin a cheap\none with the entry\'s options.model) what to be careful about in the task\'s files, and adds its answer\nto the task\'s instruction.', entry)}
# Data

\`\`\`lua
${annotate('pre_task')}
-- Data runs first: what it returns is \`data\`, in the Instruction below and in Output.
local task = input.coder_task  -- { num, count, working_files }
if #task.working_files == 0 then
  return aip.flow.skip("no working files: no model call")  -- the sub-agent then changes nothing
end
return { files = task.working_files, instruction = input.coder_prompt }
\`\`\`

# Instruction

A developer asked a coding assistant:

{{data.instruction}}

The assistant will now edit these files: {{#each data.files}}{{this}} {{/each}}

Answer with one short sentence: what should it be most careful about in these files?

# Output

\`\`\`lua
${annotate('pre_task')}
-- ai_response is the model's answer: { content, model_name, usage }; data is what Data returned.
local advice = ai_response and ai_response.content
if type(advice) ~= "string" or advice:match("^%s*$") then
  return nil  -- no advice: change nothing
end
advice = advice:gsub("^%s+", ""):gsub("%s+$", "")

local prompts = input.coder_prompts
table.insert(prompts, "Be careful: " .. advice)
return { coder_prompts = prompts, agent_result = { model = ai_response.model_name } }
\`\`\`
`;
  const contract = `# Contract cases for ${name}.aip: npx coder-subagents test
# \`ai\` scripts the answers of the agent's own model calls, in order; \`match\` is a regex over the prompt it sends.
agent = "${name}.aip"

[[case]]
name = "adds the model's advice to the task"
stage = "pre_task"
prompt = "Add input validation"
task = { num = 1, count = 1, working_files = ["src/form.ts"] }
ai = [{ content = "Keep the error messages readable.", match = "will now edit these files: src/form\\\\.ts" }]
[case.expect]
prompts = ["Add input validation", "Be careful: Keep the error messages readable."]
ai_prompts = [{ match = "^A developer asked a coding assistant:" }]

[[case]]
name = "an empty answer changes nothing"
stage = "pre_task"
prompt = "Add input validation"
task = { num = 1, count = 1, working_files = ["src/form.ts"] }
ai = ["  "]
[case.expect]
unchanged = true

[[case]]
name = "a task without files makes no model call"
stage = "pre_task"
prompt = "Explain the build"
[case.expect]
unchanged = true
ai_prompts = []
`;
  return { aip, contract, entry };
}

/**
 * The event-form starter (`init --form event`): written as upstream pro@coder's README shows a sub-agent, so it runs
 * unchanged under upstream's pack. At start it returns only the params it changes (they are merged) and a new
 * coder_prompt; at end it reads each answer's file_changes_status.
 */
export function eventStarter(name: string, path: string): StarterFiles {
  const entry = `{ name = "${path}", on = ["start", "end"], focus = "auth" }`;
  const aip = `# Description

${name}: a sub-agent for pro@coder in the event form (upstream pro@coder's rules). It listens to \`start\`
(before the coder resolves its files: it points the instruction and the context files at one area of the code)
and to \`end\` (after every task: it counts the file changes that failed).

Enable it in the meta block of your coder-prompt.md (the name is a path from the workspace root):

    sub_agents = [${entry}]

It receives one input table (event, stage, coder_params, coder_prompt, agent_config = its entry, with its own
keys such as focus, coder_redo_count, and at end coder_responses) and returns a table with only the fields it
changes, or nil to change nothing. Test it with its cases in ${name}.contract.toml: \`npx coder-subagents test\`.

# Output

\`\`\`lua
---@param input CoderEventPreInput|CoderEventPostInput
-- No # Instruction section, so no AI call: this Output stage gets \`input\` and returns the response.
if input.event == "start" then
  local focus = input.agent_config.focus  -- an entry's own keys reach the agent in agent_config
  if focus == nil then
    return nil -- nothing to change
  end
  -- coder_params are MERGED key by key: return only the keys you change (here the whole context_globs list)
  local globs = input.coder_params.context_globs  -- the glob lists are always there
  table.insert(globs, "src/" .. focus .. "/**")
  return {
    coder_params = { context_globs = globs },
    coder_prompt = input.coder_prompt .. "\\n\\nFocus: " .. focus,
  }
end

-- end: one item per task answer, with the status of its file changes
local failed = 0
for _, res in ipairs(input.coder_responses) do
  failed = failed + res.file_changes_status.fail_count
end
-- agent_result is shown to the sub-agents that run after this one; coder_redo = true would ask for a new run
return { agent_result = { failed_changes = failed } }
\`\`\`
`;
  const contract = `# Contract cases for ${name}.aip: npx coder-subagents test
agent = "${name}.aip"

[[case]]
name = "start: adds a focus line and a context glob, the other params stay"
on = "start"
prompt = "Fix the login form"
params = { model = "flash", context_globs = ["src/app.ts"] }
config = { focus = "auth" }
[case.expect]
prompt = "Fix the login form\\n\\nFocus: auth"
params_contains = { model = "flash", context_globs = ["src/app.ts", "src/auth/**"] }
emit = []

[[case]]
name = "start: without a focus it changes nothing"
on = "start"
prompt = "Fix the login form"
[case.expect]
unchanged = true

[[case]]
name = "end: counts the failed file changes"
on = "end"
responses = [
  { task_num = 1, content = "...", files_changed = ["src/auth/login.ts"] },
  { task_num = 2, content = "...", files_changed = ["src/auth/form.ts"], files_failed = ["src/auth/api.ts"] },
]
[case.expect]
agent_result = { failed_changes = 1 }
redo = false
`;
  return { aip, contract, entry };
}

/** The starter of a sub-agent that asks its own model (`init --with-model`): pre_task only, for now. */
export function starterWithModel(name: string, stage: SubAgentStage, path: string): StarterFiles | undefined {
  return stage === 'pre_task' ? preTaskWithModel(name, path) : undefined;
}

/** The starter files of a sub-agent `name` for `stage`; `path` is the agent's path from the workspace root. */
export function starterFiles(name: string, stage: SubAgentStage, path: string): StarterFiles {
  switch (stage) {
    case 'pre':
      return pre(name, path);
    case 'pre_task':
      return preTask(name, path);
    case 'post_task':
      return postTask(name, path);
    case 'post':
      return post(name, path);
  }
}
