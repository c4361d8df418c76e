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

-- upstream's list of paths: "- path" lines, "None" when empty.
local function md_paths(paths)
  if paths[1] == nil then return "None" end
  local lines = {}
  for i, path in ipairs(paths) do lines[i] = "- " .. path end
  return table.concat(lines, "\n")
end

-- The structure paths as upstream lists them: sorted by folder then name, each folder once ("- src/") with its
-- files under it ("  - a.ts"), root files as they are.
local function md_nested(paths)
  if paths[1] == nil then return "None" end
  local entries = {}
  for _, path in ipairs(paths) do
    local dir, name = path:match("^(.*)/([^/]*)$")
    entries[#entries + 1] = { dir = dir or "", name = name or path }
  end
  table.sort(entries, function(a, b)
    if a.dir ~= b.dir then return a.dir < b.dir end
    return a.name < b.name
  end)
  local lines, current = {}, nil
  for _, e in ipairs(entries) do
    if e.dir == "" or e.dir == "." then
      lines[#lines + 1] = "- " .. e.name
      current = nil
    else
      local dir = e.dir .. "/"
      if dir ~= current then
        lines[#lines + 1] = "- " .. dir
        current = dir
      end
      if e.name ~= "" then lines[#lines + 1] = "  - " .. e.name end
    end
  end
  return "(Only file paths, not their content)\n\n" .. table.concat(lines, "\n")
end

-- The paths of `all` that the pinned globs list (`globs`, listed from `base`), in the order of `all`.
local function pinned_among(all, globs, base)
  if type(globs) ~= "table" or globs[1] == nil then return {} end
  local pinned = {}
  for _, path in ipairs(F.paths(F.list(globs, base))) do pinned[path] = true end
  local out = {}
  for _, path in ipairs(all) do
    if pinned[path] then out[#out + 1] = path end
  end
  return out
end

-- A section of files sent with their content, as upstream writes it: nothing when there is none, else all of
-- them, then (for information) those the `_pre` and `_post` globs brought.
local function sent_section(title, all, pre, post)
  if all[1] == nil then return "" end
  local text = "# " .. title .. "\n\n## All resolve files(sent to AI with content, in this order)\n\n" .. md_paths(all) .. "\n\n"
  if pre and pre[1] ~= nil then
    text = text .. "## Pre (just for info, included in the All resolved files above)\n\n" .. md_paths(pre) .. "\n\n"
  end
  if post and post[1] ~= nil then
    text = text .. "## Post (just for info, included in the All resolved files above)\n\n" .. md_paths(post) .. "\n\n"
  end
  return text
end

-- `# Explicit Code-map Selections`: per code map the prompt named, the files auto-context picked from it.
local function explicit_selections(params)
  local groups = U.nil_if_null(params and params.explicit_code_map_selections)
  if type(groups) ~= "table" or groups[1] == nil then return "" end
  local text = "# Explicit Code-map Selections\n\n"
  for _, g in ipairs(groups) do
    text = text .. "## " .. (g.category == "knowledge" and "Knowledge" or "Context") .. " Map: " .. tostring(g.map_path) .. "\n\n"
    local selected = U.nil_if_null(g.selected_files) or {}
    if selected[1] == nil then text = text .. "None\n" end
    for _, p in ipairs(selected) do text = text .. "- " .. p .. "\n" end
    text = text .. "\n"
  end
  return text
end

-- Appends the task's file lists to the report `last_prompt_file_paths.md`, in upstream's layout (aipack-ai/packs-pro
-- pro/coder/main.aip): one block per task, in completion order.
local function report_files(task, attachments, context, working, data_refs)
  local settings = task.settings
  local text = "\n====\nfile_content_mode: " .. tostring(settings.file_content_mode) .. "\n\n"
  if attachments then
    text = text .. "# Attachments\n"
    for _, att in ipairs(attachments) do text = text .. "\n- " .. tostring(att.file_source) end
    text = text .. "\n\n"
  end
  local knowledge = F.paths(task.files.knowledge)
  local context_paths = F.paths(context)
  text = text .. sent_section("Knowledge Files", knowledge,
    pinned_among(knowledge, settings.knowledge_globs_pre, nil), pinned_among(knowledge, settings.knowledge_globs_post, nil))
  text = text .. sent_section("Context Files", context_paths,
    pinned_among(context_paths, settings.context_globs_pre, settings.base_dir),
    pinned_among(context_paths, settings.context_globs_post, settings.base_dir))
  text = text .. explicit_selections(task.params)
  text = text .. sent_section("Workbench Data Files", F.paths(data_refs))
  text = text .. "# Working Files\n\n" .. md_paths(F.paths(working)) .. "\n\n"
  text = text .. "# Structure Files\n\n" .. md_nested(F.paths(task.files.structure)) .. "\n\n"
  aip.file.append(task.run.reports.files, text)
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
