import fs from 'node:fs';
import os from 'node:os';
import nodePath from 'node:path';
import { describe, expect, it } from 'vitest';
import { compareRecords } from '../../src/harness/record-compare.ts';
import { hashOf, type RecordEvent, type RunRecord } from '../../src/harness/record-file.ts';

const ws = fs.mkdtempSync(nodePath.join(os.tmpdir(), 'cs-compare-'));
fs.mkdirSync(nodePath.join(ws, 'src'));
fs.writeFileSync(nodePath.join(ws, 'src/a.ts'), 'a\n');
const promptDir = nodePath.join(ws, '.aipack/.prompt/pro@coder');
const ctx = { workspaceDir: ws, promptDir };

function rec(events: RecordEvent[], run: Partial<RunRecord['run']> = {}): RunRecord {
  return {
    dir: '/r',
    run: { format: 1, id: 'x', workspace_dir: ws, prompt_path: 'p.md', prompt_dir: promptDir, meta: {}, inst: '', first_part: '', ...run },
    events,
  };
}
const call = (response: unknown, extra: Record<string, unknown> = {}): RecordEvent => ({
  kind: 'sub_agent', name: 'a.aip', config: { name: 'a.aip' }, stage: 'pre', event: 'start', input: { coder_prompt_dir: promptDir, ...extra }, response,
});
const sent = (hash: string): RecordEvent => ({ kind: 'files_sent', task_num: 1, knowledge: [], context: [], working: [{ path: 'src/a.ts', size: 2, hash }] });

describe('compareRecords', () => {
  it('finds nothing between equal runs; an empty list and an empty table are one Lua value', () => {
    expect(compareRecords(rec([call({ agent_result: [] })]), rec([call({ agent_result: {} })]), ctx)).toEqual([]);
  });

  it('classes times, UUIDs, numbers under time-like keys and token counts as nondeterminism', () => {
    const a = rec([call({ agent_result: { at: '2026-01-01T10:00:00Z', id: '01a21e0b-5c99-7afb-b602-e707f1357712', elapsed_ms: 12, usage: { prompt_tokens: 3 } } })]);
    const b = rec([call({ agent_result: { at: '2026-11-27T17:00:00.123Z', id: '01a21e3b-1f24-7000-8000-e707f1357712', elapsed_ms: 40, usage: { prompt_tokens: 9 } } })]);
    const diffs = compareRecords(a, b, ctx);
    expect(diffs.map((d) => [d.class, d.path])).toEqual([
      ['nondeterminism', 'response.agent_result.at'],
      ['nondeterminism', 'response.agent_result.elapsed_ms'],
      ['nondeterminism', 'response.agent_result.id'],
      ['nondeterminism', 'response.agent_result.usage.prompt_tokens'],
    ]);
  });

  it('classes any other value, and a step only one side ran, as the simulator, with the recorded call', () => {
    const a = rec([call({ agent_result: { n: 1 } }), { kind: 'params', stage: 'pre', params: { model: 'x' } }]);
    const b = rec([call({ agent_result: { n: 2 } })]);
    const diffs = compareRecords(a, b, ctx);
    expect(diffs.map((d) => [d.class, d.step, d.path, d.recorded, d.replayed])).toEqual([
      ['simulator', 'sub_agent pre a.aip #1', 'response.agent_result.n', 1, 2],
      ['simulator', 'params pre', '', 'ran', 'did not run'],
    ]);
    expect(diffs[0]!.call).toMatchObject({ name: 'a.aip' });
  });

  it("reads the recorded machine's workspace and prompt paths as the replay's", () => {
    const a = rec([call(null, { coder_prompt_dir: '/home/alice/proj/.aipack/.prompt/pro@coder', file: '/home/alice/proj/src/a.ts' })], {
      workspace_dir: '/home/alice/proj', prompt_dir: '/home/alice/proj/.aipack/.prompt/pro@coder',
    });
    const b = rec([call(null, { file: nodePath.join(ws, 'src/a.ts') })]);
    expect(compareRecords(a, b, ctx)).toEqual([]);
  });

  it('classes a file sent whose content changed on disk since as the workspace, with the task\'s other differences', () => {
    const old = hashOf('old\n');
    const a = rec([sent(old), { kind: 'files_written', task_num: 1, changed: ['src/a.ts'], failed: [] }]);
    const b = rec([sent(hashOf('a\n')), { kind: 'files_written', task_num: 1, changed: [], failed: ['src/a.ts'] }]);
    const diffs = compareRecords(a, b, ctx);
    expect(new Set(diffs.map((d) => d.class))).toEqual(new Set(['workspace']));
    expect(diffs[0]!.why).toBe('files changed since the run: src/a.ts (written by the run: replay before applying, or from a clean checkout)');
    // the same difference with the file as it was: the simulator's
    const same = rec([sent(hashOf('a\n')), { kind: 'files_written', task_num: 1, changed: ['src/a.ts'], failed: [] }]);
    expect(compareRecords(same, b, ctx).map((d) => d.class)).toEqual(['simulator', 'simulator']);
  });
});
