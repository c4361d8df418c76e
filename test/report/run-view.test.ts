import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import type { TraceEvent } from '../../src/aip/support/trace.ts';
import { Trace } from '../../src/aip/support/trace.ts';
import { coderRunReport } from '../../src/effects/run-report.ts';
import { runView, type RunView } from '../../src/report/run-view.ts';
import { runCoder, type CoderRun } from '../helpers/coder.ts';

const ai = (depth: number, agent: string, model: string): TraceEvent => ({ kind: 'ai', depth, agent, task: 1, model, prompt: 'p', parts: [{ role: 'user', cache: false, content: 'p' }], response: 'r', ms: 2 });

describe('runView on a hand-made trace', () => {
  const events: TraceEvent[] = [
    { kind: 'agent_start', depth: 0, agent: 'top.aip', file: 'top.aip', inputs: 1 },
    { kind: 'print', depth: 0, agent: 'top.aip', text: 'WARNING: an unknown key' },
    { kind: 'print', depth: 0, agent: 'top.aip', text: 'hello' },
    { kind: 'agent_start', depth: 1, agent: 'sub.aip', file: 'sub.aip', inputs: 1 },
    ai(1, 'sub.aip', 'cheap'),
    { kind: 'agent_call', depth: 0, caller: 'top.aip', agent: 'sub.aip', ms: 7, inputs: [{ x: 1 }], outputs: [{ y: 2 }] },
    { kind: 'stage', depth: 0, agent: 'top.aip', stage: 'BeforeAll', ms: 9, instructions: 1 },
    ai(0, 'top.aip', 'big'),
    { kind: 'pin', depth: 0, agent: 'top.aip', scope: 'task', iden: 'changes_failed', content: { label: 'x', content: '- a.ts (no match)' } },
    { kind: 'file', depth: 0, agent: 'top.aip', op: 'write', path: 'a.ts' },
    { kind: 'stage', depth: 0, agent: 'top.aip', stage: 'Output', task: 1, ms: 3, instructions: 1 },
    { kind: 'redo', depth: 0, agent: 'top.aip', num: 1 },
    { kind: 'note', depth: 0, agent: 'top.aip', topic: 'warning', data: 'careful' },
    { kind: 'stage', depth: 0, agent: 'top.aip', stage: 'AfterAll', ms: 1, instructions: 1, error: 'boom' },
    { kind: 'agent_end', depth: 0, agent: 'top.aip', ms: 20, status: 'completed' },
  ];
  const v = runView({ title: 'T', status: 'completed', events, files: [{ path: 'a.ts', before: 'x\n', after: 'y\n' }, { path: 'n.ts', after: 'new\n' }, { path: 'd.ts', before: 'old\n' }] });

  it('cuts the rows into lifecycle stages at the top agent\'s stage ends, and a redo into a part of its own', () => {
    expect(v.parts.map((p) => [p.redo, p.sections.map((s) => [s.stage, s.task, s.rows.map((r) => r.t)])])).toEqual([
      [0, [['BeforeAll', undefined, ['warning', 'print', 'call']], ['Output', 1, ['ai', 'pin', 'file']]]],
      [1, [['AfterAll', undefined, ['warning']]]],
    ]);
    expect(v.parts[1]!.sections[0]!.error).toBe('boom');
    expect(v.ms).toBe(20);
    expect(v.agent).toBe('top.aip');
  });

  it('gives an agent call its input, its output and the model calls made under it', () => {
    const call = v.calls[0]!;
    expect(call).toMatchObject({ agent: 'sub.aip', ms: 7, summary: 'done', ai: [0] });
    expect(JSON.parse(call.input)).toEqual({ x: 1 });
    expect(JSON.parse(call.output)).toEqual({ y: 2 });
    expect(v.ai.map((a) => [a.agent, a.model])).toEqual([['sub.aip', 'cheap'], ['top.aip', 'big']]);
  });

  it('gives pins their text and each file its status and diff', () => {
    expect(v.parts[0]!.sections[1]!.rows[1]).toEqual({ t: 'pin', agent: 'top.aip', iden: 'changes_failed', text: '- a.ts (no match)' });
    expect(v.files.map((f) => [f.path, f.status, f.diff])).toEqual([
      ['a.ts', 'changed', ['@@ -1,1 +1,1 @@', '-x', '+y']],
      ['n.ts', 'created', ['@@ -0,0 +1,1 @@', '+new']],
      ['d.ts', 'deleted', ['@@ -1,1 +0,0 @@', '-old']],
    ]);
  });
});

/** The view of a real coder run, made as `run --report` makes it. */
function viewOf(r: CoderRun): RunView {
  const trace = new Trace();
  trace.events.push(...r.sim.trace.events);
  const files = r.sim.vfs.changes();
  const report = coderRunReport({ coderName: 'pro@coder', trace, files, outcome: r.outcome, error: r.error });
  return runView({ title: 'run', status: report.status, events: trace.events, coder: { name: 'pro@coder', report }, files: [], notApplied: report.failed_changes, warnings: report.warnings });
}

describe('runView on real coder runs', () => {
  it('gives each sub-agent call its stage and the diff of the prompt it changed', () => {
    const v = viewOf(runCoder('prompts/pre-prompts'));
    const subAgents = v.calls.filter((c) => c.stage !== undefined);
    expect(subAgents.length).toBeGreaterThan(0);
    const changed = subAgents.find((c) => c.diffs.prompt.length > 0);
    expect(changed?.stage).toBe('pre');
    expect(changed?.diffs.prompt.some((l) => l.startsWith('+'))).toBe(true);
    expect(changed?.summary).toMatch(/prompts changed/);
    // the coder's own model calls are rows of the timeline
    const aiRows = v.parts.flatMap((p) => p.sections.flatMap((s) => s.rows.filter((r) => r.t === 'ai')));
    expect(aiRows.length).toBe(v.ai.filter((a) => a.agent === 'pro@coder').length);
  });

  it('draws a parallel group as one call with a lane per member', () => {
    const ws = fileURLToPath(new URL('../../fixtures/coder/parallel', import.meta.url)).replace(/[\\/]$/, '');
    const v = viewOf(runCoder('prompts/reviewers-continue', { workspace: ws, aipackVersion: '0.8.17' }));
    const group = v.calls.find((c) => c.lanes);
    expect(group?.agent).toMatch(/^parallel group/);
    expect(group?.summary).toBe('3 members side by side (concurrency 3): 2 succeeded, 1 failed');
    expect(group?.lanes?.map((l) => [l.index, l.agent, l.error !== undefined])).toEqual([
      [1, 'my-agents/review.aip', false],
      [2, 'my-agents/review.aip', true],
      [3, 'my-agents/review.aip', false],
    ]);
  });
});
