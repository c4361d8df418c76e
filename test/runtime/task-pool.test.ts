import { describe, expect, it } from 'vitest';
import { runPool, taskOrder, type PoolClock } from '../../src/runtime/task-pool.ts';
import { ScriptedAi } from '../../src/runtime/ai.ts';
import { AgentRunError } from '../../src/runtime/simulator.ts';
import { runLua } from '../helpers/lua.ts';

/** runs tasks whose durations are given, on a virtual clock */
function schedule(durations: number[], concurrency: number | undefined) {
  const clock: PoolClock = { now: 0 };
  const order: number[] = [];
  const pool = runPool(durations.length, concurrency, clock, (i) => {
    order.push(i);
    clock.now += durations[i];
    return `out${i + 1}`;
  });
  return { ...pool, order, now: clock.now };
}

describe('task pool (AIPack run_tasks)', () => {
  it('starts inputs in order with at most N in flight, the next one when the earliest place frees up', () => {
    const r = schedule([300, 100, 100, 100], 2);
    expect(r.order).toEqual([0, 1, 2, 3]);
    expect(r.slots.map((s) => [s.start, s.end])).toEqual([[0, 300], [0, 100], [100, 200], [200, 300]]);
    expect(r.outputs).toEqual(['out1', 'out2', 'out3', 'out4']);
    expect(r.end).toBe(300);
    expect(r.now).toBe(300);
  });

  it('four equal tasks take one duration at concurrency 4 and four at 1 (0 and unset act as 1)', () => {
    expect(schedule([200, 200, 200, 200], 4).end).toBe(200);
    expect(schedule([200, 200, 200, 200], 1).end).toBe(800);
    expect(schedule([200, 200], 0).end).toBe(400);
    expect(schedule([200, 200], undefined).end).toBe(400);
  });

  it('a failing task stops the pool: no later input starts, and the error is the one raised', () => {
    const clock: PoolClock = { now: 0 };
    const started: number[] = [];
    expect(() =>
      runPool(4, 4, clock, (i) => {
        started.push(i);
        if (i === 1) throw new Error('task 2 failed');
        return i;
      }),
    ).toThrowError('task 2 failed');
    expect(started).toEqual([0, 1]);
  });
});

const WORKER = [
  '# Data',
  '```lua',
  'return { n = input }',
  '```',
  '# Instruction',
  'Task {{data.n}}',
  '# Output',
  '```lua',
  'if input == "bad" then error("input bad fails") end',
  'return "done " .. tostring(input)',
  '```',
].join('\n');

function group(concurrency: number, inputs: string[], extra: { latency?: number; allow?: boolean; version?: string } = {}) {
  const ai = ScriptedAi.fromList([{ match: 'Task', content: 'ok', reusable: true }]);
  const options = `{ input_concurrency = ${concurrency}${extra.allow ? ', allow_run_on_task_fail = true' : ''} }`;
  return runLua(`return aip.agent.run("w.aip", { inputs = ${JSON.stringify(inputs).replace('[', '{').replace(/]$/, '}')}, options = ${options} }).outputs`, {
    ai,
    files: { 'w.aip': WORKER },
    simulatedLatencyMs: extra.latency,
    aipackVersion: extra.version,
  });
}

describe('input_concurrency in the simulator', () => {
  it('a run of 4 inputs at concurrency 4 takes one model latency on the virtual clock, at 1 four', () => {
    const four = group(4, ['a', 'b', 'c', 'd'], { latency: 200 });
    expect(four.value).toEqual(['done a', 'done b', 'done c', 'done d']);
    expect(four.sim.virtualMs).toBe(200);
    expect(group(1, ['a', 'b', 'c', 'd'], { latency: 200 }).sim.virtualMs).toBe(800);
    expect(group(2, ['a', 'b', 'c', 'd'], { latency: 200 }).sim.virtualMs).toBe(400);
  });

  it('records the schedule: concurrency and each task start/end', () => {
    const { sim } = group(3, ['a', 'b', 'c', 'd'], { latency: 200 });
    const tasks = sim.trace.of('tasks').find((e) => e.agent === 'w.aip');
    expect(tasks?.concurrency).toBe(3);
    expect(tasks?.slots.map((s) => [s.num, s.start, s.end])).toEqual([[1, 0, 200], [2, 0, 200], [3, 0, 200], [4, 200, 400]]);
  });

  it('a failed input fails the run and no later input starts; allow_run_on_task_fail keeps the others', () => {
    let err: unknown;
    try {
      group(4, ['a', 'bad', 'c'], { version: '0.8.18' });
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(AgentRunError);
    expect((err as Error).message).toContain('input bad fails');
    const allowed = group(4, ['a', 'bad', 'c'], { allow: true, version: '0.8.18' });
    const outs = allowed.value as unknown[];
    expect(outs[0]).toBe('done a');
    expect((outs[1] as { error: string }).error).toContain('input bad fails');
    expect(outs[2]).toBe('done c');
  });

  it('warns that nested runs in concurrent inputs could freeze AIPack before 0.8.17, not from 0.8.17', () => {
    const nested = (version: string) => {
      const files = {
        'outer.aip': '# Data\n\n```lua\nreturn aip.agent.run("inner.aip").after_all\n```\n',
        'inner.aip': '# After All\n\n```lua\nreturn 1\n```\n',
      };
      const { sim } = runLua('return aip.agent.run("outer.aip", { inputs = {1, 2}, options = { input_concurrency = 2 } }).outputs', { files, aipackVersion: version });
      return sim.trace.of('note').filter((n) => n.topic === 'warning').map((n) => String(n.data));
    };
    expect(nested('0.8.15')[0]).toMatch(/inside a task of a run with input_concurrency > 1 can freeze AIPack before 0\.8\.17/);
    expect(nested('0.8.17')).toEqual([]);
  });
});

describe('taskOrder: the order a run\'s tasks run in', () => {
  it('runs the tasks in the given order and keeps the outputs in input order', () => {
    const files = { 'w.aip': '# Output\n\n```lua\nlocal prev = aip.path.exists("log.txt") and aip.file.load("log.txt").content or ""\naip.file.save("log.txt", prev .. input)\nreturn input\n```\n' };
    const run = (order?: number[]) =>
      runLua('local r = aip.agent.run("w.aip", { inputs = {"a", "b", "c"} })\nreturn { outs = r.outputs, log = aip.file.load("log.txt").content }', {
        files,
        taskOrder: (agent, count) => (agent === 'w.aip' && count === 3 ? order : undefined),
      }).value;
    expect(run()).toEqual({ outs: ['a', 'b', 'c'], log: 'abc' });
    expect(run([2, 0, 1])).toEqual({ outs: ['a', 'b', 'c'], log: 'cab' });
    // not a permutation: input order
    expect(run([0, 0, 1])).toEqual({ outs: ['a', 'b', 'c'], log: 'abc' });
  });
});

describe('taskOrder', () => {
  it('takes an order that is a permutation of the tasks, and keeps input order otherwise', () => {
    expect(taskOrder([2, 0, 1], 3)).toEqual([2, 0, 1]);
    expect(taskOrder(undefined, 3)).toEqual([0, 1, 2]);
    expect(taskOrder([0, 0, 1], 3)).toEqual([0, 1, 2]);
    expect(taskOrder([1, 0], 3)).toEqual([0, 1, 2]);
  });
});
