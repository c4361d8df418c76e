/** A hand-built SuiteResult for the reporter tests: two case files, each status once, a harness error. */
import type { CaseResult, ContractFileResult } from '../../src/harness/run-case.ts';
import type { SuiteResult } from '../../src/harness/suite-result.ts';

export const CWD = '/proj';

const kase = (file: string, name: string, over: Partial<CaseResult>): CaseResult => ({
  file: `${CWD}/${file}`,
  name,
  index: 1,
  stage: 'pre',
  status: 'passed',
  warnings: [],
  ms: 12,
  ...over,
});

export function sampleSuite(): SuiteResult {
  const a = [
    kase('agents/a.contract.toml', 'keeps the prompt', { ms: 12.4 }),
    kase('agents/a.contract.toml', 'drops <debug> & "noise"', { index: 2, stage: 'post_task', status: 'failed', message: 'prompts differ\n  - x\n  + y', ms: 1500 }),
  ];
  const b = [kase('agents/b.contract.toml', 'later', { status: 'skipped', ms: 0, warnings: ['unused key'] })];
  const file = (f: string, cases: CaseResult[]): ContractFileResult =>
    ({ file: `${CWD}/${f}`, agent: f.replace('.contract.toml', '.aip'), cases, watch: [], agentFile: `${CWD}/${f.replace('.contract.toml', '.aip')}` }) as ContractFileResult;
  return {
    files: [file('agents/a.contract.toml', a), file('agents/b.contract.toml', b)],
    cases: [...a, ...b],
    errors: ['agents/c.contract.toml: case #1: unknown key \'x\''],
    passed: 1,
    failed: 1,
    skipped: 1,
    notRun: 0,
    agentsWithoutContract: [`${CWD}/agents/lonely.aip`],
    coverage: [{ agent: `${CWD}/agents/a.aip`, stages: { pre: 1, post_task: 1 } }],
  };
}
