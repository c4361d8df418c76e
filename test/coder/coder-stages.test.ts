/**
 * End-to-end: the built coder pack (pack/main.aip) run in the simulator on fixtures/coder/pipeline, checked
 * against the sub_agents contract (pack/SUB_AGENTS.md): what each stage gives a sub-agent (section 2) and what
 * a sub-agent's response does in each stage (section 3). The fixture sub-agents are in my-agents/, each
 * scenario's prompt file in prompts/<scenario>/, the model's answers in ai.toml.
 */
import { readFileSync } from 'node:fs';
import nodePath from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { REPO_PACK } from '../../src/runtime/packs.ts';
import { belowSeparator, callsIn, completed, runCoder, WS, type CoderRun } from '../helpers/coder.ts';

const RECORD = 'my-agents/record.aip';

describe('stage inputs (pack/SUB_AGENTS.md section 2): prompts/inputs, two tasks, a recorder at every stage', () => {
  const INST = '[scenario: inputs] Add a doc comment to each exported function.';
  const FIRST = {
    name: RECORD,
    enabled: true,
    stages: ['pre', 'pre_task', 'post_task', 'post'],
    tag: 'first',
    options: { temperature: 0.5 },
  };
  const SECOND = { name: RECORD, enabled: true, stages: ['pre'], tag: 'second' };
  // the meta block without sub_agents, plus the glob defaults set before `pre`
  const PARAMS = {
    base_dir: '',
    context_globs: ['docs/extra.md'],
    working_globs: ['src/greet.ts', 'src/math.ts'],
    write_mode: true,
    file_content_mode: 'whole',
    model: 'model-a',
    knowledge_globs: [],
    structure_globs: [],
  };
  let run: CoderRun;
  beforeAll(() => {
    run = runCoder('prompts/inputs');
    completed(run);
  });

  it('calls each enabled sub-agent that lists the stage, in list order: pre once, pre_task/post_task per task, post once', () => {
    const order = run.calls.map((c) => `${c.stage}:${(c.input.agent_config as { tag: string }).tag}`);
    expect(order).toEqual([
      'pre:first',
      'pre:second',
      'pre_task:first',
      'post_task:first',
      'pre_task:first',
      'post_task:first',
      'post:first',
    ]);
    // the `enabled = false` entry never runs
    expect(run.calls.every((c) => c.agent === RECORD)).toBe(true);
    expect(run.ai.map((a) => a.task)).toEqual([1, 2]);
  });

  it('gives every stage coder_stage, the absolute coder_prompt_dir, coder_params without sub_agents and the prompts', () => {
    for (const call of run.calls) {
      expect(call.input.coder_stage).toBe(call.stage);
      expect(call.input.coder_prompt_dir).toBe(nodePath.join(WS, 'prompts/inputs'));
      expect(nodePath.isAbsolute(call.input.coder_prompt_dir as string)).toBe(true);
      expect(call.input.coder_params).toEqual(PARAMS);
      expect(call.input.coder_params).not.toHaveProperty('sub_agents');
      expect(call.input.coder_prompts).toEqual([INST]);
      expect(call.input.coder_prompt).toBe(INST);
    }
  });

  it('sets the absent knowledge/structure globs to {} before pre and keeps the given context_globs', () => {
    const [pre] = callsIn(run, 'pre');
    const params = pre!.input.coder_params as Record<string, unknown>;
    expect(params.knowledge_globs).toEqual([]);
    expect(params.structure_globs).toEqual([]);
    expect(params.context_globs).toEqual(['docs/extra.md']);
  });

  it('passes the normalised entry as agent_config (defaults filled, one stage string made a list, extra keys kept)', () => {
    const [first, second] = callsIn(run, 'pre');
    expect(first!.input.agent_config).toEqual(FIRST);
    expect(second!.input.agent_config).toEqual(SECOND);
  });

  it("runs the sub-agent with the entry's options as its agent options", () => {
    const temperatures = callsIn(run, 'pre').map((c) => (c.response as { agent_result: { temperature?: number } }).agent_result.temperature);
    expect(temperatures).toEqual([0.5, undefined]);
    for (const call of [...callsIn(run, 'pre_task'), ...callsIn(run, 'post_task'), ...callsIn(run, 'post')]) {
      expect((call.response as { agent_result: { temperature?: number } }).agent_result.temperature).toBe(0.5);
    }
  });

  it('lists the sub-agents already run (with their agent_result) and still to run in this stage run', () => {
    const [first, second] = callsIn(run, 'pre');
    expect(first!.input.sub_agents_prev).toEqual([]);
    expect(first!.input.sub_agents_next).toEqual([SECOND]);
    expect(second!.input.sub_agents_prev).toEqual([{ config: FIRST, agent_result: { stage: 'pre', tag: 'first', temperature: 0.5 } }]);
    expect(second!.input.sub_agents_next).toEqual([]);
    // each task's pre_task/post_task and the post stage are stage runs of their own
    for (const call of run.calls.filter((c) => c.stage !== 'pre')) {
      expect(call.input.sub_agents_prev).toEqual([]);
      expect(call.input.sub_agents_next).toEqual([]);
    }
  });

  it('adds coder_task in pre_task and post_task only', () => {
    const expected = [
      { num: 1, count: 2, working_files: ['src/greet.ts'] },
      { num: 2, count: 2, working_files: ['src/math.ts'] },
    ];
    expect(callsIn(run, 'pre_task').map((c) => c.input.coder_task)).toEqual(expected);
    expect(callsIn(run, 'post_task').map((c) => c.input.coder_task)).toEqual(expected);
    for (const call of [...callsIn(run, 'pre'), ...callsIn(run, 'post')]) expect(call.input).not.toHaveProperty('coder_task');
  });

  it("adds coder_response in post_task only: the AI's text, model and token usage", () => {
    const postTask = callsIn(run, 'post_task');
    expect(postTask).toHaveLength(2);
    postTask.forEach((call, i) => {
      const response = call.input.coder_response as { content: string; model_name: string; usage: Record<string, unknown> };
      expect(response.content).toBe(run.ai[i]!.response);
      expect(response.model_name).toBe('model-a');
      expect(response.model_name).toBe(run.ai[i]!.model);
      expect(Object.keys(response.usage).sort()).toEqual(['completion_tokens', 'prompt_tokens']);
      expect(response.usage.prompt_tokens).toBeGreaterThan(0);
      expect(response.usage.completion_tokens).toBeGreaterThan(0);
    });
    for (const call of run.calls.filter((c) => c.stage !== 'post_task')) expect(call.input).not.toHaveProperty('coder_response');
  });

  it('adds coder_responses in post: every task in task order, with its applied answer and changed files', () => {
    const [post] = callsIn(run, 'post');
    expect(post!.input.coder_responses).toEqual([
      { task_num: 1, content: run.ai[0]!.response, files_changed: ['src/greet.ts'], files_failed: [] },
      { task_num: 2, content: run.ai[1]!.response, files_changed: ['src/math.ts'], files_failed: [] },
    ]);
    for (const call of run.calls.filter((c) => c.stage !== 'post')) expect(call.input).not.toHaveProperty('coder_responses');
    // what post reports was indeed applied
    expect(run.file('src/greet.ts')).toContain('/** Greets someone by name. */');
    expect(run.file('src/math.ts')).toContain('/** The difference of a and b. */');
  });
});

describe('pre stage effects (pack/SUB_AGENTS.md sections 3 and 5)', () => {
  it('adopts returned coder_params for the whole run: an added context glob is sent, the model is used, write_mode on writes files', () => {
    const run = runCoder('prompts/pre-params');
    completed(run);
    const [call] = run.calls;
    expect(call!.input.coder_params).toEqual({ base_dir: '', context_globs: ['src/greet.ts'], write_mode: false, knowledge_globs: [], structure_globs: [] });
    expect(run.ai).toHaveLength(1);
    const prompt = run.ai[0]!.prompt;
    expect(prompt).toContain('<CONTEXT_FILE file_path="src/greet.ts">');
    expect(prompt).toContain('<CONTEXT_FILE file_path="docs/extra.md">');
    expect(prompt).toContain(run.original('docs/extra.md'));
    // model, write_mode and file_content_mode = "whole" came from the sub-agent: the answer's file was written whole
    expect(run.ai[0]!.model).toBe('model-p');
    expect(run.file('src/greet.ts')).toBe('export function greet(name: string): string {\n  return `Good day, ${name}!`;\n}\n');
    expect(run.touched()).toEqual(['prompts/pre-params/coder-prompt.md', 'src/greet.ts']);
  });

  it('replaces the params: a key the returned table drops is gone (no context_globs, so no context file), and the pack says which', () => {
    const run = runCoder('prompts/pre-drop');
    completed(run);
    expect(run.calls[0]!.response).toEqual({ coder_params: { base_dir: '', knowledge_globs: [], structure_globs: [] } });
    expect(run.prints).toContain(
      'WARNING: Sub-agent [my-agents/set-params.aip] returned coder_params without context_globs: in the stage form the returned table replaces the params, so they are gone (written for upstream pro@coder, whose coder_params are merged? give its entry on = "start")',
    );
    // one line for the one sub-agent
    expect(run.prints.filter((p) => p.includes('returned coder_params without'))).toHaveLength(1);
    expect(run.ai).toHaveLength(1);
    expect(run.ai[0]!.prompt).not.toContain('CONTEXT_FILE');
    expect(run.ai[0]!.prompt).not.toContain(run.original('src/greet.ts').trim());
    expect(run.touched()).toEqual(['prompts/pre-drop/coder-prompt.md']);
  });

  it('adopts coder_prompts and coder_prompt; the instruction sent is the segments joined by a blank line', () => {
    const run = runCoder('prompts/pre-prompts');
    completed(run);
    const INST = '[scenario: pre-prompts] Rename greet to welcome.';
    const [first, second] = callsIn(run, 'pre');
    expect(first!.input.coder_prompts).toEqual([INST]);
    expect(first!.input.coder_prompt).toBe(INST);
    // the second sub-agent sees the first one's segments, and their joined form
    expect(second!.input.coder_prompts).toEqual([INST, 'Also add unit tests.']);
    expect(second!.input.coder_prompt).toBe(`${INST}\n\nAlso add unit tests.`);
    const joined = `${INST}\n\nAlso add unit tests.\n\nKeep the change small.`;
    expect(run.ai[0]!.prompt).toContain(joined);
    // coder_prompt = "x" is coder_prompts = { "x" }: later stages get the effective prompts
    const [post] = callsIn(run, 'post');
    expect(post!.input.coder_prompts).toEqual([joined]);
    expect(post!.input.coder_prompt).toBe(joined);
  });

  it('an instruction emptied by pre is the usual empty-instruction stop, not a crash', () => {
    const run = runCoder('prompts/pre-empty');
    expect(run.error).toBeUndefined();
    expect(run.outcome?.skipped).toMatch(/empty instruction/i);
    expect(run.ai).toEqual([]);
    expect(run.touched()).toEqual([]);
  });
});

describe('pre_task stage effects (pack/SUB_AGENTS.md section 3)', () => {
  let run: CoderRun;
  beforeAll(() => {
    run = runCoder('prompts/pre-task');
    completed(run);
  });
  const INST = '[scenario: pre-task] Explain the working file.';

  it("uses the task's returned params for that task only: the model of the AI call", () => {
    expect(run.ai.map((a) => [a.task, a.model])).toEqual([
      [1, 'model-a'],
      [2, 'model-b'],
    ]);
  });

  it("uses the task's returned write_mode and file_content_mode for that task only", () => {
    const whole = readFileSync(nodePath.join(REPO_PACK.dir, 'templates', 'file-content-whole.md'), 'utf8').trim();
    expect(run.ai[0]!.prompt).not.toContain(whole);
    expect(run.ai[1]!.prompt).toContain(whole);
    // both tasks got the same answer with a file block: only task 2 (write_mode on) wrote it
    expect(run.ai[0]!.response).toBe(run.ai[1]!.response);
    expect(run.file('notes/summary.md')).toBe('Small pure functions.\n');
    const [post] = callsIn(run, 'post');
    const responses = post!.input.coder_responses as { task_num: number; files_changed: string[] }[];
    expect(responses.map((r) => [r.task_num, r.files_changed])).toEqual([
      [1, []],
      [2, ['notes/summary.md']],
    ]);
  });

  it("uses the task's returned prompts for that task only", () => {
    expect(run.ai[0]!.prompt).toContain(`${INST}\n\nOnly task one gets this line.`);
    expect(run.ai[1]!.prompt).toContain(INST);
    expect(run.ai[1]!.prompt).not.toContain('Only task one gets this line.');
  });

  it('a later sub-agent of the same stage run sees the params an earlier one returned', () => {
    const addPrompt = callsIn(run, 'pre_task', 'my-agents/add-prompt.aip');
    expect(addPrompt.map((c) => (c.input.coder_params as { model: string }).model)).toEqual(['model-a', 'model-b']);
  });

  it('ignores the run-level working_globs of a pre_task response (the task keeps its files) and says so', () => {
    expect(run.ai[1]!.prompt).toContain('<WORKING_FILE file_path="src/math.ts">');
    expect(run.ai[1]!.prompt).not.toContain('src/util.ts');
    expect(run.prints.some((p) => p.includes('ignored') && p.includes('coder_params.working_globs'))).toBe(true);
  });

  it('post_task of a task gets the params and prompts after its pre_task; post gets those after pre', () => {
    const postTask = callsIn(run, 'post_task');
    expect(postTask.map((c) => (c.input.coder_params as { model: string }).model)).toEqual(['model-a', 'model-b']);
    expect(postTask.map((c) => (c.input.coder_params as { write_mode?: boolean }).write_mode)).toEqual([undefined, true]);
    expect(postTask.map((c) => c.input.coder_prompts)).toEqual([[INST, 'Only task one gets this line.'], [INST]]);
    expect((postTask[1]!.input.coder_response as { model_name: string }).model_name).toBe('model-b');
    const [post] = callsIn(run, 'post');
    expect(post!.input.coder_params).toEqual({
      base_dir: '',
      working_globs: ['src/greet.ts', 'src/math.ts'],
      model: 'model-a',
      context_globs: [],
      structure_globs: [],
      knowledge_globs: [],
    });
    expect(post!.input.coder_prompts).toEqual([INST]);
  });
});

describe('pre_task moving base_dir (prompts/pre-task-base-dir)', () => {
  it('prepares the task from the new base_dir: globs resolved again, paths relative to it, answers written under it', () => {
    const run = runCoder('prompts/pre-task-base-dir');
    completed(run);
    const prompt = run.ai[0]!.prompt;
    // context_globs = ["util.ts"] matches nothing at the workspace root, but src/util.ts under base_dir "src"
    expect(prompt).toContain('<CONTEXT_FILE file_path="util.ts">');
    expect(prompt).toContain('<WORKING_FILE file_path="greet.ts">');
    expect(run.file('src/greet.ts')).toBe(
      "import { SEPARATOR } from './util';\n\nexport function greet(name: string): string {\n  return `Hello${SEPARATOR}${name}!`;\n}\n",
    );
    expect(run.file('greet.ts')).toBeUndefined();
    const [postTask] = callsIn(run, 'post_task');
    expect((postTask!.input.coder_params as { base_dir: string }).base_dir).toBe('src');
  });
});

describe('post_task and post effects (prompts/post-task)', () => {
  let run: CoderRun;
  beforeAll(() => {
    run = runCoder('prompts/post-task');
    completed(run);
  });
  const replaced = () => run.ai[0]!.response.replace('Hi there', 'Welcome');

  it("post_task's coder_response replaces the AI text before the file changes are applied", () => {
    const [reviewer] = callsIn(run, 'post_task', 'my-agents/replace-answer.aip');
    expect((reviewer!.input.coder_response as { content: string }).content).toBe(run.ai[0]!.response);
    expect(run.ai[0]!.response).toContain('Hi there');
    expect(run.file('src/greet.ts')).toBe('export function greet(name: string): string {\n  return `Welcome, ${name}!`;\n}\n');
  });

  it('the next post_task sub-agent and post see the replaced text', () => {
    const [recorder] = callsIn(run, 'post_task', RECORD);
    expect((recorder!.input.coder_response as { content: string }).content).toBe(replaced());
    const [post] = callsIn(run, 'post', RECORD);
    expect(post!.input.coder_responses).toEqual([{ task_num: 1, content: replaced(), files_changed: ['src/greet.ts'], files_failed: [] }]);
  });

  it('post ignores coder_params, coder_prompt and coder_response: no error, nothing changes, the trace says so', () => {
    expect(callsIn(run, 'post', 'my-agents/reply.aip')).toHaveLength(1);
    const note = run.prints.find((p) => p.includes('ignored') && p.includes('(post)'));
    expect(note).toBeDefined();
    for (const field of ['coder_params', 'coder_prompt', 'coder_response']) expect(note).toContain(field);
    expect(run.file('src/greet.ts')).toContain('Welcome');
    const answer = belowSeparator(run.file(run.promptFile)!);
    expect(answer).toContain('Changed the greeting.');
    expect(answer).not.toContain('ignored');
  });
});

describe('sub_agents_next and agent_result history (prompts/next)', () => {
  let run: CoderRun;
  beforeAll(() => {
    run = runCoder('prompts/next');
    completed(run);
  });
  const normalised = (name: string, extra: Record<string, unknown> = {}) => ({ name, enabled: true, stages: ['pre'], ...extra });

  it('replaces the not-yet-run tail with the normalised entries (disabled ones skipped)', () => {
    expect(run.calls.map((c) => c.agent)).toEqual(['my-agents/next.aip', RECORD, RECORD, 'my-agents/noop.aip']);
    const [, firstRecord] = run.calls;
    expect(firstRecord!.input.agent_config).toEqual(normalised(RECORD));
    expect(firstRecord!.input.sub_agents_next).toEqual([normalised(RECORD, { tag: 'from-next' }), normalised('my-agents/noop.aip')]);
  });

  it('passes each agent_result (nil for a nil response) to the later sub-agents in sub_agents_prev', () => {
    const noop = run.calls[3]!;
    const prev = noop.input.sub_agents_prev as { config: { name: string }; agent_result?: unknown }[];
    expect(prev.map((p) => p.config.name)).toEqual(['my-agents/next.aip', RECORD, RECORD]);
    expect(prev.map((p) => p.agent_result)).toEqual(['chosen by next', { stage: 'pre' }, { stage: 'pre', tag: 'from-next' }]);
    expect(noop.response).toBeUndefined();
    expect(noop.input.sub_agents_next).toEqual([]);
  });
});

describe('a sub-agent changing its own input in place (prompts/mutate)', () => {
  it('changes nothing the coder or a later sub-agent sees: each gets its own copy', () => {
    const run = runCoder('prompts/mutate');
    completed(run);
    expect(run.calls.map((c) => c.input.agent_config && (c.input.agent_config as { tag: string }).tag)).toEqual(['before', 'mutator', 'after']);
    const after = run.calls[2]!.input;
    expect((after.coder_params as { context_globs: string[]; model: string }).context_globs).toEqual(['docs/extra.md']);
    expect((after.coder_params as { model: string }).model).toBe('model-a');
    expect(after.coder_prompts).toEqual(['[scenario: mutate] Explain greet.']);
    expect((after.sub_agents_prev as { config: { tag: string } }[]).map((p) => p.config.tag)).toEqual(['before', 'mutator']);
    expect(after.sub_agents_next).toEqual([]);
    expect(run.ai[0]!.prompt).toContain('[scenario: mutate] Explain greet.');
    expect(run.ai[0]!.prompt).not.toContain('mutated');
    expect(run.ai[0]!.model).toBe('model-a');
  });
});

describe('the response of a sub-agent with an After All (prompts/after-all)', () => {
  it('is its After All value, not its task output', () => {
    const run = runCoder('prompts/after-all');
    completed(run);
    const [afterAll, recorder] = run.calls;
    // the task output would have failed the run
    expect(afterAll!.response).toMatchObject({ success: false });
    expect(recorder!.input.sub_agents_prev).toEqual([
      { config: { name: 'my-agents/after-all.aip', enabled: true, stages: ['pre'] }, agent_result: 'from after all' },
    ]);
    expect(run.ai[0]!.prompt).toContain('[scenario: after-all] Explain greet, as the After All value says.');
  });
});

describe('sub_agents inside a returned coder_params (prompts/sneak)', () => {
  it('is removed before use: not an error, never run, never passed on, and the trace says it was ignored', () => {
    const run = runCoder('prompts/sneak');
    completed(run);
    expect(run.calls.map((c) => `${c.stage}:${c.agent}`)).toEqual(['pre:my-agents/set-params.aip', `pre:${RECORD}`, `post:${RECORD}`]);
    expect((run.calls[0]!.response as { coder_params: Record<string, unknown> }).coder_params).toHaveProperty('sub_agents');
    for (const call of run.calls.slice(1)) expect(call.input.coder_params).not.toHaveProperty('sub_agents');
    expect(run.prints.some((p) => p.includes('ignored') && p.includes('coder_params.sub_agents'))).toBe(true);
  });
});
