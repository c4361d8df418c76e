import { createHash } from 'node:crypto';
import type { LifecycleStage } from './lifecycle-stage.ts';

/** A flat, ordered record of what a simulated run did, for the CLI and for tests. */

export type TraceEvent =
  | { kind: 'agent_start'; depth: number; agent: string; file: string; inputs: number }
  | { kind: 'agent_end'; depth: number; agent: string; ms: number; status: 'completed' | 'skipped' | 'redo' | 'failed'; reason?: string }
  | { kind: 'stage'; depth: number; agent: string; stage: LifecycleStage; task?: number; ms: number; instructions: number; error?: string }
  | {
      kind: 'agent_call';
      depth: number;
      caller: string;
      agent: string;
      ms: number;
      /**
       * the inputs it was given and what it returned, as plain data (for effect reports); summarised (see
       * `summarize`) unless the simulator keeps this call's values in full (SimulatorOptions.traceValues)
       */
      inputs: unknown[];
      outputs?: unknown[];
      afterAll?: unknown;
      error?: string;
    }
  | {
      kind: 'ai';
      depth: number;
      agent: string;
      task: number;
      model: string;
      /** every message part sent, joined by a blank line */
      prompt: string;
      /** the message parts sent, in order, with their cache mark (attachments first) */
      parts: PromptPartSent[];
      response: string;
      ms: number;
    }
  /** how a run's tasks were scheduled: `input_concurrency` in effect and each task's virtual start and end (ms) */
  | { kind: 'tasks'; depth: number; agent: string; concurrency: number; slots: { num: number; start: number; end: number }[] }
  | { kind: 'pin'; depth: number; agent: string; scope: 'run' | 'task'; iden: string; priority?: number; content: unknown }
  | { kind: 'label'; depth: number; agent: string; scope: 'run' | 'task'; label: string }
  | { kind: 'file'; depth: number; agent: string; op: 'write' | 'append' | 'delete' | 'copy' | 'move'; path: string }
  | { kind: 'print'; depth: number; agent: string; text: string }
  /** the top-level run asked for a redo (aip.flow.redo_run): run number `num` of the redo loop starts */
  | { kind: 'redo'; depth: number; agent: string; num: number }
  /** free-form notes from higher layers (e.g. the sub-agent pipeline's effects) */
  | { kind: 'note'; depth: number; agent: string; topic: string; data: unknown };

/** A file sent with a model request (after the text part of its message). */
export interface AttachmentSent {
  /** `file_source` as the agent gave it */
  source: string;
  /** `file_name`, else the file's own name */
  name: string;
  title?: string;
  kind: 'image' | 'pdf' | 'file';
  mime: string;
  /** bytes */
  size: number;
}

/** One message part of a model request, as sent. */
export interface PromptPartSent {
  role: 'system' | 'user' | 'assistant';
  /** the part's `cache = true` heading option (an explicit cache mark, Anthropic) */
  cache: boolean;
  /** the text (for an attachment: its text part) */
  content: string;
  /** an attachment's message: the file sent after the text */
  attachment?: AttachmentSent;
}

export class Trace {
  readonly events: TraceEvent[] = [];
  private readonly t0 = performance.now();

  /** `kinds`: the only kinds of event kept (all by default); a caller that reports little need not keep every step */
  constructor(private readonly kinds?: ReadonlySet<TraceEvent['kind']>) {}

  /** true when events of `kind` are kept (a recorder may skip building one that is not) */
  keeps(kind: TraceEvent['kind']): boolean {
    return this.kinds === undefined || this.kinds.has(kind);
  }

  record(event: TraceEvent): void {
    if (this.keeps(event.kind)) this.events.push(event);
  }

  /** milliseconds since the trace started */
  now(): number {
    return performance.now() - this.t0;
  }

  of<K extends TraceEvent['kind']>(kind: K): Extract<TraceEvent, { kind: K }>[] {
    return this.events.filter((e): e is Extract<TraceEvent, { kind: K }> => e.kind === kind);
  }
}

/** Strings up to this length, and lists up to this many items, are kept as they are in a summary. */
const SUMMARY_STRING = 256;
const SUMMARY_ITEMS = 20;

/**
 * A bounded stand-in for a value kept by the trace: long strings become `<string: N bytes, sha1 H> "first
 * bytes..."`, long lists keep their first items and a count, deep values stop at a few levels. Chains of
 * sub-agents passing big prompts or long lists then run in flat memory.
 */
export function summarize(value: unknown, depth = 0): unknown {
  if (typeof value === 'string') {
    if (value.length <= SUMMARY_STRING) return value;
    return stringSummary(value);
  }
  if (typeof value !== 'object' || value === null) return value;
  if (depth >= 4) return Array.isArray(value) ? `<list of ${value.length}>` : '<table>';
  if (Array.isArray(value)) {
    const head = value.slice(0, SUMMARY_ITEMS).map((v) => summarize(v, depth + 1));
    return value.length > SUMMARY_ITEMS ? [...head, `<${value.length - SUMMARY_ITEMS} more of ${value.length}>`] : head;
  }
  const out: Record<string, unknown> = {};
  const entries = Object.entries(value);
  for (const [k, v] of entries.slice(0, SUMMARY_ITEMS)) out[k] = summarize(v, depth + 1);
  if (entries.length > SUMMARY_ITEMS) out['<more>'] = `${entries.length - SUMMARY_ITEMS} more keys`;
  return out;
}

// A big value passed down a chain is the same JS string at every call (the bridges share it): its summary, whose
// hash reads every byte, is made once. A few recent ones are kept (a lookup of the same string is cheap).
const RECENT_SUMMARIES = 4;
const MEMO_FROM = 64 * 1024;
const MEMO_UP_TO = 16 * 1024 * 1024;
const summaries = new Map<string, string>();

function stringSummary(value: string): string {
  const memo = value.length >= MEMO_FROM && value.length <= MEMO_UP_TO;
  let summary = memo ? summaries.get(value) : undefined;
  if (summary === undefined) {
    const bytes = Buffer.byteLength(value);
    const sha1 = createHash('sha1').update(value).digest('hex').slice(0, 12);
    summary = `<string: ${bytes} bytes, sha1 ${sha1}> ${JSON.stringify(value.slice(0, 64))}...`;
    if (memo) {
      if (summaries.size >= RECENT_SUMMARIES) summaries.delete(summaries.keys().next().value as string);
      summaries.set(value, summary);
    }
  }
  return summary;
}
