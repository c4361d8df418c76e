/**
 * `aip.code.comment_line(lang_ext, text)`: one comment line in the syntax of a file extension, with exactly
 * AIPack's small table (trimmed, case-insensitive; everything else, a leading "." included, gets `//`).
 */
import type { AipNamespaceFactory } from './types.ts';
import { reqStr } from './pure-args.ts';

function commentLine(langExt: string, text: string): string {
  switch (langExt.trim().toLowerCase()) {
    case 'lua':
    case 'sql':
      return `-- ${text}`;
    case 'html':
      return `<!-- ${text} -->`;
    case 'css':
    case 'pcss':
      return `/* ${text} */`;
    case 'py':
      return `# ${text}`;
    default:
      return `// ${text}`;
  }
}

function comment_line(langExt: unknown, text: unknown): string {
  return commentLine(reqStr(langExt, 'aip.code.comment_line', 'lang_ext'), reqStr(text, 'aip.code.comment_line', 'comment_content'));
}

export const code: AipNamespaceFactory = () => ({ comment_line });
