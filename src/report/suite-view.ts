/** The data of a suite's HTML report: a light index of its cases (each case's run is kept apart, see page.ts). */

export interface CaseRow {
  /** the case's place in the report; its run is the `runs[id]` of the page */
  id: number;
  /** the case file, relative to where the suite ran */
  file: string;
  /** the agent under test as the case file names it */
  agent: string;
  name: string;
  stage: string;
  status: 'passed' | 'failed' | 'skipped';
  ms: number;
  slow: boolean;
  message?: string;
  warnings: string[];
  /** the page holds this case's run */
  run: boolean;
}

export interface SuiteView {
  title: string;
  passed: number;
  failed: number;
  skipped: number;
  notRun: number;
  /** harness errors: case files that could not run */
  errors: string[];
  /** the sum of the cases' times */
  ms: number;
  slowMs: number;
  agentsWithoutContract: string[];
  cases: CaseRow[];
}
