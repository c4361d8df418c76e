/**
 * The data of a run's HTML report, made from its trace: the timeline (redo runs, lifecycle stages, the rows in
 * each), every sub-agent call with its input, output and the diffs of what it changed, every model call, the files
 * the run changed and what it could not apply. Plain JSON data: the page (assets/report.js) draws it.
 */
import type { TraceEvent } from '../aip/support/trace.ts';
import { describeEffect, subAgentCallsAt, type CoderRunReport, type FailedChange, type GroupStep } from '../effects/run-report.ts';
import { pickResponse, type StageEffect } from '../effects/effects.ts';
import { aiView, type AiView } from './ai-view.ts';
import { diffLines } from './diff-lines.ts';
import { byteSize, capped, jsonText } from './json-text.ts';

type AgentCall = Extract<TraceEvent, { kind: 'agent_call' }>;

/** One row of the timeline: an index into the run's calls or model calls, or a mark where it happened. */
export type Row =
  | { t: 'call'; call: number }
  | { t: 'ai'; ai: number }
  | { t: 'pin'; agent: string; iden: string; text: string }
  | { t: 'warning'; text: string }
  | { t: 'print'; text: string }
  | { t: 'file'; agent: string; op: string; path: string };

/** A lifecycle stage of the top agent (its rows are what happened up to its end), or the rows after the last one. */
export interface Section {
  stage: string;
  task?: number;
  ms?: number;
  error?: string;
  rows: Row[];
}

/** One run of the agent: the first (`redo` 0) or a redo run (aip.flow.redo_run). */
export interface RunPart {
  redo: number;
  sections: Section[];
}

/** A parallel group's member, one lane of its row. */
export interface LaneView {
  index: number;
  agent: string;
  ms: number;
  models: string[];
  error?: string;
  /** its model calls (indices into `ai`) */
  ai: number[];
}

/** One agent call of the top agent: a sub-agent at a stage, or any agent it ran. */
export interface CallView {
  agent: string;
  /** the sub-agent stage, when the call is one */
  stage?: string;
  task?: number;
  redo?: number;
  ms: number;
  error?: string;
  /** what the call did, on one line */
  summary: string;
  input: string;
  output: string;
  /** what it changed, each as diff lines (empty: unchanged) */
  diffs: { params: string[]; prompt: string[]; answer: string[] };
  /** the model calls it made (and the agents it ran made): indices into `ai` */
  ai: number[];
  lanes?: LaneView[];
}

export interface FileView {
  path: string;
  status: 'created' | 'changed' | 'deleted';
  bytes: number;
  diff: string[];
}

/** Per agent: its calls and its model calls' sizes (tokens set by tokens.ts). */
export interface AgentTotal {
  agent: string;
  aiCalls: number;
  promptBytes: number;
  answerBytes: number;
  promptTokens?: number;
  answerTokens?: number;
}

export interface RunView {
  title: string;
  status: string;
  message?: string;
  /** the top agent's name and its wall time */
  agent: string;
  ms: number;
  parts: RunPart[];
  calls: CallView[];
  ai: AiView[];
  files: FileView[];
  notApplied: FailedChange[];
  warnings: string[];
  /** set by tokens.ts: per agent, then the run's (agent `*`) */
  totals?: AgentTotal[];
}

/** A file the run changed, with its contents before and after (undefined: absent). */
export interface ChangedFile {
  path: string;
  before?: string;
  after?: string;
}

export interface RunViewInput {
  title: string;
  status: string;
  message?: string;
  events: readonly TraceEvent[];
  /** the coder's report of the same trace: its sub-agent calls give the effects of the matching agent calls */
  coder?: { name: string; report: CoderRunReport };
  files: ChangedFile[];
  notApplied?: FailedChange[];
  warnings?: string[];
  /** the section of the rows after the top agent's last traced stage (a contract case: its sub-agent stage) */
  tailStage?: string;
  /** the agent and wall time to show, when the trace's top agent is not the one the reader knows (a case's driver) */
  agent?: string;
  ms?: number;
}

const WARNING = 'WARNING: ';

/** The text of a pin's content: its `content` field when a string (the pack's form), else the value as JSON. */
function pinText(content: unknown): string {
  const inner = (content as { content?: unknown } | null | undefined)?.content;
  return capped(typeof inner === 'string' ? inner : jsonText(content), 4096);
}

function effectDiffs(e: StageEffect | undefined): CallView['diffs'] {
  if (!e) return { params: [], prompt: [], answer: [] };
  return {
    params: diffLines(jsonText(e.params.before), jsonText(e.params.after)),
    prompt: diffLines(e.prompts.before.join('\n\n'), e.prompts.after.join('\n\n')),
    answer: e.coderResponse.replaced ? diffLines(e.coderResponse.before ?? '', e.coderResponse.after ?? '') : [],
  };
}

/** A group's lanes, with the model calls of each member (the ai indices made during that member's run). */
function lanesOf(group: GroupStep, children: readonly { e: TraceEvent; ai?: number }[], runnerDepth: number): LaneView[] {
  const byMember = new Map<number, number[]>();
  let bucket: number[] = [];
  for (const c of children) {
    if (c.ai !== undefined) bucket.push(c.ai);
    else if (c.e.kind === 'stage' && c.e.depth === runnerDepth && c.e.stage === 'Output' && c.e.task !== undefined) {
      byMember.set(c.e.task, bucket);
      bucket = [];
    }
  }
  return group.members.map((m) => ({ index: m.index, agent: m.agent, ms: m.ms, models: m.models, ...(m.error !== undefined ? { error: m.error } : {}), ai: byMember.get(m.index) ?? [] }));
}

function fileView(f: ChangedFile): FileView {
  const status = f.before === undefined ? 'created' : f.after === undefined ? 'deleted' : 'changed';
  return { path: f.path, status, bytes: byteSize(f.after ?? ''), diff: diffLines(capped(f.before ?? ''), capped(f.after ?? '')) };
}

/** The report data of a run from its trace events. */
export function runView(input: RunViewInput): RunView {
  const events = input.events;
  const top = events.reduce((d, e) => Math.min(d, e.depth), Infinity);
  const topAgent = (events.find((e) => e.kind === 'agent_start' && e.depth === top) as { agent?: string } | undefined)?.agent ?? input.coder?.name ?? '';
  // the coder's sub-agent calls, by trace position
  const subAgent = new Map<number, CoderRunReport['sub_agents'][number]>();
  if (input.coder) {
    const at = subAgentCallsAt(events, input.coder.name);
    at.forEach((pos, i) => {
      const call = input.coder!.report.sub_agents[i];
      if (call) subAgent.set(pos, call);
    });
  }
  const parts: RunPart[] = [{ redo: 0, sections: [] }];
  const calls: CallView[] = [];
  const ai: AiView[] = [];
  let rows: Row[] = [];
  // events below the top agent since its last event: what the next agent call ran
  let children: { e: TraceEvent; ai?: number }[] = [];
  let ms = 0;
  const section = (s: Omit<Section, 'rows'>) => {
    parts[parts.length - 1]!.sections.push({ ...s, rows });
    rows = [];
  };
  events.forEach((e, at) => {
    if (e.depth > top) {
      if (e.kind === 'ai') {
        ai.push(aiView(e));
        children.push({ e, ai: ai.length - 1 });
      } else children.push({ e });
      return;
    }
    switch (e.kind) {
      case 'redo':
        if (rows.length) section({ stage: 'before the redo' });
        parts.push({ redo: e.num, sections: [] });
        break;
      case 'stage':
        section({ stage: e.stage, ...(e.task !== undefined ? { task: e.task } : {}), ms: e.ms, ...(e.error !== undefined ? { error: e.error } : {}) });
        break;
      case 'agent_call':
        rows.push({ t: 'call', call: calls.length });
        calls.push(callView(e, subAgent.get(at), children, top));
        children = [];
        break;
      case 'ai':
        ai.push(aiView(e));
        rows.push({ t: 'ai', ai: ai.length - 1 });
        break;
      case 'pin':
        rows.push({ t: 'pin', agent: e.agent, iden: e.iden, text: pinText(e.content) });
        break;
      case 'print':
        rows.push(e.text.startsWith(WARNING) ? { t: 'warning', text: capped(e.text.slice(WARNING.length), 4096) } : { t: 'print', text: capped(e.text, 4096) });
        break;
      case 'note':
        if (e.topic === 'warning') rows.push({ t: 'warning', text: capped(typeof e.data === 'string' ? e.data : jsonText(e.data), 4096) });
        break;
      case 'file':
        rows.push({ t: 'file', agent: e.agent, op: e.op, path: e.path });
        break;
      case 'agent_end':
        if (e.agent === topAgent) ms += e.ms;
        break;
      default:
        break;
    }
  });
  if (rows.length) section({ stage: input.tailStage ?? 'after the last stage' });
  return {
    title: input.title,
    status: input.status,
    ...(input.message !== undefined ? { message: capped(input.message, 16384) } : {}),
    agent: input.agent ?? topAgent,
    ms: input.ms ?? ms,
    parts: parts.filter((p) => p.sections.length > 0),
    calls,
    ai,
    files: input.files.map(fileView),
    notApplied: input.notApplied ?? [],
    warnings: input.warnings ?? [],
  };
}

function callView(e: AgentCall, sub: CoderRunReport['sub_agents'][number] | undefined, children: { e: TraceEvent; ai?: number }[], top: number): CallView {
  const effect = sub?.effect;
  const error = effect?.error ?? e.error;
  return {
    agent: sub?.group ? sub.agent : e.agent,
    ...(sub ? { stage: sub.stage } : {}),
    ...(sub?.task !== undefined ? { task: sub.task } : {}),
    ...(sub?.redo !== undefined ? { redo: sub.redo } : {}),
    ms: e.ms,
    ...(error !== undefined ? { error } : {}),
    summary: sub?.group ? groupSummary(sub.group) : effect ? describeEffect(effect) : e.error !== undefined ? `failed: ${e.error.split('\n')[0]}` : 'done',
    input: jsonText(e.inputs.length === 1 ? e.inputs[0] : e.inputs),
    output: jsonText(sub?.group ? e.outputs : pickResponse(e)),
    diffs: effectDiffs(effect),
    ai: children.flatMap((c) => (c.ai !== undefined ? [c.ai] : [])),
    ...(sub?.group ? { lanes: lanesOf(sub.group, children, top + 1) } : {}),
  };
}

/** A group's line: its members and how they ended (its own effect is its members'). */
function groupSummary(g: GroupStep): string {
  const failed = g.members.filter((m) => m.error !== undefined).length;
  return `${g.members.length} members side by side (concurrency ${g.concurrency}): ${g.members.length - failed} succeeded${failed ? `, ${failed} failed` : ''}`;
}
