/**
 * Where upstream pro@coder is lax, this pack does what upstream does and prints one warning naming the entry and
 * the stricter form; the post input has upstream's whole shape (the fields upstream's own sub-agents see); the
 * apply status says what auto-fix repaired. Fixtures: the oracle scenarios (fixtures/oracle, each a workspace
 * written as an upstream user writes one), run here with this pack alone (scripts/oracle.mjs compares them with
 * upstream's pack).
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { completed, runCoder, type CoderRun } from '../helpers/coder.ts';

const scenario = (name: string) => {
  const ws = fileURLToPath(new URL(`../../fixtures/oracle/${name}`, import.meta.url)).replace(/[\\/]$/, '');
  return runCoder('prompt', { workspace: ws, aipackVersion: '0.8.33' });
};
type Table = Record<string, unknown>;
const warnings = (r: CoderRun) => r.prints.filter((p) => p.startsWith('WARNING: '));
const callsOf = (r: CoderRun, agent: string) => r.calls.filter((c) => c.agent === `my-agents/${agent}.aip`);
/** An empty Lua table reaches JS as [] or {} by engine: both read as an empty list here. */
const list = (v: unknown) => (Array.isArray(v) ? v : v !== null && typeof v === 'object' && Object.keys(v).length === 0 ? [] : v);
const responseOf = (r: CoderRun, agent: string) => (callsOf(r, agent)[0]!.input.coder_responses as Table[])[0]!;

describe('lax forms: as upstream, with one warning each', () => {
  it('on = [] runs at start, on = ["", "end"] at end: upstream reads them so', () => {
    const r = scenario('lax-on-lists');
    completed(r);
    expect(r.calls.map((c) => [c.agent, c.input.event])).toEqual([
      ['my-agents/empty-on.aip', 'start'],
      ['my-agents/blank-on.aip', 'end'],
    ]);
    expect(callsOf(r, 'empty-on')[0]!.input.agent_config).toEqual({ name: 'my-agents/empty-on.aip', on: ['start'], enabled: true });
    expect(warnings(r)).toEqual([
      'WARNING: sub_agents[1] (my-agents/empty-on.aip): on = [] lists no event; upstream pro@coder runs it at start, and so does this pack (write on = "start")',
      'WARNING: sub_agents[2] (my-agents/blank-on.aip): on lists an empty event name; upstream pro@coder drops it, and so does this pack (write on = { "end" })',
    ]);
  });

  it('emit_events given as a string emits nothing and does not fail the run', () => {
    const r = scenario('lax-emit-string');
    completed(r);
    expect(r.calls.map((c) => c.agent)).toEqual(['my-agents/emitter.aip']);
    expect(r.file('notes/listener.md')).toBeUndefined();
    expect(warnings(r)).toEqual([
      'WARNING: Sub-agent [my-agents/emitter.aip] returned emit_events as a string: upstream pro@coder ignores it, and so does this pack: nothing is emitted (write emit_events = { "ctx::ready" })',
    ]);
  });

  it('an empty name in the emit_events list is dropped and the others are emitted', () => {
    const r = scenario('lax-emit-blank');
    completed(r);
    expect(r.calls.map((c) => c.agent)).toEqual(['my-agents/emitter.aip', 'my-agents/listener.aip']);
    expect(r.file('notes/listener.md')).toBe('ran\n');
    expect(warnings(r)).toEqual([
      'WARNING: Sub-agent [my-agents/emitter.aip] returned an empty name in emit_events: upstream pro@coder drops it, and so does this pack (write emit_events = { "ctx::ready" })',
    ]);
  });

  it('coder_params and coder_prompt returned at end reach the later end agents, merged, and change nothing else', () => {
    const r = scenario('lax-end-params');
    completed(r);
    const reader = callsOf(r, 'end-reader')[0]!.input;
    expect(reader.coder_params).toMatchObject({ model: 'gpt-review', review_level: 2, write_mode: true, context_globs: ['src/**/*.ts'] });
    expect(reader.coder_prompt).toBe("Reviewed: End greet's sentence with a period.");
    expect(r.file('notes/end.md')).toBe("model=gpt-review level=2\nReviewed: End greet's sentence with a period.\n");
    // the coder's own call used the prompt's model
    expect(r.ai.map((a) => a.model)).toEqual(['gpt-user']);
    expect(warnings(r)).toEqual([
      'WARNING: Sub-agent [my-agents/end-changer.aip] returned coder_params and coder_prompt at end: upstream pro@coder merges them into what the later end sub-agents receive, and so does this pack; nothing else changes (return them at start to change the run)',
    ]);
  });
});

describe("the post input in upstream's shape", () => {
  const r = scenario('failed-patch');

  it('keeps the failed patch as upstream: its message, and each hunk with its cause', () => {
    completed(r);
    const res = responseOf(r, 'status');
    const status = res.file_changes_status as { items: Table[]; fail_count: number; success: boolean };
    expect(status).toMatchObject({ success: false, total_count: 2, success_count: 1, fail_count: 1 });
    expect(status.items[0]).toEqual({ file_path: 'src/math.ts', kind: 'Patch', success: true });
    expect(status.items[1]).toMatchObject({ file_path: 'src/greet.ts', kind: 'Patch', success: false, error_msg: "No changes applied to 'src/greet.ts'" });
    const hunks = status.items[1]!.error_hunks as Table[];
    expect(hunks).toHaveLength(1);
    expect(hunks[0]!.hunk_body).toBe('@@\n export function greet(name: string): string {\n-  return `Hi, ${name}!`;\n+  return `Hi, ${name}.`;\n }\n');
    expect(hunks[0]!.cause).toMatch(/^patch completion error: Could not find patch context/);
    expect(res.files_changes_failed).toEqual([
      {
        path: 'src/greet.ts',
        error_msg: "No changes applied to 'src/greet.ts'",
        error_hunks: hunks,
        total_count: 1,
        kind: 'Patch',
        changes_info: { failed_changes: [{ reason: "No changes applied to 'src/greet.ts'", search: "UDIFFX Block failed: No changes applied to 'src/greet.ts'" }] },
      },
    ]);
    expect(r.file('notes/status.md')).toContain("- Patch src/greet.ts false No changes applied to 'src/greet.ts'\n  hunk: patch completion error");
  });

  it('a patch failing part-way keeps the hunk that fitted, as AIPack writes it; its item fails with the other hunk', () => {
    const r = scenario('partial-patch');
    completed(r);
    expect(r.file('src/greet.ts')).toBe(r.original('src/greet.ts').replace('export function greet', '/** Greets someone. */\nexport function greet'));
    expect(r.file('src/math.ts')).toBe(r.original('src/math.ts').replace('export function add', '/** The sum of a and b. */\nexport function add'));
    expect(r.file('notes/status.md')).toBe(
      [
        'response 1: 1/2 ok, fail_count=1, success=false',
        "- Patch src/greet.ts false 1 of 2 hunks failed to apply for 'src/greet.ts'",
        '  hunk: patch completion error: Could not find patch context in original file (starting search from line 1)',
        '- Patch src/math.ts true nil',
        '',
      ].join('\n'),
    );
  });

  it('gives empty file-ref lists as lists, the answer with its trailing newlines, and the auto_fix settings', () => {
    const input = callsOf(r, 'status')[0]!.input;
    expect(list(input.coder_knowledge_file_refs)).toEqual([]);
    expect((input.coder_context_file_refs as Table[]).map((f) => f.path)).toEqual(['src/greet.ts', 'src/math.ts']);
    expect(input).not.toHaveProperty('coder_working_file_refs');
    const res = responseOf(r, 'status');
    expect(res.content_extruded).toBe('Ended the sentence with a period and documented add.\n\n\n');
    expect(res.deferred_failure_report).toBe(false);
    expect(res.auto_fix).toEqual({ enabled: false, max_retries: 6, base_eligible: false, single_task: true, eligible: false });
    expect(res).not.toHaveProperty('auto_fix_result');
  });
});

describe('what the run leaves in the prompt folder, as upstream', () => {
  it("copies the pack's README into it and leaves no answer slot behind", () => {
    const r = scenario('event-start-end');
    completed(r);
    const readme = readFileSync(fileURLToPath(new URL('../../pack/README.md', import.meta.url)), 'utf8');
    expect(r.file('prompt/README.md')).toBe(readme);
    const { created } = r.sim.vfs.changes();
    expect(created.filter((p) => p.includes('/answers/'))).toEqual([]);
  });
});

describe('auto-fix', () => {
  it('after it repairs a file, the end input says every change applied, with its result', () => {
    const r = scenario('auto-fix');
    completed(r);
    expect(r.file('src/greet.ts')).toBe('export function greet(name: string): string {\n  return `Hello, ${name}.`;\n}\n');
    const input = callsOf(r, 'status')[0]!.input;
    // the effective auto_fix reaches the post params: on by default
    expect((input.coder_params as Table).auto_fix).toBe(true);
    const res = responseOf(r, 'status');
    const status = { success: true, total_count: 2, success_count: 2, fail_count: 0, items: [
      { file_path: 'src/math.ts', kind: 'Patch', success: true },
      { file_path: 'src/greet.ts', kind: 'Patch', success: true },
    ] };
    expect(res.file_changes_status).toEqual(status);
    expect(list(res.files_changes_failed)).toEqual([]);
    expect(res.auto_fix).toEqual({ enabled: true, max_retries: 6, model: 'gpt-user', base_eligible: true, single_task: true, eligible: true });
    expect(res.auto_fix_result).toEqual({
      files_changed: [
        { path: 'src/math.ts', status: 'M', kind: 'Patch' },
        { path: 'src/greet.ts', status: 'M', kind: 'Patch' },
      ],
      file_changes_status: status,
      remaining_failed_changes: list((res.auto_fix_result as Table).remaining_failed_changes),
      attempts: 1,
      auto_fix_attempts_with_fixes: 1,
      auto_fix_files_fixed: 1,
      auto_fix_hunks_fixed: 1,
    });
    expect(list((res.auto_fix_result as Table).remaining_failed_changes)).toEqual([]);
    expect(r.file('notes/status.md')).toBe('response 1: 2/2 ok, fail_count=0, success=true\n- Patch src/math.ts true nil\n- Patch src/greet.ts true nil\n');
    // the repair call was sent the failed file, as upstream's
    expect(r.ai[1]!.prompt).toContain('<FAILED_FILE file_path="src/greet.ts">');
  });

  it('does not run on a multi-task run, as upstream: the failure is reported, the settings say why', () => {
    const r = scenario('auto-fix-multi-task');
    completed(r);
    expect(r.ai).toHaveLength(2);
    expect(r.file('src/greet.ts')).toBe(r.original('src/greet.ts'));
    const responses = callsOf(r, 'status')[0]!.input.coder_responses as Table[];
    expect(responses[0]!.auto_fix).toEqual({
      enabled: true,
      max_retries: 6,
      model: 'gpt-user',
      base_eligible: true,
      single_task: false,
      eligible: false,
      ineligible_reason: 'multi_task',
    });
    expect(responses[0]!.file_changes_status).toMatchObject({ success: false, fail_count: 1 });
  });
});
