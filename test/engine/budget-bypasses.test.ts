/**
 * Work that runs in one instruction (C or JS library loops, the `..` operator, finalizers, a sub-run caught by
 * pcall) is charged or refused, so a run with no deadline still ends on its budget or memory cap. Each attack runs
 * in a worker with no in-VM deadline (the worker's own deadline only catches a regression: synchronous Lua cannot
 * be interrupted otherwise), on the engine of the vitest project.
 */
import fs from 'node:fs';
import os from 'node:os';
import nodePath from 'node:path';
import { afterAll as after, beforeAll, describe, expect, it, vi } from 'vitest';
import { simulateInWorker } from '../../src/cli/simulate.ts';
import { createOverlayVfs } from '../../src/runtime/vfs.ts';
import { Simulator } from '../../src/runtime/simulator.ts';
import { DEFAULT_RUN_TIMEOUT_MS } from '../../src/engine/limits.ts';
import { ENGINE_NAME } from '../helpers/engine.ts';
import { HANG_GUARD_MS, HANG_TEST_MS } from '../helpers/hang-guard.ts';

/** only catches a regression (a hang); on an idle machine each attack ends in 1-3 s (`/usr/bin/time` figures) */
const DEADLINE_MS = HANG_GUARD_MS;
vi.setConfig({ testTimeout: HANG_TEST_MS });
const afterAll = (code: string) => `# After All\n\n\`\`\`lua\n${code}\n\`\`\`\n`;
const BUDGET = /instruction budget exceeded in (attack|child)\.aip AfterAll/;
const MEMORY = /memory limit exceeded in attack\.aip AfterAll/;

let ws: string;
beforeAll(() => {
  ws = fs.realpathSync(fs.mkdtempSync(nodePath.join(os.tmpdir(), 'bypass-')));
  fs.mkdirSync(nodePath.join(ws, '.aipack'));
  fs.writeFileSync(nodePath.join(ws, 'child.aip'), afterAll('while true do end'));
});
after(() => fs.rmSync(ws, { recursive: true, force: true }));

async function attack(code: string, budget = 20_000_000): Promise<string> {
  fs.writeFileSync(nodePath.join(ws, 'attack.aip'), afterAll(code));
  const r = await simulateInWorker({ sim: { workspaceDir: ws, budget, engine: ENGINE_NAME }, request: { name: 'attack.aip', baseDir: ws } }, { timeoutMs: DEADLINE_MS });
  return r.error?.message ?? `completed: ${JSON.stringify(r.outcome?.afterAll)}`;
}

describe(`budget bypasses end on the budget or the memory cap, with no deadline (${ENGINE_NAME})`, () => {
  it('refuses __gc metamethods (Lua 5.4 runs finalizers with hooks off), however the field is set', async () => {
    const refused = /attack\.aip:\d+: __gc metamethods are not supported in the simulator's sandbox/;
    expect(await attack('setmetatable({}, { __gc = function() while true do end end }) collectgarbage() return "done"')).toMatch(refused);
    expect(await attack('local mt = { __gc = true } setmetatable({}, mt) mt.__gc = function() while true do end end return "done"')).toMatch(refused);
    // a field added after setmetatable marks nothing for finalization (Lua's rule): allowed and never run
    expect(await attack('local mt = {} setmetatable({}, mt) mt.__gc = 1 return "done"')).toBe('completed: "done"');
  });

  const RANGES: Record<string, string> = {
    'table.move': 'table.move({ 1 }, 1, math.maxinteger // 2, 2) return "done"',
    'table.insert': 'local t = {} for i = 1, 20000 do t[i] = i end while true do table.insert(t, 1, 0) end',
    'table.remove': 'local t = {} for i = 1, 20000 do t[i] = i end while true do table.remove(t, 1) t[#t + 1] = 0 end',
    'table.unpack': 'while true do table.unpack({}, 1, 100000) end',
    // a C __index makes any range readable without a Lua instruction
    'table.concat': 'local t = setmetatable({}, { __index = tostring }) while true do table.concat(t, "", 1, 100000) end',
    // a plain table's range runs in chunks, each charged before it runs
    'table.concat (a plain table)': 'local t = {} for i = 1, 100000 do t[i] = "x" end while true do table.concat(t) end',
  };
  it.each(Object.keys(RANGES))('charges %s by the size of its range', async (name) => {
    expect(await attack(RANGES[name])).toMatch(BUDGET);
  });

  // table.sort's n log n comparisons run inside one call; its comparisons are charged as they run
  const SORTS: Record<string, string> = {
    'the default order on numbers': 'local t = {} for i = 1, 5000 do t[i] = (i * 7919) % 5000 end while true do table.sort(t) end',
    'a C comparator (math.ult)': 'local t = {} for i = 1, 5000 do t[i] = (i * 7919) % 5000 end while true do table.sort(t, math.ult) end',
    'a C __lt metamethod (rawget: a[b] is nil, never less)': 'local mt = { __lt = rawget } local t = {} for i = 1, 5000 do t[i] = setmetatable({}, mt) end while true do table.sort(t) end',
    // `<` of two long strings compares their bytes
    'the default order on long strings': 'local s = ("x"):rep(1024 * 1024) local t = {} for i = 1, 64 do t[i] = s end while true do table.sort(t) end',
  };
  it.each(Object.keys(SORTS))('charges table.sort with %s by its comparisons', async (name) => {
    expect(await attack(SORTS[name], 5_000_000)).toMatch(BUDGET);
  });

  // other library loops that ran in one instruction, uncharged
  const LOOPS: Record<string, string> = {
    'string.rep of an empty string by its count (the loop runs though it copies nothing)': 'while true do string.rep("", 1e7) end',
    'utf8.len by the bytes it walks': 'local s = ("x"):rep(16 * 2^20) while true do utf8.len(s) end',
    'utf8.offset by the characters it walks': 'local s = ("x"):rep(16 * 2^20) while true do utf8.offset(s, 16 * 2^20) end',
    'utf8.codepoint by the values it returns': 'local s = ("x"):rep(900000) while true do utf8.codepoint(s, 1, -1) end',
    'string.byte by the values it returns': 'local s = ("x"):rep(900000) while true do string.byte(s, 1, -1) end',
    'string.unpack by the items of its format': 'local f, d = ("b"):rep(200000), ("x"):rep(200000) while true do string.unpack(f, d) end',
    'load by the bytes it compiles': 'local s = ("x = 1 "):rep(200000) while true do load(s) end',
    'load by the bytes its reader gives': 'local n = 0 while true do n = 0 load(function() n = n + 1 if n < 200000 then return "x = 1 " end end) end',
    'tonumber by the bytes it reads': 'local s = ("x"):rep(16 * 2^20) while true do tonumber(s) end',
    'rawequal by the bytes it compares': 'local s = ("x"):rep(16 * 2^20) local u = s:sub(1, -2) .. "x" while true do rawequal(s, u) end',
  };
  it.each(Object.keys(LOOPS))('charges %s', async (name) => {
    expect(await attack(LOOPS[name])).toMatch(BUDGET);
  });

  // Host calls: their arguments and results are converted value by value, out of the hook's sight.
  const HOST: Record<string, string> = {
    'io.write by the bytes it writes (as print)': 'local s = ("x"):rep(1024 * 1024) for i = 1, 20000 do io.write(s) end return "done"',
    'aip.hbs.render by the elements of its data': 'local t = {} for i = 1, 200000 do t[i] = i end for i = 1, 150 do aip.hbs.render("{{x}}", { x = 1, items = t }) end return "done"',
    'aip.json.stringify by its argument and its result, the same each time': 'local t = {} for i = 1, 2000 do t[i] = ("x"):rep(500) end for i = 1, 20000 do aip.json.stringify(t) end return "done"',
    'aip.json.parse by the table it makes': 'local s = "[" .. ("1,"):rep(100000) .. "1]" for i = 1, 2000 do aip.json.parse(s) end return "done"',
    'a string argument by its bytes': 'local s = ("x"):rep(4 * 1024 * 1024) for i = 1, 20000 do aip.text.trim(s) end return "done"',
  };
  it.each(Object.keys(HOST))('charges %s', async (name) => {
    expect(await attack(HOST[name])).toMatch(BUDGET);
  });

  it('charges new big strings by size: the .. operator runs in one instruction', async () => {
    expect(await attack('local s = ("x"):rep(8 * 1024 * 1024) while true do local r = s .. s end')).toMatch(BUDGET);
  });

  it('a limit hit inside pcall(aip.agent.run) spends the whole run tree: the caller cannot go on', async () => {
    expect(await attack('local ok = pcall(aip.agent.run, "child.aip") return "done"')).toMatch(BUDGET);
  });

  it('a spent tree stays spent: a caller that swallows a sub-run\'s limit and loops is stopped too', async () => {
    expect(await attack('for i = 1, 3 do pcall(aip.agent.run, "child.aip") end while true do pcall(error) end')).toMatch(BUDGET);
  });

  const HUGE: Record<string, string> = {
    'a gsub expansion towards 4 GB': 'local s = ("x"):rep(1024 * 1024) return #s:gsub("x", ("y"):rep(4096))',
    'a table.concat of 900 MB': 'local t, s = {}, ("x"):rep(1024 * 1024) for i = 1, 900 do t[i] = s end return #table.concat(t)',
    'a returned table of 900 MB of strings': 'local t = {} for i = 1, 900 do t[i] = ("x"):rep(1024 * 1024 - i) end return t',
  };
  it.each(Object.keys(HUGE))('stops %s on the memory cap', async (name) => {
    expect(await attack(HUGE[name], 1e9)).toMatch(MEMORY);
  });
});

describe('the library has a deadline by default', () => {
  const WS = '/virtual/deadline-ws';
  const sim = (opts: { timeoutMs?: number }) =>
    new Simulator({ workspaceDir: WS, vfs: createOverlayVfs(WS, { files: { 'spin.aip': afterAll('while true do end') } }), budget: 1e15, engine: ENGINE_NAME, ...opts });

  it('stops a run past 60 s of wall clock when no timeout is given (the clock is simulated)', () => {
    let now = Date.now();
    const clock = vi.spyOn(Date, 'now').mockImplementation(() => (now += 1000));
    try {
      expect(() => sim({}).run({ name: 'spin.aip', baseDir: WS })).toThrow(`timed out after ${DEFAULT_RUN_TIMEOUT_MS / 1000} s in spin.aip AfterAll`);
    } finally {
      clock.mockRestore();
    }
  });

  it('takes the caller’s timeout', () => {
    expect(() => sim({ timeoutMs: 300 }).run({ name: 'spin.aip', baseDir: WS })).toThrow(/timed out after 0\.3 s in spin\.aip AfterAll/);
  });
});
