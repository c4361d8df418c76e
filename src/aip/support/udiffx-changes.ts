/**
 * The `<FILE_CHANGES>` envelope read by `aip.udiffx.apply_file_changes`: the first block of an answer and its
 * FILE_NEW / FILE_PATCH / FILE_APPEND / FILE_COPY / FILE_RENAME / FILE_DELETE directives, with the udiffx crate's
 * rules (0.2.x): tags found as `aip.tag` finds them, a directive missing an attribute becomes a failed item, and a
 * body loses one leading newline and a code fence wrapped around it.
 */
import { extractTags, type TagElem } from '../tag.ts';

export type Directive =
  | { kind: 'New' | 'Patch' | 'Append'; file_path: string; content: string }
  | { kind: 'Copy' | 'Rename'; from_path: string; to_path: string }
  | { kind: 'Delete'; file_path: string }
  | { kind: 'Fail'; tag: string; file_path?: string; error_msg: string };

const DIRECTIVE_TAGS = ['FILE_NEW', 'FILE_PATCH', 'FILE_APPEND', 'FILE_COPY', 'FILE_RENAME', 'FILE_DELETE'];

/** A directive body: one leading newline dropped, and the inside of a ``` fence wrapped around the whole of it. */
export function directiveBody(raw: string): string {
  const text = raw.startsWith('\n') ? raw.slice(1) : raw;
  const start = text.trimStart();
  const nl = start.indexOf('\n');
  if (!start.startsWith('```') || nl < 0) return text;
  const inner = start.slice(nl + 1);
  const end = inner.trimEnd();
  if (!end.endsWith('```')) return text;
  const lastNl = end.lastIndexOf('\n');
  if (lastNl >= 0 && end.slice(lastNl + 1).trimStart().startsWith('```')) {
    const content = inner.slice(0, lastNl + 1);
    return content.startsWith('\n') ? content.slice(1) : content;
  }
  if (end.trimStart().startsWith('```')) return '';
  return text;
}

function directiveOf(elem: TagElem): Directive {
  const attrs = elem.attrs ?? {};
  const need = (name: string): string => {
    const v = attrs[name];
    if (v === undefined) throw new Error(`Missing attribute '${name}' for tag '${elem.tag}'`);
    return v;
  };
  try {
    switch (elem.tag) {
      case 'FILE_NEW':
        return { kind: 'New', file_path: need('file_path'), content: directiveBody(elem.content) };
      case 'FILE_PATCH':
        return { kind: 'Patch', file_path: need('file_path'), content: directiveBody(elem.content) };
      case 'FILE_APPEND':
        return { kind: 'Append', file_path: need('file_path'), content: directiveBody(elem.content) };
      case 'FILE_COPY':
        return { kind: 'Copy', from_path: need('from_path'), to_path: need('to_path') };
      case 'FILE_RENAME':
        return { kind: 'Rename', from_path: need('from_path'), to_path: need('to_path') };
      case 'FILE_DELETE':
        return { kind: 'Delete', file_path: need('file_path') };
      default:
        throw new Error(`Unknown directive tag '${elem.tag}'`);
    }
  } catch (e) {
    const fail: Directive = { kind: 'Fail', tag: elem.tag, error_msg: (e as Error).message };
    const path = attrs.file_path ?? attrs.to_path ?? attrs.from_path;
    if (path !== undefined) fail.file_path = path;
    return fail;
  }
}

/** The directives of the first `<FILE_CHANGES>` block ([] when there is none) and the text outside the blocks. */
export function extractFileChanges(content: string): { directives: Directive[]; rest: string } {
  const { elems, rest } = extractTags(content, ['FILE_CHANGES']);
  if (elems.length === 0) return { directives: [], rest };
  const inner = extractTags(elems[0].content, DIRECTIVE_TAGS);
  return { directives: inner.elems.map(directiveOf), rest };
}
