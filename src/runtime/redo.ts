/**
 * A top-level run that asks for a redo (`aip.flow.redo_run()` returned from Before All or After All) is run again,
 * as AIPack's executor does (aipack-ai/aipack src/exec/executor.rs, the Redo action, and src/exec/exec_cmd_run.rs):
 * the agent is loaded again, gets the same inputs, and sees CTX.RUN_FLOW_REDO_COUNT one higher; again as long as
 * each new run asks. A sub-agent's redo request (aip.agent.run) only reports `redo_requested`, it never loops.
 *
 * AIPack itself has no cap; the simulator stops a loop at MAX_SIMULATED_REDOS and fails loudly (a sandbox rule).
 */
import type { Trace } from '../aip/support/trace.ts';
import { AgentRunError } from './lifecycle/agent-run.ts';

export const MAX_SIMULATED_REDOS = 100;

/** What a run gives, as far as redo is concerned. */
export interface RedoableOutcome {
  redoRequested: boolean;
}

/**
 * Runs `runOnce(0)`, then `runOnce(1)`, ... while the last run asked for a redo; each redo is a `redo` trace event.
 * Returns the last run's outcome with `redos` = how many redo runs there were.
 */
export function runWithRedos<O extends RedoableOutcome>(agent: string, trace: Trace, runOnce: (redoCount: number) => O): O & { redos: number } {
  let count = 0;
  let outcome = runOnce(count);
  while (outcome.redoRequested) {
    if (count >= MAX_SIMULATED_REDOS) {
      throw new AgentRunError(
        `${agent} asked for a redo after ${MAX_SIMULATED_REDOS} redo runs: the simulator stops the loop here (AIPack would go on)`,
        agent,
      );
    }
    count += 1;
    trace.record({ kind: 'redo', depth: 0, agent, num: count });
    outcome = runOnce(count);
  }
  return { ...outcome, redos: count };
}
