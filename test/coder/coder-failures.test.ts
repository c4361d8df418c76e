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
    const skipped = expectSkippedUntouched(runCoder('prompts/fail/string'));
    expect(skipped.startsWith(invalid)).toBe(true);
    expect(skipped).toMatch(/string/);
  });

  it('coder_prompts and coder_prompt together are an invalid response', () => {
    const skipped = expectSkippedUntouched(runCoder('prompts/fail/both-prompts'));
    expect(skipped.startsWith(invalid)).toBe(true);
    expect(skipped.slice(invalid.length)).toMatch(/coder_prompts\b.*\bcoder_prompt\b|coder_prompt\b.*\bcoder_prompts\b/);
  });

  it('a bad sub_agents_next entry is an invalid response naming the entry', () => {
    const skipped = expectSkippedUntouched(runCoder('prompts/fail/bad-next'));
    expect(skipped.startsWith(`${invalid}sub_agents_next[2]`)).toBe(true);
    expect(skipped).toContain('someday');
  });
});

describe('a bad sub_agents configuration is rejected before any sub-agent runs (section 1)', () => {
  const cases: { dir: string; entry: number; mentions: string[] }[] = [
    { dir: 'entry-stage', entry: 2, mentions: ['stages', 'later'] },
    { dir: 'entry-enabled', entry: 3, mentions: ['enabled'] },
    { dir: 'entry-number', entry: 2, mentions: ['number'] },
    { dir: 'entry-empty-name', entry: 2, mentions: ['name'] },
    { dir: 'entry-no-name', entry: 2, mentions: ['name'] },
    { dir: 'entry-no-stages', entry: 2, mentions: ['stages'] },
    { dir: 'entry-options', entry: 2, mentions: ['options'] },
  ];
  it.each(cases)('prompts/fail/$dir: sub_agents[$entry]', ({ dir, entry, mentions }) => {
    const run = runCoder(`prompts/fail/${dir}`);
    const skipped = expectSkippedUntouched(run);
    expect(skipped.startsWith(`sub_agents[${entry}]: `)).toBe(true);
    for (const word of mentions) expect(skipped).toContain(word);
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
    expect(run.error?.message).toContain(`Sub-agent [${REPLY}] failed: task two is out of scope`);
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
    expect(run.error?.message).toContain(
      `Sub-agent [${REPLY}] failed: the review rejected the change\nDetails: greet must keep its exclamation mark`,
    );
    expect(run.ai).toHaveLength(1);
    expect(run.ai[0]!.response).toContain('<AIP_FILE_CHANGE file_path="src/greet.ts">');
    expect(run.file('src/greet.ts')).toBe(run.original('src/greet.ts'));
    expect(run.file(run.promptFile)).toBe(run.original(run.promptFile));
    expect(run.touched()).toEqual([]);
  });

  it('post: the run fails after the changes were applied, which stay, and the message says they were kept', () => {
    const run = runCoder('prompts/fail/post');
    const message = run.error?.message ?? '';
    expect(message).toContain(`Sub-agent [${REPLY}] failed: could not open a pull request`);
    expect(message).toMatch(/kept/i);
    expect(callsIn(run, 'post')).toHaveLength(1);
    expect(run.file('src/greet.ts')).toBe('export function greet(name: string): string {\n  return `Hi, ${name}.`;\n}\n');
    expect(belowSeparator(run.file(run.promptFile)!)).toContain('Changed the greeting.');
  });
});

describe('the 100-step cap of a stage run (section 3)', () => {
  it('stops a sub-agent that keeps putting itself back with sub_agents_next', () => {
    const run = runCoder('prompts/step-cap');
    expect(run.error?.message).toContain('Sub-agent pipeline exceeded 100 steps in stage pre_task');
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
