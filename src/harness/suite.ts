/** A run of many case files, as `coder-subagents test` does it (its reports are in reporters/). */
import nodePath from 'node:path';
import type { SubAgentStage } from '../contract/index.ts';
import { CaseFileError, loadContractFile, type ContractCase, type ContractFile } from './case-file.ts';
import { discover } from './discover.ts';
import { matchesFilter, runCase, watchOf, type CaseResult, type ContractFileResult, type RunOptions } from './run-case.ts';
import { prepareSubject } from './group.ts';

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
  /**
   * keep of each case only its verdict (status, message, warnings, time), not the stage run (`result`): what a
   * finished case holds then stays the same however many cases run
   */
  verdictsOnly?: boolean;
}

/** A case about to run: what a result for it needs if it never finishes. */
export interface CaseStart {
  file: string;
  name: string;
  index: number;
  stage: SubAgentStage;
  agent: string;
  agentFile: string;
}

/** Identifies a case across runs: its case file (absolute) and position. */
export const caseKey = (c: { file: string; index: number }) => `${c.file}#${c.index}`;

export interface StageCoverage {
  /** the agent's .aip file (absolute) */
  agent: string;
  /** how many cases ran (not skipped) per stage */
  stages: Partial<Record<SubAgentStage, number>>;
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
      const agent = prepareSubject(file, options, path);
      const done: CaseResult[] = [];
      for (const c of cases) {
        if (skip.has(caseKey({ file: file.file, index: c.index }))) continue;
        if (stopped) {
          notRun++;
          continue;
        }
        options.onCaseStart?.({ file: file.file, name: c.name, index: c.index, stage: c.stage, agent: file.agent, agentFile: agent.file });
        const full = runCase(file, c, options, agent);
        const r = options.verdictsOnly ? verdictOf(full) : full;
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

/** A case result without its stage run. */
function verdictOf(c: CaseResult): CaseResult {
  const { result: _result, ...verdict } = c;
  return verdict;
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

/**
 * A case slower than this (ms) is flagged in the report. Warm cases take 10-80 ms; the first case of a run also
 * pays the Lua VM's warm-up (up to ~500 ms on a 2-core machine), which is not the agent's fault.
 */
export const SLOW_MS = 1000;
