import { describe, expect, it } from 'vitest';
import type { CaseResult, ContractFileResult } from '../../src/harness/run-case.ts';
import { caseKey, coverageOf } from '../../src/harness/suite-result.ts';

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
});
