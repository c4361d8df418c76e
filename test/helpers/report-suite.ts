/**
 * Large suites for the HTML report's tests: real case results (the fixture sub-agents' own cases, run once with
 * their runs kept as the html reporter keeps them) repeated to any size, across files of 100 cases.
 */
import nodePath from 'node:path';
import { fileURLToPath } from 'node:url';
import { runContractFiles } from '../../src/harness/suite.ts';
import { coverageOf, type SuiteResult } from '../../src/harness/suite-result.ts';
import type { CaseResult, ContractFileResult } from '../../src/harness/run-case.ts';

const FIXTURES = fileURLToPath(new URL('../../fixtures/sub-agents', import.meta.url));

let real: CaseResult[] | undefined;

/** The fixture sub-agents' cases, each with its run (SuiteOptions.runViews). */
export function realCases(): CaseResult[] {
  real ??= runContractFiles(
    ['instruction-clarifier', 'prompt-refiner', 'forbidden-paths-guard', 'model-per-task'].map((n) => nodePath.join(FIXTURES, `${n}.contract.toml`)),
    { verdictsOnly: true, runViews: true },
  ).cases;
  return real;
}

/** A suite of `n` cases made of the real ones, 100 a file; every 500th case failed. */
export function manyCaseSuite(n: number, dir = '/suite'): SuiteResult {
  const base = realCases();
  const files: ContractFileResult[] = [];
  for (let i = 0; i < n; i++) {
    const g = Math.floor(i / 100);
    if (i % 100 === 0) {
      const agentFile = nodePath.join(dir, `agents/group-${g}.aip`);
      files.push({ file: nodePath.join(dir, `agents/group-${g}.contract.toml`), agent: `group-${g}.aip`, cases: [], watch: [], agentFile });
    }
    const from = base[i % base.length]!;
    const failed = i % 500 === 499;
    const c: CaseResult = {
      ...from,
      file: files[g]!.file,
      name: `case ${i} ${from.name}`,
      index: (i % 100) + 1,
      status: failed ? 'failed' : from.status,
      ...(failed ? { message: 'prompts differ:\n- expected "a"\n+ actual "b"' } : {}),
      ...(from.run ? { run: { ...from.run, title: `agents/group-${g}.contract.toml › case ${i} ${from.name}` } } : {}),
    };
    files[g]!.cases.push(c);
  }
  const cases = files.flatMap((f) => f.cases);
  const count = (s: CaseResult['status']) => cases.filter((c) => c.status === s).length;
  return { files, cases, errors: [], passed: count('passed'), failed: count('failed'), skipped: count('skipped'), notRun: 0, agentsWithoutContract: [], coverage: coverageOf(files) };
}
