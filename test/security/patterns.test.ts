// Pattern backtracking: a pattern whose worst case is huge runs on the step-counting matcher
// (src/engine/pattern.ts) and stops on the run tree's budget, whatever string function or form calls it. Each runs
// in a worker under a 10 s deadline, so a regression fails here instead of hanging the suite.
import { afterAll as after, beforeAll, describe, expect, it, vi } from 'vitest';
import { simulateInWorker } from '../../src/cli/simulate.ts';
import { afterAll, arena, type Arena } from './helpers.ts';
import { HANG_GUARD_MS, HANG_TEST_MS } from '../helpers/hang-guard.ts';

vi.setConfig({ testTimeout: HANG_TEST_MS });

let a: Arena;
beforeAll(() => (a = arena()));
after(() => a.cleanup());

const S = 'local s = ("a"):rep(5000)';
const ATTACKS: Record<string, string> = {
  'string.find': `${S} return string.find(s, ".-.-.-.-.-b")`,
  's:find method form': `${S} return s:find(".-.-.-.-.-b")`,
  'string.match': `${S} return s:match("(.-)(.-)(.-)(.-)b")`,
  'string.gmatch': `${S} for x in s:gmatch(".-.-.-.-b") do end`,
  'string.gsub with a string': `${S} return (s:gsub("a*a*a*a*b", "x"))`,
  'string.gsub with a function': `${S} return (s:gsub(".-.-.-b", function(x) return x end))`,
  'string.gsub with a table': `${S} return (s:gsub("(.-)(.-)b", {}))`,
  'exponential optionals on a short subject': `return (string.rep("a", 40)):find(string.rep("a?", 40) .. string.rep("a", 40) .. "b")`,
};

describe('pattern backtracking stops on the budget', () => {
  it.each(Object.entries(ATTACKS))('%s', async (name, code) => {
    const file = `pattern-${Object.keys(ATTACKS).indexOf(name)}.aip`;
    a.write(file, afterAll(code));
    const r = await simulateInWorker({ sim: { workspaceDir: a.ws, budget: 20_000_000 }, request: { name: file, baseDir: a.ws } }, { timeoutMs: HANG_GUARD_MS });
    expect(r.error?.message).toMatch(new RegExp(`instruction budget exceeded in ${file.replace('.', '\\.')} AfterAll`));
  });

  it('with the default budget, the original attack stops within the deadline', async () => {
    a.write('default.aip', afterAll(ATTACKS['string.find'] as string));
    const r = await simulateInWorker({ sim: { workspaceDir: a.ws }, request: { name: 'default.aip', baseDir: a.ws } }, { timeoutMs: HANG_GUARD_MS });
    expect(r.error?.message).toMatch(/instruction budget exceeded in default\.aip AfterAll/);
  });

  it('a plain find of a long needle (naive search: 8e12 byte compares) is a linear search', async () => {
    a.write('plain.aip', afterAll('local s = ("a"):rep(4000000) return tostring(s:find(("a"):rep(2000000) .. "b", 1, true))'));
    const r = await simulateInWorker({ sim: { workspaceDir: a.ws }, request: { name: 'plain.aip', baseDir: a.ws } }, { timeoutMs: HANG_GUARD_MS });
    expect(r.error).toBeUndefined();
    expect(r.outcome?.afterAll).toBe('nil');
  });

  it('ordinary pattern work on big strings still completes', async () => {
    const code = `local s = ("word, other; "):rep(20000)
      local n = select(2, s:gsub("%s+", " ")) local c = 0 for w in s:gmatch("%a+") do c = c + 1 end
      return n + c + #s:match("^%s*(.-)%s*$") + s:find("other;", 1, true)`;
    a.write('ok.aip', afterAll(code));
    const r = await simulateInWorker({ sim: { workspaceDir: a.ws }, request: { name: 'ok.aip', baseDir: a.ws } }, { timeoutMs: HANG_GUARD_MS });
    expect(r.error).toBeUndefined();
    expect(r.outcome?.afterAll).toBe(20000 + 40000 + 20000 * 14 - 1 + 7);
  });
});
