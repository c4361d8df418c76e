import nodePath from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import type { CaseResult } from '../../src/harness/run-case.ts';
import type { Port } from '../../src/isolate/isolate.ts';
import { simulate, suite } from '../../src/harness/worker-jobs.ts';
import { AGENTS, tmpDir, write } from './helpers.ts';

const WS = fileURLToPath(new URL('../../fixtures/runtime', import.meta.url)).replace(/\/$/, '');

/** A port that records what a job tells its parent. */
function recordingPort() {
  const seen = { at: [] as string[], notes: [] as string[], sent: [] as unknown[] };
  const port: Port = { at: (w) => seen.at.push(w), note: (w) => seen.notes.push(w), send: (v) => seen.sent.push(v) };
  return { port, seen };
}

describe('the worker jobs', () => {
  it('simulate runs an agent and returns plain data: outcome, trace events, changes and what --write would write', async () => {
    const { port, seen } = recordingPort();
    const r = await simulate({ sim: { workspaceDir: WS }, request: { name: 'writes', baseDir: nodePath.join(WS, 'agents') } }, port);
    expect(r.error).toBeUndefined();
    expect((r.outcome?.afterAll as { protected: string }).protected).toMatch(/Save file protection/);
    expect(r.files).toEqual({ created: ['out/new.txt'], changed: [], deleted: [] });
    expect(r.batches.map((b) => [b.stage, b.changes.map(([abs]) => abs)])).toEqual([['After All', [nodePath.join(WS, 'out', 'new.txt')]]]);
    expect(r.events.some((e) => e.kind === 'file')).toBe(true);
    expect(seen.at).toEqual(['writes']);
    expect(seen.notes.length).toBeGreaterThan(0);
    expect(() => structuredClone(r)).not.toThrow();
  });

  it('simulate reports a failed run as its serialized error, with what its stages saved before the failure to write, stage by stage', async () => {
    const ws = tmpDir();
    const agent = [
      '# Before All\n\n```lua\naip.file.save("a.txt", "a")\nreturn nil\n```\n',
      '# Output\n\n```lua\naip.file.save("b.txt", "b")\nreturn nil\n```\n',
      '# After All\n\n```lua\naip.file.save("x.txt", "x")\nerror("boom")\n```\n',
    ].join('\n');
    write(ws, 'saves-then-fails.aip', agent);
    const r = await simulate({ sim: { workspaceDir: ws }, request: { name: 'saves-then-fails', baseDir: ws, inputs: [1] } }, recordingPort().port);
    expect(r.error?.name).toBe('AgentRunError');
    expect(r.error?.message).toMatch(/boom/);
    expect(r.files.created).toEqual(['a.txt', 'b.txt', 'x.txt']);
    expect(r.batches.map((b) => [b.stage, b.changes.map(([abs]) => nodePath.basename(abs))])).toEqual([
      ['Before All', ['a.txt']],
      ['Output (task 1)', ['b.txt']],
      ['After All', ['x.txt']],
    ]);
  });

  it('suite runs case files, sending each case as it starts and ends; its plain-data result leaves the cases out', async () => {
    const { port, seen } = recordingPort();
    const r = await suite({ files: [nodePath.join(AGENTS, 'answer-cleaner.contract.toml')], options: {} }, port);
    const done = seen.sent.filter((m) => Object.hasOwn(m as object, 'done')).map((m) => (m as { done: CaseResult }).done);
    expect(done.map((c) => [c.name, c.status])).toEqual([
      ['removes DEBUG lines', 'passed'],
      ['leaves a clean answer alone', 'passed'],
    ]);
    expect(seen.at.map((w) => w.replace(/ of .*/, ''))).toEqual(['case "removes DEBUG lines"', 'case "leaves a clean answer alone"']);
    expect([r.passed, r.cases, r.files.map((f) => f.cases), r.errorAt]).toEqual([2, [], [[]], []]);
    expect(() => structuredClone(r)).not.toThrow();
    expect(() => structuredClone(done)).not.toThrow();
  });

  it('suite with a share runs only the cases it takes from the shared counter', async () => {
    const file = nodePath.join(AGENTS, 'answer-cleaner.contract.toml');
    const counter = new SharedArrayBuffer(4);
    new Int32Array(counter)[0] = 1; // another worker took the first case
    const { port, seen } = recordingPort();
    await suite({ files: [file], options: {}, share: { counter, first: true, seen: [] } }, port);
    const done = seen.sent.filter((m) => Object.hasOwn(m as object, 'done')).map((m) => (m as { done: CaseResult }).done.name);
    expect(done).toEqual(['leaves a clean answer alone']);
    expect(new Int32Array(counter)[0]).toBe(2); // it took the second case only
  });
});
