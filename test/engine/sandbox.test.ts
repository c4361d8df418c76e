/**
 * The sandbox's wrappers of the string library, of load and of table.unpack (sandbox.ts) give what Lua 5.4 on a 64-bit machine gives
 * (AIPack's Lua): start positions at the integer limits, positions past 2^32 (WebAssembly's size_t is 32 bits),
 * string.pack sizes, load's mode, string.dump of the simulator's own functions. Both engines run this file; the
 * 64-bit positions only apply to lua54 (fengari's integers are 32-bit). Expected values are native lua5.4's.
 */
import { describe, expect, it } from 'vitest';
import { MAX_REP_BYTES } from '../../src/engine/sandbox.ts';
import { ENGINE_NAME, onLua54, testEngine } from '../helpers/engine.ts';
import { runLua } from '../helpers/lua.ts';

function state(files: Record<string, Uint8Array> = {}, budget = 1e7) {
  return testEngine.createState({
    budget,
    budgetMessage: 'budget exhausted',
    moduleDirs: ['/w/lib'],
    readFile: (abs) => files[abs],
    loadRoots: ['/w'],
    baseDir: '/w',
    print: () => {},
    displayPath: (p) => p.replace('/w/', ''),
  });
}
const run = (code: string, files?: Record<string, Uint8Array>) => state(files).runChunk(code, '/w/t.lua', 1, {}, 'serde');
// a call's results (or its error) as one string: "ok|v1|v2" / "err|message"
const call = (expr: string) =>
  run(`local r = table.pack(pcall(function() return ${expr} end))
for i = 1, r.n do r[i] = tostring(r[i]) end
return table.concat(r, "|", 1, r.n)`);

describe(`sandbox table.unpack (${ENGINE_NAME})`, () => {
  it('returns as many values as Lua does (900k), calls __len once, and refuses what Lua refuses', () => {
    const code = `local t = {} for i = 1, 900000 do t[i] = i end
local n = select("#", table.unpack(t))
local calls = 0
local l = setmetatable({}, { __len = function() calls = calls + 1 return 3 end, __index = function(_, k) return k * 2 end })
local a, b, c = table.unpack(l)
local ok, err = pcall(table.unpack, {}, 1, 2000000)
local ok2, err2 = pcall(table.unpack, {}, "x")
return table.concat({ n, calls, a, b, c, tostring(ok), err, tostring(ok2), err2, select("#", table.unpack({ 1, 2, nil, 4 }, 2, 5)), select("#", table.unpack({}, 3, 1)) }, "|")`;
    // native lua5.4's output for the same chunk
    expect(state({}, 1e8).runChunk(code, '/w/t.lua', 1, {}, 'serde')).toBe("900000|1|2|4|6|false|too many results to unpack|false|bad argument #2 to 'table.unpack' (number expected, got string)|4|0");
  });
});

describe(`sandbox string wrappers (${ENGINE_NAME})`, () => {
  it('a start position of math.mininteger is the start of the subject (no overflow when negated)', () => {
    expect(call('string.find("---", "%S*x?", math.mininteger)')).toBe('true|1|3');
    expect(call('string.match("abc", "b.", math.mininteger)')).toBe('true|bc');
    // a long subject: the call takes the sandbox's own matcher
    expect(call('string.find(("a"):rep(200000) .. "b", "b", math.mininteger, true)')).toBe('true|200001|200001');
    expect(call('string.find(("a"):rep(200000) .. "b", "a*b", math.mininteger)')).toBe('true|1|200001');
  });

  it.runIf(onLua54)('positions past 2^32 read as positions past the end, not wrapped round', () => {
    expect(call('string.sub("hello", 2^32 + 2)')).toBe('true|');
    expect(call('string.sub("a", 2^53)')).toBe('true|');
    expect(call('string.sub("hello", 2, 2^32 + 3)')).toBe('true|ello');
    expect(call('string.sub("hello", "4294967298")')).toBe('true|');
    expect(call('string.byte("hello", 2^32 + 1)')).toBe('true');
    expect(call('string.byte("hello", 1, 2^32 + 1)')).toBe('true|104|101|108|108|111');
    expect(call('string.find("hello", "l", 2^32 + 3)')).toBe('true|nil');
    expect(call('string.find("hello", "l", 2^32 + 3, true)')).toBe('true|nil');
    expect(call('string.match("hello", ".", 2^32 + 2)')).toBe('true|nil');
    expect(call('select("#", string.gmatch("hello", ".", 2^32 + 1)())')).toBe('true|0');
    expect(call('string.unpack("b", "abc", 2^32 + 1)')).toBe("false|t.lua:1: bad argument #3 to 'unpack' (initial position out of string)");
    // in range, positions still work as they did
    expect(call('string.sub("hello", -3, -2) .. string.byte("hello", -1)')).toBe('true|ll111');
  });

  it.runIf(onLua54)('an "s" length past 2^32 in the data is refused (8-byte lengths, all 64 bits read)', () => {
    expect(call('string.unpack("<s", string.pack("<j", 2^33))')).toBe("false|t.lua:1: bad argument #2 to 'unpack' (data string too short)");
    expect(call('string.unpack("<s", string.pack("L", math.mininteger))')).toBe("false|t.lua:1: bad argument #2 to 'unpack' (data string too short)");
    expect(call('string.unpack("!8 b s", string.pack("!8 b s", 1, "hey"))')).toBe('true|1|hey|20');
  });

  it.runIf(onLua54)('"%a" and "%q" write a subnormal float as glibc does (0x0.<hex>p-1022)', () => {
    expect(call('string.format("%q|%a|%A|%a|%5.1f|%%|%s", 1e-310, -4.9e-324, 1e-310, 2^-1022, 1.25, "x")')).toBe(
      'true|0x0.012688b70e62bp-1022|-0x0.0000000000001p-1022|0X0.012688B70E62BP-1022|0x1p-1022|  1.2|%|x',
    );
  });

  it('string.pack sizes are those of 64-bit Lua: l, L, T and the length of s take 8 bytes', () => {
    expect(call('string.packsize("l"), string.packsize("L"), string.packsize("T")')).toBe('true|8|8|8');
    expect(call('#string.pack("s", "abc"), #string.pack("!l", 1), string.packsize("i4l"), string.packsize("!i4l")')).toBe('true|11|8|12|16');
    expect(call('string.unpack("<s", string.pack("<s", "abc"))')).toBe('true|abc|12');
    expect(call('string.unpack("<l", string.pack("<l", -2))')).toBe('true|-2|9');
    expect(call('string.unpack("<T", string.pack("<T", 7))')).toBe('true|7|9');
    // explicit sizes and the errors are untouched
    expect(call('#string.pack("s2", "abc"), string.packsize("i2")')).toBe('true|5|2');
    expect(call('string.packsize("s")')).toBe("false|t.lua:1: bad argument #1 to 'packsize' (variable-length format)");
    expect(call('string.packsize("l4")')).toBe("false|t.lua:1: invalid format option '4'");
  });

  it('load with a mode without "t" refuses a text chunk naming that mode', () => {
    expect(call('load("return 1", "n", "b")')).toBe("true|nil|attempt to load a text chunk (mode is 'b')");
    expect(call('load("return 1", "n", "t")()')).toBe('true|1');
  });

  it("string.dump of the simulator's own functions fails as for a C function; a script's function dumps", () => {
    expect(runLua('return { pcall(string.dump, print) }').value).toEqual([false, 'unable to dump given function']);
    expect(call('type(string.dump(function() return 1 end))')).toBe('true|string');
  });

  it('a missing argument is "no value", an explicit nil is "nil"', () => {
    expect(call('string.rep()')).toBe("false|t.lua:1: bad argument #1 to 'rep' (string expected, got no value)");
    expect(call('string.rep(nil)')).toBe("false|t.lua:1: bad argument #1 to 'rep' (string expected, got nil)");
    expect(call('string.sub("abc", nil)')).toBe("false|t.lua:1: bad argument #2 to 'sub' (number expected, got nil)");
    expect(call('string.sub("abc")')).toBe("false|t.lua:1: bad argument #2 to 'sub' (number expected, got no value)");
    expect(call('string.format()')).toBe("false|t.lua:1: bad argument #1 to 'format' (string expected, got no value)");
    expect(call('string.find("x")')).toBe("false|t.lua:1: bad argument #2 to 'find' (string expected, got no value)");
    expect(call('string.upper()')).toBe("false|t.lua:1: bad argument #1 to 'upper' (string expected, got no value)");
    expect(call('string.pack()')).toBe("false|t.lua:1: bad argument #1 to 'pack' (string expected, got no value)");
  });
});

describe(`source files are loaded as bytes (${ENGINE_NAME})`, () => {
  // "\xE1" and "\xFF" alone are not UTF-8: decoding the file as text would turn each into EF BF BD
  const files = {
    '/w/data.lua': Uint8Array.from([...Buffer.from('return "'), 0xe1, ...Buffer.from('", #"'), 0xe1, 0xff, ...Buffer.from('"\n')]),
    '/w/lib/mod.lua': Uint8Array.from([...Buffer.from('return { s = "'), 0xff, ...Buffer.from('" }\n')]),
  };

  it('dofile, loadfile and require keep the bytes of string literals', () => {
    expect(run('local s, n = dofile("data.lua") return { s:byte(1, -1), n }', files)).toEqual([0xe1, 2]);
    expect(run('return { loadfile("data.lua")():byte(1, -1) }', files)).toEqual([0xe1]);
    expect(run('return { require("mod").s:byte(1, -1) }', files)).toEqual([0xff]);
  });

  it('a file in the simulated workspace keeps its bytes too', () => {
    const { value } = runLua('return { dofile("data.lua"):byte(1, -1) }', { files: { 'data.lua': files['/w/data.lua'] } });
    expect(value).toEqual([0xe1]);
  });
});

describe(`library functions the sandbox replaces or wraps (${ENGINE_NAME})`, () => {
  const runIn = (code: string, budget = 1e7) => testEngine.createState({ budget, budgetMessage: 'budget', moduleDirs: [], readFile: () => undefined, loadRoots: ['/nowhere'], baseDir: '/nowhere', print: () => {}, displayPath: (p) => p }).runChunk(code, 't.lua', 1, {}, 'serde');
  it('string.rep builds big strings fast, keeps Lua semantics, and refuses results over the limit', () => {
    expect(runIn('return { string.rep("ab", 3, ","), ("x"):rep(0), ("x"):rep(-1), string.rep("", 5), string.rep("a", 1), string.rep(12, 2) }')).toEqual([
      'ab,ab,ab',
      '',
      '',
      '',
      'a',
      '1212',
    ]);
    expect(runIn(`return #string.rep("x", ${MAX_REP_BYTES})`)).toBe(MAX_REP_BYTES);
    expect(runIn(`local ok, e = pcall(string.rep, "x", ${MAX_REP_BYTES + 1}) return e`)).toMatch(/^resulting string too large/);
    expect(runIn('local ok, e = pcall(string.rep, "xy", 2^30, ",") return e')).toMatch(/^resulting string too large/);
  });

  it('table.move charges each moved element to the budget (the library loops over any range in one call)', () => {
    expect(runIn('local t = table.move({ 1, 2, 3 }, 1, 3, 2) return { t, table.move({ 1, 2 }, 1, 2, 1, {}), table.move({}, 2, 1, 1) }')).toEqual([[1, 1, 2, 3], [1, 2], {}]);
    expect(() => runIn('return table.move({ 1 }, 1, 2^30, 2)', 100_000)).toThrow(/budget$/);
    expect(runIn('local ok, e = pcall(function() table.move(nil, 1, 2, 1) end) return e')).toMatch(/:1: bad argument #1 to 'move' \(table expected, got nil\)$/);
  });

  it('string.char reports a code out of range with its argument number', () => {
    expect(runIn('local ok, e = pcall(string.char, 65, 256) return { string.char(104, 105), e }')).toEqual(['hi', "bad argument #2 to 'string.char' (value out of range)"]);
  });

  it('load keeps text chunks only, honours a mode without "t" and an explicit nil env', () => {
    expect(runIn('return { load("return 1", "c", "b") == nil, load(string.dump(function() end)) == nil, load("return 2", "c", "bt")() }')).toEqual([true, true, 2]);
    expect(runIn('local f = load("return x", "c", "t", nil) return (pcall(f))')).toBe(false);
    expect(runIn('_G.x = 5 return load("return x")()')).toBe(5);
  });
});

describe(`charges read no length a script can see (${ENGINE_NAME})`, () => {
  // each call on a table whose __len counts its calls: the library reads the length once (ltablib.c aux_getn,
  // luaL_len), and a charge must not read it again. Expected values are native lua5.4's.
  const counted = (call: string) =>
    run(`local n = 0
local t = setmetatable({ "a", "b", "c" }, { __len = function() n = n + 1 return 3 end })
local ok, e = pcall(function() return ${call} end)
local after = {}
for i = 1, 5 do after[i] = tostring(rawget(t, i)) end
return { n = n, ok = ok, e = tostring(e), after = table.concat(after, ",") }`);

  it.each([
    ['table.insert(t, 1, "x")', { n: 1, ok: true, e: 'nil', after: 'x,a,b,c,nil' }],
    ['table.insert(t, 4, "x")', { n: 1, ok: true, e: 'nil', after: 'a,b,c,x,nil' }],
    ['table.insert(t, "x")', { n: 1, ok: true, e: 'nil', after: 'a,b,c,x,nil' }],
    ['table.remove(t, 1)', { n: 1, ok: true, e: 'a', after: 'b,c,nil,nil,nil' }],
    ['table.remove(t, 4)', { n: 1, ok: true, e: 'nil', after: 'a,b,c,nil,nil' }],
    ['table.remove(t)', { n: 1, ok: true, e: 'c', after: 'a,b,nil,nil,nil' }],
    ['table.concat(t, ",", 2)', { n: 1, ok: true, e: 'b,c', after: 'a,b,c,nil,nil' }],
    ['table.concat(t, ",", 1, 2)', { n: 1, ok: true, e: 'a,b', after: 'a,b,c,nil,nil' }],
    ['table.concat(t)', { n: 1, ok: true, e: 'abc', after: 'a,b,c,nil,nil' }],
  ])('%s calls __len once', (call, expected) => {
    expect(counted(call)).toEqual(expected);
  });

  it.each([
    ['table.insert(t, 9, "x")', /^t\.lua:3: bad argument #2 to 'insert' \(position out of bounds\)$/],
    ['table.remove(t, 9)', /^t\.lua:3: bad argument #1 to 'remove' \(position out of bounds\)$/],
    ['table.concat(t, ",", 1, 4)', /^t\.lua:3: invalid value \(nil\) at index 4 in table for 'concat'$/],
    ['table.concat(t, ",", 3)', /^ok$/],
  ])('%s fails as in Lua, after one __len call', (call, message) => {
    const r = counted(call) as { n: number; ok: boolean; e: string };
    expect(r.n).toBe(1);
    expect(r.ok ? 'ok' : r.e).toMatch(message);
  });

  it('a length that is no integer fails as luaL_len does', () => {
    for (const call of ['table.insert(t, 1, 2)', 'table.remove(t, 1)', 'table.concat(t)']) {
      expect(run(`local t = setmetatable({}, { __len = function() return "x" end })\nlocal ok, e = pcall(function() return ${call} end)\nreturn e`)).toBe('t.lua:2: object length is not an integer');
    }
  });

  it('a __len loop of a huge length is still stopped by the budget', () => {
    const huge = onLua54 ? '2^40' : '2^30';
    for (const call of ['table.insert(t, 1, 0)', 'table.remove(t, 1)', 'table.concat(t, "", 1)']) {
      const code = `local t = setmetatable({}, { __len = function() return math.tointeger(${huge}) end, __index = function() return "x" end, __newindex = rawset })\n${call}`;
      expect(() => testEngine.createState({ budget: 100_000, budgetMessage: 'budget', moduleDirs: [], readFile: () => undefined, loadRoots: ['/nowhere'], baseDir: '/nowhere', print: () => {}, displayPath: (p) => p }).runChunk(code, 't.lua', 1, {}, 'serde')).toThrow(/budget$/);
    }
  });
});

describe(`a huge range on a table with metamethods fails where Lua fails (${ENGINE_NAME})`, () => {
  // the library stops at the first element whose metamethod raises: no charge ahead may spend the budget first
  // (Lua 5.4's testes/sort.lua "for very long moves, just check initial accesses")
  const small = (code: string) => testEngine.createState({ budget: 1e6, budgetMessage: 'budget', moduleDirs: [], readFile: () => undefined, loadRoots: ['/nowhere'], baseDir: '/nowhere', print: () => {}, displayPath: (p) => p }).runChunk(code, 't.lua', 1, {}, 'serde');
  const failing = 'setmetatable({}, { __index = function(_, k) pos1 = k end, __newindex = function(_, k) pos2 = k error("stop") end })';

  it('table.move', () => {
    expect(small(`local ok, e = pcall(table.move, ${failing}, 1, math.maxinteger, 0)\nreturn { ok, e, pos1, pos2 }`)).toEqual([false, 't.lua:1: stop', 1, 0]);
    // moving within the table backwards: the last element first
    expect(small(`local ok, e = pcall(table.move, ${failing}, 0, math.maxinteger - 1, 1)\nreturn { ok, pos1 == math.maxinteger - 1, pos2 == math.maxinteger }`)).toEqual([false, true, true]);
  });

  it('table.concat', () => {
    expect(small(`local ok, e = pcall(table.concat, ${failing}, "", 1, math.maxinteger)\nreturn { ok, e, pos1 }`)).toEqual([false, "invalid value (nil) at index 1 in table for 'concat'", 1]);
  });

  it('keeps the results of calls that succeed', () => {
    const proxied = 'local backing = { "a", "b", "c" }\nlocal t = setmetatable({}, { __index = backing, __newindex = backing })';
    expect(small(`${proxied}\nreturn { table.concat(t, ",", 1, 3), table.concat(t, "-", 2, 3) }`)).toEqual(['a,b,c', 'b-c']);
    expect(small(`${proxied}\ntable.move(t, 1, 3, 2)\nreturn backing`)).toEqual(['a', 'a', 'b', 'c']);
    expect(small(`${proxied}\nlocal d = table.move(t, 1, 3, 1, setmetatable({}, { __index = {} }))\nreturn { rawget(d, 1), rawget(d, 3) }`)).toEqual(['a', 'c']);
  });
});
