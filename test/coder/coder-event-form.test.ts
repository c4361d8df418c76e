/**
 * Sub-agents written for upstream pro@coder's event form (`on`), run unchanged by this pack with upstream's rules:
 * partial coder_params merged, emitted events dispatched to the entries listening, agent_on, the post input
 * (file_changes_status, content_extruded, content_raw_path, file refs), coder_redo and its cap; and a prompt that
 * mixes both forms. Fixture: fixtures/coder-upstream (prompts written from upstream's current template).
 */
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { completed, runCoder, type CoderRun } from '../helpers/coder.ts';

const UP = fileURLToPath(new URL('../../fixtures/coder-upstream', import.meta.url)).replace(/[\\/]$/, '');
const run = (dir: string, aipackVersion = '0.8.33') => runCoder(dir, { workspace: UP, aipackVersion });
const callsOf = (r: CoderRun, agent: string) => r.calls.filter((c) => c.agent === `my-agents/${agent}.aip`);

describe('event form: start, an emitted event, agent_on, end', () => {
  const r = run('prompts/event-flow');

  it('merges the partial coder_params of a start agent: the user model, write_mode and file_content_mode stay', () => {
    completed(r);
    const [narrow] = callsOf(r, 'ctx-narrow');
    expect(narrow!.input.coder_params).toEqual({
      knowledge_globs: [],
      context_globs: ['src/**/*.*'],
      structure_globs: [],
      context_globs_pre: [],
      context_globs_post: [],
      knowledge_globs_pre: [],
      knowledge_globs_post: [],
      write_mode: true,
      file_content_mode: 'udiffx',
      model: 'gpt-user',
    });
    // upstream names the prompt folder as the path was given, not resolved
    expect(narrow!.input).toMatchObject({ event: 'start', stage: 'pre', coder_redo_count: 0, coder_prompt_dir: './prompts/event-flow' });
    expect(r.ai[0]!.model).toBe('gpt-user');
    // its globs are used, the rest stays; auto_context and sub_agents of the response are never merged
    expect(r.ai[0]!.prompt).toContain('<CONTEXT_FILE file_path="src/greet.ts">');
    expect(r.ai[0]!.prompt).not.toContain('<CONTEXT_FILE file_path="src/math.ts">');
    expect(r.ai[0]!.prompt).toContain('<KNOWLEDGE_FILE file_path="docs/conventions.md">');
    expect(r.calls.map((c) => c.agent)).not.toContain('my-agents/never.aip');
    expect(r.file('src/greet.ts')).toBe('export function greet(name: string): string {\n  return `Hello, ${name}.`;\n}\n');
  });

  it('dispatches the emitted event after the start dispatch, to the entry listening to it, with the history at emission', () => {
    expect(r.calls.map((c) => [c.agent, c.input.event])).toEqual([
      ['my-agents/start-and-end.aip', 'start'],
      ['my-agents/ctx-narrow.aip', 'start'],
      ['my-agents/on-narrowed.aip', 'ctx::narrowed'],
      ['my-agents/start-and-end.aip', 'end'],
      ['my-agents/post-status.aip', 'end'],
    ]);
    const [narrowed] = callsOf(r, 'on-narrowed');
    expect(narrowed!.input.sub_agents_prev).toEqual([
      {
        event: 'start',
        stage: 'pre',
        // a nil response: no agent_result
        config: { name: 'my-agents/start-and-end.aip', on: ['start', 'end'], enabled: true },
      },
      {
        event: 'start',
        stage: 'pre',
        config: { name: 'my-agents/ctx-narrow.aip', on: ['start'], enabled: true },
        agent_result: { narrowed_to: 1 },
        sub_agent_result: { narrowed_to: 1 },
      },
    ]);
    expect(narrowed!.input.coder_params).toMatchObject({ context_globs: ['src/greet.ts'], model: 'gpt-user' });
    // its coder_prompt replaced the instruction, and the prompt pin shows it
    expect(r.ai[0]!.prompt).toContain('(Context narrowed by my-agents/ctx-narrow.aip.)');
    const pin = r.pins.find((p) => p.iden === 'prompt')?.content as { label: string; content: string };
    expect(pin.content).toBe("[scenario: event-flow] End greet's sentence with a period.\n\n(Context narrowed by my-agents/ctx-narrow.aip.)");
  });

  it('agent_on at start makes a start agent run at end too, where it reads the file refs', () => {
    const [pre, post] = callsOf(r, 'start-and-end');
    expect(pre!.response).toEqual({ agent_on: ['start', 'end'] });
    expect(post!.input.agent_config).toEqual({ name: 'my-agents/start-and-end.aip', on: ['start', 'end'], enabled: true });
    expect(r.file('notes/start-and-end.md')).toBe('event=end redo=0\ncontext src/greet.ts\n');
  });

  it('gives end agents upstream post input: file_changes_status, content_extruded, content_raw_path', () => {
    const [post] = callsOf(r, 'post-status');
    // only this post run's history: the end run of start-and-end, not the pre runs
    expect(post!.input.sub_agents_prev).toEqual([
      { event: 'end', stage: 'post', config: { name: 'my-agents/start-and-end.aip', on: ['start', 'end'], enabled: true } },
    ]);
    expect(r.file('notes/status.md')).toBe(
      'response 1: 1/1 ok, success=true\n- Patch src/greet.ts true\nextruded: Ended the sentence with a period.\nraw file exists: true\n',
    );
    const responses = post!.input.coder_responses as Record<string, unknown>[];
    expect(responses[0]!.content_raw_path).toBe('./prompts/event-flow/workbench-default/.cache/last_ai_responses_for_raw.md');
    // the stage-form fields are there as well
    expect(responses[0]).toMatchObject({ task_num: 1, files_changed: ['src/greet.ts'], files_failed: [] });
  });
});

describe('a prompt mixing both forms runs each entry by its own rules', () => {
  const r = run('prompts/mixed');

  it('the stage-form entry replaces the params (one warning naming the dropped keys and the fix); the event-form one merges', () => {
    completed(r);
    const warnings = r.prints.filter((p) => p.startsWith('WARNING: Sub-agent'));
    expect(warnings).toEqual([
      'WARNING: Sub-agent [my-agents/stage-partial.aip] returned coder_params without model, write_mode: in the stage form the returned table replaces the params, so they are gone (written for upstream pro@coder, whose coder_params are merged? give its entry on = "start")',
      // this prompt has no entry listening to the event ctx-narrow emits
      "WARNING: Sub-agent [my-agents/ctx-narrow.aip] emitted 'ctx::narrowed', which no entry listens to: nothing runs for it",
    ]);
    const [stageForm] = callsOf(r, 'stage-partial');
    expect(stageForm!.input.sub_agents_prev).toEqual([]);
    expect(stageForm!.input.coder_redo_count).toBeUndefined();
    expect(stageForm!.input.coder_prompt_dir).toBe(`${UP}/prompts/mixed`);
    const [eventForm] = callsOf(r, 'ctx-narrow');
    // after the replace: only what the stage-form agent returned (and the glob lists)
    expect(eventForm!.input.coder_params).toEqual({
      context_globs: ['src/math.ts'],
      structure_globs: [],
      knowledge_globs: [],
      context_globs_pre: [],
      context_globs_post: [],
      knowledge_globs_pre: [],
      knowledge_globs_post: [],
    });
    expect(eventForm!.input.sub_agents_prev).toEqual([{ config: { name: 'my-agents/stage-partial.aip', enabled: true, stages: ['pre'] } }]);
    // model and write_mode were dropped by the replace; the merge then set the globs only
    expect(r.ai[0]!.model).not.toBe('gpt-user');
    expect(r.ai[0]!.prompt).toContain('<CONTEXT_FILE file_path="src/greet.ts">');
  });
});

describe('coder_redo from an end agent: a new run of the coder, capped at 20 redos', () => {
  it('reruns with the same input and CTX.RUN_FLOW_REDO_COUNT + 1 until the cap, then pins the cap warning', () => {
    const r = run('prompts/event-redo');
    completed(r);
    expect(r.outcome!.redos).toBe(20);
    // every run's end agent saw its redo count: 0 on the first run, 20 on the last
    expect(r.file('notes/redo-log.md')).toBe(Array.from({ length: 21 }, (_, i) => `${i}\n`).join(''));
    expect(r.ai).toHaveLength(21);
    expect(r.sim.trace.of('redo').map((e) => e.num)).toEqual(Array.from({ length: 20 }, (_, i) => i + 1));
    const requested = r.pins.filter((p) => p.iden === 'coder_redo_requested');
    expect(requested).toHaveLength(20);
    expect(requested[0]!.content).toEqual({
      label: 'Coding Done:',
      content: 'Post-stage sub-agent requested a coder rerun.\n\nRedo count: 0\nCap: 20\n\nStarting a new coder run.',
    });
    const cap = r.pins.filter((p) => p.iden === 'coder_redo_cap_reached');
    expect(cap.map((p) => (p.content as { content: string }).content)).toEqual([
      'Post-stage sub-agent requested a coder rerun, but the redo cap was reached.\n\nRedo count: 20\nCap: 20\n\nNo additional coder rerun will be started.',
    ]);
  });

  it('without CTX.RUN_FLOW_REDO_COUNT (AIPack before 0.8.22) the reruns cannot be counted: none is started, and a pin says why', () => {
    const r = run('prompts/event-redo', '0.8.15');
    completed(r);
    expect(r.outcome!.redos).toBe(0);
    expect(r.file('notes/redo-log.md')).toBe('0\n');
    expect(r.pins.find((p) => p.iden === 'coder_redo_cap_reached')?.content).toEqual({
      label: 'WARNING',
      content:
        'Post-stage sub-agent requested a coder rerun, but this AIPack (0.8.15) has no CTX.RUN_FLOW_REDO_COUNT (0.8.22 and above) to cap the reruns: no rerun is started',
    });
  });
});
