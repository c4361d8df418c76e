/** The run of one contract case as the HTML report shows it (report/run-view.ts), from the case's stage run. */
import { coderRunReport } from '../effects/run-report.ts';
import { runView, type RunView } from '../report/run-view.ts';
import type { CaseResult } from './run-case.ts';

/**
 * The report data of `c`'s run: the pipeline's calls of the sub-agent (the driver's traced agent calls, with the
 * effect of each), its model calls and the workspace files the stage wrote. Undefined for a case that did not run.
 */
export function caseRunView(c: CaseResult, file = c.file): RunView | undefined {
  const r = c.result;
  if (!r) return undefined;
  const events = r.trace.events;
  const driver = events.find((e) => e.kind === 'agent_call' && e.depth === 0);
  const driverName = driver?.kind === 'agent_call' ? driver.caller : '';
  const paths = Object.keys(r.files).sort();
  const files = {
    created: paths.filter((p) => r.files[p] !== null),
    changed: [],
    deleted: paths.filter((p) => r.files[p] === null),
  };
  const error = r.error !== undefined ? new Error(r.error) : undefined;
  const report = coderRunReport({ coderName: driverName, trace: r.trace, files, error });
  return runView({
    title: `${file} › ${c.name}`,
    status: c.status,
    message: c.message,
    events,
    coder: { name: driverName, report },
    // what the stage left in the workspace (the case's starting files are not kept beside them)
    files: paths.map((p) => ({ path: p, after: r.files[p] ?? undefined, before: r.files[p] === null ? '' : undefined })),
    warnings: c.warnings,
    tailStage: `${c.stage}${c.event ? ` (${c.event})` : ''}`,
    // the driver is the harness's: the reader knows the agent under test and the case's time
    agent: report.sub_agents[0]?.agent ?? driverName,
    ms: c.ms,
  });
}
