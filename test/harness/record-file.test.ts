import fs from 'node:fs';
import os from 'node:os';
import nodePath from 'node:path';
import { describe, expect, it } from 'vitest';
import { findRecord, listRecords, parseRecord, RecordError } from '../../src/harness/record-file.ts';

const RUN = {
  format: 1,
  id: '01a21e0b-5c99-7afb-b602-e707f1357712',
  workspace_dir: '/home/alice/proj',
  prompt_path: '.aipack/.prompt/pro@coder/coder-prompt.md',
  prompt_dir: '/home/alice/proj/.aipack/.prompt/pro@coder',
  meta: { record: true },
  inst: 'Fix it',
  first_part: '```toml\n#!meta\nrecord = true\n```\n\nFix it\n',
};
const CALL = { kind: 'sub_agent', name: 'a.aip', config: { name: 'a.aip' }, stage: 'pre', input: {}, response: null };

describe('parseRecord', () => {
  it('reads the header and every event, an empty Lua table written as [] or {} alike', () => {
    const rec = parseRecord('/r', JSON.stringify({ ...RUN, meta: [] }), JSON.stringify(CALL) + '\n' + JSON.stringify({ kind: 'files_written', task_num: 1, changed: {}, failed: ['x'] }) + '\n');
    expect(rec.run.meta).toEqual({});
    expect(rec.events.map((e) => e.kind)).toEqual(['sub_agent', 'files_written']);
    expect(rec.events[1]).toMatchObject({ changed: [], failed: ['x'] });
  });

  it('keeps the events before a torn last line (a run stopped while writing), but not a torn line in the middle', () => {
    const torn = JSON.stringify(CALL) + '\n{"kind":"par';
    expect(parseRecord('/r', JSON.stringify(RUN), torn).events).toHaveLength(1);
    expect(() => parseRecord('/r', JSON.stringify(RUN), '{"kind":"par\n' + JSON.stringify(CALL) + '\n')).toThrow(/events\.ndjson:1: not JSON/);
  });

  it('names the file, the line and what was expected', () => {
    expect(() => parseRecord('/r', JSON.stringify({ ...RUN, format: 4 }), '')).toThrow(/run\.json: record format 4 is not one this version reads \(expected 1, 2 or 3\)/);
    expect(() => parseRecord('/r', '{', '')).toThrow(/run\.json: not JSON/);
    expect(() => parseRecord('/r', JSON.stringify(RUN), '\n' + JSON.stringify({ kind: 'weather' }))).toThrow(RecordError);
    expect(() => parseRecord('/r', JSON.stringify(RUN), '\n' + JSON.stringify({ kind: 'weather' }))).toThrow(/events\.ndjson:2: kind/);
  });
});

describe('parseRecord: what an input names of the one before it (format 2)', () => {
  const config = (name: string) => ({ name, stages: ['pre'] });
  const call = (name: string, input: Record<string, unknown>, refs?: Record<string, unknown>) => ({ ...CALL, name, config: undefined, input, ...(refs ? { input_refs: refs } : {}) });
  const workbench = { data_dir: 'w/data' };

  it('puts back the same value and the lists continued from the input before, in record order and across lines', () => {
    const [a, b, c] = [config('a.aip'), config('b.aip'), config('c.aip')];
    const first = call('a.aip', { agent_config: a, coder_workbench: workbench, sub_agents_prev: [], sub_agents_next: [b, c] });
    const second = call('b.aip', { agent_config: b, sub_agents_prev: [{ name: 'a.aip', response: { x: 1 } }], sub_agents_next: [] }, { coder_workbench: 'same', sub_agents_next: { from: 2, count: 1 } });
    const third = call('c.aip', { agent_config: c, sub_agents_prev: [{ name: 'b.aip' }], sub_agents_next: {} }, { coder_workbench: 'same', sub_agents_prev: { from: 1, count: 1 } });
    const text = JSON.stringify([first, second]) + '\n' + JSON.stringify(third) + '\n';
    const events = parseRecord('/r', JSON.stringify({ ...RUN, format: 2 }), text).events;
    expect(events.map((e) => (e.kind === 'sub_agent' ? e.input : undefined))).toEqual([
      first.input,
      { agent_config: b, coder_workbench: workbench, sub_agents_prev: [{ name: 'a.aip', response: { x: 1 } }], sub_agents_next: [c] },
      { agent_config: c, coder_workbench: workbench, sub_agents_prev: [{ name: 'a.aip', response: { x: 1 } }, { name: 'b.aip' }], sub_agents_next: {} },
    ]);
    expect(events.every((e) => !('input_refs' in e))).toBe(true);
    // the config comes from the rebuilt input, and no two inputs share an object
    expect(events[1]).toMatchObject({ config: b });
    const [one, two] = events as unknown as { input: { coder_workbench: { data_dir: string } } }[];
    two!.input.coder_workbench.data_dir = 'changed';
    expect(one!.input.coder_workbench.data_dir).toBe('w/data');
  });

  it('names the line of a reference that cannot be followed', () => {
    const head = JSON.stringify({ ...RUN, format: 2 });
    const lone = call('a.aip', {}, { coder_workbench: 'same' });
    expect(() => parseRecord('/r', head, JSON.stringify(lone))).toThrow(/events\.ndjson:1: input_refs names the input before it, but no sub-agent input comes before it/);
    const first = call('a.aip', { sub_agents_next: [config('b.aip')] });
    const past = call('b.aip', { sub_agents_next: [] }, { sub_agents_next: { from: 1, count: 2 } });
    expect(() => parseRecord('/r', head, JSON.stringify([first, past]))).toThrow(/events\.ndjson:1\[2\]: input_refs\.sub_agents_next: items 1\.\.2 of a list of 1/);
    const missing = call('b.aip', {}, { coder_workbench: 'same' });
    expect(() => parseRecord('/r', head, JSON.stringify(first) + '\n' + JSON.stringify(missing))).toThrow(/events\.ndjson:2: input_refs\.coder_workbench: the input before it has no coder_workbench/);
  });
});

describe('parseRecord: what an input names (format 3)', () => {
  const config = (name: string) => ({ name, stages: ['pre'] });
  const call = (name: string, input: Record<string, unknown>, refs?: Record<string, unknown>, entries?: unknown[]) => ({
    ...CALL, name, config: undefined, input, ...(refs ? { input_refs: refs } : {}), ...(entries ? { stage_entries: entries } : {}),
  });
  const workbench = { data_dir: 'w/data' };
  const head = JSON.stringify({ ...RUN, format: 3 });
  const [a, b, c, d] = [config('a.aip'), config('b.aip'), config('c.aip'), config('d.aip')];

  it("puts back the stage's entries at their positions (counted from 1), the history's first items and the same workbench", () => {
    const first = call('a.aip', { agent_config: a, coder_workbench: workbench, sub_agents_prev: [] }, { sub_agents_next: [3, 4] }, [a, b, c, d]);
    const second = call('c.aip', { agent_config: c, sub_agents_prev: [{ config: a }] }, { coder_workbench: 'same', sub_agents_next: [4] });
    const third = call('d.aip', { agent_config: d, sub_agents_prev: [{ config: c }], sub_agents_next: [] }, { coder_workbench: 'same', sub_agents_prev: 1 });
    // a new list for the stage: what follows names positions in it
    const fourth = call('b.aip', { agent_config: b, coder_workbench: workbench, sub_agents_prev: [] }, { sub_agents_next: [1] }, [d]);
    const text = JSON.stringify([first, second]) + '\n' + JSON.stringify([third, fourth]) + '\n';
    const events = parseRecord('/r', head, text).events;
    expect(events.map((e) => (e.kind === 'sub_agent' ? e.input : undefined))).toEqual([
      { agent_config: a, coder_workbench: workbench, sub_agents_prev: [], sub_agents_next: [c, d] },
      { agent_config: c, coder_workbench: workbench, sub_agents_prev: [{ config: a }], sub_agents_next: [d] },
      { agent_config: d, coder_workbench: workbench, sub_agents_prev: [{ config: a }, { config: c }], sub_agents_next: [] },
      { agent_config: b, coder_workbench: workbench, sub_agents_prev: [], sub_agents_next: [d] },
    ]);
    expect(events.every((e) => !('input_refs' in e) && !('stage_entries' in e))).toBe(true);
    expect(events[1]).toMatchObject({ config: c });
    // no two inputs share an object
    const [one, two] = events as unknown as { input: { sub_agents_next: { name: string }[] } }[];
    two!.input.sub_agents_next[0]!.name = 'changed';
    expect(one!.input.sub_agents_next[1]!.name).toBe('d.aip');
  });

  it('names the line of a reference that cannot be followed', () => {
    const noList = call('a.aip', {}, { sub_agents_next: [1] });
    expect(() => parseRecord('/r', head, JSON.stringify(noList))).toThrow(/events\.ndjson:1: input_refs\.sub_agents_next names positions in the stage's entry list, but no stage_entries comes before it/);
    const first = call('a.aip', { sub_agents_prev: [{ config: a }] }, { sub_agents_next: [2] }, [a, b]);
    const past = call('b.aip', {}, { sub_agents_next: [3] });
    expect(() => parseRecord('/r', head, JSON.stringify(first) + '\n' + JSON.stringify([first, past]))).toThrow(/events\.ndjson:2\[2\]: input_refs\.sub_agents_next: position 3 of a stage entry list of 2/);
    const longer = call('b.aip', {}, { sub_agents_prev: 2 });
    expect(() => parseRecord('/r', head, JSON.stringify([first, longer]))).toThrow(/events\.ndjson:1\[2\]: input_refs\.sub_agents_prev: items 1\.\.2 of a list of 1/);
    const zero = call('b.aip', {}, { sub_agents_next: [0] });
    expect(() => parseRecord('/r', head, JSON.stringify([first, zero]))).toThrow(/events\.ndjson:1\[2\]: input_refs/);
  });
});

describe('findRecord', () => {
  const ws = fs.mkdtempSync(nodePath.join(os.tmpdir(), 'cs-find-record-'));
  const records = nodePath.join(ws, '.aipack/.prompt/pro@coder/.cache/records');
  for (const id of ['01a0-older', '01a1-newer', '01b2-other']) {
    fs.mkdirSync(nodePath.join(records, id), { recursive: true });
    fs.writeFileSync(nodePath.join(records, id, 'run.json'), '{}');
  }

  it('lists the records oldest first (run ids are UUID v7) and finds one by folder, id start or latest', () => {
    expect(listRecords(ws).map((d) => nodePath.basename(d))).toEqual(['01a0-older', '01a1-newer', '01b2-other']);
    expect(findRecord('latest', ws)).toBe(nodePath.join(records, '01b2-other'));
    expect(findRecord('01a1', ws)).toBe(nodePath.join(records, '01a1-newer'));
    expect(findRecord(nodePath.join(records, '01a0-older'), ws)).toBe(nodePath.join(records, '01a0-older'));
  });

  it('says which records an ambiguous or unknown id could mean', () => {
    expect(() => findRecord('01a', ws)).toThrow("run id '01a' matches 2 records: 01a0-older, 01a1-newer");
    expect(() => findRecord('zz', ws)).toThrow(/no run record 'zz'.*\(records: 01a0-older, 01a1-newer, 01b2-other\)/);
    const empty = fs.mkdtempSync(nodePath.join(os.tmpdir(), 'cs-no-record-'));
    expect(() => findRecord('latest', empty)).toThrow(/no run record in .* \(a run records itself when its prompt's meta block has record = true\)/);
  });
});
