-- File changes in an AI answer: found, checked, then applied, in each file_content_mode.
--
-- Every change of an answer is checked (its paths: relative, inside base_dir, not in a protected place) before
-- any is applied, and one that cannot be applied is a failure of that file only: the other changes and the
-- answer itself are kept. Nothing here raises.

local F = require("utils_files")
local U = require("utils_common")

local M = {}

-- Attribute values of a tag's attribute text: { name = value } (double or single quotes).
local function attributes(text)
  local attrs = {}
  for name, value in (text or ""):gmatch('([%w_]+)%s*=%s*"([^"]*)"') do attrs[name] = value end
  for name, value in (text or ""):gmatch("([%w_]+)%s*=%s*'([^']*)'") do
    if attrs[name] == nil then attrs[name] = value end
  end
  return attrs
end

-- Text pieces joined by one blank line, so removed blocks leave no run of empty lines.
local function join_pieces(pieces)
  local kept = {}
  for _, piece in ipairs(pieces) do
    local trimmed = U.trim(piece)
    if trimmed ~= "" then kept[#kept + 1] = trimmed end
  end
  return table.concat(kept, "\n\n")
end

-- The content of the fenced block a change body is wrapped in (the body itself when it is not fenced).
local function fenced_content(body)
  local lines = U.lines(U.trim(body))
  local last = #lines
  if last >= 2 and lines[1]:match("^```") and lines[last]:match("^```+%s*$") then
    if last == 2 then return "" end
    return table.concat(lines, "\n", 2, last - 1) .. "\n"
  end
  return U.trim(body) .. "\n"
end

----------------------------------------------------------------------------------------------------------------
-- whole / search_replace_auto: <AIP_FILE_CHANGE file_path="..."> blocks

-- ({ {paths = {file_path}, body} }, the text pieces around them). An unclosed block stays in the text.
local function extract_file_change_tags(text)
  local changes, pieces = {}, {}
  local pos = 1
  while true do
    local open_from, open_to, attrs = text:find("<AIP_FILE_CHANGE(%s[^>]*)>", pos)
    if not open_from then break end
    local close_from, close_to = text:find("</AIP_FILE_CHANGE>", open_to + 1, true)
    if not close_from then break end
    pieces[#pieces + 1] = text:sub(pos, open_from - 1)
    local file_path = attributes(attrs).file_path
    local body = text:sub(open_to + 1, close_from - 1)
    if file_path == nil or file_path == "" then
      pieces[#pieces + 1] = body -- no target: the text goes back to the user
    else
      changes[#changes + 1] = { kind = "AIP_FILE_CHANGE", paths = { file_path }, body = body }
    end
    pos = close_to + 1
  end
  pieces[#pieces + 1] = text:sub(pos)
  return changes, join_pieces(pieces)
end

local function has_edit_blocks(content)
  return ("\n" .. content):find("\n<<<<<<< SEARCH\r?\n") ~= nil
end

-- Writes one file: (changed, failure reason | nil). save_changes may apply part of the blocks.
local function write_tag_change(target, content, mode)
  if mode == "whole" then
    aip.file.save(target, content)
    return true, nil
  end
  -- On a missing file, save_changes would write the markers themselves into a new file.
  if has_edit_blocks(content) and not aip.path.exists(target) then
    return false, "the file does not exist, so its SEARCH/REPLACE edits cannot be applied"
  end
  local _, info = aip.file.save_changes(target, content)
  local failed = type(info) == "table" and U.nil_if_null(info.failed_changes) or nil
  if type(failed) ~= "table" or failed[1] == nil then return true, nil end
  local changed = type(info.changed_count) == "number" and info.changed_count > 0
  return changed, U.nil_if_null(failed[1].reason) or "some changes could not be applied"
end

----------------------------------------------------------------------------------------------------------------
-- udiffx: one <FILE_CHANGES> block of FILE_NEW / FILE_PATCH / FILE_APPEND / FILE_COPY / FILE_RENAME / FILE_DELETE
-- directives, applied by AIPack's aip.udiffx in one call

-- The paths each directive names, by kind (FILE_APPEND and FILE_COPY came later upstream; AIPack's udiffx
-- decides whether it knows them, the paths are checked all the same).
local DIRECTIVE_PATHS = {
  FILE_NEW = { "file_path" },
  FILE_PATCH = { "file_path" },
  FILE_APPEND = { "file_path" },
  FILE_DELETE = { "file_path" },
  FILE_RENAME = { "from_path", "to_path" },
  FILE_COPY = { "from_path", "to_path" },
}

-- The directives inside a FILE_CHANGES block: { {kind, paths, raw} } | nil, problem. raw is the directive's text.
local function parse_directives(block)
  local directives = {}
  local pos = 1
  while true do
    local from, to, name, attrs, self_close = block:find("<(FILE_[%u_]+)([^>]-)(/?)>", pos)
    if not from then break end
    local raw
    if self_close == "/" then
      raw = block:sub(from, to)
      pos = to + 1
    else
      local close_from, close_to = block:find("</" .. name .. ">", to + 1, true)
      if not close_from then
        directives[#directives + 1] = { kind = name, paths = {}, problem = "<" .. name .. "> is not closed", attrs = attributes(attrs) }
        break
      end
      raw = block:sub(from, close_to)
      pos = close_to + 1
    end
    local attr_values = attributes(attrs)
    local directive = { kind = name, raw = raw, paths = {} }
    local keys = DIRECTIVE_PATHS[name]
    if keys == nil then
      directive.problem = "unknown directive <" .. name .. ">"
      directive.paths = { attr_values.file_path or attr_values.from_path or name }
    else
      for _, key in ipairs(keys) do
        if attr_values[key] == nil or attr_values[key] == "" then
          directive.problem = "<" .. name .. "> has no " .. key
        end
        directive.paths[#directive.paths + 1] = attr_values[key] or ""
      end
    end
    directives[#directives + 1] = directive
  end
  return directives
end

-- ({ directives }, text without the block, problem | nil). Only the first FILE_CHANGES block is read, as
-- AIPack's udiffx does.
local function extract_file_changes_block(text)
  local open_from, open_to = text:find("<FILE_CHANGES>", 1, true)
  if not open_from then return {}, text end
  local close_from, close_to = text:find("</FILE_CHANGES>", open_to + 1, true)
  if not close_from then
    return {}, text, "the <FILE_CHANGES> block is not closed (the answer may have been cut off): no change was applied"
  end
  local directives = parse_directives(text:sub(open_to + 1, close_from - 1))
  return directives, join_pieces({ text:sub(1, open_from - 1), text:sub(close_to + 1) })
end

-- The text of a failed udiffx item: its message, then each failed hunk with its cause.
local function item_reason(item)
  local reason = U.nil_if_null(item.error_msg) or "Unknown error"
  local hunks = U.nil_if_null(item.error_hunks)
  if type(hunks) == "table" then
    for i, hunk in ipairs(hunks) do
      reason = reason .. "\n\nHunk " .. i .. " failed: " .. tostring(U.nil_if_null(hunk.cause) or "unknown cause")
        .. "\n" .. U.trim_end(tostring(U.nil_if_null(hunk.hunk_body) or ""))
    end
  end
  return reason
end

-- Applies the accepted directives with one call to AIPack's udiffx, as upstream pro@coder does:
-- { {changed, reason | nil} } in the order of `accepted`. Items are matched to directives by path, in order, so a
-- directive this AIPack's udiffx does not know (no item) is reported instead of shifting the others.
local function apply_udiffx(accepted, base_dir)
  local results = {}
  local function all_fail(reason)
    for i = 1, #accepted do results[i] = { false, reason } end
    return results
  end
  if accepted[1] == nil then return results end
  if not (aip.udiffx and aip.udiffx.apply_file_changes) then
    return all_fail("aip.udiffx.apply_file_changes is not available in this AIPack (it came with 0.8.12)")
  end
  local raws = {}
  for i, entry in ipairs(accepted) do raws[i] = entry.change.raw end
  local block = "<FILE_CHANGES>\n" .. table.concat(raws, "\n\n") .. "\n</FILE_CHANGES>"
  local dir = base_dir
  if dir == "" then dir = nil end
  local ok, status = pcall(aip.udiffx.apply_file_changes, block, dir)
  if not ok then return all_fail("aip.udiffx.apply_file_changes failed: " .. tostring(status)) end
  local items = type(status) == "table" and U.nil_if_null(status.items) or nil
  if type(items) ~= "table" then
    return all_fail(tostring(type(status) == "table" and U.nil_if_null(status.error) or "aip.udiffx returned no status"))
  end
  local used = {}
  for i, entry in ipairs(accepted) do
    local paths = entry.change.paths
    local expected = paths[#paths]
    local item
    for j, candidate in ipairs(items) do
      if not used[j] and type(candidate) == "table" and candidate.file_path == expected then
        used[j] = true
        item = candidate
        break
      end
    end
    if item == nil then
      results[i] = { false, "this AIPack's udiffx did not apply <" .. entry.change.kind .. "> (no status for it)" }
    elseif item.success == true then
      results[i] = { true, nil }
    else
      -- the third value is AIPack's own status item: upstream hands it on as it is (error_msg, error_hunks). A
      -- patch that failed part-way keeps the hunks that fitted, as AIPack's udiffx wrote them.
      results[i] = { false, item_reason(item), item }
    end
  end
  return results
end

----------------------------------------------------------------------------------------------------------------
-- The whole answer

-- The changes of an answer: (changes, answer text without them, block problem | nil).
local function extract(content, mode)
  if mode == "udiffx" then return extract_file_changes_block(content) end
  local changes, answer = extract_file_change_tags(content)
  return changes, answer, nil
end

-- Checks a change's paths: (targets, nil) | (nil, { path, reason }).
local function check_change(change, base_dir)
  local targets = {}
  for i, file_path in ipairs(change.paths) do
    local dest = F.answer_target(base_dir, file_path)
    if dest.reason then return nil, { path = dest.path, reason = dest.reason } end
    targets[i] = dest
  end
  if change.problem then return nil, { path = targets[1] and targets[1].path or change.kind, reason = change.problem } end
  return targets, nil
end

local function apply_one(change, targets, settings)
  return write_tag_change(targets[1].target, fenced_content(change.body), settings.file_content_mode)
end

-- The kind names of upstream's file_changes_status items (udiffx's), by directive.
local STATUS_KINDS = {
  FILE_NEW = "New", FILE_PATCH = "Patch", FILE_APPEND = "Append", FILE_RENAME = "Rename",
  FILE_DELETE = "Delete", FILE_COPY = "Copy", AIP_FILE_CHANGE = "Patch",
}

--- The answer as `apply` leaves it (`answer`): without its change blocks when write_mode is on, else as given.
function M.answer_text(content, settings)
  if not settings.write_mode then return content end
  local _, answer = extract(content, settings.file_content_mode)
  return answer
end

--- Applies the file changes of an answer when write_mode is on:
-- { answer = text without the change blocks, files_changed, files_failed, failures = { {path, reason} } }.
-- Paths are relative to the workspace (base_dir joined). A rename reports its new path as changed.
function M.apply(content, settings)
  local applied = {
    answer = content, files_changed = {}, files_failed = {}, failures = {}, status_items = {}, failed_changes = {},
  }
  if not settings.write_mode then return applied end
  local changes, answer, problem = extract(content, settings.file_content_mode)
  applied.answer = answer
  local function fail(path, reason, change)
    applied.files_failed[#applied.files_failed + 1] = path
    -- a FILE_PATCH whose hunks did not apply keeps its text, for auto-fix
    applied.failures[#applied.failures + 1] = { path = path, reason = reason, directive = change and change.raw or nil }
  end
  if problem then fail("<FILE_CHANGES>", problem) end

  -- every change is checked before the first one is applied
  local checked, accepted = {}, {}
  for i, change in ipairs(changes) do
    local targets, failure = check_change(change, settings.base_dir)
    checked[i] = { change = change, targets = targets, failure = failure }
    if not failure then accepted[#accepted + 1] = checked[i] end
  end
  local udiffx_results
  if settings.file_content_mode == "udiffx" then
    local ok, results = pcall(apply_udiffx, accepted, settings.base_dir)
    if not ok then
      local err = tostring(results)
      results = {}
      for i = 1, #accepted do results[i] = { false, "applying the changes failed: " .. err } end
    end
    udiffx_results = results
  end
  -- one status item per change, in upstream's file_changes_status shape (paths as the answer wrote them). A
  -- change AIPack's udiffx failed keeps AIPack's message and hunks (`error_hunks`: { hunk_body, cause }), as
  -- upstream hands them on; a change the pack refused before applying has its reason as message.
  local function status(change, success, reason, item)
    local paths = change.paths or {}
    local entry = {
      file_path = paths[#paths] or change.kind,
      kind = STATUS_KINDS[change.kind] or "Patch",
      success = success,
    }
    if not success then
      entry.error_msg = (item and U.nil_if_null(item.error_msg)) or reason
      entry.error_hunks = item and U.nil_if_null(item.error_hunks) or nil
    end
    applied.status_items[#applied.status_items + 1] = entry
  end
  -- upstream's `files_changes_failed` item of a failed change
  local function failed_change(path, entry, item)
    local hunks = entry.error_hunks
    local msg = entry.error_msg or "Unknown error"
    applied.failed_changes[#applied.failed_changes + 1] = {
      path = path,
      error_msg = msg,
      error_hunks = hunks,
      total_count = (item and tonumber(U.nil_if_null(item.total_count))) or (type(hunks) == "table" and #hunks or 0),
      kind = entry.kind,
      changes_info = { failed_changes = { { reason = msg, search = "UDIFFX Block failed: " .. msg } } },
    }
  end
  local n = 0
  for _, item in ipairs(checked) do
    if item.failure then
      fail(item.failure.path, item.failure.reason)
      status(item.change, false, item.failure.reason)
      failed_change(item.failure.path, applied.status_items[#applied.status_items])
    else
      n = n + 1
      local path = item.targets[#item.targets].path
      local ok, changed, reason, udiffx_item
      if udiffx_results then
        ok, changed, reason, udiffx_item = true, udiffx_results[n][1], udiffx_results[n][2], udiffx_results[n][3]
      else
        ok, changed, reason = pcall(apply_one, item.change, item.targets, settings)
      end
      if not ok then
        changed, reason = false, tostring(changed)
      end
      if changed then applied.files_changed[#applied.files_changed + 1] = path end
      status(item.change, reason == nil, reason, udiffx_item)
      if reason then
        failed_change(path, applied.status_items[#applied.status_items], udiffx_item)
        if item.change.kind ~= "AIP_FILE_CHANGE" then reason = item.change.kind .. ": " .. reason end
        local hunks_failed = udiffx_results and item.change.kind == "FILE_PATCH" and ok
        fail(path, reason, hunks_failed and item.change or nil)
      end
    end
  end
  return applied
end

--- The answer as upstream hands it to post sub-agents (`content_extruded`): in udiffx mode with write_mode on, the
-- text around its first <FILE_CHANGES> block as it is (AIPack's `extrude = "content"`), without leading
-- whitespace; otherwise the answer `apply` left.
function M.extruded(content, settings, answer)
  local text = content or ""
  if settings.write_mode and settings.file_content_mode == "udiffx" then
    local open_from, open_to = text:find("<FILE_CHANGES>", 1, true)
    local close_from, close_to
    if open_from then close_from, close_to = text:find("</FILE_CHANGES>", open_to + 1, true) end
    if close_from then text = text:sub(1, open_from - 1) .. text:sub(close_to + 1) end
    return (text:gsub("^%s+", ""))
  end
  return (tostring(answer or text):gsub("^%s+", ""))
end

--- The directives of an answer's <FILE_CHANGES> block: ({ {kind, paths, raw, problem?} }, text without the block,
-- problem | nil), as apply reads them.
function M.udiffx_directives(content)
  return extract_file_changes_block(content or "")
end

--- A workspace-relative path of a path an answer names (nil when it is not acceptable).
function M.target_path(base_dir, file_path)
  local dest = F.answer_target(base_dir, file_path)
  if dest.reason then return nil end
  return dest.path
end

return M
