/**
 * End-to-end: parallel groups in the built coder pack (fixtures/coder/parallel), on the simulator: fan-out from one
 * starting state, fan-in in member order, failures member by member, conflicts and rewrites rejected naming the
 * members, and groups that are wrong rejected before anything runs.
 */
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { completed, runCoder, type CoderRun } from '../helpers/coder.ts';

const WS = fileURLToPath(new URL('../../fixtures/coder/parallel', import.meta.url)).replace(/[\\/]$/, '');
const run = (scenario: string, aipackVersion = '0.8.17'): CoderRun => runCoder(`prompts/${scenario}`, { workspace: WS, aipackVersion });
const allPrints = (r: CoderRun) => r.sim.trace.of('print').map((e) => e.text);
const history = (r: CoderRun) => allPrints(r).find((t) => t.startsWith('HISTORY'))?.split('\n').slice(1);
const members = (r: CoderRun, agent: string) => r.calls.filter((c) => c.agent === agent && c.input.parallel !== undefined);

describe('three post-stage reviewers in a group', () => {
  it('on_error = "continue": the failed reviewer is in the history with its error, the others with their results, the run goes on', () => {
    const r = run('reviewers-continue');
    completed(r);
    expect(history(r)).toEqual([
      'my-agents/review.aip 1/3 security',
      'my-agents/review.aip 2/3 error: Sub-agent [my-agents/review.aip] failed: reviewer tests gave up',
      'my-agents/review.aip 3/3 style',
    ]);
    // one run of the parallel agent at input_concurrency = concurrency, its inputs the members in member order
    const runner = r.calls.filter((c) => c.agent === 'pro@coder/parallel');
    expect(runner).toHaveLength(1);
    const tasks = r.sim.trace.of('tasks').find((e) => e.agent === 'pro@coder/parallel');
    expect(tasks?.concurrency).toBe(3);
    // fan-out: every member got the same starting state and its own place in the group
    const inputs = members(r, 'my-agents/review.aip').map((c) => c.input);
    expect(inputs.map((i) => i.parallel)).toEqual([{ index: 1, size: 3 }, { index: 2, size: 3 }, { index: 3, size: 3 }]);
    for (const i of inputs) {
      expect(i.coder_params).toEqual(inputs[0].coder_params);
      expect(i.sub_agents_prev).toEqual([]);
      expect((i.sub_agents_next as { name: string }[]).map((n) => n.name)).toEqual(['my-agents/history.aip']);
    }
  });

  it('on_error = "fail": the run fails after all members finished, naming the failed member and its cause', () => {
    const r = run('reviewers-fail');
    expect(r.error?.message).toContain(
      'Parallel group [1] failed (1 of 3 members failed):\n- Sub-agent [my-agents/review.aip] failed: reviewer tests gave up',
    );
    // every member ran: the failure is reported after the group, not at the first failed member
    expect(members(r, 'my-agents/review.aip')).toHaveLength(3);
  });
});

describe('two pre-stage members changing params', () => {
  it('different params: both changes are combined, in one step', () => {
    const r = run('params-combined');
    completed(r);
    const after = r.calls.find((c) => c.agent === 'my-agents/history.aip')!;
    expect(after.input.coder_params).toMatchObject({ model: 'model-fast', temperature: 0.2, context_globs: ['src/app.ts'] });
    expect(history(r)).toEqual(['my-agents/set-param.aip 1/2 model', 'my-agents/set-param.aip 2/2 temperature']);
    // the coder used the combined params
    expect(r.ai[0].model).toBe('model-fast');
  });

  it('the same param to different values: the run does not start, the message names both members and the key', () => {
    const r = run('params-conflict');
    expect(r.outcome?.skipped).toBe('Parallel group [2]: my-agents/set-param.aip and my-agents/set-param.aip both change coder_params.model');
    expect(r.ai).toEqual([]);
    expect(r.touched()).toEqual([]);
  });
});

describe('rejections', () => {
  it('a member returning sub_agents_next is rejected, naming it', () => {
    const r = run('next-rejected');
    expect(r.outcome?.skipped).toBe(
      'Parallel group [1]: Sub-agent [my-agents/next.aip] returned sub_agents_next, which a member of a parallel group cannot do (a group cannot rewrite the pipeline)',
    );
  });

  it('a group inside a group is rejected before any sub-agent runs, naming the entry', () => {
    const r = run('nested-group');
    expect(r.outcome?.skipped).toBe('sub_agents[2]: parallel[2]: a parallel group cannot contain another group');
    expect(r.calls).toEqual([]);
  });
});

describe('at pre_task, and on AIPack before 0.8.17', () => {
  it('a group runs per task with the task in every member input; the next entry sees both members', () => {
    const r = run('pre-task-group');
    completed(r);
    const inputs = r.calls.filter((c) => c.stage === 'pre_task' && c.input.parallel !== undefined).map((c) => c.input);
    expect(inputs).toHaveLength(2);
    for (const i of inputs) expect(i.coder_task).toMatchObject({ num: 1, count: 1 });
    expect(history(r)).toEqual(['my-agents/set-param.aip 1/2 temperature', 'my-agents/review.aip 2/2 style']);
  });

  it('before 0.8.17 the members run one at a time and the pack says so', () => {
    const r = run('params-combined', '0.8.15');
    completed(r);
    expect(r.prints).toContain(
      'WARNING: Parallel group [1]: AIPack 0.8.15 can freeze on nested runs in concurrent inputs (fixed in 0.8.17), so its 2 members run one at a time',
    );
    expect(r.sim.trace.of('tasks').find((e) => e.agent === 'pro@coder/parallel')?.concurrency).toBe(1);
  });
});
