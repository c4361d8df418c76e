/** A run of many case files, as `coder-subagents test` does it, and its human and JSON reports. */
import nodePath from 'node:path';
import pc from 'picocolors';
import { CaseFileError } from './case-file.ts';
import { findContractFiles } from './discover.ts';
import { runContractFile, type CaseResult, type ContractFileResult, type RunOptions } from './run-case.ts';

export interface SuiteResult {
  files: ContractFileResult[];
  /** every case run, in file order then case order */
  cases: CaseResult[];
  /** harness problems: malformed case files, missing agents (each names its file) */
  errors: string[];
  passed: number;
  failed: number;
  skipped: number;
}

/** Runs the given case files (absolute paths), in order; a malformed file is recorded and the others still run. */
export function runContractFiles(files: string[], options: RunOptions = {}): SuiteResult {
  const results: ContractFileResult[] = [];
  const errors: string[] = [];
  for (const file of files) {
    try {
      results.push(runContractFile(file, options));
    } catch (err) {
      if (err instanceof CaseFileError) errors.push(err.message);
      else throw err;
    }
  }
  const cases = results.flatMap((r) => r.cases);
  const count = (s: CaseResult['status']) => cases.filter((c) => c.status === s).length;
  return { files: results, cases, errors, passed: count('passed'), failed: count('failed'), skipped: count('skipped') };
}

/** Finds the case files under `paths` (default `.`) and runs them. */
export function runSuite(paths: string[], options: RunOptions = {}, cwd = process.cwd()): SuiteResult {
  return runContractFiles(findContractFiles(paths, cwd), options);
}

/** `N passed, M failed` (and `, K skipped` when any, and the case files that could not run). */
export function summaryLine(r: Pick<SuiteResult, 'passed' | 'failed' | 'skipped'> & { errors?: readonly string[] }): string {
  const errors = r.errors?.length ?? 0;
  return (
    `${r.passed} passed, ${r.failed} failed${r.skipped > 0 ? `, ${r.skipped} skipped` : ''}` +
    (errors > 0 ? `, ${errors} case file${errors === 1 ? '' : 's'} not run (see the error${errors === 1 ? '' : 's'} above)` : '')
  );
}

const display = (file: string, cwd: string) => {
  const rel = nodePath.relative(cwd, file);
  return rel && !rel.startsWith('..') ? rel.split(nodePath.sep).join('/') : file;
};

const indent = (text: string, by: string) => text.split('\n').map((l) => by + l).join('\n');

export interface FormatOptions {
  /** paths are shown relative to it */
  cwd?: string;
  /** append each case's trace (the sub-agent's part of the simulated run) */
  trace?: boolean;
  /** formats a trace; given by the CLI (src/cli/format.ts) */
  formatTrace?: (c: CaseResult) => string;
}

/**
 * The human report: one line per case, the failure diff and warnings under it, then the summary line.
 * Harness errors (SuiteResult.errors) are not part of it: the CLI prints them on stderr.
 */
export function formatSuite(r: SuiteResult, o: FormatOptions = {}): string {
  const cwd = o.cwd ?? process.cwd();
  const lines: string[] = [];
  for (const c of r.cases) {
    const title = `${display(c.file, cwd)} › ${c.name} ${pc.dim(`(${c.stage})`)}`;
    if (c.status === 'passed') lines.push(`${pc.green('✓')} ${title}`);
    else if (c.status === 'skipped') lines.push(`${pc.yellow('-')} ${title} ${pc.yellow('skipped')}`);
    else lines.push(`${pc.red('✗')} ${title}`);
    if (c.message) lines.push(indent(c.message, '    '));
    for (const w of c.warnings) lines.push(`    ${pc.yellow('warning:')} ${w}`);
    if (o.trace && o.formatTrace && c.result) {
      const t = o.formatTrace(c);
      if (t) lines.push(`    ${pc.dim('trace:')}`, indent(t, '      '));
    }
  }
  if (lines.length > 0) lines.push('');
  const summary = summaryLine(r);
  lines.push(r.failed > 0 || r.errors.length > 0 ? pc.red(summary) : pc.green(summary));
  return lines.join('\n');
}

/** The `--json` report. */
export function suiteJson(r: SuiteResult, cwd = process.cwd()) {
  return {
    cases: r.cases.map((c) => ({
      file: display(c.file, cwd),
      name: c.name,
      stage: c.stage,
      status: c.status,
      message: c.message ?? null,
      warnings: c.warnings,
    })),
    passed: r.passed,
    failed: r.failed,
    skipped: r.skipped,
    errors: r.errors,
  };
}
