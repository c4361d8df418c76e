/** The human report of `coder-subagents test` (`--reporter default`). */
import pc from 'picocolors';
import { STAGES } from '../../contract/index.ts';
import type { CaseResult } from '../run-case.ts';
import { caseLabel, SLOW_MS, type StageCoverage, type SuiteResult } from '../suite-result.ts';
import { relativeToCwd } from '../../support/paths.ts';
import { escapeControls, escapeLine } from '../../support/terminal-text.ts';

/** a path or name as the terminal shows it: control characters visible */
const shown = (file: string, cwd: string) => escapeLine(relativeToCwd(file, cwd));

const indent = (text: string, by: string) => text.split('\n').map((l) => by + l).join('\n');

/** `N passed, M failed` (and `, K skipped` when any, the cases --bail left out, and the case files that could not run). */
export function summaryLine(r: Pick<SuiteResult, 'passed' | 'failed' | 'skipped'> & { errors?: readonly string[]; notRun?: number; bailedAt?: number }): string {
  const errors = r.errors?.length ?? 0;
  const notRun = r.notRun ?? 0;
  return (
    `${r.passed} passed, ${r.failed} failed${r.skipped > 0 ? `, ${r.skipped} skipped` : ''}` +
    (r.bailedAt !== undefined ? `, ${notRun} not run (stopped by --bail after ${r.bailedAt} failure${r.bailedAt === 1 ? '' : 's'})` : '') +
    (errors > 0 ? `, ${errors} case file${errors === 1 ? '' : 's'} not run (see the error${errors === 1 ? '' : 's'} above)` : '')
  );
}

export interface FormatOptions {
  /** paths are shown relative to it */
  cwd?: string;
  /** append each case's trace (the sub-agent's part of the simulated run) */
  trace?: boolean;
  /** formats a trace; given by the CLI (src/cli/format.ts) */
  formatTrace?: (c: CaseResult) => string;
  /** cases slower than this (ms) are flagged `slow` (default SLOW_MS) */
  slowMs?: number;
}

/** `pre ×3, post_task ×1`, then the events of event-form cases: `start ×2, plan::ready ×1` */
const stagesText = (c: StageCoverage) =>
  [...STAGES.filter((s) => c.stages[s]).map((s) => `${s} ×${c.stages[s]}`), ...Object.entries(c.events ?? {}).map(([e, n]) => `${escapeLine(e)} ×${n}`)].join(', ') ||
  'no case ran';

/** The lines of one case: its line with its time (slow ones flagged), the failure diff and warnings under it, its trace. */
export function formatCase(c: CaseResult, o: FormatOptions = {}): string[] {
  const cwd = o.cwd ?? process.cwd();
  const slow = o.slowMs ?? SLOW_MS;
  const lines: string[] = [];
  const time = c.status === 'skipped' ? '' : c.ms >= slow ? ` ${pc.yellow(`${Math.round(c.ms)} ms (slow)`)}` : ` ${pc.dim(`${Math.round(c.ms)} ms`)}`;
  const title = `${shown(c.file, cwd)} › ${escapeLine(c.name)} ${pc.dim(`(${escapeLine(caseLabel(c))})`)}`;
  if (c.status === 'passed') lines.push(`${pc.green('✓')} ${title}${time}`);
  else if (c.status === 'skipped') lines.push(`${pc.yellow('-')} ${title} ${pc.yellow('skipped')}`);
  else lines.push(`${pc.red('✗')} ${title}${time}`);
  if (c.message) lines.push(indent(escapeControls(c.message), '    '));
  // a warning's own lines stay under it, indented: none can pass for a case line of the report
  for (const w of c.warnings) lines.push(indent(`${pc.yellow('warning:')} ${escapeControls(w)}`, '    '));
  if (o.trace && o.formatTrace && c.result) {
    const t = o.formatTrace(c);
    if (t) lines.push(`    ${pc.dim('trace:')}`, indent(t, '      ')); // formatTrace escapes the event texts
  }
  return lines;
}

/**
 * The human report: one line per case (formatCase), the stages each agent's cases cover, the agents without a
 * case file, then the summary line. `cases: false` leaves the case lines out (they were printed as the cases
 * ended). Harness errors (SuiteResult.errors) are not part of it: the CLI prints them on stderr.
 */
export function formatSuite(r: SuiteResult, o: FormatOptions & { cases?: boolean } = {}): string {
  const cwd = o.cwd ?? process.cwd();
  const lines: string[] = [];
  if (o.cases !== false) for (const c of r.cases) lines.push(...formatCase(c, o));
  if (r.cases.length > 0) lines.push('');
  if (r.coverage.length > 0) {
    lines.push(pc.dim('stages covered:'));
    for (const c of r.coverage) lines.push(pc.dim(`  ${shown(c.agent, cwd)}: ${stagesText(c)}`));
  }
  if (r.agentsWithoutContract.length > 0) {
    lines.push(pc.yellow(`no contract file (not tested): ${r.agentsWithoutContract.map((a) => shown(a, cwd)).join(', ')}`));
  }
  if (r.coverage.length > 0 || r.agentsWithoutContract.length > 0) lines.push('');
  const summary = summaryLine(r);
  lines.push(r.failed > 0 || r.errors.length > 0 ? pc.red(summary) : pc.green(summary));
  return lines.join('\n');
}
