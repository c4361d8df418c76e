import fs from 'node:fs';
import nodePath from 'node:path';
import { parse as parseToml } from 'smol-toml';
import { describe, expect, it } from 'vitest';
import { listRecords, readRecord } from '../../src/harness/record-file.ts';
import type { ScriptedAnswer } from '../../src/harness/record-import.ts';
import { coderAnswers, replayRecord } from '../../src/harness/replay.ts';
import { copyDemo, DEMO_AI, EVENT_FORM_AI, eventFormWorkspace, recordDemo, runAndWrite, writeRecord } from '../helpers/record.ts';

const demoAnswers = (parseToml(fs.readFileSync(DEMO_AI, 'utf8')) as unknown as { response: ScriptedAnswer[] }).response;
const classes = (r: Awaited<ReturnType<typeof replayRecord>>) => [...new Set(r.differences.map((d) => d.class))].sort();

describe('replay of the demo run', () => {
  const { ws, record } = recordDemo();

  it('agrees, step by step, on a workspace as it was before the run', async () => {
    const clean = copyDemo();
    const r = await replayRecord(record, { workspaceDir: clean, answers: demoAnswers });
    expect(r.error).toBeUndefined();
    expect(r.differences).toEqual([]);
    expect(r.steps).toBe(record.events.length);
    expect(r.replayed!.events.map((e) => e.kind)).toEqual(record.events.map((e) => e.kind));
  });

  it('on the workspace the run changed, every difference is the workspace, none the simulator', async () => {
    const r = await replayRecord(record, { workspaceDir: ws, answers: demoAnswers });
    expect(r.differences.filter((d) => d.class === 'workspace').length).toBeGreaterThan(0);
    expect(classes(r)).not.toContain('simulator');
    expect(r.differences.find((d) => d.class === 'workspace')!.why).toMatch(/^files changed since the run: .*src\/auth\/login\.ts \(written by the run: replay before applying, or from a clean checkout\)/);
  });

  it("says what is missing when a sub-agent's own model call has no answer", async () => {
    const r = await replayRecord(record, { workspaceDir: copyDemo() });
    expect(r.error).toMatch(/no scripted AI response for .*instruction-clarifier/);
  });

  it("answers the coder from the record, each task's answer matched to its working file", () => {
    expect(coderAnswers(record)).toEqual([
      expect.objectContaining({ agent: 'pro@coder', model: 'demo-model', match: 'WORKING_FILE file_path="src/auth/login\\.ts"' }),
      expect.objectContaining({ agent: 'pro@coder', model: 'demo-small', match: 'WORKING_FILE file_path="src/utils/format\\.ts"' }),
    ]);
  });
});

describe('replay of records that differ as a real AIPack run differs', () => {
  const ws = eventFormWorkspace();
  runAndWrite(ws, EVENT_FORM_AI);
  const record = readRecord(listRecords(ws)[0]!);

  it('a time in an answer is nondeterminism; the rest agrees', async () => {
    const r = await replayRecord(record, { workspaceDir: ws });
    expect(r.error).toBeUndefined();
    expect(r.differences.map((d) => [d.class, d.step, d.path])).toEqual([
      ['nondeterminism', 'sub_agent pre agents/stamp.aip #1', 'response.agent_result.at'],
    ]);
  });

  it("real CTX paths (another machine's workspace) are read as the replay's own", async () => {
    const dir = writeRecord(record, (run, events) => {
      const swap = (s: string) => s.split(ws).join('/home/alice/proj');
      Object.assign(run, JSON.parse(swap(JSON.stringify(run))));
      events.forEach((e, i) => (events[i] = JSON.parse(swap(JSON.stringify(e)))));
    });
    const edited = readRecord(dir);
    expect(edited.run.workspace_dir).toBe('/home/alice/proj');
    const r = await replayRecord(edited, { workspaceDir: ws });
    expect(classes(r)).toEqual(['nondeterminism']);
  });

  it("Lua 5.4's 64-bit integers: replayed on lua54 by default and agree; on fengari a simulator difference with a note", async () => {
    const dir = writeRecord(record, (run, events) => {
      run.lua_version = 'Lua 5.4';
      run.integer_bits = 64;
      const maxint = events.find((e) => e.name === 'agents/maxint.aip')!;
      (maxint.response as { agent_result: { max: number } }).agent_result.max = 9223372036854775807;
    });
    const edited = readRecord(dir);
    const on54 = await replayRecord(edited, { workspaceDir: ws });
    expect(on54.engine).toBe('lua54');
    expect(classes(on54)).toEqual(['nondeterminism']);
    const onFengari = await replayRecord(edited, { workspaceDir: ws, engine: 'fengari' });
    expect(onFengari.differences.filter((d) => d.class === 'simulator').map((d) => [d.step, d.path])).toEqual([
      ['sub_agent post agents/maxint.aip #1', 'response.agent_result.max'],
    ]);
    expect(onFengari.notes.join('\n')).toMatch(/the record ran Lua 5\.4 with 64-bit integers; this replay ran on fengari .*--engine lua54/);
  });

  it('a file changed since the run is the workspace, for the task that sent it', async () => {
    const changed = eventFormWorkspace();
    runAndWrite(changed, EVENT_FORM_AI);
    const rec = readRecord(listRecords(changed)[0]!);
    fs.writeFileSync(nodePath.join(changed, 'src/a.ts'), 'export const a = 2;\n');
    const r = await replayRecord(rec, { workspaceDir: changed });
    const workspace = r.differences.filter((d) => d.class === 'workspace');
    expect(workspace.map((d) => `${d.step} ${d.path}`)).toEqual(['files_sent task 1 context[1].hash']);
    expect(workspace[0]!.why).toBe('files changed since the run: src/a.ts');
    expect(classes(r)).toEqual(['nondeterminism', 'workspace']);
  });
});
