import { describe, expect, it } from 'vitest';
import { suiteJson } from '../../../src/harness/reporters/json.ts';
import { CWD, sampleSuite } from '../../helpers/suite-result.ts';

describe('the JSON report', () => {
  it('lists the cases with paths relative to the cwd, whole ms and the slow flag, then the counts', () => {
    const j = suiteJson(sampleSuite(), CWD, 1000);
    expect(j.cases[0]).toEqual({ file: 'agents/a.contract.toml', name: 'keeps the prompt', stage: 'pre', status: 'passed', message: null, warnings: [], ms: 12, slow: false });
    expect(j.cases[1]).toMatchObject({ status: 'failed', message: 'prompts differ\n  - x\n  + y', ms: 1500, slow: true });
    expect([j.passed, j.failed, j.skipped, j.not_run]).toEqual([1, 1, 1, 0]);
    expect(j.errors).toEqual(["agents/c.contract.toml: case #1: unknown key 'x'"]);
    expect(j.agents_without_contract).toEqual(['agents/lonely.aip']);
    expect(j.coverage).toEqual([{ agent: 'agents/a.aip', stages: { pre: 1, post_task: 1 } }]);
    expect(JSON.parse(JSON.stringify(j))).toEqual(j);
  });

  it('gives an event-form case its event, and the coverage its events', () => {
    const r = sampleSuite();
    r.cases = [{ ...r.cases[0]!, stage: 'post', event: 'end' }];
    r.coverage = [{ agent: `${CWD}/agents/a.aip`, stages: {}, events: { end: 1 } }];
    const j = suiteJson(r, CWD, 1000);
    expect(j.cases[0]).toMatchObject({ stage: 'post', event: 'end' });
    expect(j.coverage).toEqual([{ agent: 'agents/a.aip', stages: {}, events: { end: 1 } }]);
  });
});
