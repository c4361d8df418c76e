/**
 * Runs the built coder pack (`pack/main.aip`, as `pro@coder`) in the simulator on the fixture workspace
 * `fixtures/coder/pipeline`, with the scripted answers of its `ai.toml`, and gives tests what the run did:
 * every sub-agent call (stage, input table, response), every AI call, the prints, and the files afterwards.
 * The simulator writes into an overlay, so the fixture on disk is never modified.
 */
import { existsSync, readFileSync } from 'node:fs';
import nodePath from 'node:path';
import { fileURLToPath } from 'node:url';
import { clock } from '../../src/aip/time.ts';
import { ScriptedAi } from '../../src/runtime/ai.ts';
import type { Mocks } from '../../src/runtime/mocks.ts';
import { REPO_PACK } from '../../src/runtime/packs.ts';
import { AgentRunError, Simulator, type RunOutcome } from '../../src/runtime/simulator.ts';
import type { PromptPartSent, TraceEvent } from '../../src/aip/support/trace.ts';

export const WS = fileURLToPath(new URL('../../fixtures/coder/pipeline', import.meta.url)).replace(/[\\/]$/, '');
export const AI_TOML = nodePath.join(WS, 'ai.toml');
/** The clock of every coder run (the prompt carries the local date and time). */
export const FIXED_NOW = '2026-02-02T20:20:00Z';

/** The prompt file used when the coder gets no input. */
export const DEFAULT_PROMPT = '.aipack/.prompt/pro@coder/coder-prompt.md';

type Table = Record<string, unknown>;

/** One `aip.agent.run` of a sub-agent, as the trace recorded it. */
export interface SubAgentCall {
  /** the name exactly as the pack passed it (the configured `name`) */
  agent: string;
  stage: string;
  /** the single input table the sub-agent received */
  input: Table;
  /** what the sub-agent returned (its single task output), undefined for nil */
  response: unknown;
  /** the error `aip.agent.run` raised, if any */
  error?: string;
}

export interface AiCall {
  task: number;
  model: string;
  prompt: string;
  /** the message parts sent, with their cache marks */
  parts: PromptPartSent[];
  response: string;
}

export interface CoderRun {
  sim: Simulator;
  /** undefined when the run failed */
  outcome?: RunOutcome;
  /** the failure, when the run failed */
  error?: AgentRunError;
  calls: SubAgentCall[];
  ai: AiCall[];
  /** the coder's task pins: { iden, content = {label, content} } */
  pins: { iden: string; content: unknown }[];
  /** what the coder printed */
  prints: string[];
  /** workspace-relative path of the prompt file of the run */
  promptFile: string;
  /** a workspace file after the run (undefined when it does not exist) */
  file(rel: string): string | undefined;
  /** a workspace file as it is in the fixture on disk */
  original(rel: string): string;
  /**
   * workspace-relative paths the run created or changed, outside what every run keeps beside its prompt: `.cache/`,
   * the copied `user-templates/` and the default workbench's `.cache/`
   */
  touched(): string[];
}

export interface RunCoderOptions {
  aipackVersion?: string;
  /** another fixture workspace (absolute), with its own ai.toml; default WS */
  workspace?: string;
  /** stubs for aip.* functions the simulator does not implement (mocks.ts) */
  mocks?: Mocks;
  /** the coder's input instead of `promptDir` (e.g. the prompt file's own path); `promptDir` still names its folder */
  input?: string;
}

const asTable = (v: unknown): Table => (typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Table) : {});

/**
 * Runs `pro@coder` with the prompt dir `promptDir` (workspace-relative) as its input, or with no input (the
 * default prompt file) when it is undefined. A failed run is returned, not thrown (`error`).
 */
export function runCoder(promptDir?: string, options: RunCoderOptions = {}): CoderRun {
  const ws = options.workspace ?? WS;
  if (promptDir === undefined && !existsSync(nodePath.join(ws, DEFAULT_PROMPT))) {
    // without it the coder would create one from its template and stop on the empty instruction
    throw new Error(
      `fixture missing: ${nodePath.join(ws, DEFAULT_PROMPT)} (the .gitignore pattern *.aipack also matches .aipack/ folders: add it with git add -f)`,
    );
  }
  const aiToml = nodePath.join(ws, 'ai.toml');
  const ai = ScriptedAi.fromToml(readFileSync(aiToml, 'utf8'), aiToml);
  const sim = new Simulator({ workspaceDir: ws, packs: [REPO_PACK], ai, aipackVersion: options.aipackVersion ?? '0.8.15', mocks: options.mocks });
  let outcome: RunOutcome | undefined;
  let error: AgentRunError | undefined;
  const realClock = { ...clock };
  clock.now = () => new Date(FIXED_NOW);
  clock.timeZone = () => 'UTC';
  try {
    const input = options.input ?? promptDir;
    outcome = sim.run({ name: 'pro@coder', inputs: input === undefined ? [] : [input], baseDir: ws });
  } catch (err) {
    if (!(err instanceof AgentRunError)) throw err;
    error = err;
  } finally {
    Object.assign(clock, realClock);
  }
  const promptFile = promptDir === undefined ? DEFAULT_PROMPT : `${promptDir}/coder-prompt.md`;
  const promptDirRel = nodePath.posix.dirname(promptFile);
  // what the pack makes in every run (as upstream): the reports, the user templates, the README copy
  const bookkeeping = [`${promptDirRel}/.cache/`, `${promptDirRel}/user-templates/`, `${promptDirRel}/workbench-default/.cache/`, `${promptDirRel}/README.md`];
  const calls = sim.trace.of('agent_call').map((e: Extract<TraceEvent, { kind: 'agent_call' }>): SubAgentCall => {
    const input = asTable(e.inputs[0]);
    return {
      agent: e.agent,
      stage: String(input.coder_stage),
      input,
      response: e.outputs?.[0] ?? undefined,
      error: e.error,
    };
  });
  return {
    sim,
    outcome,
    error,
    calls,
    ai: sim.trace.of('ai').map((e) => ({ task: e.task, model: e.model, prompt: e.prompt, parts: e.parts, response: e.response })),
    pins: sim.trace.of('pin').filter((e) => e.agent === 'pro@coder').map((e) => ({ iden: e.iden, content: e.content })),
    prints: sim.trace.of('print').filter((e) => e.agent === 'pro@coder').map((e) => e.text),
    promptFile,
    file: (rel) => sim.vfs.readFile(nodePath.join(ws, rel)),
    original: (rel) => readFileSync(nodePath.join(ws, rel), 'utf8'),
    touched: () => {
      const { created, changed, deleted } = sim.vfs.changes();
      return [...created, ...changed, ...deleted].filter((p) => !bookkeeping.some((dir) => p.startsWith(dir))).sort();
    },
  };
}

/** The calls of one stage, optionally of one agent. */
export function callsIn(run: CoderRun, stage: string, agent?: string): SubAgentCall[] {
  return run.calls.filter((c) => c.stage === stage && (agent === undefined || c.agent === agent));
}

/** The run's outcome, or a test failure that shows why the run failed. */
export function completed(run: CoderRun): RunOutcome {
  if (run.error) throw new Error(`the coder run failed: ${run.error.message}`);
  if (!run.outcome) throw new Error('the coder run has no outcome');
  if (run.outcome.skipped !== undefined) throw new Error(`the coder run was skipped: ${run.outcome.skipped}`);
  return run.outcome;
}

/** The text below the first `====` line of a prompt file (undefined when there is none). */
export function belowSeparator(text: string): string | undefined {
  const lines = text.split('\n');
  const at = lines.indexOf('====');
  return at < 0 ? undefined : lines.slice(at + 1).join('\n');
}
