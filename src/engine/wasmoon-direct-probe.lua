-- The table the lua54 bridge converts both in place and through the C API when it loads
-- (wasmoon-direct-reader.ts): the two must agree, or every conversion goes through the API. It holds every kind
-- of value and key an entry can hold, an array part with a hole, a removed key, and string keys whose order in
-- the hash part shows in the result.
-- 2^53 + 1: an integer no double holds (made by a shift: this file only runs on Lua 5.4)
local big = (1 << 53) + 1
local t = { 1, 2.5, "short", string.rep("long", 20), true, false, nil, big, -big,
  math.maxinteger, math.mininteger, -0.0, 1e300, "\u{e9}\u{2713}", { nested = { 1, 2, 3 } }, "\xff\xfe" }
t.gone = 1
t.gone = nil
t[2.5] = "float key"
t[100] = "far"
t[-1] = "negative"
t[true] = "boolean key"
local record = {}
for i = 1, 40 do record["key" .. i] = i * 3 end
record.removed = 1
record.removed = nil
record.text = string.rep("x", 300)
return { mixed = t, record = record, list = { "a", "b", { "c", { d = "e" } } }, empty = {} }
