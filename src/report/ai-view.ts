import type { TraceEvent } from '../aip/support/trace.ts';
import { byteSize, capped } from './json-text.ts';

/** One message part of a model request, as the report shows it. */
export interface PartView {
  role: string;
  cache: boolean;
  bytes: number;
  /** estimated tokens (tokens.ts), set when the page is made */
  tokens?: number;
  content: string;
}

/** A file a request carried: in a `<X_FILE file_path="...">` block of a part (the coder's form), or attached. */
export interface CarriedFile {
  path: string;
  /** what carried it: the block's tag (`WORKING_FILE`, ...) or `attachment` */
  kind: string;
  bytes: number;
}

/** One model call of a run. */
export interface AiView {
  agent: string;
  model: string;
  task: number;
  ms: number;
  parts: PartView[];
  files: CarriedFile[];
  promptBytes: number;
  answer: string;
  answerBytes: number;
  promptTokens?: number;
  answerTokens?: number;
}

const FILE_BLOCK = /<([A-Z][A-Z_]*FILE)\s+file_path="([^"]*)"\s*>([\s\S]*?)<\/\1>/g;

/** The files the parts carry as file blocks, and the attachments the event names, with their sizes. */
function carriedFiles(e: Extract<TraceEvent, { kind: 'ai' }>): CarriedFile[] {
  const out: CarriedFile[] = [];
  for (const p of e.parts) for (const m of p.content.matchAll(FILE_BLOCK)) out.push({ path: m[2]!, kind: m[1]!, bytes: byteSize(m[3]!) });
  // attachments (images, PDFs) when the runtime records them beside the parts
  const attachments = (e as { attachments?: unknown }).attachments;
  if (Array.isArray(attachments)) {
    for (const a of attachments as { path?: unknown; name?: unknown; bytes?: unknown; size?: unknown }[]) {
      const path = typeof a?.path === 'string' ? a.path : typeof a?.name === 'string' ? a.name : '?';
      const bytes = typeof a?.bytes === 'number' ? a.bytes : typeof a?.size === 'number' ? a.size : 0;
      out.push({ path, kind: 'attachment', bytes });
    }
  }
  return out;
}

/** A traced model call as the report shows it (sizes of the full texts; the texts themselves capped). */
export function aiView(e: Extract<TraceEvent, { kind: 'ai' }>): AiView {
  const parts = e.parts.map((p) => ({ role: p.role, cache: p.cache, bytes: byteSize(p.content), content: capped(p.content) }));
  return {
    agent: e.agent,
    model: e.model,
    task: e.task,
    ms: e.ms,
    parts,
    files: carriedFiles(e),
    promptBytes: parts.reduce((n, p) => n + p.bytes, 0),
    answer: capped(e.response),
    answerBytes: byteSize(e.response),
  };
}
