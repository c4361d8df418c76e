/**
 * A seeded generator of Lua expressions over the string library, string.format, number edge cases,
 * table.concat/sort and utf8, and a runner that evaluates them on a sandbox engine and on native `lua5.4`, then
 * sorts the differences: a value difference (results differ, or one side failed) or a wording difference (both
 * failed, with other messages). Used by test/engine/differential.test.ts (a few hundred expressions) and
 * bench/differential.bench.ts (10,000, for the figures).
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import nodePath from 'node:path';
import type { LuaEngine } from '../../src/engine/index.ts';
import { prng } from './prng.ts';

/** native Lua 5.4 (LUA54_NATIVE: another build, e.g. one from the commit the WebAssembly engine ships) */
export const NATIVE_LUA = process.env.LUA54_NATIVE ?? '/usr/bin/lua5.4';
export const nativeLuaAvailable = (): boolean => existsSync(NATIVE_LUA);


/** A Lua string literal of any bytes (latin1 code units), decimal escapes for the rest. */
export function luaQuote(s: string): string {
  let out = '"';
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    out += c >= 32 && c < 127 && c !== 34 && c !== 92 ? s[i] : `\\${String(c).padStart(3, "0")}`;
  }
  return out + '"';
}

const SUBJECTS = ['', 'a', 'hello', 'hello world', 'aaa', '---', ' x y ', 'a,b,,c', 'key = value', '(a(b)c)', '%d+', 'caf\xc3\xa9', '\xe1\xff\x00z', 'ABCabc123', '\n\t', 'x'.repeat(40)];
const PATTERNS = ['a', '.', '%a+', '%d*', '(%w+)', '^h', 'o$', '%s', '[aeiou]', '[^%s]+', '(a)(b)?', '%S*x?', '.-', 'l+', '%b()', '%f[%w]%w+', '(%d)%1', '[%a-]', '%', '[a', '(()', '%g', 'a*b*c*', '()', '[]]', '%z', '.?.?', '(.)%1'];
const INTS = ['0', '1', '-1', '2', '3', '5', '-3', '100', '2^31', '2^32+1', '2^32+2', '2^53', 'math.maxinteger', 'math.mininteger', '-2^40', '4294967296', '7', '-100'];
const FLOATS = ['0.5', '-0.0', '1e308', '1/0', '-1/0', '0/0', '3.0', '2.5', '1e15', '-7.25', '2^63', '1e-310'];
const OTHERS = ['nil', '{}', 'true', '"3"', '"x"', '" 0x10 "', 'print'];
const FORMATS = ['%d', '%5d', '%-5d|', '%05d', '%x', '%X', '%o', '%c', '%i', '%u', '%s', '%10s', '%-10s|', '%.3s', '%q', '%g', '%.3g', '%10.4g', '%e', '%.2e', '%f', '%.2f', '%a', '%%', '%y', '%', '%5', '%#x', '%+d', '% d', '%.0f', '%5.1s', '%099d', '%.99f', '%100d', '%lld'];
const PACK_FORMATS = ['i', 'I2', '<i4', '>I8', 'b', 'B', 'h', 'H', 'l', 'L', 'j', 'J', 'T', 'f', 'd', 'n', 's', 's1', 'z', 'c3', '<!4 i3 j', 'xb', 'i17', 'X', 'Xi4b', '=!8 b Xd d', 'i0', 'c'];

/** One generated expression per call. */
export function expressionGenerator(seed: number): () => string {
  const rnd = prng(seed);
  const pick = <T>(list: readonly T[]): T => list[Math.floor(rnd() * list.length)] as T;
  const chance = (p: number) => rnd() < p;
  const str = () => (chance(0.85) ? luaQuote(pick(SUBJECTS)) : luaQuote(String.fromCharCode(...Array.from({ length: Math.floor(rnd() * 6) }, () => Math.floor(rnd() * 256)))));
  const pat = () => (chance(0.9) ? luaQuote(pick(PATTERNS)) : luaQuote(pick(PATTERNS) + pick(PATTERNS)));
  const int = () => (chance(0.7) ? String(Math.floor(rnd() * 13) - 6) : pick(INTS));
  const num = () => (chance(0.6) ? int() : pick(FLOATS));
  const any = () => pick([str, int, num, () => pick(OTHERS)])();
  // arguments: usually sensible, sometimes of any type, sometimes missing
  const arg = (good: () => string) => (chance(0.85) ? good() : any());
  const args = (...gens: (() => string)[]) => {
    let n = gens.length;
    while (n > 0 && chance(0.25)) n--;
    return gens.slice(0, n).map((g) => arg(g)).join(', ');
  };
  // a call as a function or, on a string, as a method (s:fn(...))
  const call = (fn: string, subject: () => string, ...rest: (() => string)[]) => {
    if (chance(0.25)) {
      const r = args(...rest);
      return `(${arg(subject)}):${fn}(${r})`;
    }
    return `string.${fn}(${args(subject, ...rest)})`;
  };
  const list = () => `{${Array.from({ length: Math.floor(rnd() * 6) }, () => (chance(0.8) ? pick([int, str])() : any())).join(', ')}}`;
  const collect = (iter: string) => `(function() local t = {} for a, b in ${iter} do t[#t + 1] = tostring(a) .. "/" .. tostring(b) end return table.concat(t, ";") end)()`;
  const kinds: (() => string)[] = [
    () => call('sub', str, int, int),
    () => call('byte', str, int, int),
    () => call('find', str, pat, int, () => pick(['true', 'false', 'nil'])),
    () => call('match', str, pat, int),
    () => collect(`string.gmatch(${arg(str)}, ${arg(pat)}${chance(0.3) ? ', ' + arg(int) : ''})`),
    () => call('gsub', str, pat, () => pick([luaQuote('<%0>'), luaQuote('%1'), luaQuote('%2'), luaQuote('%%'), '{a = "A"}', 'function(c) return c:upper() end', 'function() return {} end', 'string.upper', '"x"']), int),
    () => call('rep', str, () => pick(['0', '1', '2', '3', '-1', '10', '2.0', '"2"', '1.5', '2^31']), str),
    () => call('upper', str),
    () => call('lower', str),
    () => call('reverse', str),
    () => call('len', str),
    () => `string.char(${Array.from({ length: Math.floor(rnd() * 4) }, () => pick(['65', '0', '255', '256', '-1', '97.0', '"66"', '{}'])).join(', ')})`,
    () => `string.format(${luaQuote(Array.from({ length: 1 + Math.floor(rnd() * 2) }, () => pick(FORMATS)).join(' '))}${Array.from({ length: Math.floor(rnd() * 3) }, () => ', ' + any()).join('')})`,
    () => `string.format(${luaQuote(pick(FORMATS))}, ${num()})`,
    () => `string.packsize(${luaQuote(pick(PACK_FORMATS))})`,
    () => `#string.pack(${luaQuote(pick(PACK_FORMATS))}, ${arg(int)}, ${arg(str)})`,
    () => `string.unpack(${luaQuote(pick(PACK_FORMATS))}, ${str()}${chance(0.5) ? ', ' + arg(int) : ''})`,
    () => `string.unpack(${luaQuote(pick(['<i4', '<s', 'z', '<j', '>I2', 'b', 'L', 'T']))}, string.pack(${luaQuote(pick(['<i4', '<s', 'z', '<j', '>I2', 'b', 'L', 'T']))}, ${arg(int)}))`,
    () => `${num()} ${pick(['+', '-', '*', '/', '//', '%', '^', '&', '|', '~', '<<', '>>', '..', '==', '<', '<='])} ${num()}`,
    () => `${pick(['math.tointeger', 'math.floor', 'math.ceil', 'math.abs', 'math.type', 'tostring', 'tonumber', 'math.fmod', 'math.ult', 'math.max', 'math.min', 'math.sqrt', '-'])}(${args(num, num)})`.replace(/^-\(/, '-('),
    () => `tonumber(${arg(() => pick(['"10"', '"0x1p4"', '" 12 "', '"1e2"', '"z"', '"7fffffffffffffff"', '"ff"', '"-0x10"', '"1e"']))}, ${pick(['nil', '16', '2', '36', '10', '1', '37'])})`,
    () => `table.concat(${list()}${chance(0.6) ? ', ' + arg(str) : ''}${chance(0.4) ? ', ' + arg(int) + ', ' + arg(int) : ''})`,
    () => `(function() local t = ${list()} table.sort(t${chance(0.3) ? ', function(a, b) return a > b end' : ''}) return table.concat(t, ",") end)()`,
    () => `utf8.char(${Array.from({ length: 1 + Math.floor(rnd() * 3) }, () => pick(['65', '233', '0x10FFFF', '0x7FFFFFFF', '-1', '0x80000000', '"66"'])).join(', ')})`,
    () => `utf8.len(${args(str, int, int, () => pick(['true', 'false']))})`,
    () => `utf8.codepoint(${args(str, int, int, () => pick(['true', 'false']))})`,
    () => `utf8.offset(${args(str, int, int)})`,
    () => collect(`utf8.codes(${arg(str)})`),
    () => `#utf8.charpattern`,
  ];
  return () => pick(kinds)();
}

/** The Lua run on both sides: each expression loaded as `return <expr>` (a tail call), its outcome as one line. */
const HARNESS = `
local exprs = ...
local function esc(s)
  s = s:gsub("(%a+): 0x%x+", "%1: <address>")
  return (s:gsub("[%c\\"\\\\\\128-\\255]", function(c) return "\\\\" .. c:byte() end))
end
local function ser(v)
  local t = type(v)
  if t == "string" then return '"' .. esc(v) .. '"' end
  if t == "number" then
    if math.type(v) == "integer" then return "i" .. string.format("%d", v) end
    if v ~= v then return "nan" end
    if v == 1/0 then return "inf" end
    if v == -1/0 then return "-inf" end
    return "f" .. string.format("%.17g", v)
  end
  if t == "table" then
    local keys = {}
    for k in pairs(v) do keys[#keys + 1] = ser(k) end
    table.sort(keys)
    return "{" .. table.concat(keys, ",") .. "}"
  end
  if t == "boolean" or t == "nil" then return tostring(v) end
  return t
end
local out = {}
for i = 1, #exprs do
  local f, err = load("return " .. exprs[i], "=expr")
  local line
  if not f then
    line = "C " .. esc(err)
  else
    local r = table.pack(pcall(f))
    if r[1] then
      local parts = {}
      for k = 2, r.n do parts[#parts + 1] = ser(r[k]) end
      line = "V " .. table.concat(parts, ",")
    elseif type(r[2]) == "string" then
      line = "E " .. esc(r[2])
    else
      line = "E <" .. type(r[2]) .. ">"
    end
  end
  out[i] = line
end
return table.concat(out, "\\n")
`;

/**
 * Edge arguments of every function the sandbox charges (or wraps to charge): wrap-around and huge ranges,
 * math.maxinteger, math.mininteger, negative counts, wrong types. Only calls that end at once natively (an argument
 * error, or little work) are listed: a range Lua would really loop over for 2^63 steps has no outcome to compare.
 */
/** edge calls that are a huge allocation in fengari itself (the sandbox refuses them by its string.rep cap) */
export const HUGE_IN_FENGARI = ['string.rep("x", math.maxinteger)', 'string.rep("abc", math.maxinteger // 2, ",")'];

export const CHARGED_EDGES: string[] = [
  'table.move({}, 1, math.maxinteger, 2)',
  'table.move({}, 0, math.maxinteger, 1)',
  'table.move({}, math.mininteger, -1, 1)',
  'table.move({}, -1, math.maxinteger - 1, 1)',
  'table.move({1, 2, 3}, 1, 3, math.maxinteger)',
  'table.move({1, 2, 3}, 1, 3, math.maxinteger - 2)[math.maxinteger]',
  'table.move({}, math.maxinteger, math.mininteger, 1)',
  'table.move({}, 5, 4, math.maxinteger)',
  'table.move(nil, 1, math.maxinteger, 1)',
  'table.move({}, 1, math.maxinteger, 1, 5)',
  'table.move({}, 1, "x", 2)',
  'table.move({}, 1.5, math.maxinteger, 2)',
  'table.move({}, "1", "3", "2")',
  'table.move({}, 2, math.maxinteger, math.maxinteger)',
  'table.move("abc", 1, math.maxinteger, 2, {})',
  'table.concat({}, "", 1, math.maxinteger)',
  'table.concat({}, "", math.mininteger, math.maxinteger)',
  'table.concat({"a", "b"}, ",", 1, math.maxinteger)',
  'table.concat({"a"}, {}, 1, math.maxinteger)',
  'table.concat({}, "", math.maxinteger, math.mininteger)',
  'table.concat({}, "", math.maxinteger, math.maxinteger)',
  'table.concat({}, "", 1.5, math.maxinteger)',
  'table.concat({1, 2, 3}, ", ", -1, 2)',
  'table.concat(nil, "", 1, math.maxinteger)',
  '(function() local t = {} for i = 1, 10000 do t[i] = "x" end return table.concat(t, "", 1, math.maxinteger) end)()',
  '(function() local t = {} for i = 1, 10000 do t[i] = i % 10 end return #table.concat(t, ",") end)()',
  '(function() local t = {} for i = 1, 10000 do t[i] = i % 10 end return table.concat(t, ",", 9990, 10001) end)()',
  'table.insert({}, math.mininteger, 1)',
  'table.insert({}, math.maxinteger, 1)',
  'table.insert({1, 2}, 0, "x")',
  'table.insert({1, 2}, -1, "x")',
  'table.insert({1, 2}, 3, "x")',
  'table.insert({}, 1, 2, 3)',
  'table.insert({}, 1.5, 5)',
  'table.insert(nil, math.maxinteger, 2)',
  'table.insert({}, "x", 2)',
  '(function() local t = {1, 2, 3} table.insert(t, "1", "x") return t end)()',
  'table.remove({}, math.mininteger)',
  'table.remove({}, math.maxinteger)',
  'table.remove({1, 2, 3}, 1)',
  'table.remove({1, 2, 3}, 4)',
  'table.remove({1, 2, 3}, 5)',
  'table.remove({}, 0)',
  'table.remove({1}, -1)',
  'table.remove({1}, 1.5)',
  'table.remove(nil, math.maxinteger)',
  'table.unpack({}, 1, math.maxinteger)',
  'table.unpack({}, math.mininteger, math.maxinteger)',
  'table.unpack({}, math.maxinteger, math.mininteger)',
  'table.unpack({}, 0, -1)',
  'table.unpack({1, 2, 3}, -1, 1)',
  'select("#", table.unpack({}, 1, 100000))',
  'table.unpack({}, 1.5, 2)',
  'table.sort()',
  'table.sort(nil)',
  'table.sort({{}, {}})',
  'table.sort({1, "x"})',
  'table.sort({1, 2}, 3)',
  'table.sort({1}, 3)',
  'table.sort(setmetatable({}, {__len = function() return math.maxinteger end}))',
  'table.sort(setmetatable({}, {__len = function() return math.maxinteger end}), 3)',
  'table.sort(setmetatable({}, {__len = function() return 2.5 end}))',
  'table.sort({"a", "b"}, math.ult)',
  'table.sort({1, 2}, function(a, b) error("x", 2) end)',
  'table.sort({1, 2}, function(a, b) error({}) end)',
  'table.sort({1, setmetatable({}, {__lt = function() return true end})})',
  '(function() local t = {} for i = 1, 100 do t[i] = 100 - i end table.sort(t, function(a, b) return true end) end)()',
  '(function() local t = {} for i = 1, 1000 do t[i] = (i * 7) % 1000 end table.sort(t) return t[1], t[500], t[1000] end)()',
  '(function() local t = {"b", "c", "a"} table.sort(t, function(a, b) return a > b end) return table.concat(t) end)()',
  '(function() local t = {3, 1, 2} table.sort(t, math.ult) return table.concat(t) end)()',
  'string.rep("", 0)',
  'string.rep("", -1)',
  'string.rep("", 100000)',
  'string.rep("", 100000, "")',
  'utf8.len("abc", 5)',
  'utf8.len(string.rep("x", 100000))',
  'utf8.len(string.rep("x", 100000), -2, math.maxinteger)',
  'utf8.offset("abc", math.maxinteger)',
  'utf8.offset("abc", math.mininteger)',
  'utf8.offset(string.rep("x", 100000), 90000)',
  'utf8.offset(string.rep("x", 100000), -90000)',
  'utf8.codepoint("abc", math.mininteger, math.maxinteger)',
  'utf8.codepoint("abc", 0, 100000)',
  'select("#", utf8.codepoint(string.rep("x", 100000), 1, -1))',
  'select("#", string.byte(string.rep("x", 100000), 1, -1))',
  'select("#", string.byte(string.rep("x", 100000), -50000))',
  'select("#", string.byte(string.rep("x", 100000), math.mininteger, math.maxinteger))',
  'select("#", string.unpack(string.rep("b", 10000), string.rep("x", 10000)))',
  'string.unpack(string.rep("b", 10000), "x")',
  'load(string.rep("x = 1 ", 2000) .. "return x")()',
  'load(string.rep("x = ", 2000))',
  'tonumber()',
  'tonumber(nil)',
  'tonumber("1", 99)',
  'tonumber(1, 10)',
  'tonumber(string.rep("1", 100000))',
  'tonumber(string.rep(" ", 100000) .. "7")',
  'tonumber(string.rep("1", 100000), 2)',
  'rawequal("a")',
  'rawequal(string.rep("x", 100000), string.rep("x", 99999) .. "x")',
  'string.rep("x", math.maxinteger)',
  'string.rep("x", math.mininteger)',
  'string.rep("x", -1)',
  'string.rep("x", 0, "sep")',
  'string.rep("x", 1.5)',
  'string.rep("x", 1e300)',
  'string.rep("x", 2^53)',
  'string.rep("x", math.maxinteger, {})',
  'string.rep("x", "3")',
  'string.rep(5, 3, 0)',
  'string.rep("abc", math.maxinteger // 2, ",")',
  'string.rep({}, math.maxinteger)',
  '#string.rep("ab", 100000, ",")',
  'string.upper(nil)',
  'string.lower(math.maxinteger)',
  'string.reverse(math.mininteger)',
  '#string.upper(string.rep("a", 100000))',
  'string.sub("abc", math.mininteger, math.maxinteger)',
  'string.sub("abc", math.maxinteger, math.mininteger)',
  'string.byte("abc", math.mininteger, math.maxinteger)',
  'string.byte("abc", math.maxinteger)',
  'string.find("abc", "b", math.maxinteger)',
  'string.find("abc", "b", math.mininteger)',
  'string.find(string.rep("a", 100000), "b", math.mininteger, true)',
  'string.match("abc", "(b)", math.mininteger)',
  'string.gsub("abc", "", "x", math.maxinteger)',
  'string.gsub("abc", "b", "x", math.mininteger)',
  'string.gsub("abc", "b", "x", 1.5)',
  'string.format("%d", math.mininteger)',
  'string.format("%5.2s|%d", "abc", math.maxinteger)',
  'string.format("%d", 1.5)',
  'coroutine.resume(nil)',
  'coroutine.wrap(nil)',
  'select("#", coroutine.resume(coroutine.create(function() end)))',
];

const exprTable = (exprs: string[]) => `{\n${exprs.map((e) => luaQuote(e)).join(',\n')}\n}`;

/** Outcomes on a sandbox engine ("V values" / "E message" / "C compile error"), in batches of fresh states. */
export function runOnEngine(engine: LuaEngine, exprs: string[], patternRouteSteps?: number): string[] {
  const out: string[] = [];
  for (let at = 0; at < exprs.length; at += 500) {
    const batch = exprs.slice(at, at + 500);
    try {
      out.push(...runBatch(engine, batch, patternRouteSteps));
    } catch {
      // a limit hit by one expression ends its state: run the batch one by one to find it (it fails alone)
      for (const e of batch) {
        try {
          out.push(...runBatch(engine, [e], patternRouteSteps));
        } catch (err) {
          out.push(`X ${(err as Error).message.split('\n')[0]}`);
        }
      }
    }
  }
  return out;
}

function runBatch(engine: LuaEngine, batch: string[], patternRouteSteps: number | undefined): string[] {
  const out: string[] = [];
  {
    const state = engine.createState({
      budget: 2e9,
      budgetMessage: 'budget exhausted',
      moduleDirs: [],
      readFile: () => undefined,
      loadRoots: [],
      baseDir: '/',
      print: () => {},
      displayPath: (p) => p,
      ...(patternRouteSteps !== undefined ? { patternRouteSteps } : {}),
    });
    try {
      const text = state.runChunk(`return (function(...)\n${HARNESS}\nend)(${exprTable(batch)})`, 'fuzz.lua', 1, {}, 'serde') as string;
      out.push(...text.split('\n'));
    } finally {
      state.close();
    }
  }
  return out;
}

/**
 * Outcomes on native lua5.4 (same harness). They go to a file, not stdout: an expression may call `print` (a
 * generated argument), which writes to stdout natively and nowhere in the sandbox.
 */
export function runNative(exprs: string[]): string[] {
  const dir = mkdtempSync(nodePath.join(os.tmpdir(), 'lua-differential-'));
  try {
    const file = nodePath.join(dir, 'fuzz.lua');
    const outFile = nodePath.join(dir, 'outcomes.txt');
    writeFileSync(file, `local f = assert(io.open(${luaQuote(outFile)}, "wb"))\nf:write((function(...)\n${HARNESS}\nend)(${exprTable(exprs)}))\nf:close()\n`, 'latin1');
    execFileSync(NATIVE_LUA, [file], { stdio: ['ignore', 'ignore', 'pipe'] });
    return readFileSync(outFile).toString('latin1').split('\n');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

export interface Difference {
  expr: string;
  ours: string;
  native: string;
}

export interface Comparison {
  total: number;
  values: Difference[];
  wording: Difference[];
  /** string.rep results past the simulator's cap (a documented sandbox rule) */
  repCap: Difference[];
  /** a run limit of the sandbox hit (a loud sandbox rule: work charged up front, e.g. a huge table.concat range) */
  limits: Difference[];
}

const REP_CAP = 'string.rep is limited to';

export function compare(exprs: string[], ours: string[], native: string[]): Comparison {
  const result: Comparison = { total: exprs.length, values: [], wording: [], repCap: [], limits: [] };
  exprs.forEach((expr, i) => {
    const a = ours[i] ?? '<missing>';
    const b = native[i] ?? '<missing>';
    if (a === b) return;
    const d = { expr, ours: a, native: b };
    if (a.includes(REP_CAP)) result.repCap.push(d);
    else if (a.startsWith('X ')) result.limits.push(d);
    else if (a.startsWith('E ') && b.startsWith('E ')) result.wording.push(d);
    else result.values.push(d);
  });
  return result;
}

/**
 * Outcomes on fengari itself, unsandboxed (its own libraries, opened as Lua's standalone interpreter opens them):
 * the reference of the fengari engine, which must raise and return what fengari does wherever the sandbox only
 * charges (no Lua 5.3 is installed, and fengari's integers are 32-bit anyway).
 */
export async function runRawFengari(exprs: string[]): Promise<string[]> {
  const { lua, lauxlib, lualib, to_luastring } = await import('fengari');
  const L = lauxlib.luaL_newstate();
  lualib.luaL_openlibs(L);
  const code = `return (function(...)\n${HARNESS}\nend)(${exprTable(exprs)})`;
  if (lauxlib.luaL_loadstring(L, to_luastring(code)) !== lua.LUA_OK || lua.lua_pcall(L, 0, 1, 0) !== lua.LUA_OK) {
    throw new Error(`fengari: ${lua.lua_tojsstring(L, -1)}`);
  }
  const bytes = lua.lua_tostring(L, -1) as Uint8Array;
  return Buffer.from(bytes).toString('latin1').split('\n');
}
