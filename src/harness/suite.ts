/** A run of many case files, as `coder-subagents test` does it, and its reports (human, JSON, JUnit XML). */
import { escapeControls, escapeLine, xmlText } from '../support/terminal-text.ts';
import nodePath from 'node:path';
import pc from 'picocolors';
import { STAGES, type Stage } from '../contract/index.ts';
import { CaseFileError, loadContractFile, type ContractCase, type ContractFile } from './case-file.ts';
import { discover } from './discover.ts';
import { matchesFilter, runCase, watchOf, type CaseResult, type ContractFileResult, type RunOptions } from './run-case.ts';
import { prepareAgent } from './stage.ts';

export interface SuiteOptions extends RunOptions {
  /** stop after this many failed cases; the cases after are not run (`--bail`) */
  bail?: number;
  /** run only this part of the selected cases: case k (0-based, in file order) belongs to shard k mod count + 1 */
  shard?: { index: number; count: number };
  /** agents found where the case files were searched: those that no case file tests are listed (absolute paths) */
  agents?: string[];
  /** cases (caseKey) left out of this run: a worker stopped by a deadline ran them already */
  skipCases?: string[];
  /** failed cases counted towards `bail` before this run */
  failedBefore?: number;
  /** told each case before it runs, with its file's agent */
  onCaseStart?: (c: CaseStart) => void;
  /** told each case's result as soon as it is known */
  onCaseDone?: (r: CaseResult) => void;
}

/** A case about to run: what a result for it needs if it never finishes. */
export interface CaseStart {
  file: string;
  name: string;
  index: number;
  stage: Stage;
  agent: string;
  agentFile: string;
}

/** Identifies a case across runs: its case file (absolute) and position. */
export const caseKey = (c: { file: string; index: number }) => `${c.file}#${c.index}`;

export interface StageCoverage {
  /** the agent's .aip file (absolute) */
  agent: string;
  /** how many cases ran (not skipped) per stage */
  stages: Partial<Record<Stage, number>>;
}

export interface SuiteResult {
  files: ContractFileResult[];
  /** every case run, in file order then case order */
  cases: CaseResult[];
  /** harness problems: malformed case files, missing agents (each names its file) */
  errors: string[];
  passed: number;
  failed: number;
  skipped: number;
  /** selected cases left out because --bail stopped the run */
  notRun: number;
  /** the bail limit that stopped the run, when it did */
  bailedAt?: number;
  /** agents found under the searched paths that no case file tests (absolute) */
  agentsWithoutContract: string[];
  /** per agent under test, the stages its cases ran */
  coverage: StageCoverage[];
}

/**
 * Runs the given case files, in order; a malformed file is recorded and the others still run. Cases are selected by
 * `filter`, `testNamePattern` and `shard`; `bail` stops the run after that many failed cases.
 */
export function runContractFiles(files: string[], options: SuiteOptions = {}): SuiteResult {
  const errors: string[] = [];
  const loaded: { path: string; file: ContractFile }[] = [];
  for (const path of files) {
    try {
      loaded.push({ path, file: loadContractFile(path) });
    } catch (err) {
      if (err instanceof CaseFileError) errors.push(err.message);
      else throw err;
    }
  }
  let k = 0;
  const inShard = () => {
    const i = k++;
    return !options.shard || i % options.shard.count === options.shard.index - 1;
  };
  const plan = loaded.map(({ path, file }) => ({
    path,
    file,
    cases: file.cases.filter((c) => matchesFilter(path, c.name, options.filter, options.testNamePattern)).filter(inShard) as ContractCase[],
  }));

  const results: ContractFileResult[] = [];
  const skip = new Set(options.skipCases ?? []);
  let failed = options.failedBefore ?? 0;
  let notRun = 0;
  let stopped = options.bail !== undefined && failed >= options.bail;
  for (const { path, file, cases } of plan) {
    if (stopped) {
      notRun += cases.filter((c) => !skip.has(caseKey({ file: file.file, index: c.index }))).length;
      continue;
    }
    try {
      const agent = prepareAgent(file.agent, file.dir, file.support, options, path);
      const done: CaseResult[] = [];
      for (const c of cases) {
        if (skip.has(caseKey({ file: file.file, index: c.index }))) continue;
        if (stopped) {
          notRun++;
          continue;
        }
        options.onCaseStart?.({ file: file.file, name: c.name, index: c.index, stage: c.stage, agent: file.agent, agentFile: agent.file });
        const r = runCase(file, c, options, agent);
        options.onCaseDone?.(r);
        done.push(r);
        if (r.status === 'failed') failed++;
        if (options.bail !== undefined && failed >= options.bail) stopped = true;
      }
      results.push({ file: file.file, agent: file.agent, cases: done, watch: watchOf(file, agent), agentFile: agent.file });
    } catch (err) {
      if (err instanceof CaseFileError) errors.push(err.message);
      else throw err;
    }
  }

  const all = results.flatMap((r) => r.cases);
  const count = (s: CaseResult['status']) => all.filter((c) => c.status === s).length;
  // an agent counts as tested when a case file ran it, or when its own case file was given (even if it failed to load)
  const tested = new Set([...results.map((r) => r.agentFile), ...files.map((f) => nodePath.resolve(f).replace(/\.contract\.toml$/, '.aip'))]);
  return {
    files: results,
    cases: all,
    errors,
    passed: count('passed'),
    failed: count('failed'),
    skipped: count('skipped'),
    notRun,
    ...(stopped && options.bail !== undefined ? { bailedAt: options.bail } : {}),
    agentsWithoutContract: (options.agents ?? []).filter((a) => !tested.has(a)),
    coverage: coverageOf(results),
  };
}

/** Per agent under test, the stages its cases ran (skipped cases left out). */
export function coverageOf(results: ContractFileResult[]): StageCoverage[] {
  const coverage = new Map<string, StageCoverage>();
  for (const r of results) {
    const entry = coverage.get(r.agentFile) ?? { agent: r.agentFile, stages: {} };
    for (const c of r.cases) if (c.status !== 'skipped') entry.stages[c.stage] = (entry.stages[c.stage] ?? 0) + 1;
    coverage.set(r.agentFile, entry);
  }
  return [...coverage.values()].filter((c) => Object.keys(c.stages).length > 0);
}

/** Finds the case files under `paths` (default `.`; files, directories or globs) and runs them. */
export function runSuite(paths: string[], options: SuiteOptions = {}, cwd = process.cwd()): SuiteResult {
  const found = discover(paths, cwd);
  return runContractFiles(found.files, { agents: found.agents, ...options });
}

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

const display = (file: string, cwd: string) => {
  const rel = nodePath.relative(cwd, file);
  return rel && !rel.startsWith('..') ? rel.split(nodePath.sep).join('/') : file;
};
/** a path or name as the terminal shows it: control characters visible */
const shown = (file: string, cwd: string) => escapeLine(display(file, cwd));

const indent = (text: string, by: string) => text.split('\n').map((l) => by + l).join('\n');

/**
 * A case slower than this (ms) is flagged in the report. Warm cases take 10-80 ms; the first case of a run also
 * pays the Lua VM's warm-up (up to ~500 ms on a 2-core machine), which is not the agent's fault.
 */
export const SLOW_MS = 1000;

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

/** `pre ×3, post_task ×1` */
const stagesText = (c: StageCoverage) =>
  STAGES.filter((s) => c.stages[s]).map((s) => `${s} ×${c.stages[s]}`).join(', ') || 'no case ran';

/**
 * The human report: one line per case with its time (slow ones flagged), the failure diff and warnings under it,
 * the stages each agent's cases cover, the agents without a case file, then the summary line.
 * Harness errors (SuiteResult.errors) are not part of it: the CLI prints them on stderr.
 */
export function formatSuite(r: SuiteResult, o: FormatOptions = {}): string {
  const cwd = o.cwd ?? process.cwd();
  const slow = o.slowMs ?? SLOW_MS;
  const lines: string[] = [];
  for (const c of r.cases) {
    const time = c.status === 'skipped' ? '' : c.ms >= slow ? ` ${pc.yellow(`${Math.round(c.ms)} ms (slow)`)}` : ` ${pc.dim(`${Math.round(c.ms)} ms`)}`;
    const title = `${shown(c.file, cwd)} › ${escapeLine(c.name)} ${pc.dim(`(${c.stage})`)}`;
    if (c.status === 'passed') lines.push(`${pc.green('✓')} ${title}${time}`);
    else if (c.status === 'skipped') lines.push(`${pc.yellow('-')} ${title} ${pc.yellow('skipped')}`);
    else lines.push(`${pc.red('✗')} ${title}${time}`);
    if (c.message) lines.push(indent(escapeControls(c.message), '    '));
    for (const w of c.warnings) lines.push(`    ${pc.yellow('warning:')} ${escapeControls(w)}`);
    if (o.trace && o.formatTrace && c.result) {
      const t = o.formatTrace(c);
      if (t) lines.push(`    ${pc.dim('trace:')}`, indent(t, '      ')); // formatTrace escapes the event texts
    }
  }
  if (lines.length > 0) lines.push('');
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

/** The `--reporter json` report. */
export function suiteJson(r: SuiteResult, cwd = process.cwd(), slowMs = SLOW_MS) {
  return {
    cases: r.cases.map((c) => ({
      file: display(c.file, cwd),
      name: c.name,
      stage: c.stage,
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
    agents_without_contract: r.agentsWithoutContract.map((a) => display(a, cwd)),
    coverage: r.coverage.map((c) => ({ agent: display(c.agent, cwd), stages: c.stages })),
  };
}

const xml = xmlText;

const seconds = (ms: number) => (ms / 1000).toFixed(3);

/**
 * The `--reporter junit` report: JUnit XML as CI systems read it (GitHub, GitLab, Jenkins, Azure). One
 * <testsuite> per case file, one <testcase> per case (name `<case> (<stage>)`); a harness error is a
 * <testcase> with an <error>.
 */
export function suiteJunit(r: SuiteResult, cwd = process.cwd()): string {
  const out: string[] = ['<?xml version="1.0" encoding="UTF-8"?>'];
  const total = r.cases.reduce((t, c) => t + c.ms, 0);
  out.push(
    `<testsuites name="coder-subagents" tests="${r.cases.length + r.errors.length}" failures="${r.failed}" errors="${r.errors.length}" skipped="${r.skipped}" time="${seconds(total)}">`,
  );
  for (const f of r.files) {
    const name = xml(display(f.file, cwd));
    const failures = f.cases.filter((c) => c.status === 'failed').length;
    const skipped = f.cases.filter((c) => c.status === 'skipped').length;
    const time = f.cases.reduce((t, c) => t + c.ms, 0);
    out.push(`  <testsuite name="${name}" tests="${f.cases.length}" failures="${failures}" errors="0" skipped="${skipped}" time="${seconds(time)}">`);
    for (const c of f.cases) {
      const open = `    <testcase classname="${name}" name="${xml(`${c.name} (${c.stage})`)}" time="${seconds(c.ms)}"`;
      const body: string[] = [];
      if (c.status === 'skipped') body.push('      <skipped/>');
      if (c.status === 'failed') {
        const message = c.message ?? 'failed';
        body.push(`      <failure message="${xml(message.split('\n')[0])}">${xml(message)}</failure>`);
      }
      if (c.warnings.length > 0) body.push(`      <system-out>${xml(c.warnings.map((w) => `warning: ${w}`).join('\n'))}</system-out>`);
      out.push(body.length === 0 ? `${open}/>` : `${open}>\n${body.join('\n')}\n    </testcase>`);
    }
    out.push('  </testsuite>');
  }
  if (r.errors.length > 0) {
    out.push(`  <testsuite name="case files that could not run" tests="${r.errors.length}" failures="0" errors="${r.errors.length}" skipped="0" time="0.000">`);
    for (const e of r.errors) {
      const file = e.split(':')[0];
      out.push(`    <testcase classname="${xml(file)}" name="${xml(file)}" time="0.000">\n      <error message="${xml(e.split('\n')[0])}">${xml(e)}</error>\n    </testcase>`);
    }
    out.push('  </testsuite>');
  }
  out.push('</testsuites>');
  return out.join('\n') + '\n';
}
