import { describe, expect, it } from 'vitest';
import type { CaseResult, ContractFileResult } from '../../src/harness/run-case.ts';
import { caseKey, caseLabel, coverageOf } from '../../src/harness/suite-result.ts';

const c = (stage: CaseResult['stage'], status: CaseResult['status'], index = 1): CaseResult => ({ file: '/w/a.contract.toml', name: `c${index}`, index, stage, status, warnings: [], ms: 1 });
const file = (agentFile: string, cases: CaseResult[]): ContractFileResult => ({ file: `${agentFile}.contract.toml`, agent: 'a', agentFile, cases, watch: [] });

describe('caseKey', () => {
  it('tells cases apart by file and position, not by name', () => {
    expect(caseKey({ file: '/w/a.contract.toml', index: 2 })).toBe('/w/a.contract.toml#2');
    expect(caseKey({ file: '/w/a.contract.toml', index: 2 })).not.toBe(caseKey({ file: '/w/b.contract.toml', index: 2 }));
  });
});

describe('coverageOf', () => {
  it('counts the cases run per agent and stage, skipped ones left out, agents with none dropped', () => {
    const cov = coverageOf([
      file('/w/a.aip', [c('pre', 'passed', 1), c('pre', 'failed', 2), c('post', 'skipped', 3)]),
      file('/w/b.aip', [c('post', 'skipped', 1)]),
      file('/w/a.aip', [c('post_task', 'passed', 1)]),
    ]);
    expect(cov).toEqual([{ agent: '/w/a.aip', stages: { pre: 2, post_task: 1 } }]);
  });

  it('counts event-form cases by their event, not by the stage the event runs in', () => {
    const cov = coverageOf([file('/w/a.aip', [{ ...c('pre', 'passed', 1), event: 'start' }, { ...c('pre', 'passed', 2), event: 'plan::ready' }, c('pre', 'passed', 3)])]);
    expect(cov).toEqual([{ agent: '/w/a.aip', stages: { pre: 1 }, events: { start: 1, 'plan::ready': 1 } }]);
    expect(coverageOf([file('/w/b.aip', [{ ...c('post', 'passed'), event: 'end' }])])).toEqual([{ agent: '/w/b.aip', stages: {}, events: { end: 1 } }]);
  });
});

describe('caseLabel', () => {
  it('is the event of an event-form case, else the stage', () => {
    expect(caseLabel({ stage: 'pre', event: 'plan::ready' })).toBe('plan::ready');
    expect(caseLabel({ stage: 'post_task' })).toBe('post_task');
  });
});
