import type { AgentDoc, AgentOptions, LuaScript } from '../agent-doc.ts';
import type { ResolvedAgent } from '../resolve.ts';
import type { LifecycleStage } from '../../aip/support/lifecycle-stage.ts';
import type { AiAnswer } from '../ai.ts';
import { isPlainObject } from '../../engine/values.ts';

/** A run failed: the message is what AIPack would report. */
export class AgentRunError extends Error {
  constructor(
    message: string,
    readonly agent: string,
    readonly stage?: LifecycleStage,
    readonly traceback?: string,
  ) {
    super(message);
    this.name = 'AgentRunError';
  }
}

/** A run ended because its run tree hit a limit (budget, memory cap or deadline): a sandbox rule, not a Lua error. */
export class RunLimitError extends AgentRunError {
  constructor(cause: AgentRunError) {
    super(cause.message, cause.agent, cause.stage, cause.traceback);
    this.name = 'RunLimitError';
  }
}

/** One agent run in progress. */
export interface Frame {
  name: string;
  resolved: ResolvedAgent;
  doc: AgentDoc;
  depth: number;
  chain: string[];
  runUid: string;
  runNum: number;
  parentRunUid?: string;
  /** CTX.RUN_FLOW_REDO_COUNT: how many redo runs came before this top-level run (0 for nested runs) */
  flowRedoCount?: number;
}

/** What the stage modules need of the simulator that runs them. */
export interface StageHost {
  /** runs one Lua stage on a fresh state and returns its first value */
  runStage(frame: Frame, stage: LifecycleStage, script: LuaScript, scope: Record<string, unknown>, taskNum?: number): unknown;
  /** renders the prompt parts and asks the scripted model; undefined when there is nothing to send */
  callAi(frame: Frame, taskNum: number, root: { data: unknown; input: unknown; before_all: unknown }, attachments: unknown[], options: AgentOptions): AiAnswer | undefined;
  /** true when the simulated AIPack version is `version` or later */
  since(version: string): boolean;
}

export function fail(frame: Frame, message: string, stage?: LifecycleStage): AgentRunError {
  return new AgentRunError(message, frame.name, stage);
}

export type Directive = { kind: string; data: unknown };

/** The `aip.flow.*` directive a stage returned, if any (unknown kinds fail, except in After All). */
export function directiveOf(value: unknown, stage: LifecycleStage, frame: Frame): Directive | undefined {
  if (!isPlainObject(value) || !isPlainObject(value._aipack_)) return undefined;
  const kind = value._aipack_.kind;
  if (typeof kind !== 'string') return undefined;
  if (!['Skip', 'Redo', 'BeforeAllResponse', 'DataResponse'].includes(kind)) {
    if (stage === 'AfterAll') return undefined;
    throw new AgentRunError(`_aipack_ kind '${kind}' is not known.`, frame.name, stage);
  }
  return { kind, data: value._aipack_.data };
}

export function redoMisplaced(frame: Frame, stage: 'Data' | 'Output'): AgentRunError {
  const heading = stage === 'Data' ? '# Data' : '# Output';
  return fail(frame, `aip.flow.redo_run() can be returned only from # Before All or # After All stages. Returned from ${heading} stage.`, stage);
}
