/**
 * In-VM limits, on the engine of the vitest project (both engines run this file): one instruction budget and one
 * memory cap per run tree, charged inside message handlers, coroutines and big library calls
 * (docs/sandbox.md). Each runaway must stop with its clear error, in seconds.
 */
import { describe, expect, it } from 'vitest';
import { runLua } from '../helpers/lua.ts';
import { ENGINE_NAME } from '../helpers/engine.ts';
import { createOverlayVfs } from '../../src/runtime/vfs.ts';
import { Simulator, type SimulatorOptions } from '../../src/runtime/simulator.ts';

const WS = '/virtual/limits-ws';
const afterAll = (code: string) => `# After All\n\n\`\`\`lua\n${code}\n\`\`\`\n`;

/** A simulator over a virtual workspace whose snippet.aip runs `code` as its After All, beside `files`. */
function snippetSim(code: string, files: Record<string, string> = {}, opts: Partial<SimulatorOptions> = {}) {
  const vfs = createOverlayVfs(WS, { files: { 'snippet.aip': afterAll(code), ...files } });
  return new Simulator({ workspaceDir: WS, vfs, ...opts });
}

const BUDGET = /instruction budget exceeded in snippet\.aip AfterAll/;
const MEMORY = /memory limit exceeded in snippet\.aip AfterAll/;

const fails = (code: string, opts: Parameters<typeof runLua>[1] = {}) => {
  try {
    runLua(code, { budget: 2_000_000, ...opts });
  } catch (err) {
    return (err as Error).message;
  }
  throw new Error('the run did not fail');
};

describe(`budget (${ENGINE_NAME})`, () => {
  it('counts inside an xpcall message handler, whether the error came from error() or from the budget', () => {
    expect(fails('xpcall(error, function() while true do end end) return 1')).toMatch(BUDGET);
    expect(fails('xpcall(function() while true do end end, function() while true do end end) return 1')).toMatch(BUDGET);
    expect(fails('while true do xpcall(function() while true do end end, function(m) return m end) end')).toMatch(BUDGET);
  });

  it('counts in every coroutine, swallowed errors and yield loops included', () => {
    expect(fails('local co = coroutine.wrap(function() while true do coroutine.yield() end end) while true do co() end')).toMatch(BUDGET);
    expect(fails('while true do coroutine.resume(coroutine.create(function() while true do end end)) end')).toMatch(BUDGET);
    expect(fails('coroutine.wrap(function() while true do pcall(function() while true do end end) end end)()')).toMatch(BUDGET);
  });

  it('is one budget for the run tree: an agent calling itself under pcall does not multiply it', () => {
    const self = '# After All\n\n```lua\nfor i = 1, 3 do pcall(aip.agent.run, "self.aip") end\nreturn 1\n```\n';
    const sim = snippetSim('for i = 1, 3 do pcall(aip.agent.run, "self.aip") end return 1', { 'self.aip': self }, { budget: 1_000_000 });
    // the tree is spent once the budget is hit: the callers' pcalls re-raise it up to the top, naming the culprit
    expect(() => sim.run({ name: 'snippet.aip', baseDir: WS })).toThrow(/instruction budget exceeded in self\.aip AfterAll/);
    // without a shared budget this tree makes 9841 runs (3^8 + ... under the depth limit)
    expect(sim.trace.of('agent_start').length).toBeLessThan(100);
    expect(sim.trace.of('agent_end').some((e) => /instruction budget exceeded in self\.aip AfterAll/.test(e.reason ?? ''))).toBe(true);
  });

  it('charges big string library calls by size and refuses huge repeats', () => {
    expect(fails('local s = ("x"):rep(16 * 1024 * 1024) for i = 1, 100000 do s:upper() end')).toMatch(BUDGET);
    expect(fails('local s = ("ab"):rep(4 * 1024 * 1024) for i = 1, 100000 do local _ = s:find("b", 1, true) .. s:lower() end')).toMatch(BUDGET);
    expect(fails('local t = {} for i = 1, 64 do t[i] = ("x"):rep(65536) end while true do table.concat(t) end')).toMatch(BUDGET);
    expect(fails('return string.rep("x", 2^30)')).toMatch(/resulting string too large/);
    // rep coerces its arguments: the cap holds for a numeric-string count and a number subject too
    expect(fails('return string.rep("x", "20000000")')).toMatch(/resulting string too large/);
    expect(fails('return string.rep(1234567890, 2000000)')).toMatch(/resulting string too large/);
    expect(fails('return string.rep("x", 9000000, 1)')).toMatch(/resulting string too large/);
  });
});

describe(`memory cap (${ENGINE_NAME})`, () => {
  const opts = { memoryMax: 64 * 1024 * 1024, budget: 1e9 };

  it('ends a run whose strings outgrow the cap, even under pcall', () => {
    expect(fails('local s = ("x"):rep(1024 * 1024) while true do s = s .. s end', opts)).toMatch(MEMORY);
    expect(fails('local s = ("x"):rep(1024 * 1024) while true do pcall(function() s = s .. s end) end', opts)).toMatch(MEMORY);
    expect(fails('local t, s = {}, ("x"):rep(1024 * 1024) for i = 1, 1e6 do t[i] = s .. i end', opts)).toMatch(MEMORY);
  });

  it('ends a run whose tables outgrow the cap', () => {
    expect(fails('local t = {} for i = 1, 1e9 do t[i] = { i, i, i } end', opts)).toMatch(MEMORY);
  });

  it('lets garbage be collected: a run that makes much more than the cap but holds little passes', () => {
    const { value } = runLua('local n = 0 for i = 1, 200 do local s = ("y"):rep(1024 * 1024) .. i n = n + #s end return n', opts);
    expect(value).toBeGreaterThan(200 * 1024 * 1024);
  });
});
