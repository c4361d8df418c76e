/**
 * coder-subagents as a library: contract tests of sub-agents (for your own vitest/jest tests), the effect
 * analysis of a sub-agent response, the `sub_agents` contract itself, and the simulated AIPack runtime.
 *
 *   import { runStage, runContractFile } from 'coder-subagents';
 *
 *   const r = runStage({ agent: 'agents/refiner.aip', stage: 'pre', prompt: 'Fix it', config: { focus: 'auth' } });
 *   expect(r.ok).toBe(true);
 *   expect(r.prompts).toEqual(['Fix it', 'Focus: auth']);
 *
 *   for (const c of runContractFile('agents/refiner.contract.toml').cases) expect(c.status, c.message).not.toBe('failed');
 */

import { addLoadedEngine } from './engine/index.ts';
import { fengariEngine } from './engine/fengari-engine.ts';

// Contract tests (the harness behind `coder-subagents test`)
export { runStage, runPreparedStage } from './harness/run-stage.ts';
export { prepareAgent } from './harness/agent-discovery.ts';
export { SANDBOX_ROOT, SANDBOX_WS } from './harness/sandbox-paths.ts';
export type { StageRequest, StageInput, HarnessOptions } from './harness/stage-request.ts';
export type { StageResult } from './harness/stage-result.ts';
export type { AgentUnderTest } from './harness/agent-discovery.ts';
export { runCase, runContractFile, checkCase, matchesFilter } from './harness/run-case.ts';
export type { CaseResult, CaseStatus, ContractFileResult, RunOptions } from './harness/run-case.ts';
export { runSuite, runContractFiles } from './harness/suite.ts';
export { SLOW_MS } from './harness/suite-result.ts';
export { summaryLine, formatSuite } from './harness/reporters/human.ts';
export { suiteJson } from './harness/reporters/json.ts';
export { suiteJunit } from './harness/reporters/junit.ts';
// the same under a wall-clock deadline per case, in a worker thread (a hanging sub-agent cannot hang your tests)
export { runContractFilesIsolated, SuiteStoppedError } from './harness/isolated.ts';
export { DeadlineError, IsolateCrashError, DEFAULT_TIMEOUT_MS } from './isolate/isolate.ts';
export { CommitError } from './runtime/commit.ts';
export type { SuiteOptions } from './harness/suite.ts';
export type { SuiteResult, StageCoverage } from './harness/suite-result.ts';
export type { FormatOptions } from './harness/reporters/human.ts';
export { loadConfig, ConfigError } from './harness/config-parse.ts';
export type { TestConfig } from './harness/config-parse.ts';
export { findConfigFile, CONFIG_FILE } from './harness/config-find.ts';
export type { ReporterName } from './harness/config-find.ts';
export { loadContractFile, parseContractFile, CaseFileError, CaseFileSchema } from './harness/case-file.ts';
export type { ContractFile, ContractCase, CaseExpect, CaseTask, AiAnswer, ResponsesItem, CoderResponseInput, PrevItem, AiPromptExpectation } from './harness/case-file.ts';
export { discover, findContractFiles, affectedContractFiles, DiscoveryError, CASE_FILE_SUFFIX } from './harness/discover.ts';
export { diffValues, textDiff } from './harness/compare.ts';
export { starterFiles, eventStarter } from './harness/init-scaffold.ts';

// What a sub-agent response does
export { analyzeEffect, effectWarnings } from './effects/effects.ts';
export { suggest } from './support/suggest.ts';
export type { StageEffect, ParamsEffect, PromptsEffect, ResponseEffect, UnknownKey, AnalyzeOptions } from './effects/effects.ts';

// The sub_agents contract (zod schemas, normalisation, response checks, messages)
export * from './contract/index.ts';

// The simulated AIPack runtime
export { Simulator, AgentRunError, RunLimitError } from './runtime/simulator.ts';
export { DEFAULT_AIPACK_VERSION } from './aip/catalog.ts';
export type { SimulatorOptions, RunRequest, RunOutcome } from './runtime/simulator.ts';
export { ScriptedAi, NoScriptedResponseError } from './runtime/ai.ts';
export type { ScriptedResponse } from './runtime/ai.ts';
export { createOverlayVfs } from './runtime/vfs.ts';
export type { Vfs, FileChanges } from './support/vfs.ts';
export { REPO_PACK } from './runtime/packs.ts';
export type { PackLocation } from './runtime/resolve.ts';
export { Trace } from './aip/support/trace.ts';
export type { TraceEvent } from './aip/support/trace.ts';

// The Lua engines: fengari (Lua 5.3, default; loaded with the package, so a Simulator on it needs no await) and lua54
// (Lua 5.4 on wasmoon; `await loadEngine('lua54')` before use)
addLoadedEngine(fengariEngine);
export { loadEngine, getEngine, ENGINE_NAMES, DEFAULT_ENGINE } from './engine/index.ts';
export type { EngineName, LuaEngine } from './engine/index.ts';
