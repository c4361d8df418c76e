// Runaway loops of every shape stop on the instruction budget. Each runs in a worker under a 10 s deadline, so a
// regression of the budget hook fails here in seconds instead of hanging `npm test` (vitest cannot interrupt
// synchronous Lua).
import { afterAll as after, beforeAll, describe, expect, it, vi } from 'vitest';
import { simulateInWorker } from '../../src/cli/simulate.ts';
import { afterAll, arena, type Arena } from './helpers.ts';
import { HANG_GUARD_MS, HANG_TEST_MS } from '../helpers/hang-guard.ts';

vi.setConfig({ testTimeout: HANG_TEST_MS });

let a: Arena;
beforeAll(() => (a = arena()));
after(() => a.cleanup());

const LOOPS: Record<string, string> = {
  'while true': 'while true do end',
  'pcall swallowing the error': 'while true do pcall(function() while true do end end) end',
  'coroutine with pcall': 'coroutine.wrap(function() pcall(error) while true do end end)()',
  'coroutine yield loop': 'local co = coroutine.wrap(function() while true do coroutine.yield() end end) while true do co() end',
  'recursion under pcall': 'local function f() pcall(f) pcall(f) end f()',
  'string.rep growth': 'local s = "x" while true do s = s:rep(2):sub(1, 1000) end',
};

describe('runaway Lua stops on the budget, within the deadline', () => {
  it.each(Object.entries(LOOPS))('%s', async (name, code) => {
    const file = `loop-${Object.keys(LOOPS).indexOf(name)}.aip`;
    a.write(file, afterAll(code));
    const r = await simulateInWorker({ sim: { workspaceDir: a.ws, budget: 2_000_000 }, request: { name: file, baseDir: a.ws } }, { timeoutMs: HANG_GUARD_MS });
    expect(r.error?.message).toMatch(new RegExp(`instruction budget exceeded in ${file.replace('.', '\\.')} AfterAll`));
  });
});

describe('an xpcall handler loop', () => {
  it('is stopped by the budget (counted inside the handler), well before the wall-clock deadline', async () => {
    a.write('xpcall.aip', afterAll('xpcall(error, function() while true do end end)'));
    const run = simulateInWorker({ sim: { workspaceDir: a.ws, budget: 2_000_000 }, request: { name: 'xpcall.aip', baseDir: a.ws } }, { timeoutMs: HANG_GUARD_MS });
    const outcome = await run.then(
      (r) => r.error?.message ?? 'completed',
      (err: Error) => err.message,
    );
    expect(outcome).toMatch(/instruction budget exceeded in xpcall\.aip AfterAll/);
  });
});
