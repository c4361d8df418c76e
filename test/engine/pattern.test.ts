/**
 * The step-counting pattern matcher (src/engine/pattern.ts) against the engine's own matcher, on the engine of the
 * vitest project (Lua 5.3 as fengari has it, Lua 5.4 on lua54): random patterns and subjects run through
 * string.find/match/gmatch/gsub in a state that routes every pattern call to it and in one that routes none, and
 * every result and error must be the same.
 */
import fc from 'fast-check';
import { describe, expect, it, vi } from 'vitest';
import { FC_SEED } from '../helpers/fc-seed.ts';
import { ENGINE_NAME, testEngine } from '../helpers/engine.ts';
import { createLimits } from '../../src/engine/limits.ts';
import type { LuaState } from '../../src/engine/index.ts';
import { PATTERN_ROUTE_STEPS } from '../../src/engine/pattern.ts';

// the properties count their runs (1,500 on random patterns): on a loaded machine they take minutes, not 30 s
vi.setConfig({ testTimeout: 600_000 });

// no run deadline: these states serve a whole property (1,500 runs), whose wall time is the machine's, not a run's
function state(patternRouteSteps: number, out: string[], limits = createLimits(2_000_000_000, undefined, 0)): LuaState {
  return testEngine.createState({
    limits,
    budget: 2_000_000_000,
    budgetMessage: 'budget',
    moduleDirs: [],
    readFile: () => undefined,
    loadRoots: [],
    baseDir: '/',
    print: (text) => out.push(text),
    displayPath: (p) => p,
    patternRouteSteps,
  });
}

/** A Lua string literal of any bytes (the tests' subjects and patterns hold NULs and specials). */
const lq = (s: string) =>
  '"' + [...Buffer.from(s, 'latin1')].map((b) => (b >= 32 && b < 127 && b !== 34 && b !== 92 ? String.fromCharCode(b) : `\\${b}`)).join('') + '"';

// Runs each call in a pcall and prints its results; an error's "sandbox:<line>:" prefix names a line of the
// sandbox's wrapper, which differs between the two paths, and is dropped.
const RUNNER = `
local function show(ok, ...)
  local out = { tostring(ok) }
  for i = 1, select("#", ...) do
    local v = select(i, ...)
    out[#out + 1] = math.type(v) and (math.type(v) .. ":" .. tostring(v)) or (type(v) .. ":" .. tostring(v))
  end
  if not ok then out[2] = tostring((...)):gsub("^[%w=_]+:%d+: ", "") end
  return table.concat(out, "|")
end
local function all(s, p, init)
  local got = {}
  local it = string.gmatch(s, p, init)
  for i = 1, 40 do
    local r = table.pack(it())
    if r[1] == nil then break end
    got[#got + 1] = show(true, table.unpack(r, 1, r.n))
  end
  return table.concat(got, ";")
end
function CASE(s, p, init, repl, max)
  local r = {}
  r[#r + 1] = show(pcall(string.find, s, p, init))
  r[#r + 1] = show(pcall(string.find, s, p, init, true))
  r[#r + 1] = show(pcall(string.match, s, p, init))
  r[#r + 1] = show(pcall(s.find, s, p))
  r[#r + 1] = show(pcall(all, s, p, init))
  r[#r + 1] = show(pcall(string.gsub, s, p, repl, max))
  r[#r + 1] = show(pcall(string.gsub, s, p, function(a, b) if a == "b" then return nil end if b then return b .. "<" .. tostring(a) end return "{" .. tostring(a) .. "}" end, max))
  r[#r + 1] = show(pcall(string.gsub, s, p, { a = "A", [2] = 22, c = false, ["()"] = {} }))
  print(table.concat(r, "\\n"))
end
`;

const atom = fc.oneof(
  { weight: 6, arbitrary: fc.constantFrom('a', 'b', 'c', ' ', '1', '(', ')', '.', '%a', '%d', '%s', '%w', '%p', '%l', '%u', '%x', '%c', '%g', '%z', '%A', '%S', '%W', '%%', '%.', '%(', '%)', '%]') },
  { weight: 2, arbitrary: fc.constantFrom('[abc]', '[^a]', '[a-c]', '[%a_]', '[^%s]', '[]]', '[a-]', '[%]b]', '[^]a]', '[b-a]', '[') },
  { weight: 3, arbitrary: fc.constantFrom('*', '+', '-', '?') },
  { weight: 3, arbitrary: fc.constantFrom('(a*)', '(%a+)', '(.-)', '(b?)', '(%s*)', '([abc]+)', '(()a)', '%1', '%1%1') },
  { weight: 3, arbitrary: fc.constantFrom('(', ')', '()', '%1', '%2', '%0', '%b()', '%bab', '%b', '%f[%w]', '%f[^a]', '%f[%z]', '%f', '$', '^', '%') },
);
const pattern = fc.tuple(fc.boolean(), fc.array(atom, { maxLength: 8 }), fc.boolean()).map(([anchor, parts, end]) => (anchor ? '^' : '') + parts.join('') + (end ? '$' : ''));
const subject = fc.array(fc.constantFrom('a', 'b', 'c', ' ', '1', '(', ')', 'A', '_', '\0', '%', '.', '\n', '\u00e9'), { maxLength: 14 }).map((cs) => cs.join(''));
const repl = fc.constantFrom('x', '%0', '%1', '<%2>', '%%', '%', '%x', '', '[%1|%0]');
const init = fc.option(fc.integer({ min: -16, max: 18 }), { nil: undefined });
const max = fc.option(fc.integer({ min: -1, max: 4 }), { nil: undefined });

// quantifiers are capped so that the engine's own matcher, which counts nothing, ends quickly
const quantifiers = (p: string) => (p.match(/[*+?-]|%b/g) ?? []).length;
// fengari's back-reference to a position capture moves the subject position backwards (real Lua never matches
// it); pattern.ts follows the matching, but not what fengari's gsub then copies from before the subject's start
const fengariNegativePositions = (p: string) => ENGINE_NAME === 'fengari' && p.includes('()') && /%[1-9]/.test(p);

describe(`pattern matcher = the engine's own (${ENGINE_NAME}, seed ${FC_SEED})`, () => {
  const native: string[] = [];
  const routed: string[] = [];
  const a = state(Infinity, native);
  const b = state(0, routed);
  a.exec(RUNNER, '=runner');
  b.exec(RUNNER, '=runner');
  const same = (s: string, p: string, i?: number, r = 'x', m?: number) => {
    native.length = 0;
    routed.length = 0;
    const call = `CASE(${lq(s)}, ${lq(p)}, ${i ?? 'nil'}, ${lq(r)}, ${m ?? 'nil'})`;
    a.exec(call, '=case');
    b.exec(call, '=case');
    expect(JSON.stringify(routed), `${call}`).toEqual(JSON.stringify(native));
  };

  it('on random patterns, subjects and arguments', () => {
    fc.assert(
      fc.property(subject, pattern.filter((p) => quantifiers(p) <= 4 && !fengariNegativePositions(p)), init, repl, max, (s, p, i, r, m) => same(s, p, i, r, m)),
      { numRuns: 1500 },
    );
  });

  it('on the limits of the matcher: recursion depth, capture count, long subjects', () => {
    same('aaa', 'a?'.repeat(250));
    same('aaaa', '('.repeat(33) + 'a' + ')'.repeat(33));
    same('aaaa', '('.repeat(31) + 'a' + ')'.repeat(31));
    same('x'.repeat(300), '(x*)(x-)%2$');
    same('ab'.repeat(100), '%f[a](%w+)%f[%W]');
    same('((a)(b))c(d)', '%b()');
    same(' trim me  ', '^%s*(.-)%s*$', undefined, '%1');
    same('key = value\nk2=v2\n', '(%w+)%s*=%s*(%w+)', undefined, '%2=%1');
    same('abc', '', 5);
    same('abc', '', 4, '-');
  });
});

describe(`which calls the step-counting matcher takes (${ENGINE_NAME})`, () => {
  // The step-counting matcher charges the budget per step, at least one per subject byte; the engine's own is
  // charged only by the subject's and the result's sizes. So the instructions a gsub over 1 MB costs, beyond those of
  // one that is never routed (a plain pattern), tell which matcher ran it.
  const SUBJECT = '("w+ w) word "):rep(90000)';
  const BYTES = 11 * 90000;
  const used = (pattern: string) => {
    const limits = createLimits(1e12, undefined, 0);
    state(PATTERN_ROUTE_STEPS, [], limits).exec(`local big = ${SUBJECT} local r = string.gsub(big, ${lq(pattern)}, "%0")`, '=case');
    return limits.used;
  };
  const base = used('zzz');
  const stepsCharged = (pattern: string) => used(pattern) - base > BYTES;

  it('a pattern whose last item is a quantifier stays on the engine: nothing after it backtracks', () => {
    for (const p of ['(%a+)', '(%s*)', 'o-', '%%?', 'w[%a]*']) expect(stepsCharged(p), p).toBe(false);
  });

  it('a quantifier followed by more pattern, or an escaped one at the end, runs on the step-counting matcher', () => {
    for (const p of ['(%a+)%s', 'w%+', '(%a+%))']) expect(stepsCharged(p), p).toBe(true);
  });
});
