/**
 * The change text of `aip.file.save_changes`: SEARCH/REPLACE blocks applied as AIPack applies them
 * (aipack-ai/aipack src/support/text/change.rs), or a whole replacement when the text has no block.
 */
import { LuaError } from '../../engine/values.ts';

const SEARCH = '<<<<<<< SEARCH';
const DIVIDER = '=======';
const REPLACE = '>>>>>>> REPLACE';
const SEARCH_NOT_FOUND = 'Search block not found in content';

export interface FailedChange {
  search: string;
  replace: string;
  reason: string;
}

export interface ChangesInfo {
  changed_count: number;
  failed_changes?: FailedChange[];
}

/** SEARCH/REPLACE blocks of a change text; text outside blocks (other than blank lines) is an error. */
function parseChangeBlocks(changes: string, where: string): { search: string; replace: string }[] {
  const lines = changes.split('\n').map((l) => (l.endsWith('\r') ? l.slice(0, -1) : l));
  const blocks: { search: string; replace: string }[] = [];
  let state: 'out' | 'search' | 'replace' = 'out';
  let search: string[] = [];
  let replace: string[] = [];
  const malformed = (lineNo: number, what: string): never => {
    throw new LuaError(`aip.file.save_changes - Malformed change blocks for '${where}' at line ${lineNo}: ${what}`);
  };
  lines.forEach((line, i) => {
    const lineNo = i + 1;
    if (state === 'out') {
      if (line === SEARCH) {
        state = 'search';
        search = [];
      } else if (line.trim() !== '') {
        malformed(lineNo, `text outside a '${SEARCH}' ... '${REPLACE}' block: '${line}'`);
      }
    } else if (state === 'search') {
      if (line === DIVIDER) {
        state = 'replace';
        replace = [];
      } else if (line === SEARCH || line === REPLACE) {
        malformed(lineNo, `expected '${DIVIDER}' before '${line}'`);
      } else {
        search.push(line);
      }
    } else if (line === REPLACE) {
      blocks.push({ search: search.join('\n'), replace: replace.join('\n') });
      state = 'out';
    } else if (line === SEARCH) {
      malformed(lineNo, `expected '${REPLACE}' before a new '${SEARCH}'`);
    } else {
      replace.push(line);
    }
  });
  if (state !== 'out') malformed(lines.length, `unterminated block, expected '${state === 'search' ? DIVIDER : REPLACE}'`);
  return blocks;
}

/** Replaces the first occurrence; an empty replacement also takes one adjacent line break with it. */
function replaceFirst(content: string, search: string, replace: string): string | undefined {
  if (search === '') return undefined;
  const idx = content.indexOf(search);
  if (idx < 0) return undefined;
  let start = idx;
  let end = idx + search.length;
  if (replace === '') {
    if (content.startsWith('\r\n', end)) end += 2;
    else if (content[end] === '\n') end += 1;
    else if (content.slice(0, start).endsWith('\r\n')) start -= 2;
    else if (content[start - 1] === '\n') start -= 1;
  }
  return content.slice(0, start) + replace + content.slice(end);
}

/**
 * As AIPack applies changes (aipack-ai/aipack src/support/text/change.rs): no `<<<<<<< SEARCH` line -> the text replaces the whole content; else the blocks apply in
 * order to the progressively changed content (CRLF retry), misses collected.
 */
export function applyChanges(content: string, changes: string, where: string): { content: string; info: ChangesInfo } {
  const hasBlocks = changes.split('\n').some((l) => l === SEARCH || l === SEARCH + '\r');
  if (!hasBlocks) return { content: changes, info: { changed_count: 1 } };
  let out = content;
  let changed = 0;
  const failed: FailedChange[] = [];
  for (const { search, replace } of parseChangeBlocks(changes, where)) {
    let next = replaceFirst(out, search, replace);
    if (next === undefined && out.includes('\r\n')) {
      next = replaceFirst(out, search.replace(/\n/g, '\r\n'), replace.replace(/\n/g, '\r\n'));
    }
    if (next === undefined) {
      failed.push({ search, replace, reason: SEARCH_NOT_FOUND });
    } else {
      out = next;
      changed++;
    }
  }
  const info: ChangesInfo = { changed_count: changed };
  if (failed.length > 0) info.failed_changes = failed;
  return { content: out, info };
}
