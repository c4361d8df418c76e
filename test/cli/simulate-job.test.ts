import nodePath from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import type { Port } from '../../src/isolate/isolate.ts';
import { simulate } from '../../src/cli/simulate-job.ts';
import { tmpDir, write } from '../harness/helpers.ts';

const WS = fileURLToPath(new URL('../../fixtures/runtime', import.meta.url)).replace(/\/$/, '');

/** A port that records what a job tells its parent. */
function recordingPort() {
  const seen = { at: [] as string[], notes: [] as string[], sent: [] as unknown[] };
  const port: Port = { at: (w) => seen.at.push(w), note: (w) => seen.notes.push(w), send: (v) => seen.sent.push(v) };
  return { port, seen };
}

describe('the simulate job (run, run-agent)', () => {
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
});
