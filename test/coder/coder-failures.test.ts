/**
 * End-to-end: every failure of the sub_agents contract (pack/SUB_AGENTS.md sections 1, 3 and 4) in the built coder
 * pack, and where it surfaces: `pre` skips the run (prompt file left as it was), `pre_task`/`post_task` fail the
 * run with no file of that task written, `post` fails after the changes were applied and says they were kept.
 * Fixture: fixtures/coder/pipeline (prompts/fail/<case>/, sub-agents in my-agents/).
 */
import { describe, expect, it } from 'vitest';
import nodePath from 'node:path';
import { belowSeparator, callsIn, completed, DEFAULT_PROMPT, runCoder, WS, type CoderRun } from '../helpers/coder.ts';

const REPLY = 'my-agents/reply.aip';

/** The run was skipped by Before All before anything was written or sent to the model. */
function expectSkippedUntouched(run: CoderRun): string {
  expect(run.error).toBeUndefined();
  expect(run.outcome?.skipped).toBeDefined();
  expect(run.ai).toEqual([]);
  expect(run.file(run.promptFile)).toBe(run.original(run.promptFile));
  expect(run.touched()).toEqual([]);
  return run.outcome!.skipped!;
}

describe('response failures in pre skip the run with the contract message (section 4)', () => {
  const cases: { dir: string; message: string }[] = [
    { dir: 'success-false', message: `Sub-agent [${REPLY}] failed: no error_msg given` },
    { dir: 'success-false-details', message: `Sub-agent [${REPLY}] failed: the plan is incomplete\nDetails: step 3 has no owner` },
    { dir: 'error-msg-only', message: `Sub-agent [${REPLY}] failed: cannot reach the ticket tracker` },
    { dir: 'error-msg-success-true', message: `Sub-agent [${REPLY}] failed: cannot reach the ticket tracker` },
    { dir: 'bad-type', message: `Sub-agent [${REPLY}] returned an invalid response: coder_prompts[2] must be a string, got number` },
    // the name is the configured one ("my-agents/raise", resolved to my-agents/raise.aip); the error is the one
    // aip.agent.run raises, with the Lua error's place in the sub-agent
    {
      dir: 'raise',
      message:
        "Sub-agent [my-agents/raise] failed: Failed to run agent 'my-agents/raise': Lua error:\n" +
        `${nodePath.relative(process.cwd(), WS)}/my-agents/raise.aip:7: attempt to index a nil value (local 'settings')`,
    },
  ];
  it.each(cases)('prompts/fail/$dir', ({ dir, message }) => {
    const run = runCoder(`prompts/fail/${dir}`);
    const skipped = expectSkippedUntouched(run);
    expect(skipped).toBe(message);
  });

  it('a Lua error inside the sub-agent is reported as its failure, with the error text, not as a traceback of the coder', () => {
    const run = runCoder('prompts/fail/raise');
    const skipped = expectSkippedUntouched(run);
    expect(skipped.startsWith('Sub-agent [my-agents/raise] failed: ')).toBe(true);
    expect(skipped).toContain('attempt to index a nil value');
    expect(run.calls.map((c) => c.agent)).toEqual(['my-agents/raise']);
  });

  it('a missing sub-agent is reported by its configured name at Before All, before any sub-agent or model call', () => {
    const run = runCoder('prompts/fail/missing');
    const skipped = expectSkippedUntouched(run);
    expect(skipped).toBe(
      `Sub-agent [my-agents/not-there.aip] not found: ${WS}/my-agents/not-there.aip does not exist (a name is a path from the workspace root; checked before the run, before any model call)`,
    );
    expect(run.calls).toEqual([]);
  });

  const invalid = `Sub-agent [${REPLY}] returned an invalid response: `;
  it('a response that is a string is an invalid response', () => {
    expect(expectSkippedUntouched(runCoder('prompts/fail/string'))).toBe(`${invalid}response must be a table, got string`);
  });

  it('coder_prompts and coder_prompt together are an invalid response', () => {
    expect(expectSkippedUntouched(runCoder('prompts/fail/both-prompts'))).toBe(`${invalid}coder_prompts and coder_prompt cannot both be given`);
  });

  it('a bad sub_agents_next entry is an invalid response naming the entry', () => {
    expect(expectSkippedUntouched(runCoder('prompts/fail/bad-next'))).toBe(
      `${invalid}sub_agents_next[2]: stages must be one of pre, pre_task, post_task, post, got "someday"`,
    );
  });
});

describe('a bad sub_agents configuration is rejected before any sub-agent runs (section 1)', () => {
  // the contract's wording (pack/SUB_AGENTS.md section 1): "sub_agents[<n>]: <path> must be <expected>, got <got>"
  const cases: { dir: string; message: string }[] = [
    { dir: 'entry-stage', message: 'sub_agents[2]: stages[2] must be one of pre, pre_task, post_task, post, got "later"' },
    { dir: 'entry-enabled', message: 'sub_agents[3]: enabled must be a boolean, got string' },
    { dir: 'entry-number', message: 'sub_agents[2]: must be an agent name or a table, got number' },
    { dir: 'entry-empty-name', message: 'sub_agents[2]: name must be a non-empty string, got empty string' },
    { dir: 'entry-no-name', message: 'sub_agents[2]: name must be a non-empty string, got nil' },
    { dir: 'entry-no-stages', message: 'sub_agents[2]: stages must not be empty' },
    { dir: 'entry-options', message: 'sub_agents[2]: options must be a table, got string' },
  ];
  it.each(cases)('prompts/fail/$dir', ({ dir, message }) => {
    const run = runCoder(`prompts/fail/${dir}`);
    expect(expectSkippedUntouched(run)).toBe(message);
    expect(run.calls).toEqual([]);
  });

  it.each(['not-a-list-table', 'not-a-list-string'])('prompts/fail/%s: sub_agents that is not a list', (dir) => {
    const run = runCoder(`prompts/fail/${dir}`);
    expect(expectSkippedUntouched(run)).toBe('sub_agents must be a list of agent names or tables');
    expect(run.calls).toEqual([]);
  });
});

describe('failures in the later stages', () => {
  it('pre_task: the run fails with the message; the failing task sends nothing and writes nothing', () => {
    const run = runCoder('prompts/fail/pre-task');
    // a failure raised by the pack's Lua reaches AIPack as a Lua error: its message is prefixed so
    expect(run.error?.message).toBe(`Lua error:\nSub-agent [${REPLY}] failed: task two is out of scope`);
    // task 1 ran to its end; task 2 failed before its files were loaded
    expect(run.ai.map((a) => a.task)).toEqual([1]);
    expect(callsIn(run, 'pre_task').map((c) => (c.input.coder_task as { num: number }).num)).toEqual([1, 2]);
    expect(run.file('src/math.ts')).toBe(run.original('src/math.ts'));
    expect(run.file('src/greet.ts')).toContain('/** Greets someone by name. */');
    // task 1 answered, but the prompt file is only rewritten once every task has succeeded
    expect(run.file(run.promptFile)).toBe(run.original(run.promptFile));
  });

  it('post_task: the run fails with the message and details; no file is written and the prompt file is left as it was', () => {
    const run = runCoder('prompts/fail/post-task');
    expect(run.error?.message).toBe(
      `Lua error:\nSub-agent [${REPLY}] failed: the review rejected the change\nDetails: greet must keep its exclamation mark`,
    );
    expect(run.ai).toHaveLength(1);
    expect(run.ai[0]!.response).toContain('<AIP_FILE_CHANGE file_path="src/greet.ts">');
    expect(run.file('src/greet.ts')).toBe(run.original('src/greet.ts'));
    expect(run.file(run.promptFile)).toBe(run.original(run.promptFile));
    expect(run.touched()).toEqual([]);
  });

  it('post: the run fails after the changes were applied, which stay, and the message says they were kept', () => {
    const run = runCoder('prompts/fail/post');
    expect(run.error?.message).toBe(
      `Lua error:\nSub-agent [${REPLY}] failed: could not open a pull request\nFile changes already applied by the tasks were kept (no rollback).`,
    );
    expect(callsIn(run, 'post')).toHaveLength(1);
    expect(run.file('src/greet.ts')).toBe('export function greet(name: string): string {\n  return `Hi, ${name}.`;\n}\n');
    expect(belowSeparator(run.file(run.promptFile)!)).toContain('Changed the greeting.');
  });
});

describe('the 100-step cap of a stage run (section 3)', () => {
  it('stops a sub-agent that keeps putting itself back with sub_agents_next', () => {
    const run = runCoder('prompts/step-cap');
    expect(run.error?.message).toBe('Lua error:\nSub-agent pipeline exceeded 100 steps in stage pre_task');
    expect(run.calls).toHaveLength(100);
    expect(run.calls.every((c) => c.agent === 'my-agents/loop.aip' && c.stage === 'pre_task')).toBe(true);
    expect(run.ai).toEqual([]);
    expect(run.file(run.promptFile)).toBe(run.original(run.promptFile));
    expect(run.touched()).toEqual([]);
  });
});

describe('the AIPack version gate (section 4)', () => {
  it('skips a run with sub-agents on AIPack 0.8.14', () => {
    const run = runCoder('prompts/inputs', { aipackVersion: '0.8.14' });
    expect(expectSkippedUntouched(run)).toBe('Sub-agents require AIPack 0.8.15 or above (current: 0.8.14)');
    expect(run.calls).toEqual([]);
  });

  it('runs a prompt without sub_agents on AIPack 0.8.14', () => {
    const run = runCoder(undefined, { aipackVersion: '0.8.14' });
    completed(run);
    expect(run.promptFile).toBe(DEFAULT_PROMPT);
    expect(run.ai).toHaveLength(1);
  });

  it('runs a prompt with an empty sub_agents list on AIPack 0.8.14 (nothing is configured)', () => {
    const run = runCoder('prompts/empty-list', { aipackVersion: '0.8.14' });
    completed(run);
    expect(run.calls).toEqual([]);
    expect(run.ai).toHaveLength(1);
  });
});
