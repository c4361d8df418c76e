/**
 * Files attached to an AI request (`aip.flow.data_response{ attachments = ... }`), sent as AIPack sends them
 * (aipack-ai/aipack src/run/proc_ai.rs `build_chat_messages`): one user message per attachment, before the prompt
 * parts, made of a text part (the path as given, the file name, the title when there is one) and then the file.
 * `file_source` is resolved as AIPack resolves any path (workspace-relative, `~/`, absolute, `ns@pack/...`); a path
 * that cannot be resolved or read becomes a text message naming it, and the request is still sent.
 */
import nodePath from 'node:path';
import { isPlainObject } from '../engine/values.ts';
import type { AttachmentSent } from '../aip/support/trace.ts';
import type { Vfs } from '../support/vfs.ts';

/** One attachment message: the text part, and the file when it could be read. */
export interface AttachmentMessage {
  role: 'user';
  /** the text part (the whole message when the file could not be attached) */
  content: string;
  cache: false;
  attachment?: AttachmentSent;
}

const MIME: Record<string, { kind: AttachmentSent['kind']; mime: string }> = {
  png: { kind: 'image', mime: 'image/png' },
  jpg: { kind: 'image', mime: 'image/jpeg' },
  jpeg: { kind: 'image', mime: 'image/jpeg' },
  gif: { kind: 'image', mime: 'image/gif' },
  webp: { kind: 'image', mime: 'image/webp' },
  pdf: { kind: 'pdf', mime: 'application/pdf' },
};

/** The kind and media type a file is sent as, from its extension (AIPack's content part does the same). */
export function attachmentKind(path: string): { kind: AttachmentSent['kind']; mime: string } {
  const ext = nodePath.extname(path).slice(1).toLowerCase();
  return MIME[ext] ?? { kind: 'file', mime: 'application/octet-stream' };
}

/**
 * The message of one attachment. `resolve` turns a path into an absolute one as AIPack does (it throws, with the
 * cause, for a path it cannot resolve, such as a pack that is not installed).
 */
export function attachmentMessage(deps: { vfs: Vfs; resolve: (path: string) => string }, raw: unknown): AttachmentMessage {
  const att = isPlainObject(raw) ? raw : {};
  const source = typeof att.file_source === 'string' ? att.file_source : String(att.file_source);
  let abs: string;
  try {
    abs = deps.resolve(source);
  } catch (err) {
    return { role: 'user', cache: false, content: `Error while attaching file '${source}'\nCause: ${(err as Error).message}` };
  }
  const bytes = deps.vfs.isFile(abs) ? deps.vfs.readBytes(abs) : undefined;
  if (bytes === undefined) {
    return {
      role: 'user',
      cache: false,
      content: `Error while attaching file '${abs}'\nCause: Cannot read file '${abs}': No such file or directory (os error 2)`,
    };
  }
  const name = typeof att.file_name === 'string' ? att.file_name : nodePath.basename(abs);
  const title = typeof att.title === 'string' ? att.title : undefined;
  let text = `Here is file attachment.\nFile Path: '${source}'\nFile Name: '${name}'\n`;
  if (title !== undefined) text += `\nFile Title: ${title}`;
  text += '\n';
  const { kind, mime } = attachmentKind(abs);
  return {
    role: 'user',
    cache: false,
    content: text,
    attachment: { source, name, ...(title !== undefined ? { title } : {}), kind, mime, size: bytes.length },
  };
}
