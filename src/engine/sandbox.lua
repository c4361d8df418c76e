-- The sandbox: run in every fresh state after the libraries are opened, on both engines (sandboxed-state.ts
-- installs it). The chunk's arguments are the limits of src/engine/limits.ts and sandbox.ts (SANDBOX_ARGS):
-- FROM (CHARGE_FROM_BYTES: sizes from which a library call is charged), PER (BYTES_PER_INSTRUCTION) and MAX_REP
-- (MAX_REP_BYTES: the largest string string.rep builds). `__sandbox` holds the host side: `charge(n)` (adds work to
-- the budget), `limit_hit()` (the message once a limit of the run tree is hit), `allow_hooks()` (fengari: re-enables
-- hooks after a yieldable pcall; a no-op elsewhere).
--
-- - load(): text chunks only; binary chunks can corrupt the VM. A mode without "t" loads nothing, and an env
--   passed explicitly, even nil, is kept.
-- - xpcall(): the message handler of an error raised by the budget hook would run with hooks off; once a limit is
--   hit the handler is skipped and the limit's message returned, so a handler loop cannot dodge the budget.
-- - Library calls doing work proportional to a big string are charged by size (one instruction per PER bytes),
--   and string.rep is refused past MAX_REP. Locals keep the library's names so that argument errors still name
--   the function.
local host = __sandbox
__sandbox = nil
local charge, limit_hit, allow_hooks = host.charge, host.limit_hit, host.allow_hooks
local type, select, error = type, select, error
local find = string.find
local FROM, PER, MAX_REP = ...
local function pass(...) return ... end
-- A C function raises at the position of its caller; called from a wrapper below, that is a line of this chunk.
-- guard(f, name) puts f behind a host C function that raises f's library errors again at its own caller, with
-- that call's argument numbers and name, as when user code calls the library directly ("f.aip:5: bad argument #2
-- to 'format'"), tail calls included; other errors (a gsub callback's, a limit's) pass unchanged. name: the
-- function's name in the loaded tables, for calls that give none (from pcall).
local hostguard = host.guard
local function guard(f, name, direct) return hostguard(f, name or "?", direct) end
local function cost(s)
  if type(s) == "string" and #s > FROM then charge(#s // PER) end
end
local tonumber = tonumber
-- charges the elements i..j of t (numbers or numeric strings, as the library coerces them) when there are many:
-- an element a C loop moves costs the engine ELEMENT instructions' time, and METHOD times that when the table
-- has a metatable (its __index/__newindex may be C functions, called per element with no instruction counted)
local ELEMENT, METHOD = host.element_cost, 8
-- a table whose elements the library reaches raw: no metatable, or one without __index, __newindex and __len
-- (lua_geti, lua_seti and luaL_len consult only those)
local rawmeta, rawget = host.rawmeta, rawget
local function plain(t)
  if type(t) ~= "table" then return false end
  local mt = rawmeta(t)
  return mt == nil or (rawget(mt, "__index") == nil and rawget(mt, "__newindex") == nil and rawget(mt, "__len") == nil)
end
-- the integer the library's luaL_checkinteger takes x for (numeric strings included), or nil when it raises
local mtointeger, MAXI = math.tointeger, math.maxinteger
local function int(x)
  if type(x) == "string" then x = tonumber(x) end
  if type(x) == "number" then return mtointeger(x) end
end
-- string.byte and utf8.codepoint push a value per byte (or character) of the slice s[i..j], in one call: charged
-- ahead by its size, as the library reads the positions (negative ones from the end; clipped, or refused when
-- `strict`, as utf8.codepoint refuses them). A slice Lua cannot return (over LUAI_MAXSTACK values) fails as in
-- Lua, uncharged; so does a call Lua refuses its arguments.
local MAXSTACK = 1000000
local function slice(strict, s, i, j)
  if type(s) == "number" then s = tostring(s) end
  if type(s) ~= "string" then return end
  local l, a = #s, 1
  if i ~= nil then a = int(i) end
  if not a then return end
  local b = a
  if j ~= nil then b = int(j) end
  if not b then return end
  a, b = a + 0.0, b + 0.0
  if a < 0 then a = -a > l and 0 or l + a + 1 end
  if b < 0 then b = -b > l and 0 or l + b + 1 end
  if strict and (a < 1 or b > l) then return end
  if a < 1 then a = 1 end
  if b > l then b = l end
  local n = b - a + 1
  if n > FROM and n < MAXSTACK then charge(n * ELEMENT) end
end
-- A call's results, once it has returned, after charging the bytes it walked in one call (its own errors come first).
local function walked(bytes, ...)
  if bytes > FROM then charge(bytes // PER) end
  return ...
end
local function span(t, i, j, t2)
  local a, b = tonumber(i), tonumber(j)
  -- floats: b - a of two integers may wrap
  if a and b and b + 0.0 - a >= FROM then
    charge((b - a + 1.0) * ELEMENT * ((plain(t) and (t2 == nil or plain(t2))) and 1 or METHOD))
  end
end
-- A table whose metatable has __len: the library reads its length once, calling __len, which a script can see; a
-- charge must not call it again. A plain table's length is its raw length.
local rawlen = rawlen
-- luaL_len: #t, once, as an integer
local function getn(t)
  local n = int(#t)
  if not n then error("object length is not an integer") end
  return n
end
-- The calls on a table that is not plain run here in Lua, with the library's checks and reads in its order
-- (ltablib.c tconcat, tinsert, tremove, tmove): each element is then an instruction the hook counts, its
-- metamethods run as the library runs them (a length read once, a range that fails at its first element fails
-- there), and nothing is charged ahead.
local ult, concat0 = math.ult, table.concat
-- elements are charged in batches as the loops reach them, at the cost a C loop's element with metamethods has
-- (the hook sees only the loop's own instructions, not what a C __index or __newindex does)
local BATCH = 1024
local function batch(i)
  if i % BATCH == 0 then charge(BATCH * ELEMENT * METHOD) end
end
local function inRange(pos, e)
  if host.dialect == "5.3" then return pos >= 1 and pos <= e end
  return ult(pos - 1, e)
end
local function concatCounted(list, sep, a, b)
  local last, out, k = getn(list), {}, 0
  if b ~= nil then last = b end
  for i = a, last do
    batch(i - a + 1)
    local v = list[i]
    local tv = type(v)
    if tv ~= "string" and tv ~= "number" then
      error("invalid value (" .. tv .. ") at index " .. i .. " in table for 'concat'")
    end
    k = k + 1
    out[k] = v
  end
  local r = concat0(out, sep or "")
  if #r > FROM then charge(#r // PER) end
  return r
end
local function insertCounted(list, pos, v)
  local e = getn(list) + 1
  if not inRange(pos, e) then error("bad argument #2 to 'insert' (position out of bounds)") end
  for i = e, pos + 1, -1 do
    batch(e - i + 1)
    list[i] = list[i - 1]
  end
  list[pos] = v
end
local function moveCounted(a1, f, e, t, a2)
  local tt = a2 == nil and a1 or a2
  if t > e or t <= f or (a2 ~= nil and not (a1 == a2)) then
    for i = 0, e - f do
      batch(i + 1)
      tt[t + i] = a1[f + i]
    end
  else
    for i = e - f, 0, -1 do
      batch(e - f - i + 1)
      tt[t + i] = a1[f + i]
    end
  end
  return tt
end
local function removeCounted(list, pos)
  local size = getn(list)
  if pos ~= size and not (inRange(pos, size) or pos - 1 == size) then
    error("bad argument #1 to 'remove' (position out of bounds)")
  end
  local r = list[pos]
  local moved = 0
  while pos < size do
    moved = moved + 1
    batch(moved)
    list[pos] = list[pos + 1]
    pos = pos + 1
  end
  list[pos] = nil
  return r
end
do
  local load = load
  -- the refusal names the mode the caller gave, as Lua's own does ("attempt to load a text chunk (mode is 'b')")
  local function named(mode, m, f, e)
    if f == nil and m == "" and type(e) == "string" then
      local at = find(e, "(mode is '')", 1, true)
      if at then e = e:sub(1, at - 1) .. "(mode is '" .. mode .. "')" .. e:sub(at + 12) end
    end
    return f, e
  end
  -- compiling is work by the bytes of the chunk, done in one call (a reader's pieces are charged as they come;
  -- the reader is called from pcall, a C function as load is, and its error returned as load returns it)
  local rawpcall, COMPILE = pcall, ELEMENT / 4
  local function compiled(chunk)
    if type(chunk) == "string" then
      if #chunk > FROM then charge(#chunk * COMPILE) end
      return chunk
    end
    if type(chunk) ~= "function" then return chunk end
    local bytes = 0
    return function()
      local ok, piece = rawpcall(chunk)
      if not ok then error(piece, 0) end
      if type(piece) == "string" then
        bytes = bytes + #piece
        if bytes > FROM then
          charge(bytes * COMPILE)
          bytes = 0
        end
      end
      return piece
    end
  end
  _G.load = function(chunk, name, mode, ...)
    chunk = compiled(chunk)
    local m = "t"
    if mode ~= nil and type(mode) == "string" and not find(mode, "t", 1, true) then m = "" end
    if select("#", ...) == 0 then return named(mode, m, load(chunk, name, m)) end
    return named(mode, m, load(chunk, name, m, (...)))
  end
end
do
  local pcall, xpcall = pcall, xpcall
  -- a limit hit inside (this state's or a nested run's) is not swallowed
  local function done(...)
    allow_hooks()
    local hit = limit_hit()
    if hit then error(hit, 0) end
    return ...
  end
  _G.pcall = function(...) return done(pcall(...)) end
  _G.xpcall = function(f, handler, ...)
    local guarded = handler
    if type(handler) == "function" then
      guarded = function(...)
        local hit = limit_hit()
        if hit then return hit end
        allow_hooks()
        return handler(...)
      end
    end
    return done(xpcall(f, guarded, ...))
  end
end
do
  -- a resume costs far more than an instruction (fengari: ~5-8 microseconds), so yield loops are charged per switch
  local resume, wrap, SWITCH = coroutine.resume, coroutine.wrap, 250
  -- guarded, as the library functions below: an argument error names the caller's line, not this chunk's
  coroutine.resume = guard(function(co, ...)
    charge(SWITCH)
    return pass(resume(co, ...))
  end, "coroutine.resume")
  coroutine.wrap = guard(function(f)
    local co = wrap(f)
    -- guarded: the coroutine's error is placed at the caller, not at this line
    return guard(function(...)
      charge(SWITCH)
      return co(...)
    end)
  end, "coroutine.wrap")
end
do
  local upper, lower, reverse, rep, format = string.upper, string.lower, string.reverse, string.rep, string.format
  local find, match, gmatch, gsub = string.find, string.match, string.gmatch, string.gsub
  local concat = table.concat
  -- The wrappers pass their arguments on as "...": a missing argument stays missing ("got no value", not "got nil").
  string.upper = guard(function(...) cost((...)) return pass(upper(...)) end, "string.upper")
  string.lower = guard(function(...) cost((...)) return pass(lower(...)) end, "string.lower")
  string.reverse = guard(function(...) cost((...)) return pass(reverse(...)) end, "string.reverse")
  -- Pattern calls whose worst case is large run on the step-counting matcher of pattern.ts (host.pfind, pscan,
  -- pgsub, pplain), which charges the budget as it goes; the engine's matcher runs all others.
  local pfind, pscan, pgsub, pplain = host.pfind, host.pscan, host.pgsub, host.pplain
  local ROUTE, V53 = host.route_steps, host.dialect == "5.3"
  local mtype, byte, sub, tointeger = math.type, string.byte, string.sub, math.tointeger
  -- WebAssembly's size_t is 32 bits: C would wrap a position past 2^32 round to a small one. Every position past
  -- the end reads as end + 2 does (start and end alike), so such a position is passed on as that (5.4 only:
  -- fengari's integers are 32-bit and refuse those values themselves).
  local function clamp(x, n)
    local k = x
    if type(k) == "string" then k = tonumber(k) end
    k = type(k) == "number" and tointeger(k)
    if k and k > n + 1 then return n + 2 end
    return x
  end
  local function length(s)
    if type(s) == "string" then return #s end
    if type(s) == "number" then return #tostring(s) end
  end
  local tunpack = table.unpack
  -- f(...) with the arguments at pa (and pb) clamped to the length of the subject at sa
  local function positioned(f, sa, pa, pb)
    return function(...)
      local nargs = select("#", ...)
      if V53 or nargs < pa then return f(...) end
      local x = { ... }
      local n = length(x[sa])
      if not n then return f(...) end
      x[pa] = clamp(x[pa], n)
      if pb and nargs >= pb then x[pb] = clamp(x[pb], n) end
      return f(tunpack(x, 1, nargs))
    end
  end
  local SPECIALS = "[%^%$%*%+%?%.%(%[%%%-]"
  -- worst-case steps of backtracking over n bytes: k quantifiers (and %b, and the scan over start positions)
  -- share out the n positions in C(n + k, k) ways, each walked over the m bytes of the pattern (counting each
  -- '-' as a quantifier overestimates, which only costs speed). Floats: fengari's integers are 32-bit.
  local function ways(n, k, m)
    local c = m + 0.0
    for i = 1, k do
      c = c * (n + i) / i
      if c > ROUTE then return c end
    end
    return c
  end
  -- whether the byte at e is escaped by an odd run of '%' before it
  local function escaped(p, e)
    local k = e - 1
    while k > 0 and byte(p, k) == 37 do k = k - 1 end
    return (e - 1 - k) % 2 == 1
  end
  -- 1 when the pattern's last item (before closing captures) is a quantifier: nothing after it can fail, so it is
  -- expanded once and never backtracked into ("%a+", "(%s*)"), and it does not multiply the worst case
  local function trailing(p)
    local e = #p
    while e > 0 and byte(p, e) == 41 and not escaped(p, e) do e = e - 1 end
    local c = byte(p, e)
    if e > 1 and (c == 42 or c == 43 or c == 45 or c == 63) and not escaped(p, e) then return 1 end
    return 0
  end
  -- quantifiers per pattern, cached: patterns are mostly constants, and counting costs more than a short match
  local counted, ncounted = {}, 0
  host.private(counted)
  local function heavy(n, p, scans)
    local q = counted[p]
    if not q then
      local _, a = gsub(p, "[%*%+%-%?]", "")
      local _, b = gsub(p, "%%b", "")
      q = a + b - trailing(p)
      if ncounted >= 256 then counted, ncounted = {}, 0 end
      counted[p], ncounted = q, ncounted + 1
    end
    return ways(n, q + (scans and 1 or 0), #p + 1) > ROUTE
  end
  -- the start position both engines derive from init
  local function start(init, n)
    if init == nil or init > n then return init or 1 end
    if init > 0 then return init end
    if init == 0 or init < -n then return 1 end -- not -init > n: -math.mininteger overflows
    return n + init + 1
  end
  -- find/match arguments the router may take: #s and the start, when s and p are strings, init an integer or
  -- absent, and the start inside s or just past it
  local function routable(s, p, init)
    if type(s) == "string" and type(p) == "string" and (init == nil or mtype(init) == "integer") then
      local n = #s
      local i = start(init, n)
      if i <= n + 1 then return n, i end
    end
  end
  local cfind, cmatch, cgmatch = positioned(find, 1, 3), positioned(match, 1, 3), positioned(gmatch, 1, 3)
  string.find = guard(function(...)
    local s, p, init, plain = ...
    cost(s)
    local n, i = routable(s, p, init)
    if n then
      if plain or not find(p, SPECIALS) then
        if (n - i + 2.0) * #p > ROUTE then return pplain(s, p, i) end -- a float: fengari's integers are 32-bit
      elseif heavy(n - i + 1, p, byte(p) ~= 94) then
        return pfind(s, p, i, true)
      end
    end
    return cfind(...)
  end, "string.find")
  string.match = guard(function(...)
    local s, p, init = ...
    cost(s)
    local n, i = routable(s, p, init)
    if n and heavy(n - i + 1, p, byte(p) ~= 94) then return pfind(s, p, i, false) end
    return cmatch(...)
  end, "string.match")
  string.gmatch = guard(function(...)
    local s, p, init = ...
    cost(s)
    if type(s) == "string" and type(p) == "string" and (V53 or init == nil or mtype(init) == "integer") and heavy(#s, p, true) then
      local n = #s
      local src, last = 0, nil
      if not V53 then src = start(clamp(init, n), n) - 1 end
      if src > n then src = n + 1 end
      local function took(i, j, ...)
        if i == nil then return end
        src, last = j, j
        return ...
      end
      return guard(function() return took(pscan(s, p, src, last, false)) end)
    end
    return cgmatch(...)
  end, "string.gmatch")
  local function gsubCalling(s, p, repl, max, tr)
    local anchor = byte(p) == 94
    local out, k, n, src, last = {}, 0, 0, 0, nil
    local function value(i, j, ...)
      if i == nil then return nil end
      if tr == "function" then return i, j, (repl(...)) end
      return i, j, repl[(...)]
    end
    while n < max do
      local i, j, v = value(pscan(s, p, src, last, anchor, tr == "table"))
      if i == nil then break end
      n = n + 1
      if not v then
        v = sub(s, i + 1, j)
      elseif type(v) ~= "string" and type(v) ~= "number" then
        error("invalid replacement value (a " .. type(v) .. ")")
      end
      out[k + 1], out[k + 2] = sub(s, src + 1, i), v
      k = k + 2
      src, last = j, j
      if anchor then break end
    end
    out[k + 1] = sub(s, src + 1)
    return concat(out), n
  end
  string.gsub = guard(function(...)
    local s, p, repl, max = ...
    cost(s)
    local r, n
    -- a string replacement that could build a huge result (each of #s + 1 matches adding #repl bytes, each
    -- capture in it at most the subject again) runs on the step-counting matcher too, which caps the result
    local tr = type(repl)
    if type(s) == "string" and type(p) == "string" and (max == nil or mtype(max) == "integer")
      and (heavy(#s, p, byte(p) ~= 94) or tr == "string" and #s + (#s + 1.0) * #repl + #s * select(2, gsub(repl, "%%", "")) > MAX_REP) then
      if tr == "string" then
        r, n = pgsub(s, p, repl, max or #s + 1)
      elseif tr == "function" or tr == "table" then
        r, n = gsubCalling(s, p, repl, max or #s + 1, tr)
      end
    end
    if r == nil then r, n = gsub(...) end
    cost(r)
    return r, n
  end, "string.gsub")
  string.rep = guard(function(...)
    local s, n, sep = ...
    -- sized after the coercions rep itself makes (numbers as strings, numeric strings as counts)
    -- only when rep will not raise first (a count that is no integer, a separator that is no string)
    local text, count = s, int(n)
    if type(s) == "number" then text = tostring(s) end
    local between = type(sep) == "number" and tostring(sep) or sep
    if type(text) == "string" and count and count > 1 and (between == nil or type(between) == "string") then
      local total = #text * count + (type(between) == "string" and #between * (count - 1) or 0)
      if total > MAX_REP then
        error("resulting string too large (string.rep is limited to " .. MAX_REP .. " bytes in the simulator)")
      end
      -- the loop runs count - 1 times even when it copies nothing (an empty string and separator)
      local work = total
      if total == 0 then work = count + 0.0 end
      if work > FROM then charge(work // PER) end
    end
    return pass(rep(...))
  end, "string.rep")
  -- "%a" and "%q" of a subnormal float: glibc (AIPack on Linux) writes 0x0.<hex>p-1022, this build's libc
  -- normalizes it (0x1.<hex>p-10xx). Only a result holding such an exponent is formatted again, item by item.
  local SUBNORMAL = 2.2250738585072014e-308
  local function subnormal(x, upper)
    local digits = gsub(format("%013x", tointeger((x < 0 and -x or x) * 2^1022 * 2^52)), "0+$", "")
    local s = (x < 0 and "-" or "") .. "0x0." .. digits .. "p-1022"
    return upper and upper(s) or s
  end
  local function reformat(fmt, ...)
    local out, argi, i = {}, 1, 1
    while true do
      local p = find(fmt, "%", i, true)
      if not p then
        out[#out + 1] = sub(fmt, i)
        return concat(out)
      end
      out[#out + 1] = sub(fmt, i, p - 1)
      if sub(fmt, p + 1, p + 1) == "%" then
        out[#out + 1] = "%"
        i = p + 2
      else
        local spec = match(fmt, "^%%[-+ #0]*%d*%.?%d*%a", p)
        if not spec then return nil end
        local v = select(argi, ...)
        argi = argi + 1
        if (spec == "%a" or spec == "%A" or spec == "%q") and mtype(v) == "float" and v ~= 0 and v > -SUBNORMAL and v < SUBNORMAL then
          out[#out + 1] = subnormal(v, spec == "%A" and upper)
        else
          out[#out + 1] = format(spec, v)
        end
        i = p + #spec
      end
    end
  end
  string.format = guard(function(...)
    local r = format(...)
    if not V53 and find(r, "p%-10[2-7]%d") then r = reformat(...) or r end
    cost(r)
    return r
  end, "string.format")
  -- the simulator's own functions (print, the aip functions' Lua side) are native code in AIPack
  local dump, hosted = string.dump, host.hosted
  string.dump = guard(function(...)
    local f = ...
    if type(f) == "function" and hosted(f) then error("unable to dump given function") end
    return dump(...)
  end, "string.dump")
  -- table.concat's loop stops at the first element that is not a string: on a plain table a range is run in
  -- chunks, each charged before it runs, so a call that fails at index 1 of a huge range fails as in Lua instead
  -- of spending the budget on elements never read (the result is the same: the chunks joined with sep). A table
  -- with a metatable (its __len/__index may be C functions) is charged for its whole range first.
  local CHUNK = 2 * FROM
  table.concat = guard(function(...)
    local list, sep, i, j = ...
    if type(list) == "table" and (sep == nil or type(sep) == "string" or type(sep) == "number") then
      local a, b = i, j
      if a == nil then a = 1 else a = int(a) end
      if b ~= nil then b = int(b) end
      if a and (j == nil or b) and not plain(list) then return concatCounted(list, sep, a, b) end
      if j == nil then b = rawlen(list) end
      if a and b and b + 0.0 - a >= CHUNK and plain(list) then
        local parts, k = {}, 0
        while a <= b do
          local last = b + 0.0 - a >= CHUNK and a + CHUNK - 1 or b
          span(list, a, last)
          k = k + 1
          parts[k] = concat(list, sep or "", a, last)
          if last == b then break end
          a = last + 1
        end
        local r = concat(parts, sep or "")
        cost(r)
        return r
      elseif a and b then
        span(list, a, b)
      end
    end
    local r = concat(...)
    cost(r)
    return r
  end, "table.concat")
  if not V53 then
    -- positions past 2^32 (see clamp)
    string.sub = guard(positioned(sub, 1, 2, 3), "string.sub", sub)
    local pbyte = positioned(byte, 1, 2, 3)
    string.byte = guard(function(...)
      slice(false, ...)
      return pbyte(...)
    end, "string.byte", byte)
  else
    string.byte = guard(function(...)
      slice(false, ...)
      return byte(...)
    end, "string.byte")
  end
  do
    -- string.pack formats: the sizes of AIPack's 64-bit Lua ("l", "L", "T" and the length of "s" are 8 bytes; the
    -- WebAssembly build's and fengari's are 4). Digits after l/L/T are an error either way: left as they are.
    local pack, packsize, unpack = string.pack, string.packsize, string.unpack
    local WIDE = { l = "i8", L = "I8", T = "I8" }
    local function wide(fmt)
      if type(fmt) ~= "string" or not find(fmt, "[lLTs]") then return fmt end
      local out, n = {}, #fmt
      for i = 1, n do
        local c = sub(fmt, i, i)
        local after = byte(fmt, i + 1)
        local digit = after and after >= 48 and after <= 57
        if WIDE[c] and not digit then
          c = WIDE[c]
        elseif c == "s" and not digit then
          c = "s8"
        end
        out[i] = c
      end
      return concat(out)
    end
    local punpack = positioned(unpack, 2, 3)
    -- f(wide(fmt), ...), no argument when there was none
    local function formatted(f, name)
      return guard(function(...)
        if select("#", ...) == 0 then return f() end
        return f(wide((...)), select(2, ...))
      end, name)
    end
    string.pack = formatted(pack, "string.pack")
    string.packsize = formatted(packsize, "string.packsize")
    -- An "s" length takes 8 bytes here as in AIPack's Lua, but this build keeps only its low 32 bits: a length
    -- past 2^32 (more than any data string holds) is refused as Lua refuses it. Each one is read first, as the
    -- integer ("j") the format up to it would unpack next.
    local tpack, probe = table.pack, pcall
    local function lengths(fmt, ...)
      local at = 1
      while true do
        local i = find(fmt, "s8", at, true)
        if not i then return end
        local after = byte(fmt, i + 2)
        if byte(fmt, i - 1) ~= 88 and not (after and after >= 48 and after <= 57) then
          local r = tpack(probe(punpack, sub(fmt, 1, i - 1) .. "j", ...))
          local len = r[1] and r[r.n - 1]
          -- 2^32 as an integer: this branch runs on Lua 5.4 only (not V53), whose integers are 64-bit
          if mtype(len) == "integer" and (len < 0 or len >= 4294967296) then -- check:allow int-too-large
            error("bad argument #2 to 'unpack' (data string too short)")
          end
        end
        at = i + 2
      end
    end
    string.unpack = guard(function(...)
      if select("#", ...) == 0 then return unpack() end
      local fmt = wide((...))
      if not V53 and type(fmt) == "string" and find(fmt, "s8", 1, true) then lengths(fmt, select(2, ...)) end
      -- a value per item of the format at most, pushed in one call
      if type(fmt) == "string" and #fmt > FROM and type((select(2, ...))) == "string" then charge(#fmt * ELEMENT) end
      return punpack(fmt, select(2, ...))
    end, "string.unpack")
  end
end
do
  -- tonumber reads its whole string (luaO_str2num looks for "n" in it however it starts) and rawequal compares two
  -- long strings of one length byte by byte, in one call: charged by those bytes once the call has returned
  local tonumber0, rawequal0 = _G.tonumber, _G.rawequal
  _G.tonumber = guard(function(...)
    local s = ...
    return walked(type(s) == "string" and #s or 0, tonumber0(...))
  end, "tonumber")
  _G.rawequal = guard(function(...)
    local a, b = ...
    return walked(type(a) == "string" and type(b) == "string" and #a == #b and #a or 0, rawequal0(...))
  end, "rawequal")
end
do
  -- utf8.len walks its string and utf8.offset as many characters as it is asked, in one call; each is charged
  -- by the bytes it may pass once it has returned (its own errors come first). utf8.codepoint returns a value
  -- per character (slice).
  local len, offset, codepoint, abs = utf8.len, utf8.offset, utf8.codepoint, math.abs
  local function size(s) return type(s) == "string" and #s or 0 end
  utf8.len = guard(function(...) return walked(size((...)), len(...)) end, "utf8.len")
  utf8.offset = guard(function(...)
    local s, n = ...
    local k = int(n)
    local bytes = size(s)
    if k and abs(k + 0.0) < bytes then bytes = abs(k + 0.0) end
    return walked(bytes, offset(...))
  end, "utf8.offset")
  utf8.codepoint = guard(function(...)
    slice(true, ...)
    return codepoint(...)
  end, "utf8.codepoint")
end
do
  -- Table functions whose C loops run over a whole range in one instruction are charged by its size first.
  -- Each is charged only when its loop will run, after the checks the library makes first (ltablib.c), so that
  -- within the budget a call raises what Lua raises ("destination wrap around", "position out of bounds").
  local move, insert, remove, unpack = table.move, table.insert, table.remove, table.unpack
  -- a value the library's checktab may take for a table (a string's metatable has __index)
  local function tabish(t) return type(t) == "table" or type(t) == "string" end
  table.move = guard(function(...)
    local a1, f, e, t, a2 = ...
    f, e, t = int(f), int(e), int(t)
    if f and e and t and e >= f and tabish(a1) and (a2 == nil or tabish(a2))
      and (f > 0 or e < MAXI + f) and t <= MAXI - (e - f) then
      if type(a1) == "table" and (a2 == nil or type(a2) == "table") and not (plain(a1) and (a2 == nil or plain(a2))) then
        return moveCounted(a1, f, e, t, a2)
      end
      span(a1, f, e, a2)
    end
    return move(...)
  end, "table.move")
  -- insert and remove at a position shift the elements after it (#list: the length the library reads too)
  table.insert = guard(function(...)
    local list, pos = ...
    pos = int(pos)
    if select("#", ...) == 3 and type(list) == "table" and pos and pos >= 1 then
      if not plain(list) then return insertCounted(list, pos, (select(3, ...))) end
      local e = rawlen(list) + 1
      if pos <= e then span(list, pos, e) end
    end
    return insert(...)
  end, "table.insert")
  table.remove = guard(function(...)
    local list, pos = ...
    pos = int(pos)
    if select("#", ...) >= 2 and type(list) == "table" and pos and pos >= 1 then
      if not plain(list) then return removeCounted(list, pos) end
      local size = rawlen(list)
      if pos < size then span(list, pos, size) end
    end
    return pass(remove(...))
  end, "table.remove")
  local function counted(...)
    local n = select("#", ...)
    if n > FROM then charge(n * ELEMENT) end
    return ...
  end
  -- table.unpack pushes e - i + 1 values in one call. When the library's positions can be told before the call
  -- (an explicit end, or a list without __len, whose length reads the same raw), the count is charged ahead and the
  -- call is a tail call: its values are on the stack once. Passed through a counting function they needed twice
  -- the room, and about 500k values overflowed where Lua takes nearly 1M. A count Lua cannot return fails as in
  -- Lua, uncharged; a call whose length needs __len, or whose positions the library refuses, is counted after.
  table.unpack = guard(function(...)
    local list, i, e = ...
    local nargs = select("#", ...)
    if i == nil then i = 1 else i = int(i) end
    if nargs >= 3 and e ~= nil then
      e = int(e)
    elseif plain(list) then
      e = rawlen(list)
    else
      e = nil
    end
    if i == nil or e == nil then return counted(unpack(...)) end
    if e >= i then
      local n = e - i + 1
      if n > FROM and n < MAXSTACK then charge(n * ELEMENT) end
    end
    return unpack(...)
  end, "table.unpack")
  -- table.sort's loop (ltablib.c auxsort: n log n comparisons, each reading and writing elements) runs in one
  -- instruction. Every comparison therefore goes through a Lua function here, which the hook counts and which
  -- charges the C side's element work in batches (and the bytes `<` compares of two long strings). The library
  -- keeps its checks, its order and its results. `comp`, and `<` on values that are not two numbers or two
  -- strings, are called from pcall, a C function as the library is: an error has no position and a C function's
  -- argument error its global name, as when sort calls them; `<`'s own error ("attempt to compare ...") loses the
  -- position of this chunk's line. A `comp` that is no function reaches the library, which refuses it after
  -- reading the length, as it does.
  local sort, rawpcall, sub = table.sort, pcall, string.sub
  local function less(a, b) return a < b end
  local _, probe = rawpcall(less, {}, {})
  local HERE = sub(probe, 1, (find(probe, "attempt to compare", 1, true)) - 1)
  local function called(f, a, b)
    local ok, r = rawpcall(f, a, b)
    if ok then return r end
    if f == less and type(r) == "string" and sub(r, 1, #HERE) == HERE then error(sub(r, #HERE + 1), 0) end
    error(r, 0)
  end
  table.sort = guard(function(...)
    local list, comp = ...
    if select("#", ...) == 0 or (comp ~= nil and type(comp) ~= "function") then return sort(...) end
    -- a comparison reads two elements (and the partition writes some)
    local k, each = 0, 2 * ELEMENT * (plain(list) and 1 or METHOD)
    sort(list, function(a, b)
      k = k + 1
      if k == BATCH then
        k = 0
        charge(BATCH * each)
      end
      if comp ~= nil then return called(comp, a, b) end
      local ta, tb = type(a), type(b)
      if ta == "number" and tb == "number" then return a < b end
      if ta == "string" and tb == "string" then
        local n = #a
        if #b < n then n = #b end
        if n > FROM then charge(n // PER) end
        return a < b
      end
      return called(less, a, b)
    end)
  end, "table.sort")
end
if collectgarbage then
  -- The collector's mode and parameters are the state's, not the stage's: a change is noted so that the put-back
  -- sets them as a new state has them (state-put-back.ts resetCollector). lua54 only: fengari has no collector API.
  local collect, changed = collectgarbage, host.gc_changed
  local READS = { count = true, step = true, collect = true, isrunning = true }
  _G.collectgarbage = guard(function(...)
    local opt = ...
    if opt ~= nil and not READS[opt] then changed() end
    return pass(collect(...))
  end, "collectgarbage")
end
do
  -- Finalizers: Lua 5.4 runs __gc with hooks off, where no budget or deadline can stop a loop (fengari never runs
  -- them at all). A metatable that would mark its object for finalization is refused, loudly, on both engines.
  local setmetatable, rawget = setmetatable, rawget
  _G.setmetatable = guard(function(...)
    local _, mt = ...
    if type(mt) == "table" and rawget(mt, "__gc") ~= nil then
      error("__gc metamethods are not supported in the simulator's sandbox (finalizers run beyond its instruction budget)")
    end
    return setmetatable(...)
  end, "setmetatable")
end
