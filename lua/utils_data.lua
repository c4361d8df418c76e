-- Data stage of the coder: the `pre_task` sub-agents, then the task's files and prompt data.

local SA = require("utils_sub_agent")
local P = require("utils_params")
local F = require("utils_files")
local PF = require("utils_prompt_file")
local U = require("utils_common")
local R = require("recorder")
local W = require("workbench")

local M = {}

local FORMAT_TEMPLATES = {
  whole = "file-content-whole.md",
  search_replace_auto = "file-content-search-replace-auto.md",
  udiffx = "file-content-udiffx.md",
}
-- read from the prompt-local copy of the pack's user template, which a user may edit
local SUGGEST_COMMIT_TEMPLATE = "suggest-commit.md"
local workbench_view

-- The file-change instructions of a mode. In udiffx mode, as upstream pro@coder does, the instruction of the
-- udiffx that will apply the answer (AIPack 0.8.17+), else the pack's own template; `udiffx_inst_debug` (any
-- value but false) asks for the pack's template anyway, and is printed, as upstream does.
local function format_instructions_for(mode, inst_debug)
  if mode == "udiffx" and inst_debug then
    print("udiffx_inst_debug ", inst_debug)
    return F.template(FORMAT_TEMPLATES[mode])
  end
  if mode == "udiffx" and aip.udiffx and aip.udiffx.file_changes_instruction then -- check:allow aip-too-new
    return aip.udiffx.file_changes_instruction() -- check:allow aip-too-new
  end
  return F.template(FORMAT_TEMPLATES[mode])
end

-- The task prepared again from params a pre_task sub-agent returned, as Before All does for the run.
-- Run-level keys (working_globs, input_concurrency, sub_agents) have no effect here: the task keeps its
-- working files, only re-expressed relative to its own base_dir.
local function from_task_params(task, input, params)
  local settings, err = P.settings(params)
  local options
  if settings then options, err = P.agent_options(params, P.TASK_OPTION_KEYS) end
  if err then return nil, U.task_label(task.info) .. ": invalid parameter after pre_task: " .. err end
  task.params = params
  task.settings = settings
  task.options = options
  task.files = F.resolve(settings)
  task.working_refs = F.rebase(input.working_refs, input.run.settings.base_dir, settings.base_dir)
  return task
end

--- Runs `pre_task` and returns the task to load:
-- { info = {num, count, working_files}, params, prompts, settings, files, working_refs, options | nil, run }
-- | nil, message (a failure of the task).
function M.prepare_task(input)
  local run = input.run
  R.use(run.record)
  local result, err = SA.run_stage("pre_task", {
    configs = run.configs,
    params = run.params,
    prompts = run.prompts,
    prompt_dir = run.prompt_dir,
    task = input.task,
    coder_workbench = run.coder_workbench,
  })
  if result then R.params("pre_task", input.task.num, result.params) end
  if not result then
    R.flush()
    R.warn_if_stopped()
    return nil, err
  end

  local task = {
    info = input.task,
    run = run,
    params = run.params,
    prompts = result.prompts,
    settings = run.settings,
    files = run.files,
    working_refs = input.working_refs,
  }
  if result.params == run.params then return task end
  return from_task_params(task, input, U.copy_without(result.params, "sub_agents"))
end

local function size_message_lines(total, max)
  return {
    "Max files size reached.",
    " Actual size: " .. U.trim(aip.text.format_size(total)),
    "    Max size: " .. U.trim(aip.text.format_size(max)),
    "Raise max_files_size_kb in the meta block, or narrow the globs.",
  }
end

-- A skipped task has no answer, so its block in the prompt file says why it was skipped.
local function save_skip_note(task, lines)
  local notes = { "> " .. U.task_label(task.info) .. " skipped: " .. lines[1] }
  for i = 2, #lines do notes[i] = "> " .. lines[i] end
  PF.save_answer(task.run, task.info.num, "====\n" .. table.concat(notes, "\n") .. "\n")
end

local function path_list(title, paths, note)
  local lines = { "# " .. title, "" }
  if note then lines[#lines + 1] = note end
  if paths[1] == nil then lines[#lines + 1] = "None" end
  for _, path in ipairs(paths) do lines[#lines + 1] = "- " .. path end
  return table.concat(lines, "\n") .. "\n"
end

-- `# Explicit Code-map Selections`: per code map the prompt named, the files auto-context picked from it.
local function explicit_selections(params)
  local groups = U.nil_if_null(params and params.explicit_code_map_selections)
  if type(groups) ~= "table" or groups[1] == nil then return nil end
  local lines = { "# Explicit Code-map Selections", "" }
  for _, g in ipairs(groups) do
    lines[#lines + 1] = "## " .. (g.category == "knowledge" and "Knowledge" or "Context") .. " Map: " .. tostring(g.map_path)
    lines[#lines + 1] = ""
    local selected = U.nil_if_null(g.selected_files) or {}
    if selected[1] == nil then lines[#lines + 1] = "None" end
    for _, p in ipairs(selected) do lines[#lines + 1] = "- " .. p end
    lines[#lines + 1] = ""
  end
  return table.concat(lines, "\n")
end

-- Appends the task's file lists to .cache/last_prompt_file_paths.md (one block per task, in completion order).
local function report_files(task, attachments, context, working, data_refs)
  local parts = { "====\n\n" .. U.task_label(task.info) .. "\n" }
  if attachments then
    local sources = {}
    for i, att in ipairs(attachments) do sources[i] = att.file_source end
    parts[#parts + 1] = path_list("Attachments", sources)
  end
  parts[#parts + 1] = path_list("Knowledge Files", F.paths(task.files.knowledge))
  parts[#parts + 1] = path_list("Context Files", F.paths(context))
  parts[#parts + 1] = explicit_selections(task.params)
  parts[#parts + 1] = path_list("Working Files", F.paths(working))
  if data_refs[1] ~= nil then parts[#parts + 1] = path_list("Workbench Data Files", F.paths(data_refs)) end
  parts[#parts + 1] = path_list("Structure Files", F.paths(task.files.structure), "(Only file paths, not their content)")
  aip.file.append(task.run.reports.files, table.concat(parts, "\n") .. "\n")
end

-- "2026-02-02T20:20:00-08:00 (Monday)" when this AIPack has both aip.time functions.
local function now_local()
  if not (aip.time and aip.time.now_iso_local and aip.time.weekday_local) then return nil end
  return aip.time.now_iso_local() .. " (" .. aip.time.weekday_local() .. ")"
end

-- What the prompt says of the workbench: its folder, its data folder, the names the user may give its files,
-- and the files found among the context files (chat, plan, spec; goal is not announced, as upstream).
workbench_view = function(wb)
  if wb == nil then return nil end
  local announced = {}
  for _, kind in ipairs({ "chat", "plan", "spec" }) do
    local section = wb[kind]
    if section then
      announced[#announced + 1] = { title = kind:sub(1, 1):upper() .. kind:sub(2), path = section.context_path or section.path }
    end
  end
  return {
    dir = wb.dir,
    data_dir = wb.data_dir,
    aliases = U.nil_if_empty(W.aliases(wb)),
    announced = U.nil_if_empty(announced),
  }
end

--- The data of a prepared task: data | nil, skip message (files too large; the prompt file will say so).
-- The first group of fields is rendered by the prompt, the second is read by Output.
function M.load_task(task)
  local settings = task.settings
  local working = task.working_refs
  local context = F.without(task.files.context, working)
  local data_refs = task.run.files.data or {}
  local total = F.total_size(task.files.knowledge, context, working, data_refs)
  local max = settings.max_files_size_kb * 1000
  if total > max then
    local lines = size_message_lines(total, max)
    save_skip_note(task, lines)
    R.flush()
    R.warn_if_stopped()
    return nil, U.task_label(task.info) .. " skipped: " .. table.concat(lines, "\n")
  end

  local format_instructions, suggest_commit
  if settings.write_mode then format_instructions = format_instructions_for(settings.file_content_mode, settings.udiffx_inst_debug) end
  if settings.suggest_git_commit then
    local err
    suggest_commit, err = W.load_user_template(task.run.prompt_dir_as_given or task.run.prompt_dir, SUGGEST_COMMIT_TEMPLATE)
    if not suggest_commit then error(err, 0) end
  end
  local previous_answer
  if not settings.write_mode then previous_answer = task.run.previous_answer end
  local attachments = task.run.attachments
  report_files(task, attachments, context, working, data_refs)

  local data = {
    inst = U.join_prompts(task.prompts),
    write_mode = settings.write_mode,
    format_instructions = format_instructions,
    suggest_commit = suggest_commit,
    default_language = settings.default_language,
    now_local = now_local(),
    -- explicit cache marks (Anthropic): at most three parts, under its limit of four
    cache_pre_prompts = settings.cache_explicit,
    cache_knowledge_files = settings.cache_explicit,
    attachments = attachments,
    knowledge_files = U.nil_if_empty(F.load(task.files.knowledge, nil)),
    structure_paths = U.nil_if_empty(F.paths(task.files.structure)),
    context_files = U.nil_if_empty(F.load(context, settings.base_dir)),
    working_files = U.nil_if_empty(F.load(working, settings.base_dir)),
    previous_answer = previous_answer,
    workbench = workbench_view(task.run.coder_workbench),
    workbench_data_files = U.nil_if_empty(F.load(data_refs, nil)),

    task = task.info,
    params = task.params,
    prompts = task.prompts,
    settings = settings,
  }
  R.files_sent(task.info.num, data)
  R.flush()
  -- Output passes it on to After All, which says it once for the run
  data.record_stopped = R.stopped()
  return data
end

return M
