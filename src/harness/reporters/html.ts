/**
 * The `--reporter html` report: one self-contained page (report/page.ts) with the cases grouped by file and agent,
 * a filter, each failure's diff, times with slow cases marked, and each case's run (timeline, calls, model calls)
 * opening on demand from its own block of the page.
 */
import { addTokens } from '../../report/tokens.ts';
import { reportPage } from '../../report/page.ts';
import type { RunView } from '../../report/run-view.ts';
import type { CaseRow, SuiteView } from '../../report/suite-view.ts';
import { relativeToCwd } from '../../support/paths.ts';
import { caseRunView } from '../case-view.ts';
import { SLOW_MS, type SuiteResult } from '../suite-result.ts';

export interface HtmlOptions {
  cwd?: string;
  slowMs?: number;
  title?: string;
}

/** The report page of a suite run. A case's run comes from its `run` (kept by the worker) or its full result. */
export function suiteHtml(r: SuiteResult, o: HtmlOptions = {}): string {
  const cwd = o.cwd ?? process.cwd();
  const slowMs = o.slowMs ?? SLOW_MS;
  const agentOf = new Map<string, string>();
  for (const f of r.files) agentOf.set(f.file, f.agent);
  const runs: (RunView | undefined)[] = [];
  const cases: CaseRow[] = r.cases.map((c, id) => {
    const file = relativeToCwd(c.file, cwd);
    const kept = c.run ?? caseRunView(c, file);
    // titled with the case file as this report names it (the worker knew it by another path)
    const run = kept && { ...kept, title: `${file} › ${c.name}` };
    runs.push(run && addTokens(run));
    return {
      id,
      file,
      agent: agentOf.get(c.file) ?? '',
      name: c.name,
      stage: c.event ? `${c.stage} (${c.event})` : c.stage,
      status: c.status,
      ms: Math.round(c.ms * 10) / 10,
      slow: c.status !== 'skipped' && c.ms >= slowMs,
      ...(c.message !== undefined ? { message: c.message } : {}),
      warnings: c.warnings,
      run: run !== undefined,
    };
  });
  const suite: SuiteView = {
    title: o.title ?? 'coder-subagents test',
    passed: r.passed,
    failed: r.failed,
    skipped: r.skipped,
    notRun: r.notRun,
    errors: r.errors,
    ms: Math.round(r.cases.reduce((t, c) => t + c.ms, 0)),
    slowMs,
    agentsWithoutContract: r.agentsWithoutContract.map((a) => relativeToCwd(a, cwd)),
    cases,
  };
  return reportPage({ kind: 'suite', suite }, runs);
}
