/** The reporters of `coder-subagents test`, by the name `--reporter` and the config file give. */
import type { ReporterName } from '../config-find.ts';
import type { CaseResult } from '../run-case.ts';
import type { SuiteResult } from '../suite-result.ts';
import { formatSuite } from './human.ts';

export { formatSuite };
import { suiteJson } from './json.ts';
import { suiteJunit } from './junit.ts';
import { jsonText } from '../../support/terminal-text.ts';

export interface ReportOptions {
  /** paths are shown relative to it */
  cwd: string;
  slowMs: number;
  /** append each case's trace */
  trace?: boolean;
  formatTrace?: (c: CaseResult) => string;
}

export interface Reporter {
  /** the whole report, ending with a newline */
  render(r: SuiteResult, o: ReportOptions): string;
  /** for machines: printed alone on stdout (errors included), unless it goes to --output-file */
  machine: boolean;
}

export const REPORTER_BY_NAME: Record<ReporterName, Reporter> = {
  default: { machine: false, render: (r, o) => formatSuite(r, o) + '\n' },
  json: { machine: true, render: (r, o) => jsonText(suiteJson(r, o.cwd, o.slowMs), 2) + '\n' },
  junit: { machine: true, render: (r, o) => suiteJunit(r, o.cwd) },
  html: {
    machine: true,
    render: (r, o) => {
      if (!html) throw new Error('the html reporter is not loaded: await loadReporter("html") first');
      return html.suiteHtml(r, { cwd: o.cwd, slowMs: o.slowMs });
    },
  },
};

// the html reporter's modules (the page, the run views, the tokenizer's tables) load only for a run that uses it
let html: typeof import('./html.ts') | undefined;

/** Loads what the reporter `name` needs before its render is called. */
export async function loadReporter(name: ReporterName): Promise<void> {
  if (name === 'html') html ??= await import('./html.ts');
}
