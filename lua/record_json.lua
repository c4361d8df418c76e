-- The JSON text of one record line, written in Lua. A record holds every sub-agent input, and handing each one to
-- aip.json.stringify_to_line converts the whole table to host values first (one crossing per value), which cost
-- more than the run itself on a long pipeline. Written here, a line crosses once, as one string, when the stage
-- flushes its lines.
--
-- The text is what aip.json writes for the same value, as the record's readers parse it: a table whose keys are
-- exactly 1..n is a list (an empty table is `[]`), any other table an object with its keys sorted, the `null`
-- sentinel is null. What JSON cannot hold is named instead of failing the line: a string longer than the cap is
-- cut (ending with `[record: cut N bytes]`), a cycle or a table nested too deep becomes a note, a function a
-- `[record: function]` string; the paths of what was cut are returned (`$.input.coder_prompt`).

local M = {}

-- Tables nested deeper than this are replaced by a note (inputs are shallow; this only stops runaway values).
M.MAX_DEPTH = 40

local ESCAPES = { ['"'] = '\\"', ["\\"] = "\\\\", ["\n"] = "\\n", ["\r"] = "\\r", ["\t"] = "\\t" }
for byte = 0, 31 do
  local char = string.char(byte)
  if ESCAPES[char] == nil then ESCAPES[char] = string.format("\\u%04x", byte) end
end
ESCAPES[string.char(127)] = "\\u007f"

local function quote(s)
  if not s:find('[%c"\\]') then return '"' .. s .. '"' end
  return '"' .. s:gsub('[%c"\\]', ESCAPES) .. '"'
end

local HUGE = math.huge

local function number_text(v)
  if math.type(v) == "integer" then return tostring(v) end
  if v ~= v or v == HUGE or v == -HUGE then return "null" end
  local text = string.format("%.14g", v)
  if tonumber(text) ~= v then text = string.format("%.17g", v) end
  return text
end

local function key_text(k)
  local kind = type(k)
  if kind == "string" then return k end
  if kind == "number" then return number_text(k) end
  if kind == "boolean" then return tostring(k) end
  return "[record: " .. kind .. " key]"
end

--- The JSON text of `value` on one line, and the list of the paths cut (nil when nothing was cut).
-- `max_string`: the longest string kept whole.
function M.encode(value, max_string)
  local buf, n = {}, 0
  local keys_at = {}
  local seen = {}
  local cuts = nil

  local function path_to(depth)
    local parts = { "$" }
    for i = 1, depth do parts[#parts + 1] = "." .. key_text(keys_at[i]) end
    return table.concat(parts)
  end

  local function cut(depth)
    cuts = cuts or {}
    cuts[#cuts + 1] = path_to(depth)
  end

  local write
  write = function(v, depth)
    local kind = type(v)
    if kind == "string" then
      if #v > max_string then
        cut(depth)
        v = v:sub(1, max_string) .. "\n[record: cut " .. (#v - max_string) .. " bytes]"
      end
      n = n + 1
      buf[n] = quote(v)
    elseif kind == "number" then
      n = n + 1
      buf[n] = number_text(v)
    elseif kind == "boolean" then
      n = n + 1
      buf[n] = v and "true" or "false"
    elseif kind == "table" then
      if seen[v] or depth >= M.MAX_DEPTH then
        cut(depth)
        n = n + 1
        buf[n] = seen[v] and '"[record: cycle]"' or '"[record: too deep]"'
        return
      end
      seen[v] = true
      local count, max, list = 0, 0, true
      for k in next, v do
        count = count + 1
        if list then
          if math.type(k) == "integer" and k >= 1 then
            if k > max then max = k end
          else
            list = false
          end
        end
      end
      if count == 0 then
        n = n + 1
        buf[n] = "[]"
      elseif list and max == count then
        n = n + 1
        buf[n] = "["
        for i = 1, count do
          if i > 1 then
            n = n + 1
            buf[n] = ","
          end
          keys_at[depth + 1] = i
          write(rawget(v, i), depth + 1)
        end
        n = n + 1
        buf[n] = "]"
      else
        local keys, by_text = {}, {}
        for k in next, v do
          local text = key_text(k)
          -- 1 and "1" are one JSON key: the first one found is kept
          if by_text[text] == nil then
            keys[#keys + 1] = text
            by_text[text] = k
          end
        end
        table.sort(keys)
        n = n + 1
        buf[n] = "{"
        for i, text in ipairs(keys) do
          n = n + 1
          buf[n] = (i > 1 and "," or "") .. quote(text) .. ":"
          local k = by_text[text]
          keys_at[depth + 1] = k
          write(rawget(v, k), depth + 1)
        end
        n = n + 1
        buf[n] = "}"
      end
      seen[v] = nil
    elseif v == nil or v == null then
      n = n + 1
      buf[n] = "null"
    else
      n = n + 1
      buf[n] = '"[record: ' .. kind .. ']"'
    end
  end

  write(value, 0)
  return table.concat(buf), cuts
end

return M
