/**
 * What fengari-vm.ts changes in fengari: string keys are their bytes (fengari's own hex keys collided and misordered),
 * no closure cache (Lua 5.4 has none, and prototypes are shared across states here), stack slots reused as the
 * stack grows and shrinks, a table's removed keys kept only once there are some, and the big-string hook.
 */
import { describe, expect, it } from 'vitest';
import { createRequire } from 'node:module';
import nodePath from 'node:path';
import { CALLINFO_NEW, clearDeadSlots, CLOSURE_CACHE, DEAD_KEYS_EAGER, lauxlib, lua, lualib, NIL_SLOT, STACK_DELETE, to_luastring } from '../../src/engine/fengari-vm.ts';
import { loadEngine } from '../../src/engine/index.ts';

const fengari = await loadEngine('fengari');

const run = (code: string, budget = 1e7) =>
  fengari
    .createState({ budget, budgetMessage: 'budget', moduleDirs: [], readFile: () => undefined, loadRoots: ['/nowhere'], baseDir: '/nowhere', print: () => {}, displayPath: (p) => p })
    .runChunk(code, 't.lua', 1, {}, 'serde');

describe('fengari as fengari-vm.ts loads it', () => {
  it('string keys are their bytes: no two strings share a key, and order is byte order', () => {
    // fengari's own keys were unpadded hex: "\1#" and "\18\3" were one key, and "\15" sorted after "\16"
    expect(run('local t = { ["\\1#"] = 1, ["\\18\\3"] = 2 } return { t["\\1#"], t["\\18\\3"], "\\15" < "\\16", "a" < "ab", "\\255" > "z" }')).toEqual([
      1,
      2,
      true,
      true,
      true,
    ]);
    expect(run('local t = { "b\\1", "b", "a\\200", "a\\16", "a\\2" } table.sort(t) return t')).toEqual(['a\u0002', 'a\u0010', 'a\uFFFD', 'b', 'b\u0001']);
  });

  it("reuses the stack's slots: no `delete` of a slot, and growth sets the TValue a slot has to nil (a new one per slot and call made every frame cost)", () => {
    const require = createRequire(import.meta.url);
    const root = nodePath.dirname(require.resolve('fengari/package.json'));
    for (const file of ['ldo.js', 'lvm.js', 'lapi.js', 'ldebug.js', 'ltm.js', 'lparser.js']) {
      const loaded = require.cache[nodePath.join(root, 'src', file)];
      expect(loaded, file).toBeDefined();
      const code = Object.values(loaded!.exports as Record<string, unknown>).filter((f) => typeof f === 'function').map(String).join('\n');
      expect(code, file).not.toMatch(STACK_DELETE);
    }
    const ldo = require.cache[nodePath.join(root, 'src', 'ldo.js')]!.exports as Record<string, unknown>;
    for (const name of ['adjust_top', 'luaD_inctop', 'luaD_precall']) {
      expect(String(ldo[name]), name).not.toContain(NIL_SLOT);
      expect(String(ldo[name]), name).toContain('o.setnilvalue()');
    }
  });

  it('keeps a closure\'s upvalue its own when the slot it was captured from is reused by later calls', () => {
    const code = `
      local function make(k) local v = k * 2 local function get() return v end local function set(x) v = x end return get, set end
      local function churn(n) local a, b, c, d, e = n, n, n, n, n if n > 0 then return churn(n - 1) + a end return 0 end
      local g1, s1 = make(1)
      churn(30)
      local g2 = make(5)
      churn(30)
      s1(7)
      local co = coroutine.wrap(function(x) local y = x local f = function() return y end coroutine.yield(f) y = y + 1 return f() end)
      local f = co(40)
      churn(30)
      local ok, e = pcall(function() local z = 9 local h = function() return z end churn(10) error(h, 0) end)
      churn(30)
      local mt = setmetatable({}, { __index = function(_, key) local tmp = { key } churn(5) return tmp[1] .. "!" end })
      local t = {}
      for i = 1, 3 do local w = i t[i] = function() return w + churn(2) end end
      return { g1(), g2(), f(), co(), e(), mt.key, mt[1], t[1](), t[3](), select("#", churn(3), nil, nil) }`;
    expect(run(code)).toEqual([7, 10, 40, 41, 9, 'key!', '1!', 4, 6, 3]);
  });

  it('makes a table\'s map of removed keys at its first removal, and a traversal that removes keys goes on as before', () => {
    const require = createRequire(import.meta.url);
    const root = nodePath.dirname(require.resolve('fengari/package.json'));
    const ltable = require.cache[nodePath.join(root, 'src', 'ltable.js')]!.exports as Record<string, unknown>;
    const code = Object.values(ltable).filter((f) => typeof f === 'function').map(String).join('\n');
    for (const text of DEAD_KEYS_EAGER) expect(code).not.toContain(text);
    const L = lauxlib.luaL_newstate();
    const t = (ltable.luaH_new as (L: unknown) => { dead_strong: unknown })(L);
    expect(t.dead_strong).toBeUndefined();
    const script = `
      local t = {}
      for i = 1, 20 do t["k" .. i] = i t[i] = i end
      local seen = 0
      for k in pairs(t) do seen = seen + 1 t[k] = nil end
      local u = { a = 1, b = 2, c = 3 }
      local first = next(u)
      u[first] = nil
      local after, n = next(u, first), 0
      for _ in pairs(u) do n = n + 1 end
      u.d = 4
      local ok = pcall(next, u, first)
      return { seen, next(t) == nil, after ~= nil and after ~= first, n, ok }`;
    expect(run(script)).toEqual([40, true, true, 2, false]);
  });

  it('reuses finished CallInfos: continuations, errors unwound, tracebacks and deep calls read their own frame', () => {
    const require = createRequire(import.meta.url);
    const lstate = require.cache[nodePath.join(nodePath.dirname(require.resolve('fengari/package.json')), 'src', 'lstate.js')]!.exports as { luaE_extendCI: unknown };
    expect(String(lstate.luaE_extendCI)).not.toContain(CALLINFO_NEW);
    const code = `
      local function deep(n) if n == 0 then return 0 end return 1 + deep(n - 1) end
      local co = coroutine.create(function(a)
        local ok, v = pcall(function() local x = coroutine.yield(a + 1) deep(20) return x * 2 end)
        local ok2, e2 = pcall(function() deep(5) coroutine.yield("in") error("after yield", 0) end)
        return ok, v, ok2, e2
      end)
      local r1 = { coroutine.resume(co, 1) }
      deep(50)
      local r2 = { coroutine.resume(co, 21) }
      local r3 = { coroutine.resume(co) }
      local function thrower(n) if n == 0 then error("down", 0) end thrower(n - 1) end
      local okt, et = pcall(thrower, 10)
      local sum = deep(30)
      local trace
      xpcall(function() local function named_inner() error("x") end named_inner() end, function(m) trace = debug and debug.traceback(m) or m end)
      return { r1[2], r2[2], r3[2], r3[3], r3[4], r3[5], okt, et, sum, deep(3), type(trace) }`;
    expect(run(code)).toEqual([2, 'in', true, 42, false, 'after yield', false, 'down', 30, 3, 'string']);
  });

  it('clearDeadSlots drops what the slots above the top still hold, and nothing below it', () => {
    const L = lauxlib.luaL_newstate();
    lualib.luaL_openlibs(L);
    expect(lauxlib.luaL_dostring(L, to_luastring('local function f(n) local t = { n } if n > 0 then return f(n - 1) end return #t end return f(20)'))).toBe(0);
    const thread = L as unknown as { stack: unknown[]; top: number };
    const top = thread.top;
    expect(thread.stack.slice(top).some((slot) => slot !== undefined)).toBe(true);
    clearDeadSlots(L);
    expect(thread.stack.slice(top).every((slot) => slot === undefined)).toBe(true);
    expect(lua.lua_tointeger(L, -1)).toBe(1);
  });

  it('keeps what slots held where Lua can see it: upvalues of returned frames, varargs, results, errors unwound', () => {
    const code = `
      local function counter() local n = 0 return function() n = n + 1 return n end end
      local a, b = counter(), counter()
      a() a()
      local function pack(...) return select("#", ...), ... end
      local function deep(k) if k == 0 then return 0 end local x = k return deep(k - 1) + x end
      local ok, err = pcall(function() local big = { 1, 2, 3 } error("e" .. #big, 0) end)
      local closures = {}
      for i = 1, 3 do local v = i * 10 closures[i] = function() return v end end
      local n, p, q, r = pack(1, nil, 3)
      return { a(), b(), n, p, q == nil, r, deep(50), ok, err, closures[1](), closures[3]() }`;
    expect(run(code)).toEqual([3, 1, 3, 1, true, 3, 1275, false, 'e3', 10, 30]);
  });

  it('a function expression makes a new closure each time it is evaluated (5.4 has no closure cache)', () => {
    expect(run('local t = {} for i = 1, 2 do t[i] = function() end end return t[1] == t[2]')).toBe(false);
    expect(run('local function f() return function() return 1 end end return f() == f()')).toBe(false);
    const require = createRequire(import.meta.url);
    const lvm = require.cache[nodePath.join(nodePath.dirname(require.resolve('fengari/package.json')), 'src', 'lvm.js')]!.exports as { luaV_execute: unknown };
    expect(String(lvm.luaV_execute)).not.toContain(CLOSURE_CACHE[0]);
    expect(String(lvm.luaV_execute)).toContain('let ncl = null;');
  });

  it('sees every big string as it is made, charged by size: a doubling loop of .. ends on the budget', () => {
    // 16 doublings of 64 KiB make 4 GiB of copies in a few hundred instructions: only the string hook charges them
    expect(() => run('local s = ("x"):rep(65536) for i = 1, 16 do s = s .. s end return #s', 1e6)).toThrow(/budget$/);
  });
});
