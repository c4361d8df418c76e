/**
 * Runs one sub-agent in one stage through the pack's own pipeline code, in a fresh sandbox: the library's
 * `runStage` and the contract cases' `runPreparedStage`.
 *
 * The sandbox (stage-sandbox.ts) is a simulated AIPack whose workspace is a purely virtual directory: it holds the
 * case's files, the agent under test (agent-discovery.ts: copied from disk to the same path relative to the
 * workspace as it has relative to the case file, so its configured name resolves exactly as written) with its
 * `lua/` dir, and the case file's `support` paths. A driver agent (driver.ts) is added as a virtual file inside the
 * coder pack's directory and runs the stage through the coder's own stage code (its Before All, Data, Output and
 * After All modules), so the pipeline state is built once, in the pack's Lua; stage-result.ts shapes its answer.
 */
import nodePath from 'node:path';
import { prepareAgent, type AgentUnderTest } from './agent-discovery.ts';
import { driverInputOf, runDriver } from './driver.ts';
import { stageResult, type StageResult } from './stage-result.ts';
import { buildSandbox } from './stage-sandbox.ts';
import { checkStageRequest, targetOf, type HarnessOptions, type StageInput, type StageRequest } from './stage-request.ts';

/** Runs the agent under test in one stage, in a fresh sandbox. Throws CaseFileError for a harness problem. */
export function runPreparedStage(agent: AgentUnderTest, input: StageInput, options: HarnessOptions = {}): StageResult {
  const target = targetOf(agent, input);
  const box = buildSandbox(agent, input, target, options);
  const driverInput = driverInputOf(agent, input, target, box.ws);
  const { result, ms } = runDriver(box.sim, box.driverName, agent, driverInput);
  return stageResult(agent, input, target, box, driverInput, result, ms);
}

/**
 * Runs a sub-agent in one stage through the pack's pipeline, in a fresh sandbox (the library form of a case):
 *
 *   const r = runStage({ agent: 'agents/refiner.aip', stage: 'pre', prompt: 'Fix it', config: { focus: 'auth' } });
 *   expect(r.prompts).toEqual(['Fix it', 'Focus: auth']);
 *
 * A bad request throws CaseFileError naming the key; a failing stage is `ok: false` with the pipeline's message.
 */
export function runStage(request: StageRequest): StageResult {
  checkStageRequest(request);
  const baseDir = nodePath.resolve(request.baseDir ?? process.cwd());
  const agent = prepareAgent(request.agent, baseDir, request.support ?? [], request, 'runStage');
  return runPreparedStage(agent, request, request);
}
