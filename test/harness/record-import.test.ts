import fs from 'node:fs';
import nodePath from 'node:path';
import { parse as parseToml } from 'smol-toml';
import { describe, expect, it } from 'vitest';
import { listRecords, readRecord } from '../../src/harness/record-file.ts';
import { importRecord, isAgent, type ScriptedAnswer } from '../../src/harness/record-import.ts';
import { runContractFile } from '../../src/harness/run-case.ts';
import { DEMO_AI, EVENT_FORM_AI, eventFormWorkspace, recordDemo, runAndWrite } from '../helpers/record.ts';

const demoAnswers = (parseToml(fs.readFileSync(DEMO_AI, 'utf8')) as unknown as { response: ScriptedAnswer[] }).response;

function writeAll(files: ReturnType<typeof importRecord>): void {
  for (const f of files) fs.writeFileSync(f.file, f.text);
}

describe('record import: the demo run', () => {
  const { ws, record } = recordDemo();

  it('writes one case file per sub-agent, one case per recorded call, beside the agent; every case passes', () => {
    const files = importRecord(record, { workspaceDir: ws, answers: demoAnswers });
    const id = record.run.id.slice(0, 13);
    expect(files.map((f) => [nodePath.relative(ws, f.file), f.cases, f.todos])).toEqual(
      [['prompt-refiner', 1], ['context-from-words', 1], ['instruction-clarifier', 1], ['plan', 1], ['plan-check', 1], ['model-per-task', 2], ['forbidden-paths-guard', 2], ['run-summary', 1], ['review', 2]]
        .map(([name, n]) => [`my-agents/${name}.record-${id}.contract.toml`, n, 0]),
    );
    writeAll(files);
    for (const f of files) {
      const result = runContractFile(f.file);
      expect(result.cases.map((c) => [c.name, c.status, c.message ?? ''])).toEqual(result.cases.map((c) => [c.name, 'passed', '']));
    }
  });

  it('a sub-agent that asks a model itself gets a todo without answers: its case fails and says what to fill in', () => {
    const [file] = importRecord(record, { workspaceDir: ws, agent: 'instruction-clarifier' });
    expect(file!.todos).toBe(1);
    fs.writeFileSync(file!.file, file!.text);
    const [c] = runContractFile(file!.file).cases;
    expect(c!.status).toBe('failed');
    expect(c!.message).toMatch(/^todo: my-agents\/instruction-clarifier\.aip asks a model itself, and a record holds only its final answer: add its model answers as ai = \[\.\.\.\] \(or run import with --ai FILE\)/);
  });

  it('takes the inputs as given: stage, prompts, params, the task, the entry keys, the coder answer', () => {
    const [guard] = importRecord(record, { workspaceDir: ws, agent: 'forbidden-paths-guard.aip' });
    const doc = parseToml(guard!.text) as { agent: string; case: Record<string, any>[] };
    expect(doc.agent).toBe('forbidden-paths-guard.aip');
    expect(doc.case[1]).toMatchObject({
      stage: 'post_task',
      task: { num: 2, count: 2, working_files: ['src/utils/format.ts'] },
      config: { forbidden: ['secrets/**', '.env'], on_violation: 'strip' },
      response: { content: expect.stringContaining('file_path=".env"'), model_name: 'demo-small' },
      expect: { response: expect.not.stringContaining('file_path=".env"') },
    });
    expect(doc.case[1]!.params).not.toHaveProperty('sub_agents');
    expect(guard!.text).toMatch(/^# Cases from run record /);
  });

  it('refuses an agent the record has no call of, naming those it has', () => {
    expect(() => importRecord(record, { workspaceDir: ws, agent: 'reviewer' })).toThrow(/has no call of sub-agent 'reviewer' \(it recorded: my-agents\/prompt-refiner\.aip, /);
  });
});

describe('record import: the event form', () => {
  const ws = eventFormWorkspace();
  runAndWrite(ws, EVENT_FORM_AI);
  const record = readRecord(listRecords(ws)[0]!);
  const files = importRecord(record, { workspaceDir: ws });
  writeAll(files);

  it('writes cases on the event each call ran on, with the chain an emitted event ran in', () => {
    const ctx = parseToml(files.find((f) => f.agent === 'agents/ctx.aip')!.text) as { case: Record<string, any>[] };
    expect(ctx.case.map((c) => c.on)).toEqual(['start', 'end']);
    expect(ctx.case[0]!.expect).toMatchObject({ emit: ['plan::ready'], params_contains: { context_globs: ['src/**/*.ts'] }, agent_result: { seen: 'start' } });
    const listener = parseToml(files.find((f) => f.agent === 'agents/listener.aip')!.text) as { case: Record<string, any>[] };
    expect(listener.case[0]).toMatchObject({ on: 'plan::ready', during: 'start', expect: { prompt: expect.stringMatching(/Plan ready\.$/) } });
    expect(listener.case[0]!.prev).toEqual(expect.arrayContaining([expect.objectContaining({ name: 'agents/ctx.aip', event: 'start' })]));
  });

  it('every deterministic case passes; the one that records the time fails on it, as it should', () => {
    for (const f of files) {
      const result = runContractFile(f.file);
      if (f.agent === 'agents/stamp.aip') {
        expect(result.cases[0]!.status).toBe('failed');
        expect(result.cases[0]!.message).toMatch(/agent_result\.at/);
      } else {
        expect(result.cases.map((c) => [f.agent, c.status, c.message ?? ''])).toEqual(result.cases.map(() => [f.agent, 'passed', '']));
      }
    }
  });
});

describe('isAgent', () => {
  it('takes the entry name, the file name, or the file name without .aip', () => {
    expect(isAgent('my-agents/x.aip', 'my-agents/x.aip')).toBe(true);
    expect(isAgent('my-agents/x.aip', 'x.aip')).toBe(true);
    expect(isAgent('my-agents/x.aip', 'x')).toBe(true);
    expect(isAgent('my-agents/x.aip', 'y')).toBe(false);
  });
});
