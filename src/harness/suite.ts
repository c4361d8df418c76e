/** A run of many case files, as `coder-subagents test` does it (its reports are in reporters/). */
import nodePath from 'node:path';
import { CaseFileError, loadContractFile, type ContractCase, type ContractFile } from './case-file.ts';
import { discover } from './discover.ts';
import { matchesFilter, runCase, watchOf, type CaseResult, type ContractFileResult, type RunOptions } from './run-case.ts';
import { prepareSubject } from './group.ts';
import { caseRunView } from './case-view.ts';
import { caseKey, coverageOf, type CaseStart, type SuiteResult } from './suite-result.ts';
import { withPackReads } from './pack-reads.ts';

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
  /** with `verdictsOnly`: keep of each case also the data of its run's HTML report (`CaseResult.run`) */
  runViews?: boolean;
  /**
   * Shares the selected cases with other runs of the same files (isolated.ts splits a suite over workers): a case
   * runs here only when `next()` hands out its position (0-based over the selected cases, in order; a counter
   * shared between the runs). A file is prepared here for its cases that run here, or when `prepare` asks for it
   * (a file with no selected case, or one whose cases an earlier worker of the same share ran). Not with `bail`.
   */
  claim?: { next: () => number; prepare: (file: ContractFile, hasCases: boolean) => boolean };
  /**
   * told each harness error with where a run of all files meets it: [slot, case] with slot = the file's index, plus
   * files.length when the error comes from preparing or running the file (after all files are loaded), and the
   * case's position in the file (-1 for none); runs that share the cases order and deduplicate their errors by it
   */
  onError?: (message: string, at: [number, number]) => void;
}

/**
 * Runs the given case files, in order; a malformed file is recorded and the others still run. Cases are selected by
 * `filter`, `testNamePattern` and `shard`; `bail` stops the run after that many failed cases.
 */
export function runContractFiles(files: string[], options: SuiteOptions = {}): SuiteResult {
  // the packs' files are read from the disk once for the whole suite (pack-reads.ts)
  return withPackReads(() => runFiles(files, options));
}

function runFiles(files: string[], options: SuiteOptions): SuiteResult {
  const errors: string[] = [];
  const error = (message: string, at: [number, number]) => {
    errors.push(message);
    options.onError?.(message, at);
  };
  const loaded: { path: string; file: ContractFile; slot: number }[] = [];
  for (const [i, path] of files.entries()) {
    try {
      loaded.push({ path, file: loadContractFile(path), slot: i });
    } catch (err) {
      if (err instanceof CaseFileError) error(err.message, [i, -1]);
      else throw err;
    }
  }
  let k = 0;
  const inShard = () => {
    const i = k++;
    return !options.shard || i % options.shard.count === options.shard.index - 1;
  };
  const plan = loaded.map(({ path, file, slot }) => ({
    path,
    file,
    slot,
    cases: file.cases.filter((c) => matchesFilter(path, c.name, options.filter, options.testNamePattern)).filter(inShard) as ContractCase[],
  }));

  const results: ContractFileResult[] = [];
  const skip = new Set(options.skipCases ?? []);
  let failed = options.failedBefore ?? 0;
  let notRun = 0;
  let stopped = options.bail !== undefined && failed >= options.bail;
  const claim = options.claim;
  // the position of the next case this run may run (every one without `claim`); the next position is taken only
  // once the case before it has ended, so a worker stopped in a case holds no other case
  let mine = claim ? claim.next() : 0;
  let ran = false;
  const take = () => {
    if (claim && ran) mine = claim.next();
    ran = false;
  };
  let at = 0;
  for (const { path, file, cases, slot } of plan) {
    const first = at;
    at += cases.length;
    if (stopped) {
      notRun += cases.filter((c) => !skip.has(caseKey({ file: file.file, index: c.index }))).length;
      continue;
    }
    take();
    if (claim && mine >= at && !claim.prepare(file, cases.length > 0)) continue; // all its cases run elsewhere
    let position = -1;
    try {
      const agent = prepareSubject(file, options, path);
      const done: CaseResult[] = [];
      for (const [i, c] of cases.entries()) {
        position = i;
        if (claim) {
          take();
          if (first + i !== mine) continue; // another run's case
          ran = true;
        }
        if (skip.has(caseKey({ file: file.file, index: c.index }))) continue;
        if (stopped) {
          notRun++;
          continue;
        }
        options.onCaseStart?.({ file: file.file, name: c.name, index: c.index, stage: c.stage, ...(c.event !== undefined ? { event: c.event } : {}), agent: file.agent, agentFile: agent.file });
        const full = runCase(file, c, options, agent);
        const r = options.verdictsOnly ? verdictOf(full, options.runViews) : full;
        options.onCaseDone?.(r);
        done.push(r);
        if (r.status === 'failed') failed++;
        if (options.bail !== undefined && failed >= options.bail) stopped = true;
      }
      results.push({ file: file.file, agent: file.agent, cases: done, watch: watchOf(file, agent), agentFile: agent.file });
    } catch (err) {
      if (!(err instanceof CaseFileError)) throw err;
      error(err.message, [files.length + slot, position]);
      // the file's other cases are not run: hand on the positions of those this run holds
      take();
      while (claim && mine < at) mine = claim.next();
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
function verdictOf(c: CaseResult, runView = false): CaseResult {
  const { result: _result, ...verdict } = c;
  if (!runView) return verdict;
  const run = caseRunView(c);
  return run ? { ...verdict, run } : verdict;
}

/** Finds the case files under `paths` (default `.`; files, directories or globs) and runs them. */
export function runSuite(paths: string[], options: SuiteOptions = {}, cwd = process.cwd()): SuiteResult {
  const found = discover(paths, cwd);
  return runContractFiles(found.files, { agents: found.agents, ...options });
}
