import { SLOW_MS, type SuiteResult } from '../suite-result.ts';
import { relativeToCwd } from '../../support/paths.ts';

/** The `--reporter json` report. */
export function suiteJson(r: SuiteResult, cwd = process.cwd(), slowMs = SLOW_MS) {
  return {
    cases: r.cases.map((c) => ({
      file: relativeToCwd(c.file, cwd),
      name: c.name,
      stage: c.stage,
      // an event-form case: the event it dispatched (its label in every report)
      ...(c.event !== undefined ? { event: c.event } : {}),
      status: c.status,
      message: c.message ?? null,
      warnings: c.warnings,
      ms: Math.round(c.ms),
      slow: c.ms >= slowMs,
    })),
    passed: r.passed,
    failed: r.failed,
    skipped: r.skipped,
    not_run: r.notRun,
    errors: r.errors,
    agents_without_contract: r.agentsWithoutContract.map((a) => relativeToCwd(a, cwd)),
    coverage: r.coverage.map((c) => ({ agent: relativeToCwd(c.agent, cwd), stages: c.stages, ...(c.events ? { events: c.events } : {}) })),
  };
}
