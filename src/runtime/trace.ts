/** A flat, ordered record of what a simulated run did, for the CLI and for tests. */
export type StageName = 'BeforeAll' | 'Data' | 'Output' | 'AfterAll';

export type TraceEvent =
  | { kind: 'agent_start'; depth: number; agent: string; file: string; inputs: number }
  | { kind: 'agent_end'; depth: number; agent: string; ms: number; status: 'completed' | 'skipped' | 'redo' | 'failed'; reason?: string }
  | { kind: 'stage'; depth: number; agent: string; stage: StageName; task?: number; ms: number; instructions: number; error?: string }
  | {
      kind: 'agent_call';
      depth: number;
      caller: string;
      agent: string;
      ms: number;
      /** the inputs it was given and what it returned, as plain data (for effect reports) */
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
  | { kind: 'pin'; depth: number; agent: string; scope: 'run' | 'task'; iden: string; priority?: number; content: unknown }
  | { kind: 'label'; depth: number; agent: string; scope: 'run' | 'task'; label: string }
  | { kind: 'file'; depth: number; agent: string; op: 'write' | 'append' | 'delete' | 'copy' | 'move'; path: string }
  | { kind: 'print'; depth: number; agent: string; text: string }
  /** free-form notes from higher layers (e.g. the sub-agent pipeline's effects) */
  | { kind: 'note'; depth: number; agent: string; topic: string; data: unknown };

/** One message part of a model request, as sent. */
export interface PromptPartSent {
  role: 'system' | 'user' | 'assistant';
  /** the part's `cache = true` heading option (an explicit cache mark, Anthropic) */
  cache: boolean;
  content: string;
}

/** A trace event without the fields the recorder fills in. */
export type TraceInput = TraceEvent;

export class Trace {
  readonly events: TraceEvent[] = [];
  private readonly t0 = performance.now();

  record(event: TraceEvent): void {
    this.events.push(event);
  }

  /** milliseconds since the trace started */
  now(): number {
    return performance.now() - this.t0;
  }

  of<K extends TraceEvent['kind']>(kind: K): Extract<TraceEvent, { kind: K }>[] {
    return this.events.filter((e): e is Extract<TraceEvent, { kind: K }> => e.kind === kind);
  }
}
