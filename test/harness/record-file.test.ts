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
    expect(() => parseRecord('/r', JSON.stringify({ ...RUN, format: 2 }), '')).toThrow(/run\.json: record format 2 is not one this version reads \(expected 1\)/);
    expect(() => parseRecord('/r', '{', '')).toThrow(/run\.json: not JSON/);
    expect(() => parseRecord('/r', JSON.stringify(RUN), '\n' + JSON.stringify({ kind: 'weather' }))).toThrow(RecordError);
    expect(() => parseRecord('/r', JSON.stringify(RUN), '\n' + JSON.stringify({ kind: 'weather' }))).toThrow(/events\.ndjson:2: kind/);
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
