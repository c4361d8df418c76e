/**
 * What a suite run returns, and the helpers that put one together from its cases: the part of suite.ts that the
 * CLI's main thread needs (isolated.ts, the reporters) without loading the runner, which only its worker runs.
 */
import type { SubAgentStage } from '../contract/index.ts';
import type { CaseResult, ContractFileResult } from './run-case.ts';

/** A case about to run: what a result for it needs if it never finishes. */
export interface CaseStart {
  file: string;
  name: string;
  index: number;
  stage: SubAgentStage;
  /** an event-form case: the event dispatched to the agent */
  event?: string;
  agent: string;
  agentFile: string;
}

/** What a case is labelled by in every report: its event (event form), else its stage. */
export const caseLabel = (c: { stage: SubAgentStage; event?: string }): string => c.event ?? c.stage;

/** Identifies a case across runs: its case file (absolute) and position. */
export const caseKey = (c: { file: string; index: number }) => `${c.file}#${c.index}`;

export interface StageCoverage {
  /** the agent's .aip file (absolute) */
  agent: string;
  /** how many stage-form cases ran (not skipped) per stage */
  stages: Partial<Record<SubAgentStage, number>>;
  /** how many event-form cases ran (not skipped) per event, in the order first met */
  events?: Record<string, number>;
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

/** Per agent under test, the stages its cases ran (skipped cases left out). */
export function coverageOf(results: ContractFileResult[]): StageCoverage[] {
  const coverage = new Map<string, StageCoverage>();
  for (const r of results) {
    const entry = coverage.get(r.agentFile) ?? { agent: r.agentFile, stages: {} };
    for (const c of r.cases) {
      if (c.status === 'skipped') continue;
      if (c.event !== undefined) {
        entry.events ??= {};
        entry.events[c.event] = (entry.events[c.event] ?? 0) + 1;
      } else entry.stages[c.stage] = (entry.stages[c.stage] ?? 0) + 1;
    }
    coverage.set(r.agentFile, entry);
  }
  return [...coverage.values()].filter((c) => Object.keys(c.stages).length > 0 || Object.keys(c.events ?? {}).length > 0);
}

/**
 * A case slower than this (ms) is flagged in the report. Warm cases take 10-80 ms; the first case of a run also
 * pays the Lua VM's warm-up (up to ~500 ms on a 2-core machine), which is not the agent's fault.
 */
export const SLOW_MS = 1000;
