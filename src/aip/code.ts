/**
 * `aip.code.comment_line(lang_ext, text)`: one comment line in the syntax of a file extension, with exactly
 * AIPack's small table (trimmed, case-insensitive; everything else, a leading "." included, gets `//`).
 */
import type { AipNamespaceFactory } from './types.ts';
import { withArgChecks } from './arg-checks.ts';
import { sharedNamespace } from './shared-namespace.ts';

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

const CODE = withArgChecks('code', { comment_line: commentLine });

export const code: AipNamespaceFactory = sharedNamespace(CODE);
