import nodePath from 'node:path';
import { describe, expect, it } from 'vitest';
import type { CaseResult } from '../../src/harness/run-case.ts';
import type { Port } from '../../src/isolate/isolate.ts';
import { suite } from '../../src/harness/worker-jobs.ts';
import { AGENTS, tmpDir, write } from './helpers.ts';


/** A port that records what a job tells its parent. */
function recordingPort() {
  const seen = { at: [] as string[], notes: [] as string[], sent: [] as unknown[] };
  const port: Port = { at: (w) => seen.at.push(w), note: (w) => seen.notes.push(w), send: (v) => seen.sent.push(v) };
  return { port, seen };
}

describe('the suite job', () => {


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

  it('a stage run whose values would take more than 64 MiB written out fails its case instead of being copied whole', async () => {
    const dir = tmpDir();
    write(dir, 'big.aip', '# Output\n\n```lua\nlocal s = string.rep("x", 1024 * 1024)\nlocal t = {}\nfor i = 1, 2000 do t[i] = s end\nlocal p = input.coder_params\np.big = t\nreturn { coder_params = p }\n```\n');
    const file = write(dir, 'big.contract.toml', 'agent = "big.aip"\n[[case]]\nname = "big"\nprompt = "Go"\n');
    const { port, seen } = recordingPort();
    await suite({ files: [file], options: {} }, port);
    const [done] = seen.sent.filter((m) => Object.hasOwn(m as object, 'done')).map((m) => (m as { done: CaseResult }).done);
    expect(done?.status).toBe('failed');
    expect(done?.result).toBeUndefined();
    expect(done?.message).toMatch(/the stage run \(its result, inputs and trace\) would take more than 64 MiB written out/);
  });
});
