import { readFileSync } from 'node:fs';
import nodePath from 'node:path';
import { describe, expect, it } from 'vitest';
import { Trace } from '../../src/aip/support/trace.ts';
import { changedFiles, writeRunReport } from '../../src/cli/html-report.ts';
import type { CliRun } from '../../src/cli/simulate.ts';
import { tmpDir, write } from '../harness/helpers.ts';

const bytes = (s: string) => new TextEncoder().encode(s);

function fakeRun(ws: string): CliRun {
  const trace = new Trace();
  trace.events.push(
    { kind: 'agent_start', depth: 0, agent: 'a.aip', file: 'a.aip', inputs: 0 },
    { kind: 'file', depth: 0, agent: 'a.aip', op: 'write', path: 'src/x.ts' },
    { kind: 'stage', depth: 0, agent: 'a.aip', stage: 'Output', task: 1, ms: 2, instructions: 5 },
    { kind: 'agent_end', depth: 0, agent: 'a.aip', ms: 3, status: 'completed' },
  );
  return {
    workspaceDir: ws,
    outcome: { outputs: [], afterAll: undefined, redos: 0 } as unknown as CliRun['outcome'],
    trace,
    files: { created: ['src/new.ts'], changed: ['src/x.ts'], deleted: ['old.md'] },
    batches: [
      {
        stage: 'Output (task 1)',
        changes: [
          [nodePath.join(ws, 'src/new.ts'), bytes('fresh\n')],
          [nodePath.join(ws, 'src/x.ts'), bytes('after\n')],
          [nodePath.join(ws, 'old.md'), null],
        ],
        dirs: [],
      },
    ],
  };
}

describe('changedFiles', () => {
  it('pairs each changed file\'s content on disk with its content in the run', () => {
    const ws = tmpDir(true);
    write(ws, 'src/x.ts', 'before\n');
    write(ws, 'old.md', 'gone\n');
    expect(changedFiles(fakeRun(ws))).toEqual([
      { path: 'src/new.ts', before: undefined, after: 'fresh\n' },
      { path: 'src/x.ts', before: 'before\n', after: 'after\n' },
      { path: 'old.md', before: 'gone\n', after: undefined },
    ]);
  });
});

describe('writeRunReport', () => {
  it('writes the page of the run (its folder made) and returns its path', () => {
    const ws = tmpDir(true);
    write(ws, 'src/x.ts', 'before\n');
    const run = fakeRun(ws);
    const file = nodePath.join(ws, 'out', 'r.html');
    expect(writeRunReport(file, 'a.aip', run, changedFiles(run))).toBe(file);
    const page = readFileSync(file, 'utf8');
    const data = JSON.parse(/<script type="application\/json" id="report-data">(.*?)<\/script>/s.exec(page)![1]!);
    expect(data.run.status).toBe('completed');
    expect(data.run.files.map((f: { path: string; status: string }) => [f.path, f.status])).toEqual([
      ['src/new.ts', 'created'],
      ['src/x.ts', 'changed'],
      ['old.md', 'deleted'],
    ]);
    expect(data.run.parts[0].sections[0].rows).toEqual([{ t: 'file', agent: 'a.aip', op: 'write', path: 'src/x.ts' }]);
  });
});
